"""Serve a corpus folder on 127.0.0.1 with HTML declared as UTF-8.

Saved pages often carry no ``<meta charset>`` (the site sent the charset in its HTTP header). Served as bare
``text/html``, Chromium decodes them as windows-1252 and every server reads mojibake (``â€”`` for ``—``), which
also breaks the answer checks. The corpus files are UTF-8, so ``.html``/``.htm`` go out as
``text/html; charset=utf-8``. Otherwise like :func:`browser_ctx._http.serve_directory`: threaded, quiet,
``Cache-Control: no-store``, ephemeral port.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

__all__ = ["serve_corpus"]


class _Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
        ".htm": "text/html; charset=utf-8",
    }

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - no request log
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def handle(self) -> None:
        with contextlib.suppress(ConnectionError, TimeoutError):
            super().handle()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001 - clients hanging up is routine
        pass


@contextlib.contextmanager
def serve_corpus(root: Path) -> Iterator[int]:
    """Serve the files under ``root`` on ``127.0.0.1`` (an ephemeral port); yield the port (int).

    Raises:
        FileNotFoundError: ``root`` is not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"cannot serve {root}: not a directory")
    server = _Server(("127.0.0.1", 0), functools.partial(_Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
