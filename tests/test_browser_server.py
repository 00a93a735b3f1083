"""``browser-ctx browser-server``: the system Chromium behind a Playwright server, guarded by a token and
``--max-clients``, restarted when it dies, and gone when the command stops."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright

from browser_ctx.browser.browser_server import BrowserServerOptions, check_options
from tests.test_faults import alive, chromium_below

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOKEN = "pool-token-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def pool(*args: str) -> Iterator[tuple[subprocess.Popen, int]]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "browser_ctx", "browser-server", "--port", str(port),
                             "--offline-external", *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert f"ws://127.0.0.1:{port}/" in line, line
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:  # noqa: S310 - localhost only
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_options_are_checked():
    check_options(BrowserServerOptions())
    check_options(BrowserServerOptions(host="0.0.0.0", auth_token="t", max_clients=0))
    for bad in (BrowserServerOptions(host="0.0.0.0"), BrowserServerOptions(auth_token=" "),
                BrowserServerOptions(max_clients=-1)):
        with pytest.raises(ValueError):
            check_options(bad)
    done = subprocess.run([sys.executable, "-m", "browser_ctx", "browser-server", "--host", "0.0.0.0"],
                          capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and "--auth-token" in done.stderr, done.stderr


async def test_token_max_clients_restart_and_shutdown():
    with pool("--auth-token", TOKEN, "--max-clients", "1") as (proc, port):
        endpoint = f"ws://127.0.0.1:{port}/"
        assert get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
        assert get(f"http://127.0.0.1:{port}/")[0] == 401  # no token: nothing but health
        async with async_playwright() as pw:
            with pytest.raises(PlaywrightError, match="401"):
                await pw.chromium.connect(endpoint, headers={"Authorization": "Bearer wrong"}, timeout=10_000)
            browser = await pw.chromium.connect(endpoint, headers=AUTH, timeout=10_000)
            page = await (await browser.new_context()).new_page()
            await page.set_content("<h1>pooled</h1>")
            assert await page.inner_text("h1") == "pooled"
            # One slot: a second client is turned away with 503 while the first is connected.
            with pytest.raises(PlaywrightError, match="503"):
                await pw.chromium.connect(endpoint, headers=AUTH, timeout=10_000)
            await browser.close()
            await asyncio.sleep(0.3)

            # Chromium dies: a new one is started behind the same endpoint.
            first = chromium_below(proc.pid)
            assert first
            for pid in first:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while True:
                fresh = [p for p in chromium_below(proc.pid) if p not in first]
                if fresh and get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                    break
                assert time.monotonic() < deadline, "no new Chromium after the old one was killed"
                await asyncio.sleep(0.2)
            browser = await pw.chromium.connect(endpoint, headers=AUTH, timeout=10_000)
            page = await (await browser.new_context()).new_page()
            await page.set_content("<h1>again</h1>")
            assert await page.inner_text("h1") == "again"
            await browser.close()
        running = chromium_below(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        time.sleep(0.5)
        assert not [p for p in running if alive(p)], "Chromium outlived browser-server"
