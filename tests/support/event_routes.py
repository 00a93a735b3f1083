"""Dynamic routes of the fixtures site for the console/network pages in ``fixtures/events/``.

Importing this module registers them in :data:`tests.support.site.ROUTES`:

- ``/events/api/big.json``: a 3 MB one-line JSON document;
- ``/events/api/poll?n=N``: a small JSON answer (polled 300 times by network.html);
- ``/events/api/fail``: HTTP 500; ``/events/api/slow``: answers after 1.5 s (``?s=N``: N seconds, at
  most 30; aborted by the page, or cut by its navigation);
- ``/events/api/data``: JSON without CORS headers (fetched cross-origin, so it fails CORS);
- ``/events/api/redirect?n=N``: a chain of N 302 redirects ending in JSON;
- ``/events/api/stream``: an EventSource stream that never closes (a tick every 100 ms);
- ``/events/ws``: a WebSocket echo server (minimal RFC 6455, stdlib only; ``?delay=MS`` answers each message
  that much later);
- ``/events/secrets.html``: the secrets page, served with ``Set-Cookie: sid=SECRET_A_7wK2pX9d``;
- ``/events/api/echo``: echoes its query, ``Authorization`` and ``X-Api-Key`` as JSON (any method;
  every path asked for is appended to :data:`ECHO_PATHS`);
- ``/events/api/login``: POST, echoes the body it got;
- ``/events/pixel.png``: a 1×1 PNG (a binary body);
- ``/events/api/unauthorized?kb=N``: HTTP 401 with a JSON body (padded by N kB);
- ``/events/api/too-large``: POST, HTTP 413 with a JSON body;
- ``/events/api/worker-data?k=K``: HTTP 500 (fetched by worker-message.js); ``/events/api/worker-gate?k=K``: a
  PNG sent once ``worker-data`` with the same ``K`` was answered (at most 30 s), so the page's load waits for it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
import time
from functools import lru_cache
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from .site import FIXTURES, ROUTES

__all__ = ["BIG_JSON_ITEMS", "ECHO_PATHS", "big_json"]

#: Paths ``/events/api/echo`` was asked for, in order (what the server saw, whatever the capture saw).
ECHO_PATHS: list[str] = []

BIG_JSON_ITEMS = 15_000
_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _nodelay(h: BaseHTTPRequestHandler) -> None:
    """Turn off Nagle on this connection: headers and body go out in two writes, and Nagle plus the
    client's delayed ACK would otherwise stall every keep-alive response by ~40 ms."""
    try:
        h.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass


def _send(h: BaseHTTPRequestHandler, status: int, body: bytes | str, ctype: str = "application/json",
          headers: dict[str, str] | None = None) -> None:
    _nodelay(h)
    data = body.encode() if isinstance(body, str) else body
    h.send_response(status)
    h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(data)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    try:
        h.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _query(h: BaseHTTPRequestHandler) -> dict[str, list[str]]:
    return parse_qs(urlsplit(h.path).query)


@lru_cache(maxsize=1)
def big_json() -> bytes:
    """The 3 MB one-line JSON body (``{"items": [...], "total": N, "next": null}``)."""
    items = [{"id": i, "name": f"item number {i}", "price": round(i * 1.25, 2), "tags": ["red", "green", "blue"],
              "description": "x" * 90, "active": i % 3 == 0} for i in range(BIG_JSON_ITEMS)]
    body = json.dumps({"items": items, "total": BIG_JSON_ITEMS, "next": None}, separators=(",", ":")).encode()
    return body


def _big(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, big_json())


def _poll(h: BaseHTTPRequestHandler) -> None:
    n = _query(h).get("n", ["0"])[0]
    _send(h, 200, json.dumps({"n": int(n), "ok": True}))


def _fail(h: BaseHTTPRequestHandler) -> None:
    _send(h, 500, json.dumps({"error": "boom"}))


_WORKER_DATA: dict[str, threading.Event] = {}
_WORKER_LOCK = threading.Lock()


def _worker_event(h: BaseHTTPRequestHandler) -> threading.Event:
    key = (_query(h).get("k") or [""])[0]
    with _WORKER_LOCK:
        while len(_WORKER_DATA) > 100:
            _WORKER_DATA.pop(next(iter(_WORKER_DATA)))
        return _WORKER_DATA.setdefault(key, threading.Event())


def _worker_data(h: BaseHTTPRequestHandler) -> None:
    event = _worker_event(h)
    _send(h, 500, json.dumps({"error": "worker data unavailable"}))
    event.set()


def _worker_gate(h: BaseHTTPRequestHandler) -> None:
    _worker_event(h).wait(30.0)
    _pixel(h)


def _slow(h: BaseHTTPRequestHandler) -> None:
    seconds = float((_query(h).get("s") or ["1.5"])[0])
    time.sleep(min(seconds, 30.0))
    _send(h, 200, json.dumps({"slow": True}))


