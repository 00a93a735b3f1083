"""Dynamic routes of the fixtures site for the performance pages in ``fixtures/perf/``.

Importing this module registers them in :data:`tests.support.site.ROUTES`:

- ``/perf/slow-script.js?ms=N``: a small script answered after N ms (at most 10,000; default 1,000);
- ``/perf/slow-image.png?ms=N&w=W&h=H``: a W×H PNG (default 800×400, at most 2,000 a side) answered after N ms.
"""

from __future__ import annotations

import socket
import struct
import time
import zlib
from functools import lru_cache
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from .site import ROUTES

__all__ = ["png"]


def _query(h: BaseHTTPRequestHandler, name: str, default: int, top: int) -> int:
    raw = (parse_qs(urlsplit(h.path).query).get(name) or [str(default)])[0]
    try:
        return max(0, min(top, int(raw)))
    except ValueError:
        return default


@lru_cache(maxsize=16)
def png(width: int, height: int) -> bytes:
    """A ``width``×``height`` RGB PNG: horizontal bands of colour (compresses to a few kB)."""
    rows = b"".join(b"\x00" + bytes((40 + y % 200, 120, 200 - y % 150)) * width for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def _send(h: BaseHTTPRequestHandler, body: bytes, ctype: str) -> None:
    try:
        h.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    h.send_response(200)
    h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(body)))
    h.send_header("Cache-Control", "no-store")
    h.end_headers()
    try:
        h.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _slow_script(h: BaseHTTPRequestHandler) -> None:
    time.sleep(_query(h, "ms", 1000, 10_000) / 1000)
    _send(h, b"window.slowScriptRan = true;\n", "application/javascript")


def _slow_image(h: BaseHTTPRequestHandler) -> None:
    time.sleep(_query(h, "ms", 1000, 10_000) / 1000)
    _send(h, png(_query(h, "w", 800, 2000) or 1, _query(h, "h", 400, 2000) or 1), "image/png")


ROUTES.update({
    "/perf/slow-script.js": _slow_script,
    "/perf/slow-image.png": _slow_image,
})
