"""A small threaded static HTTP server for localhost (demo site, tests, benchmark).

The server binds ``127.0.0.1`` on an ephemeral port. Pages use ``http://127.0.0.1:PORT``;
the same port also answers on ``http://localhost:PORT`` (localhost resolves to
127.0.0.1), which is a *different origin*, so a page on one can embed a truly
cross-origin frame from the other.

Every response carries ``Cache-Control: no-store``; request logs are dropped (stdout is
the MCP channel when the demo runs inside the server process, so nothing is printed).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["serve_directory", "Route", "RequestHandler"]

RequestHandler = SimpleHTTPRequestHandler
#: A dynamic route: called with the request handler; it writes the whole response
#: (``send_response`` / ``send_header`` / ``end_headers`` / ``wfile.write``).
Route = Callable[[SimpleHTTPRequestHandler], None]


_TEXTUAL = ("application/javascript", "application/json", "image/svg+xml", "application/xml")


class _Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    routes: Mapping[str, Route] = {}
    charset: str | None = "utf-8"

    def __init__(self, *args, routes: Mapping[str, Route] | None = None, charset: str | None = "utf-8",
                 **kwargs) -> None:
        self.routes = routes if routes is not None else {}
        self.charset = charset
        super().__init__(*args, **kwargs)

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        ctype = super().guess_type(path)
        if self.charset and (ctype.startswith("text/") or ctype in _TEXTUAL):
            ctype = f"{ctype}; charset={self.charset}"
        return ctype

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class names it `format`
        return  # quiet: no request log at all

    def _route(self) -> bool:
        route = self.routes.get(urlsplit(self.path).path)
        if route is None:
            return False
        route(self)
        return True

    def do_GET(self) -> None:  # noqa: N802
        if not self._route():
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not self._route():
            super().do_HEAD()

    def do_POST(self) -> None:  # noqa: N802
        if not self._route():
            self.send_error(405)

    def do_PUT(self) -> None:  # noqa: N802
        if not self._route():
            self.send_error(405)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def handle(self) -> None:
        # A browser that closes a keep-alive connection mid-request is normal; stay quiet.
        with contextlib.suppress(ConnectionError, TimeoutError):
            super().handle()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up is routine; anything else (a failing route) goes to stderr.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve_directory(
    root: Path,
    *,
    routes: Mapping[str, Route] | None = None,
    host: str = "127.0.0.1",
    charset: str | None = "utf-8",
) -> Iterator[int]:
    """Serve the files under ``root`` (and ``routes``) on an ephemeral port of ``host``; yield the port.

    Args:
        root: directory whose files are served (``/`` maps to ``root``; directories list or
            serve their ``index.html``).
        routes: optional ``{path: handler}``; ``path`` is the URL path without query string,
            e.g. ``"/api/items"``. A route wins over a file of the same path and handles
            GET, HEAD and POST; other paths answer POST with 405. The mapping is read on
            every request, so entries added while serving take effect.
        host: address to bind (default ``127.0.0.1``; ``localhost:PORT`` reaches it too).
        charset: declared in the ``Content-Type`` of text files (HTML, CSS, JS, JSON, SVG, XML),
            default ``"utf-8"``: the files served here are stored as UTF-8, and without it a page
            lacking ``<meta charset>`` (or naming another one) would be decoded as windows-1252.
            ``None`` sends bare types and leaves the browser to sniff.

    Yields:
        The TCP port number (int). On exit the server stops accepting, its socket is
        closed and its thread joined (at most 5 s).

    Raises:
        FileNotFoundError: ``root`` is not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"cannot serve {root}: not a directory")
    handler = functools.partial(_Handler, directory=str(root), routes=routes, charset=charset)
    server = _Server((host, 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              name=f"http-{root.name}", daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
