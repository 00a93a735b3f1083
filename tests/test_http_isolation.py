"""HTTP clients are isolated from each other and bounded in number (issue 16 items 2 and 5).

Three clients of one ``browser-ctx serve --transport http`` server, at once: each saves its cookies with
``browser_evaluate {filename}``, cuts a page into a capture resource, and then tries to reach the others'
files, captures and resources. None crosses. A fourth client is turned away with ``503`` and ``Retry-After``
(``--max-sessions 3``), and ``/healthz`` counts the protocol sessions.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from browser_ctx.server.http import AUTHORIZED, OPEN_PATHS, RETRY_AFTER_S, BearerAuth, default_max_sessions
from tests.support.client import result_text
from tests.test_http_transport import TOKEN, health, http_client, http_server, wait_health

pytestmark = [pytest.mark.anyio]

GIB = 1024 ** 3


def test_default_max_sessions_follows_memory():
    assert default_max_sessions(24 * GIB) == 24  # half of 24 GiB in 512 MiB sessions
    assert default_max_sessions(4 * GIB) == 4
    assert default_max_sessions(512 * 1024 ** 2) == 2  # never below 2
    assert default_max_sessions(1024 * GIB) == 64  # never above 64
    assert 2 <= default_max_sessions() <= 64  # this machine's


async def _client_round(url: str, site: str, name: str, tmp: Path) -> dict:
    """One client: its cookie saved to a file, a capture resource of its own page; returns what it made."""
    async with http_client(url, TOKEN) as s:
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        assert not nav.is_error, result_text(nav)
        await s.call_tool("browser_evaluate", {"function": f"() => {{ document.cookie = 'who={name}'; "
                                                           f"document.body.prepend('marker-{name} '); }}"})
        saved = await s.call_tool("browser_evaluate", {"function": "() => document.cookie",
                                                       "filename": "cookies.json"})
        assert not saved.is_error, result_text(saved)
        path = Path(saved.structured_content["path"])
        assert f"who={name}" in path.read_text()
        cut = await s.call_tool("browser_text", {"maxTokens": 200, "force": True})
        assert cut.structured_content["truncated"], result_text(cut)
        resources = [str(r.uri) for r in (await s.list_resources()).resources]
        assert resources, "a cut capture is a resource"
        # Wait for the others to have saved theirs, then try to reach them.
        (tmp / f"{name}.json").write_text(json.dumps({"path": str(path), "resources": resources}))
        for _ in range(600):
            if len(list(tmp.glob("*.json"))) == 3:
                break
            await asyncio.sleep(0.1)
        others = [json.loads(p.read_text()) for p in tmp.glob("*.json") if p.stem != name]
        assert len(others) == 2
        crossed = []
        for other in others:
            up = await s.call_tool("browser_file_upload", {"paths": [other["path"]]})
            if not up.is_error or "another client session's output folder" not in result_text(up):
                crossed.append(("upload", result_text(up)))
            over = await s.call_tool("browser_evaluate", {"function": "() => 'overwritten'",
                                                          "filename": other["path"]})
            if not over.is_error or "outside the output folder" not in result_text(over):
                crossed.append(("overwrite", result_text(over)))
            for uri in other["resources"]:
                try:
                    got = await s.read_resource(uri)
                except MCPError:
                    continue  # not one of this session's: refused
                text = " ".join(getattr(c, "text", "") for c in got.contents)
                if "marker-" in text and f"marker-{name}" not in text:
                    crossed.append(("resource", uri))
        mine = ""
        for tool in ("browser_text", "browser_snapshot"):
            mine += result_text(await s.call_tool(tool, {"force": True}))
        mine += result_text(await s.call_tool("browser_tabs", {"action": "list"}))
        mine += result_text(await s.call_tool("browser_console_messages", {"all": True}))
        mine += result_text(await s.call_tool("browser_evaluate", {"function": "() => document.cookie"}))
        for other_name in {"alpha", "bravo", "charlie"} - {name}:
            if other_name in mine:
                crossed.append(("page", other_name))
        return {"path": path, "crossed": crossed}


@pytest.mark.e2e
async def test_three_clients_share_no_file_capture_or_resource_and_a_fourth_waits(site: str, tmp_path: Path):
    out, handoff = tmp_path / "out", tmp_path / "handoff"
    handoff.mkdir()
    # The output folder sits inside the upload roots: the case where one client could upload another's file.
    async with http_server("--auth-token", TOKEN, "--max-sessions", "3", "--output-dir", str(out),
                           "--allowed-roots", str(tmp_path)) as server:
        h = await health(server)
        assert h["protocolSessions"] == 0 and h["maxSessions"] == 3, h
        rounds = await asyncio.gather(*(_client_round(server.url, site, name, handoff)
                                        for name in ("alpha", "bravo", "charlie")))
        assert [r["crossed"] for r in rounds] == [[], [], []]
        folders = {r["path"].parent for r in rounds}
        assert len(folders) == 3 and all(f.parent == (out / "sessions").resolve() for f in folders), folders

        await wait_health(server, lambda h: h["protocolSessions"] == 0, "the three clients ended")
        # Three sessions open: a fourth initialize gets 503 + Retry-After and opens nothing.
        async with http_client(server.url, TOKEN), http_client(server.url, TOKEN), http_client(server.url, TOKEN):
            assert (await health(server))["protocolSessions"] == 3
            async with httpx2.AsyncClient() as c:
                refused = await c.post(server.url, headers={
                    "Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"},
                    json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "fourth", "version": "0"}}})
            assert refused.status_code == 503, (refused.status_code, refused.text)
            assert refused.headers["retry-after"] == str(RETRY_AFTER_S)
            assert "limit of 3 sessions (--max-sessions)" in refused.json()["error"]["message"]
            assert "mcp-session-id" not in refused.headers
            assert (await health(server))["protocolSessions"] == 3


async def test_the_auth_token_is_compared_in_constant_time(monkeypatch):
    """``--auth-token``: the Bearer value goes through ``hmac.compare_digest`` (no early exit on the first
    differing byte), for right and wrong tokens alike."""
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    reached: list[bool] = []

    async def app(scope, receive, send):
        reached.append(scope[AUTHORIZED])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = BearerAuth(app, TOKEN, OPEN_PATHS)
    statuses = []
    for value in (f"Bearer {TOKEN}", "Bearer wrong-token-of-other-length", f"Bearer {TOKEN[:-1]}x"):
        sent: list[dict] = []

        async def receive():
            return {"type": "http.request", "body": b""}

        async def send(message, sent=sent):
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/metrics", "headers": [(b"authorization", value.encode())]}
        await guard(scope, receive, send)
        statuses.append(sent[0]["status"])
    assert statuses == [204, 401, 401] and reached == [True]
    assert [a for a, _ in compared] == [TOKEN.encode(), b"wrong-token-of-other-length", (TOKEN[:-1] + "x").encode()]
