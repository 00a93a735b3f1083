"""MCP over streamable HTTP: ``browser-ctx serve --transport http --port P``.

Served with the SDK's :class:`~mcp.server.streamable_http_manager.StreamableHTTPSessionManager`
(via ``Server.streamable_http_app``) on uvicorn:

- ``POST/GET/DELETE /mcp``: the MCP endpoint (stateful sessions, ``Mcp-Session-Id`` header).
- ``GET /healthz``: ``{"status": "ok", "browser": "up"|"down", "sessions": N, "contexts": M,
  "mode": "per-session"|"shared"}``; never any page data. ``browser`` is ``down`` until the first
  call launches (or connects to) the browser, and after it crashed until the next call.

Binding: ``127.0.0.1`` by default (DNS-rebinding protection on: only ``Host: 127.0.0.1|localhost``
accepted). Any other ``--host`` is refused unless ``--auth-token`` (or ``$BROWSER_CTX_AUTH_TOKEN``)
is set. With a token, every request, ``/healthz`` included, must send ``Authorization: Bearer
<token>``; a wrong or missing token gets a bare ``401`` with ``WWW-Authenticate: Bearer`` and an
empty body, whatever the path.

Sessions: each MCP client session gets its own :class:`~browser_ctx.browser.session.BrowserSession`
with its own browser context (cookies, storage, tabs, console/network captures, read-on captures),
all in one shared Chromium (or remote browser). ``--shared-context`` gives every client the same
session instead (one context, shared tabs; required with ``--user-data-dir``). Requests that carry
no session id (stateless clients) use the shared session.

Idle timeout (``--idle-timeout``, default :data:`DEFAULT_IDLE_TIMEOUT_S` = 1,800 s): a client's
browser session with no tool call for that long is closed and its context freed (checked every
``min(timeout/4, 30)`` s); if the client calls again it gets a fresh context and the result says so.
The SDK also ends MCP sessions with no request in flight (a client that vanished) after
``max(2 × timeout, timeout + 60)`` s (:func:`sdk_idle_timeout`); an open GET stream counts as in flight.
The shared session of ``--shared-context`` is never closed for idleness.

Shutdown (SIGTERM, SIGINT): open requests get up to :data:`GRACEFUL_SHUTDOWN_S` seconds, then every
session is closed and the browser with them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .._errors import BrowserCtxError
from ..browser.remote import BrowserProvider, LaunchedBrowser, RemoteBrowser
from ..browser.session import BrowserSession
from ..settings import Settings

__all__ = ["HttpOptions", "SessionPool", "BearerAuth", "build_app", "serve_http", "DEFAULT_IDLE_TIMEOUT_S",
           "LOCAL_HOSTS", "check_bind"]

log = logging.getLogger("browser_ctx")

#: Seconds without a tool call after which a client's browser session is closed (30 minutes).
DEFAULT_IDLE_TIMEOUT_S = 1800.0
#: Seconds open HTTP requests get to finish on shutdown before sessions are closed anyway.
GRACEFUL_SHUTDOWN_S = 3
#: Hosts that may be bound without an auth token.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Path of the MCP endpoint.
MCP_PATH = "/mcp"
#: Seconds one session may take to close (its context) on shutdown or expiry.
_CLOSE_TIMEOUT_S = 10
_EXPIRED_KEPT = 1000


@dataclass(frozen=True)
class HttpOptions:
    """How the HTTP transport is served.

    Attributes:
        host: interface to bind (default ``127.0.0.1``); others need ``auth_token``.
        port: TCP port (0 picks a free one; the chosen one is printed on stderr).
        auth_token: the Bearer token every request must carry; ``None`` = no check (local only).
        shared_context: one browser session for all clients instead of one per client.
        idle_timeout: seconds without a tool call before a client's browser session is closed.
    """

    host: str = "127.0.0.1"
    port: int = 8931
    auth_token: str | None = None
    shared_context: bool = False
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S


def sdk_idle_timeout(idle_timeout: float) -> float:
    """Seconds after which the SDK drops an MCP session with no request in flight: ``max(2 × idle, idle + 60)``."""
    return max(2 * idle_timeout, idle_timeout + 60)


def check_bind(options: HttpOptions) -> None:
    """Refuse a non-local bind without a token.

    Raises:
        ValueError: ``options.host`` is not a loopback name and no ``auth_token`` is set, or the token is empty,
            or ``idle_timeout`` is not positive.
    """
    if options.auth_token is not None and not options.auth_token.strip():
        raise ValueError("--auth-token is empty")
    if options.host not in LOCAL_HOSTS and not options.auth_token:
        raise ValueError(f"refusing to bind {options.host}: serving beyond this machine needs --auth-token "
                         "(or $BROWSER_CTX_AUTH_TOKEN); clients then send it as a Bearer token")
    if not options.idle_timeout > 0:
        raise ValueError("--idle-timeout must be a positive number of seconds")


# -- sessions ------------------------------------------------------------------------------------


@dataclass
class _Client:
    session: BrowserSession
    last_used: float


def _connection_of(ctx: Any) -> Any:
    # The SDK's request context does not expose the connection publicly yet; its ServerSession holds it.
    return getattr(getattr(ctx, "session", None), "_connection", None)


def _session_key(ctx: Any) -> str | None:
    """The MCP session id of the request's client, or ``None`` for a stateless request."""
    sid = getattr(_connection_of(ctx), "session_id", None)
    if sid:
        return str(sid)
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is not None:
        return headers.get("mcp-session-id") or None
    return None


