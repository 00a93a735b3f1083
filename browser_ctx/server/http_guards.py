"""ASGI middleware of the HTTP transport: the Bearer token (:class:`BearerAuth`), the session limit
(:class:`SessionLimit`, ``--max-sessions``) and the access log (:class:`AccessLog`, ``--access-log``).
See :mod:`.http` for what each protects and logs.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BearerAuth", "SessionLimit", "AccessLog", "AUTHORIZED", "MCP_PATH", "RETRY_AFTER_S"]

log = logging.getLogger("browser_ctx")
access_log = logging.getLogger("browser_ctx.access")

#: Path of the MCP endpoint.
MCP_PATH = "/mcp"
#: ASGI scope key set by :class:`BearerAuth`: whether the request carried the right token.
AUTHORIZED = "browser_ctx.authorized"
#: Seconds a client refused for the session limit is told to wait (``Retry-After``).
RETRY_AFTER_S = 30


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    A wrong or missing token gets ``401`` with ``WWW-Authenticate: Bearer`` and an empty body; nothing
    about the server, the path or the reason is revealed. The comparison is constant-time. Paths in
    ``open_paths`` pass without the token; the scope's ``"browser_ctx.authorized"`` says whether it was given.
    """

    def __init__(self, app: ASGIApp, token: str, open_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self._token = token.encode("utf-8")
        self._open = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            value = b""
            for name, header in scope.get("headers", ()):
                if name == b"authorization":
                    value = header
                    break
            scheme, _, given = value.partition(b" ")
            ok = scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)
            if not ok and scope.get("path") not in self._open:
                await Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
            scope[AUTHORIZED] = ok
        await self.app(scope, receive, send)


class SessionLimit:
    """ASGI middleware: an MCP ``initialize`` (a POST to ``/mcp`` without ``Mcp-Session-Id``) past
    ``limit`` open protocol sessions gets ``503`` with ``Retry-After`` and a one-line JSON-RPC error.

    Openings pass one at a time (each holds a lock from the check until the SDK answers, by which time it
    has registered the session, a few milliseconds), so clients arriving at once are counted exactly and all
    get this answer; the SDK's own limit (the same number) stays as a backstop, and its ``503`` gets
    ``Retry-After`` here too.
    """

    def __init__(self, app: ASGIApp, limit: int, count: Callable[[], int]) -> None:
        self.app = app
        self.limit = limit
        self.count = count
        self._opening = asyncio.Lock()  # held by the one initialize between our check and the SDK's answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != MCP_PATH:
            await self.app(scope, receive, send)
            return

        async def send_with_retry_after(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 503:
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"retry-after", str(RETRY_AFTER_S).encode())]}
            await send(message)

        opening = scope.get("method") == "POST" and not any(name == b"mcp-session-id"
                                                             for name, _ in scope.get("headers", ()))
        if not opening:
            await self.app(scope, receive, send_with_retry_after)
            return
        await self._opening.acquire()
        held = True
        try:
            if self.count() >= self.limit:
                log.warning("refused a new MCP session: %d are open (--max-sessions %d)", self.count(), self.limit)
                body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": (
                    f"This server is at its limit of {self.limit} sessions (--max-sessions); retry in "
                    f"{RETRY_AFTER_S} s or use another server.")}}
                self._opening.release()
                held = False
                await JSONResponse(body, status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})(
                    scope, receive, send)
                return

            async def send_opening(message: Message) -> None:
                nonlocal held
                if held and message["type"] == "http.response.start":  # the SDK registered the session by now
                    self._opening.release()
                    held = False
                await send_with_retry_after(message)

            await self.app(scope, receive, send_opening)
        finally:
            if held:
                self._opening.release()


class AccessLog:
    """ASGI middleware: one ``browser_ctx.access`` line per HTTP request (``--access-log``).

    ``METHOD PATH STATUS MSms session=XXXXXXXX``: the path never with its query, the MCP session id cut to
    its first 8 characters; no bodies, no headers, no client address.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        sid = ""
        for name, value in scope.get("headers", ()):
            if name == b"mcp-session-id":
                sid = value.decode("latin-1")

        async def send_and_note(message: Message) -> None:
            nonlocal status, sid
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for name, value in message.get("headers", ()):
                    if name.lower() == b"mcp-session-id":
                        sid = value.decode("latin-1")
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            access_log.info("%s %s %d %.0fms session=%s", scope.get("method", "-"), scope.get("path", "-"), status,
                            (time.perf_counter() - started) * 1000, sid[:8] or "-")
