"""Dynamic routes of the fixtures site for the action pages in ``fixtures/actions/latency/`` (and the
keepalive test). Importing this module registers them in :data:`tests.support.site.ROUTES`, and the
WebSocket echo server of :mod:`tests.support.event_routes` (``/events/ws``) with them:

- ``/actions/api/save``: any method; reads the body, answers ``{"ok": true, "saved": N}`` after ``?ms=N``
  milliseconds (default 80, at most 5,000);
- ``/actions/api/keepalive``: any method; reads the body, answers ``204 No Content`` (what a workspace
  save of a notebook app answers to its keepalive ``PUT``).
"""

from __future__ import annotations

import json
import socket
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from . import event_routes  # noqa: F401 - registers the WebSocket echo server (/events/ws)
from .site import ROUTES

__all__ = ["SAVES"]

#: Bodies ``/actions/api/save`` received, in order.
SAVES: list[str] = []


def _body(h: BaseHTTPRequestHandler) -> str:
    try:
        h.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    length = int(h.headers.get("Content-Length") or 0)
    return h.rfile.read(length).decode("utf-8", "replace") if length else ""


def _save(h: BaseHTTPRequestHandler) -> None:
    SAVES.append(_body(h))
    ms = (parse_qs(urlsplit(h.path).query).get("ms") or ["80"])[0]
    time.sleep(min(5000, max(0, int(ms) if ms.isdigit() else 80)) / 1000)
    data = json.dumps({"ok": True, "saved": len(SAVES)}).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)


def _keepalive(h: BaseHTTPRequestHandler) -> None:
    _body(h)
    h.send_response(204)
    h.end_headers()


ROUTES.update({"/actions/api/save": _save, "/actions/api/keepalive": _keepalive})
