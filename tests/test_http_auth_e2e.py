"""HTTP authentication end to end: a Basic-auth page served from localhost, ``browser-ctx serve`` over stdio.

- without credentials, ``browser_navigate`` says ``HTTP 401: authentication required (Basic, realm "…")``
  and how to give them;
- ``user:pass@`` in the URL that the server refuses: the error says so and shows neither the password
  nor its length;
- ``--http-credentials`` (plain, per origin from ``$BROWSER_CTX_HTTP_CREDENTIALS``, and from a file)
  opens the page; the password, which the page echoes into its text and console, and the
  ``Authorization`` header never appear in any output.
"""

from __future__ import annotations

import base64
import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

USER = "ann"
PASSWORD = "Tr0ub4dor-staff-9"
REALM = "Staff area"


def _staff(h: BaseHTTPRequestHandler) -> None:
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    if h.headers.get("Authorization") != expected:
        body = b"<!doctype html><title>Denied</title><h1>Who are you?</h1>"
        h.send_response(401)
        h.send_header("WWW-Authenticate", f'Basic realm="{REALM}", charset="UTF-8"')
    else:
        body = (f"<!doctype html><title>Staff</title><main><h1>Staff room</h1>"
                f"<p>Welcome {USER}; your password is {PASSWORD}.</p></main>"
                f"<script>console.error('signed in with {PASSWORD}')</script>").encode()
        h.send_response(200)
    h.send_header("Content-Type", "text/html; charset=utf-8")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


ROUTES["/auth/staff"] = _staff


def _no_secret(result: object) -> str:
    text = result_text(result)
    blob = text + json.dumps(getattr(result, "structured_content", None) or {}, ensure_ascii=False)
    assert PASSWORD not in blob and base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode() not in blob, blob
    return text


async def test_challenge_without_credentials_names_scheme_and_realm(site: str) -> None:
    async with mcp_session() as s:
        result = await s.call_tool("browser_navigate", {"url": f"{site}/auth/staff"})
        text = result_text(result)
        assert result.is_error, text
        assert text.startswith(f'HTTP 401: authentication required (Basic, realm "{REALM}") at {site}/auth/staff'), text
        assert "--http-credentials" in text and "ERR_" not in text


async def test_refused_url_credentials_are_never_shown(site: str) -> None:
    wrong = "wr0ng-Secret-42"
    url = site.replace("http://", f"http://{USER}:{wrong}@") + "/auth/staff"
    async with mcp_session() as s:
        result = await s.call_tool("browser_navigate", {"url": url})
        text = result_text(result)
        assert result.is_error, text
        assert text.startswith(f'HTTP 401: authentication required (Basic, realm "{REALM}")'), text
        assert wrong not in text and f"{USER}:" not in text and "[redacted]" not in text, text
        assert f"at {site}/auth/staff" in text, text


async def test_http_credentials_flag_opens_the_page_and_never_shows_them(site: str) -> None:
    async with mcp_session("--http-credentials", f"{USER}:{PASSWORD}") as s:
        card = _no_secret(await s.call_tool("browser_navigate", {"url": f"{site}/auth/staff"}))
        assert card.startswith("Page: Staff — ") and "(HTTP 200)" in card.splitlines()[0], card
        assert "h1 Staff room" in card
        page = _no_secret(await s.call_tool("browser_text", {}))
        assert "Welcome ann; your password is [redacted]" in page, page
        console = _no_secret(await s.call_tool("browser_console_messages", {}))
        assert "signed in with [redacted]" in console, console
        net = _no_secret(await s.call_tool("browser_network_requests", {}))
        assert "/auth/staff" in net
        for index in range(1, 4):
            _no_secret(await s.call_tool("browser_network_request", {"index": index}))


async def test_per_origin_credentials_from_env_and_file(site: str, tmp_path: Path) -> None:
    origin = site  # http://127.0.0.1:PORT
    async with mcp_session(env={"BROWSER_CTX_HTTP_CREDENTIALS": f"{origin}={USER}:{PASSWORD}"}) as s:
        card = _no_secret(await s.call_tool("browser_navigate", {"url": f"{site}/auth/staff"}))
        assert "(HTTP 200)" in card.splitlines()[0], card
    secret_file = tmp_path / "credentials"
    secret_file.write_text(f"\n{origin}={USER}:{PASSWORD}\n", encoding="utf-8")
    async with mcp_session("--http-credentials-file", str(secret_file)) as s:
        card = _no_secret(await s.call_tool("browser_navigate", {"url": f"{site}/auth/staff"}))
        assert "(HTTP 200)" in card.splitlines()[0], card
