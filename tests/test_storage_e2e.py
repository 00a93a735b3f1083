"""``--caps storage`` through the stdio client: a login kept across a server restart by saving and loading storage
state (``fixtures/storage/login.html`` and the routes below), cookie and web-storage listings redacted, values
shown only when asked for by name, set/delete/clear scoped to the page's origin."""

from __future__ import annotations

import html
import json
import secrets
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: Session id -> user, on the fixture server (outlives the browser-ctx server between the two sessions).
SESSIONS: dict[str, str] = {}


def _session(h: Any) -> None:
    """POST /storage/session: sign in, set an HttpOnly session cookie, go to the account page."""
    form = parse_qs(h.rfile.read(int(h.headers.get("Content-Length") or 0)).decode())
    sid = "sess_" + secrets.token_urlsafe(18)
    SESSIONS[sid] = form.get("user", ["?"])[0]
    h.send_response(303)
    h.send_header("Set-Cookie", f"sid={sid}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600")
    h.send_header("Location", "/storage/account")
    h.send_header("Content-Length", "0")
    h.end_headers()


def _account(h: Any) -> None:
    cookie = SimpleCookie(h.headers.get("Cookie") or "")
    user = SESSIONS.get(cookie["sid"].value) if "sid" in cookie else None
    who = f"Signed in as {html.escape(user)}" if user else "Not signed in"
    body = (f"<!doctype html><title>Account</title><h1>{who}</h1>"
            "<p id='theme'></p><script>document.getElementById('theme').textContent = "
            "'Theme: ' + (localStorage.getItem('theme') || 'none');</script>").encode()
    h.send_response(200)
    h.send_header("Content-Type", "text/html; charset=utf-8")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


ROUTES["/storage/session"] = _session
ROUTES["/storage/account"] = _account


async def call(s, tool: str, ok: bool = True, **args) -> str:
    result = await s.call_tool(tool, args)
    text = result_text(result)
    assert result.is_error != ok, f"{tool} {args}: {text}"
    return text


async def test_login_survives_a_restart_through_storage_state(site: str, tmp_path):
    out = tmp_path / "out"
    async with mcp_session("--caps", "default", "--caps", "storage", "--output-dir", str(out)) as s:
        await call(s, "browser_navigate", url=f"{site}/storage/login.html")
        rec = await call(s, "browser_click", target="button")
        assert "Signed in as alice" in rec and "Theme: dark" in await call(s, "browser_text"), rec
        saved = await call(s, "browser_storage_state", filename="alice.json")
        assert saved.startswith("Saved 2 cookies and localStorage of 1 origin") and str(out / "alice.json") in saved
        state = json.loads((out / "alice.json").read_text())
        sid = next(c["value"] for c in state["cookies"] if c["name"] == "sid")
        assert sid in SESSIONS and sid not in saved
        assert "outside the output folder" in await call(s, "browser_storage_state", ok=False, filename="/tmp/x.json")
    async with mcp_session("--caps", "default", "--caps", "storage", "--output-dir", str(out)) as s:
        page = await call(s, "browser_navigate", url=f"{site}/storage/account")
        assert "Not signed in" in page, page  # a new browser: no login
        loaded = await call(s, "browser_set_storage_state", filename="alice.json")
        assert loaded.startswith("Loaded 2 cookies and localStorage of 1 origin"), loaded
        page = await call(s, "browser_navigate", url=f"{site}/storage/account")
        assert "Signed in as alice" in page and "Theme: dark" in await call(s, "browser_text"), page
        bad = tmp_path / "bad.json"
        bad.write_text("{}")
        assert "outside the allowed roots" in await call(s, "browser_set_storage_state", ok=False, filename=str(bad))


async def test_listings_are_redacted_and_values_shown_by_name(site: str, other_origin: str):
    async with mcp_session("--caps", "default", "--caps", "storage") as s:
        await call(s, "browser_navigate", url=f"{site}/storage/login.html")
        await call(s, "browser_click", target="button")
        cookies = await call(s, "browser_cookie_list")
        assert "2 cookies for http://127.0.0.1:" in cookies, cookies
        assert "- sid=[redacted] (127.0.0.1/; HttpOnly; SameSite=Lax; expires " in cookies, cookies
        assert "- theme=[redacted] (127.0.0.1/; SameSite=Lax; session)" in cookies, cookies
        assert not any(sid in cookies for sid in SESSIONS)
        assert (await call(s, "browser_cookie_get", name="theme")).startswith("theme=dark (127.0.0.1/")
        sid = await call(s, "browser_cookie_get", name="sid")  # seen in Set-Cookie: a secret of the session
        assert sid.startswith("sid=[redacted]") and "a secret this session redacts" in sid, sid
        items = await call(s, "browser_localstorage_list")
        assert "- authToken = [redacted]" in items and "- theme = dark" in items, items
        token = await call(s, "browser_localstorage_get", key="authToken")
        assert token.startswith("authToken = tok_") and len(token) > 30, token  # asked for by name: shown
        assert token.split(" = ")[1] not in items
        # scoped to the page's origin: localhost is another origin, with no cookies
        assert await call(s, "browser_cookie_list", origin=other_origin) == f"No cookies for {other_origin}."
        said = await call(s, "browser_cookie_set", name="consent", value="yes", origin=other_origin)
        assert said == f"Set cookie 'consent' for {other_origin}/ (3 characters).", said
        assert "1 cookie for" in await call(s, "browser_cookie_list", origin=other_origin)
        assert "3 cookies for every origin" in await call(s, "browser_cookie_list", origin="*")
        assert (await call(s, "browser_cookie_delete", name="theme")).startswith("Deleted 1 cookie 'theme'")
        assert "Deleted 1 cookies for" in await call(s, "browser_cookie_clear")
        assert "1 cookie for every origin" in await call(s, "browser_cookie_list", origin="*")  # consent is left
        # web storage: set, delete, clear; sessionStorage is the tab's own
        assert "Set localStorage 'cart'" in await call(s, "browser_localstorage_set", key="cart", value='{"n": 2}')
        assert '- cart = {"n": 2}' in await call(s, "browser_localstorage_list")
        assert "Deleted localStorage 'cart'" in await call(s, "browser_localstorage_delete", key="cart")
        await call(s, "browser_sessionstorage_set", key="step", value="2")
        assert "- step = 2" in await call(s, "browser_sessionstorage_list")
        assert "Cleared sessionStorage" in await call(s, "browser_sessionstorage_clear")
        assert "No sessionStorage items" in await call(s, "browser_sessionstorage_list")
        assert "is not set on" in await call(s, "browser_sessionstorage_get", key="step")
        assert "No frame of this tab shows" in await call(s, "browser_localstorage_set", ok=False, key="a", value="b",
                                                         origin=other_origin)
        assert "not an http(s) origin" in await call(s, "browser_cookie_list", ok=False, origin="ftp://x")