def _data(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, json.dumps({"data": [1, 2, 3]}))  # no Access-Control-Allow-Origin on purpose


def _redirect(h: BaseHTTPRequestHandler) -> None:
    n = int(_query(h).get("n", ["0"])[0])
    _nodelay(h)
    if n > 0:
        h.send_response(302)
        h.send_header("Location", f"/events/api/redirect?n={n - 1}")
        h.send_header("Content-Length", "0")
        h.end_headers()
        return
    _send(h, 200, json.dumps({"redirected": True}))


def _stream(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Connection", "close")
    h.end_headers()
    h.close_connection = True
    try:
        for i in range(1, 3001):  # at most 5 minutes
            h.wfile.write(f"data: tick {i}\n\n".encode())
            h.wfile.flush()
            time.sleep(0.1)
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass


def _ws_frame(opcode: int, payload: bytes) -> bytes:
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    return head + payload


def _read_exact(rfile, n: int) -> bytes:  # noqa: ANN001 - a socket file
    data = b""
    while len(data) < n:
        chunk = rfile.read(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _ws_echo(h: BaseHTTPRequestHandler) -> None:
    _nodelay(h)
    delay = parse_qs(urlsplit(h.path).query).get("delay", ["0"])[0]
    delay_s = min(2000, int(delay) if delay.isdigit() else 0) / 1000
    key = h.headers.get("Sec-WebSocket-Key", "")
    accept = base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()
    h.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
    h.wfile.flush()
    h.close_connection = True
    try:
        while True:
            b1, b2 = _read_exact(h.rfile, 2)
            opcode = b1 & 0x0F
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack(">H", _read_exact(h.rfile, 2))[0]
            elif n == 127:
                n = struct.unpack(">Q", _read_exact(h.rfile, 8))[0]
            mask = _read_exact(h.rfile, 4) if b2 & 0x80 else b"\0\0\0\0"
            payload = bytes(c ^ mask[i % 4] for i, c in enumerate(_read_exact(h.rfile, n)))
            if opcode == 8:
                h.wfile.write(_ws_frame(8, payload[:2]))
                return
            if opcode == 9:
                h.wfile.write(_ws_frame(10, payload))
            elif opcode in (1, 2):
                time.sleep(delay_s)
                out = payload.replace(b"ping", b"echo", 1) if opcode == 1 else payload
                h.wfile.write(_ws_frame(opcode, out))
    except (ConnectionError, OSError, ValueError):
        return


def _secrets_page(h: BaseHTTPRequestHandler) -> None:
    body = (FIXTURES / "events" / "secrets.html").read_bytes()
    _send(h, 200, body, "text/html; charset=utf-8", {"Set-Cookie": "sid=SECRET_A_7wK2pX9d; Path=/"})


def _echo(h: BaseHTTPRequestHandler) -> None:
    ECHO_PATHS.append(h.path)
    length = int(h.headers.get("Content-Length") or 0)
    if length:
        h.rfile.read(length)  # a beacon's or keepalive POST's body
    answer = {"query": urlsplit(h.path).query, "authorization": h.headers.get("Authorization"),
              "key": h.headers.get("X-Api-Key"), "note": "the server echoes what it got"}
    _send(h, 200, json.dumps(answer))


def _login(h: BaseHTTPRequestHandler) -> None:
    length = int(h.headers.get("Content-Length") or 0)
    got = h.rfile.read(length).decode("utf-8", "replace") if length else ""
    _send(h, 200, json.dumps({"ok": True, "received": got}))


def _unauthorized(h: BaseHTTPRequestHandler) -> None:
    kb = int((_query(h).get("kb") or ["0"])[0])
    body = {"error": "token expired", "hint": "log in again", "padding": "x" * (kb * 1000)}
    _send(h, 401, json.dumps(body), headers={"WWW-Authenticate": "Bearer"})


def _too_large(h: BaseHTTPRequestHandler) -> None:
    length = int(h.headers.get("Content-Length") or 0)
    if length:
        h.rfile.read(length)
    _send(h, 413, json.dumps({"error": "payload too large", "limit": 10}))


def _pixel(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, _PNG, "image/png")


ROUTES.update({
    "/events/api/big.json": _big,
    "/events/api/poll": _poll,
    "/events/api/fail": _fail,
    "/events/api/slow": _slow,
    "/events/api/data": _data,
    "/events/api/redirect": _redirect,
    "/events/api/stream": _stream,
    "/events/ws": _ws_echo,
    "/events/secrets.html": _secrets_page,
    "/events/api/echo": _echo,
    "/events/api/login": _login,
    "/events/pixel.png": _pixel,
    "/events/api/unauthorized": _unauthorized,
    "/events/api/too-large": _too_large,
    "/events/api/worker-data": _worker_data,
    "/events/api/worker-gate": _worker_gate,
})
