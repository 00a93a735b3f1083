"""``--caps network`` through the stdio client on ``fixtures/routes/shop.html``: a mocked API shown as ``(mocked)`` in
the action record and the network listing, a body from a file, abort and delay, routes listed and removed,
offline mode and extra headers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import FIXTURES, ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _json(handler: Any, value: Any) -> None:
    body = json.dumps(value).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


ROUTES["/routes/api/items"] = lambda h: _json(h, [{"name": "Real item"}])
ROUTES["/routes/api/profile"] = lambda h: _json(h, {"team": h.headers.get("X-Team") or "none"})


async def call(s, tool: str, ok: bool = True, **args) -> str:
    result = await s.call_tool(tool, args)
    text = result_text(result)
    assert result.is_error != ok, f"{tool} {args}: {text}"
    return text


async def test_mocked_api_is_marked_listed_and_removed(site: str):
    async with mcp_session("--caps", "default", "--caps", "network", "--allowed-roots", str(FIXTURES)) as s:
        await call(s, "browser_navigate", url=f"{site}/routes/shop.html")
        added = await call(s, "browser_route", pattern="**/api/items", contentType="application/json",
                           body='[{"name": "Mocked one"}, {"name": "Mocked two"}]')
        assert added.startswith("Route added: #1 **/api/items → mock 200 application/json"), added
        rec = await call(s, "browser_click", target="#load")
        assert "Mocked requests: 1 new — GET" in rec and "/routes/api/items → 200 (mocked)" in rec, rec
        assert "Loaded 2 items (HTTP 200)" in rec, rec
        listing = await call(s, "browser_network_requests", filter="api/items")
        line = next(ln for ln in listing.splitlines() if "/routes/api/items" in ln)
        assert "→ 200" in line and line.endswith("(mocked)"), listing
        detail = await call(s, "browser_network_request", index=int(line.split()[0].lstrip("#")))
        assert "x-browser-ctx-mocked" not in detail.lower(), detail  # the marker header is not shown
        # a second route: the newest matching route wins; a body from a file under --allowed-roots
        await call(s, "browser_route", pattern="/routes/api/items$/", path=str(FIXTURES / "routes" / "items.json"),
                   contentType="application/json", status=203)
        rec = await call(s, "browser_click", target="#load")
        assert "Loaded 2 items (HTTP 203)" in rec and "→ 203 (mocked)" in rec, rec
        routes = await call(s, "browser_route_list")
        assert routes.splitlines()[0].startswith("#1 **/api/items → mock 200") and "(1 hit)" in routes, routes
        assert "#2 /routes/api/items$/ → mock 203 application/json, body from" in routes, routes
        removed = await call(s, "browser_unroute", pattern="/routes/api/items$/")
        assert removed.startswith("Removed 1 route: #2") and "1 left" in removed, removed
        assert "No route has pattern" in await call(s, "browser_unroute", pattern="**/nothing")
        await call(s, "browser_unroute")
        assert await call(s, "browser_route_list") == "No routes."
        rec = await call(s, "browser_click", target="#load")  # the real server again
        assert "Loaded 1 items (HTTP 200)" in rec and "mocked" not in rec, rec
        last = (await call(s, "browser_network_requests", filter="api/items")).splitlines()
        assert "(mocked)" not in [ln for ln in last if "/routes/api/items" in ln][-1], last
        # bad input: one line each
        assert "not a valid regular expression" in await call(s, "browser_route", ok=False, pattern="/a(/")
        assert "outside the allowed roots" in await call(s, "browser_route", ok=False, pattern="**/x",
                                                         path="/etc/hostname")
        assert "cannot be combined" in await call(s, "browser_route", ok=False, pattern="**/x", abort="failed",
                                                  status=500)


async def test_abort_delay_offline_and_extra_headers(site: str):
    async with mcp_session("--caps", "default", "--caps", "network") as s:
        await call(s, "browser_navigate", url=f"{site}/routes/shop.html")
        await call(s, "browser_route", pattern="**/api/items", abort="connectionrefused")
        rec = await call(s, "browser_click", target="#load")
        assert "Failed requests: 1 new" in rec and "ERR_CONNECTION_REFUSED" in rec, rec
        assert "Could not load items" in rec, rec
        await call(s, "browser_unroute", pattern="**/api/items")
        await call(s, "browser_route", pattern="**/api/profile", delay=600)
        rec = await call(s, "browser_click", target="#profile")
        assert 'Profile: {"team": "none"}' in rec, rec  # delayed, then answered by the server
        assert "after 600 ms (1 hit)" in await call(s, "browser_route_list")
        await call(s, "browser_unroute")
        said = await call(s, "browser_set_extra_headers", headers=["X-Team: blue"])
        assert said == "Every request now carries X-Team: blue.", said
        rec = await call(s, "browser_click", target="#profile")
        assert 'Profile: {"team": "blue"}' in rec, rec
        await call(s, "browser_set_extra_headers", headers=[])
        assert (await call(s, "browser_network_state_set", state="offline")).startswith("Network is now offline")
        rec = await call(s, "browser_click", target="#load")
        assert "ERR_INTERNET_DISCONNECTED" in rec and "Could not load items" in rec, rec
        assert "Offline: every request fails" in await call(s, "browser_route_list")
        await call(s, "browser_network_state_set", state="online")
        rec = await call(s, "browser_click", target="#load")
        assert "Loaded 1 items" in rec, rec
        assert 'is not "Name: Value"' in await call(s, "browser_set_extra_headers", ok=False, headers=["nonsense"])
