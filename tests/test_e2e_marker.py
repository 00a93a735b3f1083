"""The ``e2e`` marker is enforced: a test without it cannot start a browser or a server, but can start
other processes (the guard lives in ``tests/conftest.py``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from playwright.async_api import async_playwright

from tests.support.e2e import starts_browser_or_server


@pytest.mark.anyio
async def test_unmarked_test_cannot_start_playwright() -> None:
    with pytest.raises(RuntimeError, match="not marked e2e"):
        async with async_playwright():
            pass


def test_unmarked_test_cannot_start_the_server() -> None:
    with pytest.raises(RuntimeError, match="not marked e2e"):
        subprocess.run([sys.executable, "-m", "browser_ctx", "--version"], check=False)


def test_unmarked_test_may_start_other_processes() -> None:
    done = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "42"


def test_what_counts_as_a_browser_or_server() -> None:
    assert starts_browser_or_server(["/usr/bin/chromium", "--headless"])
    assert starts_browser_or_server(["/x/playwright/driver/node", "/x/playwright/driver/package/cli.js", "run-driver"])
    assert starts_browser_or_server([".venv/bin/browser-ctx", "serve"])
    assert starts_browser_or_server(["python3", "-m", "browser_ctx", "serve"])
    assert starts_browser_or_server(["python3", "-m", "bench.event_tokens"])
    # Tools that merely read our files are not browsers: a syntax check of page-side JavaScript.
    assert not starts_browser_or_server(["node", "--check", "browser_ctx/browser/js/walk.js"])
    assert not starts_browser_or_server(["python3", "-c", "import browser_ctx"])
    assert not starts_browser_or_server([])
