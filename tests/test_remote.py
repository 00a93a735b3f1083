"""Connecting instead of launching: a real Chromium started with ``--remote-debugging-port`` (``--cdp-endpoint``)
and a real Playwright browser server, ``python -m playwright run-server`` (``--ws-endpoint``), each driven
through the stdio server with read and action tools; connection loss is reported, retried with backoff, and
recovered from once the browser is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator

import pytest

from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.remote import RemoteBrowser
from browser_ctx.settings import LaunchSettings
from tests.support.client import mcp_session, result_text
from tests.test_faults import one_line_error

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

LAUNCH = LaunchSettings(offline_external=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def chromium_with_debugging(port: int, url: str) -> Iterator[subprocess.Popen]:
    """A headless Chromium listening for CDP on ``port`` with one tab open at ``url``; killed (whole group) at exit."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [find_executable(LAUNCH), "--headless", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
             *chromium_args(LAUNCH), url],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            # Chromium writes DevToolsActivePort only for --remote-debugging-port=0; with a fixed port (needed to
            # restart on the same endpoint) ask the endpoint itself.
            deadline = time.monotonic() + 90
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=5) as r:
                        assert "webSocketDebuggerUrl" in json.loads(r.read())
                    break
                except OSError:
                    assert proc.poll() is None, "chromium exited at start"
                    assert time.monotonic() < deadline, f"no CDP endpoint on port {port} after 90 s"
                    time.sleep(0.2)
            yield proc
        finally:
            kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


