"""The ``e2e`` marker is enforced: a test without it cannot start a browser or a server, but can start
other processes (the guard lives in ``tests/conftest.py``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from playwright.async_api import async_playwright


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
