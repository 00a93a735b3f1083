"""What a session remembers as a secret (issue 26, item 1): ``browser-ctx serve`` over stdio, the mcp SDK client,
pages served from localhost, and the shop app (``fixtures/apps/shop``, real React/MUI/Radix code).

The first page is a notebook app's: its JSON API saves the workspace state ``{"sortState": {"direction":
"ascending", "key": "name"}}``, logs it, shows an RFC's example ``password=something``, and fetches a config
holding a real secret, a long random ``api_key``. Later pages show "Rename Notebook…", "File name", "Full name"
and prose with "something" in it, and the secret itself, with no name before it. Nothing but the secret may be
scrubbed from them, and the secret must be scrubbed from every output.
"""

from __future__ import annotations

import json
import re
import secrets
from http.server import BaseHTTPRequestHandler

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: The real secret: a fresh random token each run (what an API key looks like).
API_KEY = secrets.token_urlsafe(24)
WORKSPACE = {"data": {"file-browser-filebrowser:sort": {"sortState": {"direction": "ascending", "key": "name"}}},
             "metadata": {"id": "default"}}

NOTEBOOK = """<!doctype html><html><head><meta charset="utf-8"><title>Notebook</title></head><body>
<h1>Notebook</h1><p id="status">Loading…</p>
<pre>POST /token HTTP/1.1
grant_type=password&amp;username=johndoe&amp;password=something</pre>
<script>
async function run() {
  const state = STATE;
  const saved = await (await fetch('/redaction/api/workspace', {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(state)})).json();
  console.log('restored', saved.data['file-browser-filebrowser:sort']);
  const config = await (await fetch('/redaction/api/config')).json();
  console.log('configured for', config.user);
  document.getElementById('status').textContent = 'Saved.';
}
run();
</script></body></html>""".replace("STATE", json.dumps(WORKSPACE))

FILES = f"""<!doctype html><html><head><meta charset="utf-8"><title>Files</title></head><body>
<div role="menubar"><div role="menuitem" tabindex="0">Rename Notebook…</div>
<div role="menuitem" tabindex="-1">Save Notebook As…</div></div>
<main aria-label="main area content">
<label>File name <input value="Untitled.ipynb"></label><button>Rename and Save</button>
<p>Every time it's something different: the folder or file named "Annis" was renamed.</p>
<p>Your new API key, copy it now: <code>{API_KEY}</code></p>
</main></body></html>"""


def _send(h: BaseHTTPRequestHandler, body: str, mime: str) -> None:
    data = body.encode()
    h.send_response(200)
    h.send_header("Content-Type", mime)
    h.send_header("Content-Length", str(len(data)))
    h.send_header("Cache-Control", "no-store")
    h.end_headers()
    h.wfile.write(data)


def _workspace(h: BaseHTTPRequestHandler) -> None:
    length = int(h.headers.get("Content-Length") or 0)
    saved = json.loads(h.rfile.read(length) or b"{}")
    _send(h, json.dumps(saved), "application/json")  # the app's API answers with what it saved


ROUTES.update({
    "/redaction/notebook.html": lambda h: _send(h, NOTEBOOK, "text/html; charset=utf-8"),
    "/redaction/files.html": lambda h: _send(h, FILES, "text/html; charset=utf-8"),
    "/redaction/api/workspace": _workspace,
    "/redaction/api/config": lambda h: _send(h, json.dumps({"user": "ann", "api_key": API_KEY}), "application/json"),
})


async def test_a_saved_sort_key_is_not_a_secret_and_a_real_one_is_scrubbed_everywhere(site: str) -> None:
    async with mcp_session() as s:
        outputs: list[str] = []

        async def ok(tool: str, **args) -> str:
            result = await s.call_tool(tool, args)
            text = result_text(result) + json.dumps(result.structured_content or {}, ensure_ascii=False)
            assert not result.is_error, f"{tool} {args}: {text}"
            assert API_KEY not in text, f"{tool} {args} leaked the API key: {text[:2000]}"
            outputs.append(text)
            return text

        await ok("browser_network_requests")
        await ok("browser_navigate", url=f"{site}/redaction/notebook.html")
        await ok("browser_wait_for", text="Saved.")
        assert "password=[redacted]" in await ok("browser_text")  # redacted where it is found
        console = await ok("browser_console_messages")
        assert "restored" in console and "configured for ann" in console, console
        listing = await ok("browser_network_requests")
        rows = {m.group(2): int(m.group(1)) for m in re.finditer(r"^#(\d+)\S* .*?/redaction/api/(\w+)", listing, re.M)}
        put = await ok("browser_network_request", index=rows["workspace"], part="request-body")
        assert '"key": "name"' in put or '"key":"name"' in put, put
        saved = await ok("browser_network_request", index=rows["workspace"], part="response-body")
        assert '"direction": "ascending", "key": "name"' in saved, saved
        config = await ok("browser_network_request", index=rows["config"], part="response-body")
        assert '"api_key":"[redacted]"' in config.replace(" ", ""), config

        await ok("browser_navigate", url=f"{site}/redaction/files.html")
        snapshot = await ok("browser_snapshot")
        for line in ('menuitem "Rename Notebook…"', 'textbox "File name"', 'button "Rename and Save"',
                     'main "main area content"'):
            assert line in snapshot, snapshot
        text = await ok("browser_text")
        assert "Every time it's something different: the folder or file named \"Annis\" was renamed." in text, text
        assert "copy it now: [redacted]" in text or "copy it now: `[redacted]`" in text, text
        evaluated = await ok("browser_evaluate", function="() => document.querySelector('code').textContent")
        assert "[redacted]" in evaluated

        await ok("browser_navigate", url=f"{site}/apps/shop/dist/index.html")
        await ok("browser_wait_for", text="New order")
        shop = await ok("browser_snapshot")
        assert 'textbox "Full name"' in shop, shop
        assert all("Re[redacted]" not in out and "File [redacted]" not in out for out in outputs)