@contextlib.contextmanager
def playwright_server(port: int = 0) -> Iterator[tuple[subprocess.Popen, str]]:
    """``python -m playwright run-server`` on 127.0.0.1; yields (process, ws endpoint)."""
    proc = subprocess.Popen([sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1",
                             "--port", str(port), "--unsafe"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"ws://\S+", line)
        assert m, f"run-server said {line!r}"
        yield proc, m.group(0)
    finally:
        kill_group(proc)


def launch_options_header() -> str:
    """What the Playwright server should launch: our Chromium, headless, with our flags (offline rules)."""
    options = {"executablePath": find_executable(LAUNCH), "headless": True, "args": chromium_args(LAUNCH)}
    return "x-playwright-launch-options: " + json.dumps(options)


def test_remote_browser_validates_endpoints():
    with pytest.raises(ValueError):
        RemoteBrowser(LaunchSettings())
    with pytest.raises(ValueError):
        RemoteBrowser(LaunchSettings(cdp_endpoint="http://a:1", ws_endpoint="ws://a:2"))
    with pytest.raises(ValueError, match="ws"):
        RemoteBrowser(LaunchSettings(ws_endpoint="http://127.0.0.1:3000/"))
    remote = RemoteBrowser(LaunchSettings(cdp_endpoint="http://user:pw@127.0.0.1:9222/?token=abc"))
    assert "pw" not in remote.label and "token" not in remote.label and "127.0.0.1:9222" in remote.label


async def loss_reported(s) -> str:
    """After the remote browser went away: the first call fails in one line (the loss may be noticed only
    while it runs); by the next one at the latest, the reconnection attempts are reported. Returns that error."""
    for _ in range(2):
        err = one_line_error(await s.call_tool("browser_snapshot", {"force": True}), "snapshot, browser gone")
        if "attempts" in err:
            return err
        assert "closed" in err, err
    raise AssertionError(f"the lost connection was never reported: {err}")


async def _read_and_act(s, site: str) -> None:
    """The read and action tools, through whatever browser the server is connected to."""
    nav = await s.call_tool("browser_navigate", {"url": f"{site}/counter.html"})
    assert not nav.is_error and nav.structured_content["status"] == 200, result_text(nav)
    snap = await s.call_tool("browser_snapshot", {})
    assert not snap.is_error and "add one" in result_text(snap), result_text(snap)
    click = await s.call_tool("browser_click", {"target": "#inc"})
    assert not click.is_error, result_text(click)
    verify = await s.call_tool("browser_verify", {"target": "#n", "text": "count 1"})
    assert result_text(verify).startswith("PASS"), result_text(verify)
    text = await s.call_tool("browser_text", {"target": "#n", "force": True})
    assert "count 1" in result_text(text), result_text(text)


async def test_cdp_endpoint_adopts_tabs_reads_acts_and_reconnects(fault_site: str):
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with chromium_with_debugging(port, f"{fault_site}/who.html?name=preexisting") as chrome:
        async with mcp_session("--cdp-endpoint", endpoint) as s:
            # The tab that was open before we connected is listed and is the current tab.
            tabs = result_text(await s.call_tool("browser_tabs", {"action": "list"}))
            assert "who.html?name=preexisting" in tabs, tabs
            who = await s.call_tool("browser_text", {"target": "#who"})
            assert "I am preexisting" in result_text(who), result_text(who)

            # Our own work happens in a new tab, so the adopted one stays as it was.
            opened = await s.call_tool("browser_tabs", {"action": "new"})
            assert not opened.is_error, result_text(opened)
            await _read_and_act(s, fault_site)

            # Connection loss: the browser goes away; the next call reports it after retrying with backoff.
            kill_group(chrome)
            started = time.monotonic()
            err = await loss_reported(s)
            failed_after = time.monotonic() - started
            assert f"127.0.0.1:{port}" in err and "4 attempts" in err, err

            # The browser is back on the same port: the next call reconnects and says so.
            with chromium_with_debugging(port, f"{fault_site}/who.html?name=reborn"):
                started = time.monotonic()
                back = await s.call_tool("browser_text", {"target": "#who"})
                reconnect_s = time.monotonic() - started
                assert not back.is_error, result_text(back)
                assert "Lost the connection" in result_text(back) and "I am reborn" in result_text(back)
                await _read_and_act(s, fault_site)
            print(f"\nCDP connection loss: reported after {failed_after:.2f} s (4 attempts with backoff); "
                  f"reconnected in {reconnect_s:.2f} s once the browser was back")
        # We never close tabs we did not open: a fresh browser shows that only our work ends with us.


async def test_ws_endpoint_playwright_server(fault_site: str):
    header = launch_options_header()
    port = free_port()
    with playwright_server(port) as (server, endpoint):
        async with mcp_session("--ws-endpoint", endpoint, "--remote-header", header) as s:
            await _read_and_act(s, fault_site)
            kill_group(server)
            err = await loss_reported(s)
            assert "4 attempts" in err and endpoint.rstrip("/") in err, err
            with playwright_server(port):
                back = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=ws"})
                assert not back.is_error and "Lost the connection" in result_text(back), result_text(back)
                await _read_and_act(s, fault_site)


async def test_unreachable_endpoint_is_one_line():
    port = free_port()  # nothing listens there
    async with mcp_session("--cdp-endpoint", f"http://127.0.0.1:{port}", "--connect-timeout", "2000") as s:
        started = time.monotonic()
        err = one_line_error(await s.call_tool("browser_navigate", {"url": "http://127.0.0.1:1/"}), "no browser")
        took = time.monotonic() - started
        assert f"Could not connect to the browser at http://127.0.0.1:{port}" in err and "4 attempts" in err, err
        print(f"\nunreachable CDP endpoint: one-line error after {took:.2f} s")
        await asyncio.sleep(0)


async def test_http_sessions_share_one_remote_browser(fault_site: str):
    """Several HTTP clients, one remote browser: each client gets its own context in it (N servers can share a
    pool of browser servers the same way)."""
    from tests.test_http_transport import TOKEN, _as_client, health, http_server, wait_health

    with playwright_server() as (_server, endpoint):
        async with http_server("--ws-endpoint", endpoint, "--remote-header", launch_options_header(),
                               "--auth-token", TOKEN) as server:
            alpha, bravo = await asyncio.gather(_as_client(server.url, fault_site, "alpha", 4),
                                                _as_client(server.url, fault_site, "bravo", 4))
            assert all("I am alpha" in t for t in alpha) and all("I am bravo" in t for t in bravo), (alpha, bravo)
            await wait_health(server, lambda h: h["sessions"] == 0 and h["contexts"] == 0, "after the clients left")
            assert (await health(server))["browser"] == "up"
