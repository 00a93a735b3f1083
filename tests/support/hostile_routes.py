"""Dynamic routes of the fixtures site for the secrets page in ``fixtures/hostile/``.

Importing this module registers them in :data:`tests.support.site.ROUTES`:

- ``/hostile/api/accept``: any method; reads the request body and answers ``{"ok": true, "bytes": N}``
  (it never echoes what it got, so a secret in an output came from the request, not the answer);
- ``/hostile/api/reset/<JWT>``: the same answer at a path with a JSON Web Token in it (:data:`JWT`);
- ``/hostile/api/sse``: an EventSource stream of three named events (``login``, ``token``,
  ``update``) carrying secrets, then a plain ``done`` message, then it closes (a listing shows the
  last three, so the ``token`` event, whose data is secret only by its event's name, is among them);
- ``/hostile/api/whoami``: a JSON answer holding a session token and a JWT in an array.

The WebSocket echo server of :mod:`tests.support.event_routes` (``/events/ws``) is registered too.
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler

from . import event_routes  # noqa: F401 - registers the WebSocket echo server (/events/ws)
from .site import ROUTES

__all__ = ["JWT", "SSE_EVENTS"]

#: A JSON Web Token (header ``{"alg":"HS256","typ":"JWT"}``, payload ``{"sub":"LEAKJWTSUB"}``).
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJMRUFLSldUU1VCIn0."
       "TEVBS0pXVFNJR05BVFVSRV9ub3RfYV9yZWFsX29uZQ")

#: (event name, data) sent by ``/hostile/api/sse``, in order.
SSE_EVENTS = [("login", '{"user":"ann","password":"LEAKSSEPASSWORD"}'), ("token", "LEAKSSETOKEN"),
              ("update", "session=LEAKSSESESSION")]


def _answer(h: BaseHTTPRequestHandler, body: dict) -> None:
    data = json.dumps(body).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.send_header("Cache-Control", "no-store")
    h.end_headers()
    try:
        h.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the page went away: nothing to answer


def _accept(h: BaseHTTPRequestHandler) -> None:
    length = int(h.headers.get("Content-Length") or 0)
    got = h.rfile.read(length) if length else b""
    _answer(h, {"ok": True, "bytes": len(got)})


def _whoami(h: BaseHTTPRequestHandler) -> None:
    _answer(h, {"user": "ann", "session": {"token": "LEAKWHOAMITOKEN"}, "grants": [f"Bearer {JWT}"]})


def _sse(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Cache-Control", "no-store")
    h.send_header("Connection", "close")
    h.end_headers()
    h.close_connection = True
    try:
        for name, data in SSE_EVENTS:
            h.wfile.write(f"event: {name}\ndata: {data}\n\n".encode())
            h.wfile.flush()
            time.sleep(0.05)
        h.wfile.write(b"data: done\n\n")
        h.wfile.flush()
        time.sleep(0.2)
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass  # the page closed the stream


ROUTES.update({
    "/hostile/api/accept": _accept,
    f"/hostile/api/reset/{JWT}": _accept,
    "/hostile/api/sse": _sse,
    "/hostile/api/whoami": _whoami,
})