class SessionPool:
    """The browser sessions of an HTTP server: one per MCP client session, or one shared.

    Use as ``async with SessionPool(settings, ...) as pool`` (the server's lifespan does, via
    ``create_server(pool=...)``); :meth:`session_for` picks the session of a request.

    Args:
        settings: server settings.
        shared_context: every client uses one session (``--shared-context``).
        idle_timeout: seconds without a call before a client's session is closed.
    """

    def __init__(self, settings: Settings, *, shared_context: bool = False,
                 idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S) -> None:
        self.settings = settings
        self.shared_context = shared_context
        self.idle_timeout = idle_timeout
        self.provider: BrowserProvider | None = None
        self._clients: dict[str, _Client] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._shared: BrowserSession | None = None
        self._reaper: asyncio.Task[None] | None = None
        self._closing = False
        #: Client sessions closed for idleness so far.
        self.expired_count = 0

    async def __aenter__(self) -> SessionPool:
        launch = self.settings.launch
        if launch.cdp_endpoint or launch.ws_endpoint:
            self.provider = RemoteBrowser(launch)
        elif not self.shared_context:
            self.provider = LaunchedBrowser(launch)
        # shared + local: the shared session launches its own browser (so --user-data-dir works)
        self._reaper = asyncio.create_task(self._reap_loop(), name="browser-ctx idle reaper")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every session, then the shared browser. Idempotent."""
        self._closing = True
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reaper
            self._reaper = None
        sessions = {id(c.session): c.session for c in self._clients.values()}
        self._clients.clear()
        if self._shared is not None:
            sessions[id(self._shared)] = self._shared
            self._shared = None
        await asyncio.gather(*(self._close(s) for s in sessions.values()))
        if self.provider is not None:
            await self.provider.close()

    @staticmethod
    async def _close(session: BrowserSession) -> None:
        try:
            await asyncio.wait_for(session.close(), _CLOSE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - closing must not fail shutdown
            log.debug("closing a session failed: %s", exc)

    def _shared_session(self) -> BrowserSession:
        if self._shared is None:
            self._shared = BrowserSession(self.settings, provider=self.provider, adopt_existing=True)
        return self._shared

    async def session_for(self, ctx: Any) -> BrowserSession:
        """Return the browser session of the client that sent the request ``ctx`` belongs to.

        A client seen for the first time (or again after its session expired) gets a new one,
        closed when its MCP session ends (DELETE, SDK idle expiry, shutdown).

        Raises:
            BrowserCtxError: the server is shutting down.
        """
        if self._closing:
            raise BrowserCtxError("The server is shutting down; reconnect later.")
        key = _session_key(ctx)
        now = time.monotonic()
        if key is None:
            return self._shared_session()
        client = self._clients.get(key)
        if client is None:
            if self.shared_context:
                session = self._shared_session()
            else:
                session = BrowserSession(self.settings, provider=self.provider, adopt_existing=False)
                if key in self._expired:
                    del self._expired[key]
                    session.add_note(f"This session had no call for {self.idle_timeout:g} s; its browser context "
                                     "was closed and a fresh one opened (tabs, cookies and storage were reset).")
            client = self._clients[key] = _Client(session, now)
            conn = _connection_of(ctx)
            if conn is not None and not conn.state.get("browser_ctx.cleanup"):
                conn.state["browser_ctx.cleanup"] = True
                conn.exit_stack.push_async_callback(self._end, key)
        client.last_used = now
        return client.session

    async def _end(self, key: str) -> None:
        """The MCP session ``key`` ended: close its browser session."""
        client = self._clients.pop(key, None)
        if client is not None and client.session is not self._shared:
            await self._close(client.session)

    async def _reap_loop(self) -> None:
        period = max(0.1, min(self.idle_timeout / 4, 30.0))
        while True:
            await asyncio.sleep(period)
            try:
                await self.reap_idle()
            except Exception:  # noqa: BLE001 - the reaper must keep running
                log.exception("closing idle sessions failed")

    async def reap_idle(self) -> int:
        """Close client sessions with no call for ``idle_timeout`` seconds; return how many."""
        now = time.monotonic()
        closed = 0
        for key, client in list(self._clients.items()):
            if now - client.last_used < self.idle_timeout or client.session.lock.locked():
                continue
            self._clients.pop(key, None)
            if client.session is self._shared:
                continue
            self._expired[key] = None
            while len(self._expired) > _EXPIRED_KEPT:
                self._expired.popitem(last=False)
            self.expired_count += 1
            closed += 1
            log.info("closed idle session %s…", key[:8])
            await self._close(client.session)
        return closed

    def health(self) -> dict[str, Any]:
        """Return the health report: browser up/down, client session and context counts (no page data)."""
        if self.provider is not None:
            up = self.provider.up
        else:
            up = self._shared is not None and self._shared.running
        sessions = {id(c.session): c.session for c in self._clients.values()}
        if self._shared is not None:
            sessions[id(self._shared)] = self._shared
        return {
            "status": "shutting down" if self._closing else "ok",
            "browser": "up" if up else "down",
            "sessions": len(self._clients),
            "contexts": sum(1 for s in sessions.values() if s.running),
            "mode": "shared" if self.shared_context else "per-session",
        }


# -- HTTP app ------------------------------------------------------------------------------------


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    A wrong or missing token gets ``401`` with ``WWW-Authenticate: Bearer`` and an empty body; nothing
    about the server, the path or the reason is revealed. The comparison is constant-time.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            value = b""
            for name, header in scope.get("headers", ()):
                if name == b"authorization":
                    value = header
                    break
            scheme, _, given = value.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self._token):
                await Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_app(settings: Settings, options: HttpOptions, *, caps: tuple[str, ...] = ("default",),
              evaluate: bool = True) -> tuple[ASGIApp, SessionPool]:
    """Build the ASGI app (MCP endpoint at ``/mcp``, ``/healthz``) and its session pool.

    Returns:
        ``(app, pool)``; the app's lifespan opens and closes the pool.

    Raises:
        ValueError: see :func:`check_bind`.
    """
    from .app import create_server

    check_bind(options)
    pool = SessionPool(settings, shared_context=options.shared_context, idle_timeout=options.idle_timeout)
    server = create_server(settings, caps=caps, evaluate=evaluate, pool=pool)

    async def healthz(_request: Request) -> Response:
        return JSONResponse(pool.health(), headers={"Cache-Control": "no-store"})

    security = None
    if options.host not in LOCAL_HOSTS:
        # Reached under any name; the Bearer token is what protects it.
        from mcp.server.transport_security import TransportSecuritySettings

        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        # The SDK ends MCP sessions with no request in flight (a vanished client) a while after ours expire,
        # so a client that comes back after our timeout still finds its session and gets a fresh context.
        session_idle_timeout=sdk_idle_timeout(options.idle_timeout),
        host=options.host,
        transport_security=security,
        custom_starlette_routes=[Route("/healthz", healthz, methods=["GET"])],
    )
    if options.auth_token:
        app = BearerAuth(app, options.auth_token)
    return app, pool


def _bind(host: str, port: int) -> socket.socket:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, socktype, proto, _name, addr = infos[0]
    sock = socket.socket(family, socktype, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.bind(addr)
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve_http(settings: Settings, options: HttpOptions, *, caps: tuple[str, ...] = ("default",),
                     evaluate: bool = True) -> None:
    """Serve MCP over streamable HTTP until SIGTERM/SIGINT; every browser is closed before returning.

    Prints ``browser-ctx: MCP over streamable HTTP at http://HOST:PORT/mcp`` on stderr once listening.

    Raises:
        ValueError: see :func:`check_bind`.
        OSError: the address could not be bound.
    """
    import uvicorn

    app, _pool = build_app(settings, options, caps=caps, evaluate=evaluate)
    sock = _bind(options.host, options.port)
    port = sock.getsockname()[1]

    class _Server(uvicorn.Server):
        # Signals through the event loop, without re-raising them after shutdown (uvicorn's default
        # re-raises, which ends the process with a KeyboardInterrupt traceback on SIGINT).
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            loop = asyncio.get_running_loop()
            installed = []
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self.handle_exit, sig, None)
                    installed.append(sig)
            try:
                yield
            finally:
                for sig in installed:
                    loop.remove_signal_handler(sig)

    config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, server_header=False,
                            date_header=False, lifespan="on", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S)
    server = _Server(config)
    display = f"[{options.host}]" if ":" in options.host else options.host

    async def announce() -> None:
        while not server.started and not server.should_exit:
            await asyncio.sleep(0.02)
        if server.started:
            print(f"browser-ctx: MCP over streamable HTTP at http://{display}:{port}{MCP_PATH} "
                  f"(health: /healthz)", file=sys.stderr, flush=True)

    announcer = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[sock])
    finally:
        announcer.cancel()
        sock.close()
