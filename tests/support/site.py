"""A threaded local HTTP server for the fixtures site (and any extra dynamic routes).

Serves files from ``fixtures/`` and routes registered in :data:`ROUTES`. The same
server answers on ``127.0.0.1`` and ``localhost``, which are different origins, so
a page on one can embed a truly cross-origin frame from the other.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

#: Dynamic routes: path (without query) -> function(handler) that writes the whole response.
#: Add routes from a test module at import time, e.g. ``ROUTES["/api"] = my_handler``.
ROUTES: dict[str, Callable[[SimpleHTTPRequestHandler], None]] = {}


class _Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet test output
        pass

    def _route(self) -> bool:
        route = ROUTES.get(urlsplit(self.path).path)
        if route is None:
            return False
        route(self)
        return True

    def do_GET(self) -> None:  # noqa: N802
        if not self._route():
            super().do_GET()

    def do_POST(self) -> None:  # noqa: N802
        if not self._route():
            self.send_error(405)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextlib.contextmanager
def serve_directory(root: Path) -> Iterator[int]:
    """Serve ``root`` (plus :data:`ROUTES`) on an ephemeral port of 127.0.0.1/localhost; yield the port."""
    handler = functools.partial(_Handler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="fixtures-http", daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
