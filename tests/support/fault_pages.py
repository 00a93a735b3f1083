"""The fault pages served by the ``fault_site`` fixture (``tests/conftest.py``): a page that names
itself and reports whose storage it sees, an endless script, a popup that closes itself, a counter,
and a page that reloads itself every 20 ms."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.support.site import serve_directory

PAGES = {
    "who.html": """<!doctype html><title>who</title>
<h1 id="who">?</h1><p id="store"></p><p id="first">first paragraph</p><p id="second">second paragraph</p>
<script>
// Cookie values are secrets to browser-ctx (redacted, and scrubbed from all later output), so the page
// reports whether the cookie and storage it finds are its own rather than printing them.
const name = new URLSearchParams(location.search).get("name") || "nobody";
document.getElementById("who").textContent = "I am " + name;
if (!localStorage.getItem("owner")) localStorage.setItem("owner", name);
if (!document.cookie.includes("owner=")) document.cookie = "owner=c" + name.length + name.split("").reverse().join("");
const mine = "c" + name.length + name.split("").reverse().join("");
document.getElementById("store").textContent =
  "storage " + (localStorage.getItem("owner") === name ? "mine" : "foreign") +
  "; cookie " + (document.cookie.includes("owner=" + mine) ? "mine" : "foreign");
</script>""",
    "loop.html": """<!doctype html><title>loop</title><h1>spinning</h1>
<script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0));</script>""",
    "opener.html": """<!doctype html><title>opener</title><h1>the opener page</h1>
<a id="open" href="closer.html" target="_blank">open the closer</a>""",
    "closer.html": """<!doctype html><title>closer</title><h1>closer</h1>
<button id="bye" onclick="window.close()">bye</button>""",
    "counter.html": """<!doctype html><title>counter</title><h1>counter</h1>
<button id="inc" onclick="document.getElementById('n').textContent = 'count ' + (++window.n)">add one</button>
<p id="n">count 0</p><script>window.n = 0;</script>""",
    "flip.html": """<!doctype html><title>flip</title><h1>flipping</h1>
<main>""" + "".join(f"<p>paragraph {i} of a page that reloads itself all the time</p>" for i in range(300)) + """</main>
<script>setTimeout(() => location.reload(), 20);</script>""",
}



@contextlib.contextmanager
def serve_fault_pages() -> Iterator[str]:
    """Serve :data:`PAGES` from a temporary folder; yield the base URL (127.0.0.1; localhost is another site)."""
    with tempfile.TemporaryDirectory() as root:
        for name, body in PAGES.items():
            Path(root, name).write_text(body, encoding="utf-8")
        with serve_directory(Path(root), routes={}) as port:
            yield f"http://127.0.0.1:{port}"
