"""``browser-ctx serve --transport http``: a real server subprocess and the SDK's streamable HTTP client.

Checks the Bearer token (401, nothing revealed), the local-only bind, /healthz, per-client isolation
(cookies, storage, tabs) under concurrent calls from several clients, idle expiry, --shared-context,
and that SIGTERM/SIGINT leave no Chromium behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from browser_ctx.server.http import (
    HttpOptions,
    check_bind,
    check_sdk,
    default_max_sessions,
    sdk_idle_timeout,
    security_settings,
)
from tests.support.client import TEST_SERVER_ARGS, result_text
from tests.test_faults import alive, chromium_below, processes_using, profiles_of

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOKEN = "s3cret-token-for-tests"


@dataclass
class HttpServer:
    proc: subprocess.Popen
    url: str  # http://127.0.0.1:PORT/mcp
    stderr_path: Path

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@contextlib.asynccontextmanager
async def http_server(*args: str, stop: signal.Signals = signal.SIGTERM) -> AsyncIterator[HttpServer]:
    """Start ``browser-ctx serve --transport http --port 0`` and yield it once it listens; stopped with ``stop``."""
    with tempfile.TemporaryDirectory() as tmp:
        err = Path(tmp, "stderr.txt")
        with open(err, "wb") as stderr:
            proc = subprocess.Popen([sys.executable, "-m", "browser_ctx", "serve", "--transport", "http",
                                     "--port", "0", *TEST_SERVER_ARGS, *args],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            deadline = time.monotonic() + 120
            while True:
                m = re.search(r"at (http://\S+/mcp)", err.read_text(errors="replace"))
                if m:
                    break
                assert proc.poll() is None, f"server exited: {err.read_text()[-2000:]}"
                assert time.monotonic() < deadline, "server did not start within 120 s"
                await asyncio.sleep(0.1)
            yield HttpServer(proc, m.group(1), err)
        finally:
            if proc.poll() is None:
                proc.send_signal(stop)
                try:
                    await asyncio.to_thread(proc.wait, 60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None = None) -> AsyncIterator[ClientSession]:
    """An initialised MCP client session over streamable HTTP (with a Bearer token if given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def health(server: HttpServer, token: str | None = TOKEN) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient() as c:
        r = await c.get(f"{server.base}/healthz", headers=headers)
    report = r.json()
    assert r.status_code == (200 if report["status"] == "ok" else 503), (r.status_code, report)
    return report


async def metrics(server: HttpServer, token: str | None = TOKEN) -> dict[str, float]:
    """``GET /metrics`` parsed into ``{'name{labels}': value}`` (comments dropped)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient() as c:
        r = await c.get(f"{server.base}/metrics", headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain"), r.status_code
    found = {}
    for line in r.text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            found[name] = float(value)
    return found


async def wait_health(server: HttpServer, pred, what: str, timeout: float = 60, token: str | None = TOKEN) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        h = await health(server, token)
        if pred(h):
            return h
        assert time.monotonic() < deadline, f"{what}: health stayed {h}"
        await asyncio.sleep(0.25)


def stop_and_count(server: HttpServer, how: signal.Signals) -> tuple[int, int, int]:
    """Signal the server, wait for it, and return (exit code, Chromium processes before, after)."""
    before = chromium_below(server.proc.pid)
    profiles = profiles_of(before)
    assert before and profiles, "no browser running before shutdown"
    server.proc.send_signal(how)
    code = server.proc.wait(60)
    time.sleep(0.5)
    left = {p for p in before if alive(p)} | set(processes_using(profiles))
    print(f"\nHTTP server shutdown by {how.name}: exit code {code}; Chromium processes before {len(before)}, "
          f"after {len(left)}")
    return code, len(before), len(left)


def test_bind_rules():
    check_bind(HttpOptions())
    check_bind(HttpOptions(host="localhost"))
    check_bind(HttpOptions(host="0.0.0.0", auth_token="t"))
    for bad in (HttpOptions(host="0.0.0.0"), HttpOptions(host="192.168.1.5"), HttpOptions(auth_token=" "),
                HttpOptions(idle_timeout=0)):
        with pytest.raises(ValueError):
            check_bind(bad)
    assert sdk_idle_timeout(1800) == 3600 and sdk_idle_timeout(5) == 65


def test_public_bind_without_token_is_refused():
    env = {k: v for k, v in os.environ.items() if k != "BROWSER_CTX_AUTH_TOKEN"}
    done = subprocess.run([sys.executable, "-m", "browser_ctx", "serve", "--transport", "http", "--host", "0.0.0.0",
                           "--port", "0"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done
    assert "refusing to bind 0.0.0.0" in done.stderr and "--auth-token" in done.stderr, done.stderr


async def _as_client(url: str, site: str, name: str, rounds: int) -> list[str]:
    """One agent: its own page, cookie and storage, read back many times while the other agent does the same."""
    seen = []
    async with http_client(url, TOKEN) as s:
        for _ in range(2):  # the second load shows what the first one stored
            nav = await s.call_tool("browser_navigate", {"url": f"{site}/who.html?name={name}"})
            assert not nav.is_error, result_text(nav)
        store = result_text(await s.call_tool("browser_text", {"target": "#store"}))
        assert "storage mine; cookie mine" in store, (name, store)
        for i in range(rounds):
            target = "#who" if i % 2 else "h1"
            r = await s.call_tool("browser_text", {"target": target, "force": True})
            assert not r.is_error, result_text(r)
            seen.append(result_text(r))
        tabs = result_text(await s.call_tool("browser_tabs", {"action": "list"}))
        assert tabs.count("\n- ") == 0 and f"name={name}" in tabs, tabs  # one tab: its own
    return seen


async def test_token_isolation_idle_and_sigterm(fault_site: str):
    async with http_server("--auth-token", TOKEN, "--idle-timeout", "6") as server:
        # The token: missing, wrong or malformed gets a bare 401 on every path; nothing else is revealed.
        async with httpx2.AsyncClient() as c:
            answers = [
                await c.get(f"{server.base}/metrics"),
                await c.get(f"{server.base}/metrics", headers={"Authorization": "Bearer wrong"}),
                await c.get(f"{server.base}/metrics", headers={"Authorization": TOKEN}),
                await c.get(f"{server.base}/metrics", headers={"Authorization": f"Basic {TOKEN}"}),
                await c.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
                await c.get(f"{server.base}/no-such-path"),
            ]
            # The health paths answer without the token (balancers), with the status word only.
            open_answers = [await c.get(f"{server.base}/healthz"), await c.get(f"{server.base}/livez"),
                            await c.get(f"{server.base}/healthz", headers={"Authorization": "Bearer wrong"})]
        for r in answers:
            assert r.status_code == 401 and r.content == b"", (r.status_code, r.content)
            assert r.headers.get("www-authenticate") == "Bearer"
            assert "server" not in r.headers and "uvicorn" not in str(r.headers).lower()
        for r in open_answers:
            assert r.status_code == 200 and r.json() == {"status": "ok"}, (r.status_code, r.content)
        with pytest.raises(ExceptionGroup) as refused:
            async with http_client(server.url, "wrong"):
                pass
        assert refused.group_contains(MCPError), refused.value

        h = await health(server)
        assert h == {"status": "ok", "browser": "down", "sessions": 0, "contexts": 0, "tabs": 0,
                     "mode": "per-session", "protocolSessions": 0, "maxSessions": default_max_sessions()}, h

        # Two agents at once: each sees only its own page, cookie and storage, in every result.
        alpha, bravo = await asyncio.gather(_as_client(server.url, fault_site, "alpha", 8),
                                            _as_client(server.url, fault_site, "bravo", 8))
        for mine, theirs, seen in (("alpha", "bravo", alpha), ("bravo", "alpha", bravo)):
            assert all(f"I am {mine}" in t and theirs not in t for t in seen), seen
        # Both clients ended (DELETE): their contexts are closed, the shared browser stays up.
        await wait_health(server, lambda h: h["sessions"] == 0 and h["contexts"] == 0, "after the clients left")

        # /metrics (token): calls by tool and outcome, latency, tokens, and the pool's gauges.
        m = await metrics(server)
        assert m['browser_ctx_tool_calls_total{outcome="ok",tool="browser_navigate"}'] == 4, m
        assert m['browser_ctx_tool_calls_total{outcome="ok",tool="browser_text"}'] == 18, m
        assert m['browser_ctx_tool_call_seconds_count{tool="browser_text"}'] == 18, m
        assert m['browser_ctx_tokens_returned_total{tool="browser_text"}'] > 18 * 10, m
        assert m["browser_ctx_sessions"] == 0 and m["browser_ctx_contexts"] == 0 and m["browser_ctx_tabs"] == 0, m
        assert m["browser_ctx_browser_up"] == 1 and m["browser_ctx_browser_reconnects_total"] == 0, m
        assert not any("who.html" in k or "alpha" in k for k in m), "page data in a metric label"

        # Idle expiry: a client that stays connected but silent loses its context, and is told so.
        async with http_client(server.url, TOKEN) as s:
            assert not (await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=idle"})).is_error
            h = await health(server)
            assert h["sessions"] == 1 and h["contexts"] == 1 and h["browser"] == "up", h
            await wait_health(server, lambda h: h["sessions"] == 0 and h["contexts"] == 0, "idle expiry", timeout=90)
            again = await s.call_tool("browser_snapshot", {})
            assert not again.is_error and "no call for 6 s" in result_text(again), result_text(again)
            assert "no call for" not in result_text(await s.call_tool("browser_snapshot", {"force": True}))
            assert (await health(server))["sessions"] == 1

        code, before, after = stop_and_count(server, signal.SIGTERM)
        assert after == 0 and code == 0, (code, before, after, server.stderr()[-2000:])
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]


def test_sdk_private_connection_is_where_we_read_it():
    """browser-ctx reads the SDK's private ServerSession._connection in one place; a new SDK that moves it fails
    here (and at server start), not silently (sessions would never be closed)."""
    check_sdk()


def test_allowed_hosts_settings():
    local = security_settings(HttpOptions())
    assert local.enable_dns_rebinding_protection and "127.0.0.1:*" in local.allowed_hosts
    extra = security_settings(HttpOptions(allowed_hosts=("mcp.example.test", "b.example.test:8443")))
    assert {"mcp.example.test", "mcp.example.test:*", "b.example.test:8443"} <= set(extra.allowed_hosts)
    assert "b.example.test:8443:*" not in extra.allowed_hosts and "localhost:*" in extra.allowed_hosts
    public = security_settings(HttpOptions(host="0.0.0.0", auth_token="t", allowed_hosts=("mcp.example.test",)))
    assert public.allowed_hosts == ["mcp.example.test", "mcp.example.test:*"]
    assert not security_settings(HttpOptions(host="0.0.0.0", auth_token="t")).enable_dns_rebinding_protection
    for bad in ("http://x", "a b", ":80", ""):
        with pytest.raises(ValueError):
            check_bind(HttpOptions(allowed_hosts=(bad,)))


async def test_shared_context_and_sigint(fault_site: str):
    async with http_server("--shared-context", "--allowed-hosts", "mcp.example.test", "--access-log",
                           stop=signal.SIGINT) as server:
        # Host: the proxy's public name is accepted once listed; any other name gets 421.
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}}
        hdrs = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as c:
            listed = await c.post(server.url, json=init, headers={**hdrs, "Host": "mcp.example.test"})
            other = await c.post(server.url, json=init, headers={**hdrs, "Host": "evil.example.test"})
        assert listed.status_code == 200, (listed.status_code, listed.text[:200])
        assert other.status_code == 421, other.status_code
        async with http_client(server.url) as a, http_client(server.url) as b:
            assert not (await a.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=alpha"})).is_error
            seen_by_b = result_text(await b.call_tool("browser_text", {"target": "#who"}))
            assert "I am alpha" in seen_by_b, seen_by_b
            h = await health(server, None)
            assert h["mode"] == "shared" and h["sessions"] == 2 and h["contexts"] == 1 and h["browser"] == "up", h
        code, before, after = stop_and_count(server, signal.SIGINT)
        assert after == 0 and code == 0, (code, before, after, server.stderr()[-2000:])
        assert "Traceback" not in server.stderr() and "KeyboardInterrupt" not in server.stderr(), server.stderr()
        # The access log: one line per request and per call, no page data.
        log = server.stderr()
        assert re.search(r"access: .* POST /mcp 200 \d+ms session=\w{8}", log), log[-2000:]
        assert re.search(r"call tool=browser_navigate outcome=ok ms=\d+ tokens=\d+ session=\w{8}", log), log[-2000:]
        assert "who.html" not in log and "alpha" not in log, log[-2000:]
