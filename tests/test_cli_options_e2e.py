"""The @playwright/mcp-style options through the real stdio client and Chromium: --init-script runs before the page's
scripts in the page and its frame, --tools offers only the tools named, --proxy-server sends requests through a
local proxy, and --config's userAgent and grantPermissions reach the browser."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import FIXTURES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

INIT = "window.__browserCtxInit = 'ran ' + (document.scripts.length === 0 ? 'first' : 'late');\n"
UA = "browser-ctx-test/1.0 (MyBot)"


@contextlib.contextmanager
def proxy() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """An HTTP proxy on 127.0.0.1 that answers every request itself from fixtures/testing; yields its port and the
    (URL, User-Agent) of each request it got."""
    seen: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            seen.append((self.path, self.headers.get("User-Agent", "")))
            name = urlsplit(self.path).path.rsplit("/", 1)[-1]
            path = FIXTURES / "testing" / name
            body = path.read_bytes() if name and path.is_file() else b"not here"
            self.send_response(200 if path.is_file() else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()


async def test_init_script_tools_proxy_user_agent_permissions(site, tmp_path):
    init = tmp_path / "init.js"
    init.write_text(INIT, encoding="utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"userAgent": UA, "grantPermissions": ["geolocation"]}), encoding="utf-8")
    with proxy() as (port, seen):
        async with mcp_session("--config", str(config), "--init-script", str(init), "--proxy-server",
                               f"http://127.0.0.1:{port}", "--proxy-bypass", "127.0.0.1",
                               "--tools", "browser_navigate,browser_text,browser_tabs") as s:
            listed = [t.name for t in (await s.list_tools()).tools]
            assert listed == ["browser_navigate", "browser_text", "browser_tabs"]
            refused = await s.call_tool("browser_snapshot", {})
            assert refused.is_error and "Unknown tool 'browser_snapshot'" in result_text(refused)

            await s.call_tool("browser_navigate", {"url": f"{site}/testing/options.html"})  # bypasses the proxy
            local = result_text(await s.call_tool("browser_text", {"format": "text"}))
            # A new tab, not a second navigation: browser-ctx reads a cross-site navigation's iframe as the page
            # (a bug of browser_navigate, seen with or without a proxy).
            await s.call_tool("browser_tabs", {"action": "new", "url": "http://proxied.test/options.html"})
            proxied = result_text(await s.call_tool("browser_text", {"format": "text"}))

    assert "init script in page: ran first" in local and "init script in frame: ran first" in local
    assert f"user agent: {UA}" in local
    assert "geolocation permission: granted" in local
    # proxied.test resolves nowhere (--offline-external): the page came through the proxy, with the user agent
    assert "host: proxied.test" in proxied and "init script in frame: ran first" in proxied
    assert ("http://proxied.test/options.html", UA) in seen
    assert ("http://proxied.test/options-frame.html", UA) in seen
    assert not any("127.0.0.1" in url for url, _ in seen)  # --proxy-bypass
