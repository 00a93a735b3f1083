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

import httpx2
import pytest

from browser_ctx._errors import BrowserLaunchError
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.remote import RemoteBrowser, explain_connect_error
from browser_ctx.settings import LaunchSettings
from tests.support.client import mcp_session, result_text
from tests.test_faults import one_line_error
from tests.test_http_transport import TOKEN, _as_client, health, http_server, wait_health

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
def browser_server(port: int = 0, *args: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """``browser-ctx browser-server`` on 127.0.0.1 (the README's pool recipe); yields (process, ws endpoint)."""
    proc = subprocess.Popen([sys.executable, "-m", "browser_ctx", "browser-server", "--port", str(port),
                             "--offline-external", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"ws://\S+/", line)
        assert m, f"browser-server said {line!r}"
        yield proc, m.group(0)
    finally:
        kill_group(proc)


def test_remote_browser_validates_endpoints():
    with pytest.raises(ValueError):
        RemoteBrowser(LaunchSettings())
    with pytest.raises(ValueError):
        RemoteBrowser(LaunchSettings(cdp_endpoint="http://a:1", ws_endpoint="ws://a:2"))
    with pytest.raises(ValueError, match="ws"):
        RemoteBrowser(LaunchSettings(ws_endpoint="http://127.0.0.1:3000/"))
    remote = RemoteBrowser(LaunchSettings(cdp_endpoint="http://user:pw@127.0.0.1:9222/?token=abc"))
    assert "pw" not in remote.label and "token" not in remote.label and "127.0.0.1:9222" in remote.label


def test_connect_errors_name_cause_and_fix():
    label = "the browser at ws://pool:3000/"
    missing = ("BrowserType.connect: Executable doesn't exist at /root/.cache/ms-playwright/chromium_headless_shell-1/"
               "chrome-headless-shell\n╔══╗\n║ Looks like Playwright was just installed ║")
    why, retry = explain_connect_error(label, missing)
    assert not retry and "browser-ctx browser-server" in why and "chrome-headless-shell" in why and "╔" not in why
    why, retry = explain_connect_error(label, "WebSocket error: ws://pool:3000/ 401 Unauthorized\nCall log: …")
    assert not retry and "401 Unauthorized" in why and "Authorization: Bearer" in why and "Call log" not in why
    why, retry = explain_connect_error(label, "WebSocket error: ws://pool:3000/ 503 Service Unavailable")
    assert retry and "--max-clients" in why
    why, retry = explain_connect_error(label, "WebSocket error: connect ECONNREFUSED 10.0.0.5:3000\nCall log:")
    assert retry and why.startswith("Nothing answers at the browser at ws://pool:3000/")
    assert explain_connect_error(label, "something else")[1]


async def test_a_refused_connection_makes_the_provider_unavailable_for_a_while():
    """An endpoint that answers TCP but refuses the connection (a wrong token) is not "available": a balancer
    reading /healthz keeps the server out of rotation instead of sending it calls that all fail."""
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):  # the TCP probe sends nothing
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
        writer.close()

    listener = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    remote = RemoteBrowser(LaunchSettings(ws_endpoint=f"ws://127.0.0.1:{port}/", connect_timeout_ms=5000))
    try:
        assert await remote.available()  # TCP answers, nothing tried yet
        with pytest.raises(BrowserLaunchError, match="refused the connection .*401"):
            await remote.open_context({})
        assert remote.attempts == 1  # a refused token is not retried
        assert not await remote.available()
        assert "401" in (remote.failed_recently() or "")
    finally:
        await remote.close()
        listener.close()


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


def cdp_tabs(port: int) -> list[str]:
    """URLs of the page targets open in the CDP browser on ``port``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
        return [t["url"] for t in json.loads(r.read()) if t.get("type") == "page"]


async def test_cdp_endpoint_leaves_the_users_tabs_alone_reads_acts_and_reconnects(fault_site: str):
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    users = f"{fault_site}/who.html?name=preexisting"
    with chromium_with_debugging(port, users) as chrome:
        async with mcp_session("--cdp-endpoint", endpoint) as s:
            # The user's tab is listed, but we work in a tab we opened: navigating leaves theirs where it was.
            await _read_and_act(s, fault_site)
            tabs = result_text(await s.call_tool("browser_tabs", {"action": "list"}))
            assert "who.html?name=preexisting" in tabs and "counter.html" in tabs, tabs
            assert users in cdp_tabs(port), cdp_tabs(port)

            # Selected explicitly, the user's tab can be read; closing it is refused in one line.
            assert not (await s.call_tool("browser_tabs", {"action": "select", "index": 0})).is_error
            who = await s.call_tool("browser_text", {"target": "#who"})
            assert "I am preexisting" in result_text(who), result_text(who)
            err = one_line_error(await s.call_tool("browser_tabs", {"action": "close", "index": 0}), "close user tab")
            assert "never closes it" in err, err
            assert users in cdp_tabs(port), cdp_tabs(port)

            # Connection loss: the browser goes away; the next call reports it after retrying with backoff.
            kill_group(chrome)
            started = time.monotonic()
            err = await loss_reported(s)
            failed_after = time.monotonic() - started
            assert f"127.0.0.1:{port}" in err and "4 attempts" in err and "Nothing answers" in err, err

            # The browser is back on the same port: the next call reconnects and says so.
            with chromium_with_debugging(port, f"{fault_site}/who.html?name=reborn"):
                started = time.monotonic()
                back = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=ours"})
                reconnect_s = time.monotonic() - started
                assert not back.is_error and "Lost the connection" in result_text(back), result_text(back)
                await _read_and_act(s, fault_site)
                assert any("name=reborn" in u for u in cdp_tabs(port)), cdp_tabs(port)
            print(f"\nCDP connection loss: reported after {failed_after:.2f} s (4 attempts with backoff); "
                  f"reconnected in {reconnect_s:.2f} s once the browser was back")


async def test_cdp_session_end_closes_only_our_tabs(fault_site: str):
    port = free_port()
    users = f"{fault_site}/who.html?name=mine"
    with chromium_with_debugging(port, users):
        async with mcp_session("--cdp-endpoint", f"http://127.0.0.1:{port}") as s:
            nav = await s.call_tool("browser_navigate", {"url": f"{fault_site}/counter.html"})
            assert not nav.is_error, result_text(nav)
            assert sorted(cdp_tabs(port)) == sorted([users, f"{fault_site}/counter.html"]), cdp_tabs(port)
        deadline = time.monotonic() + 10
        while cdp_tabs(port) != [users] and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert cdp_tabs(port) == [users], cdp_tabs(port)  # ours closed, theirs untouched


async def test_ws_endpoint_browser_server(fault_site: str):
    port = free_port()
    with browser_server(port) as (server, endpoint):
        async with mcp_session("--ws-endpoint", endpoint) as s:
            await _read_and_act(s, fault_site)
            kill_group(server)
            err = await loss_reported(s)
            assert "4 attempts" in err and endpoint.rstrip("/") in err, err
            with browser_server(port):
                back = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=ws"})
                assert not back.is_error and "Lost the connection" in result_text(back), result_text(back)
                await _read_and_act(s, fault_site)


async def test_playwright_run_server_without_its_browser_names_the_fix():
    """The error of `playwright run-server` on a host without Playwright's own browser names cause and fix."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port",
                             str(port)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout is not None and "ws://" in proc.stdout.readline()
        async with mcp_session("--ws-endpoint", f"ws://127.0.0.1:{port}/") as s:
            started = time.monotonic()
            err = one_line_error(await s.call_tool("browser_navigate", {"url": "http://127.0.0.1:1/"}), "no browser")
            took = time.monotonic() - started
        if "attempts" in err and "Executable" not in err:
            pytest.skip("Playwright's own browser is installed here, so run-server works")
        assert "without a browser it can launch" in err and "browser-ctx browser-server" in err, err
        assert took < 10, f"not retried: {took:.1f} s"
    finally:
        kill_group(proc)


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
    """Several HTTP clients, one remote browser (behind a token): each client gets its own context in it (N servers
    can share a pool of browser servers the same way); /healthz turns 503 while the browser server is down."""
    port = free_port()
    auth = f"Authorization: Bearer {TOKEN}"
    with browser_server(port, "--auth-token", TOKEN) as (pool, endpoint):
        async with http_server("--ws-endpoint", endpoint, "--remote-header", auth, "--auth-token", TOKEN) as server:
            alpha, bravo = await asyncio.gather(_as_client(server.url, fault_site, "alpha", 4),
                                                _as_client(server.url, fault_site, "bravo", 4))
            assert all("I am alpha" in t for t in alpha) and all("I am bravo" in t for t in bravo), (alpha, bravo)
            await wait_health(server, lambda h: h["sessions"] == 0 and h["contexts"] == 0, "after the clients left")
            assert (await health(server))["browser"] == "up"
            kill_group(pool)
            async with httpx2.AsyncClient() as c:
                deadline = time.monotonic() + 30
                while (r := await c.get(f"{server.base}/healthz")).status_code != 503:
                    assert time.monotonic() < deadline, r.status_code
                    await asyncio.sleep(0.2)
                assert r.json() == {"status": "unavailable"}, r.json()
            with browser_server(port, "--auth-token", TOKEN):
                await wait_health(server, lambda h: h["status"] == "ok", "browser server back")
                again = await _as_client(server.url, fault_site, "carol", 2)
                assert all("I am carol" in t for t in again), again
