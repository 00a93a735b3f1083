"""MCP over streamable HTTP: ``browser-ctx serve --transport http --port P``.

Served with the SDK's :class:`~mcp.server.streamable_http_manager.StreamableHTTPSessionManager`
(via ``Server.streamable_http_app``) on uvicorn:

- ``POST/GET/DELETE /mcp``: the MCP endpoint (stateful sessions, ``Mcp-Session-Id`` header).
- ``GET /livez``: liveness: ``200 {"status": "ok"}`` while the process serves, ``503`` while it shuts down.
- ``GET /healthz``: readiness, for load balancers: ``200`` when a call could get a browser now (it is up,
  or it can be launched: an executable is found; or reached: the remote endpoint accepts a TCP connection;
  and no launch or connection failed in the last 30 s), else ``503`` (browser endpoint unreachable, no
  executable, a recent failure such as a refused token, shutting down). The body is
  ``{"status": "ok"|"unavailable"|"shutting down"}``; a request with the token (or any request when no
  token is set) also gets ``"browser": "up"|"down"``, ``"sessions"``, ``"contexts"``, ``"tabs"`` and
  ``"mode": "per-session"|"shared"``. ``browser`` is ``down`` until the first call launches (or connects
  to) the browser, and after it crashed until the next call; that alone is not a 503. When unavailable, the
  token-holder's report also has ``"reason"``: the last launch or connection error (no page data).
- ``GET /metrics``: Prometheus metrics (:mod:`.metrics`).

What the token protects: with ``--auth-token`` (or ``$BROWSER_CTX_AUTH_TOKEN``), every request but
``/livez`` and ``/healthz`` must send ``Authorization: Bearer <token>``; a wrong or missing token gets a bare
``401`` with ``WWW-Authenticate: Bearer`` and an empty body, whatever the path. The two health paths answer
without it (balancers often cannot send headers) and then say only the status word: no page data, URL,
count or session id is ever served without the token. Anything but ``127.0.0.1``/``localhost``/``::1`` as
``--host`` is refused without a token.

Host header: bound to a loopback address, only ``Host: 127.0.0.1|localhost|[::1]`` (any port) is accepted
(DNS-rebinding protection; anything else gets ``421``). ``--allowed-hosts a.example,b.example:8443`` adds
names (without a port: any port), for a proxy that passes the public ``Host``; with a non-loopback
``--host`` and ``--allowed-hosts`` only those names are accepted, without it any name (the token protects).

Sessions: each MCP client session gets its own :class:`~browser_ctx.browser.session.BrowserSession`
with its own browser context (cookies, storage, tabs, console/network captures, read-on captures),
all in one shared Chromium (or remote browser). ``--shared-context`` gives every client the same
session instead (one context, shared tabs; required with ``--user-data-dir``). Requests that carry
no session id (stateless clients) use the shared session. Sessions live in this process only: after a
server restart a client's ``Mcp-Session-Id`` is unknown (``404 Session not found``) and it must
initialize again, with a fresh context.

Idle timeout (``--idle-timeout``, default :data:`DEFAULT_IDLE_TIMEOUT_S` = 1,800 s): a client's
browser session with no tool call for that long is closed and its context freed (checked every
``min(timeout/4, 30)`` s); if the client calls again it gets a fresh context and the result says so.
The SDK also ends MCP sessions with no request in flight (a client that vanished) after
``max(2 × timeout, timeout + 60)`` s (:func:`sdk_idle_timeout`); an open GET stream counts as in flight.
The shared session of ``--shared-context`` is never closed for idleness.

Session limit (``--max-sessions N``): at most N MCP protocol sessions are open at once; an ``initialize``
beyond them gets ``503`` with ``Retry-After:`` :data:`RETRY_AFTER_S` and a one-line JSON-RPC error saying
so (nothing is opened: no protocol session, no browser context). The default is memory-aware
(:func:`default_max_sessions`): half of this machine's memory (the smaller of physical RAM and the cgroup
limit) divided by :data:`SESSION_BUDGET_BYTES` (512 MiB, a session that has read a dozen heavy pages; the
issue-16 run measured 430 MB per context), between :data:`MIN_DEFAULT_SESSIONS` and
:data:`MAX_DEFAULT_SESSIONS`: 23 on a 24 GB machine, 3 on 4 GB. ``/healthz`` (with the token) reports
``protocolSessions`` (MCP sessions open, whether or not they have called a tool yet) and ``maxSessions``.

Access log (``--access-log``): one line per HTTP request on stderr (logger ``browser_ctx.access``): method,
path (never the query), status, milliseconds and the first 8 characters of the MCP session id; and one
line per tool call: tool, outcome, milliseconds, tokens. Never arguments, URLs or page text.

Shutdown (SIGTERM, SIGINT): open requests get up to :data:`GRACEFUL_SHUTDOWN_S` seconds, then every
session is closed and the browser with them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import inspect
import logging
import os
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import files
from .._errors import BrowserCtxError
from ..browser.launcher import find_executable
from ..browser.remote import BrowserProvider, LaunchedBrowser, RemoteBrowser
from ..browser.session import BrowserSession
from ..settings import Settings
from .app import create_server, select_tools
from .metrics import CONTENT_TYPE, PoolStats, ServerMetrics

__all__ = ["HttpOptions", "SessionPool", "BearerAuth", "AccessLog", "SessionLimit", "build_app", "serve_http",
           "default_max_sessions", "machine_memory_bytes", "protocol_session_count",
           "DEFAULT_IDLE_TIMEOUT_S", "LOCAL_HOSTS", "OPEN_PATHS", "check_bind", "check_sdk", "security_settings"]

log = logging.getLogger("browser_ctx")
access_log = logging.getLogger("browser_ctx.access")

#: Seconds without a tool call after which a client's browser session is closed (30 minutes).
DEFAULT_IDLE_TIMEOUT_S = 1800.0
#: Seconds open HTTP requests get to finish on shutdown before sessions are closed anyway.
GRACEFUL_SHUTDOWN_S = 3
#: Hosts that may be bound without an auth token.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: ``Host`` header values accepted by a loopback-bound server (any port).
_LOCAL_HOST_HEADERS = ("127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]")
#: Path of the MCP endpoint.
MCP_PATH = "/mcp"
#: Paths answered without the Bearer token: the status word only (see the module docstring).
OPEN_PATHS = frozenset({"/livez", "/healthz"})
#: ASGI scope key set by :class:`BearerAuth`: whether the request carried the right token.
AUTHORIZED = "browser_ctx.authorized"
#: Seconds one session may take to close (its context) on shutdown or expiry.
_CLOSE_TIMEOUT_S = 10
#: Expired session ids remembered (to tell a returning client its context was reset).
_EXPIRED_KEPT = 1000
#: Memory one client session is planned at, in bytes, for the default ``--max-sessions`` (512 MiB).
SESSION_BUDGET_BYTES = 512 * 1024 * 1024
#: Share of the machine's memory the default ``--max-sessions`` plans for sessions (the rest: the server,
#: the browser process, the system).
SESSION_MEMORY_SHARE = 0.5
#: Bounds of the memory-aware default ``--max-sessions``.
MIN_DEFAULT_SESSIONS, MAX_DEFAULT_SESSIONS = 2, 64
#: Seconds a client refused for the session limit is told to wait (``Retry-After``).
RETRY_AFTER_S = 30
#: Where Linux's cgroup v2 states this process's memory limit (``max`` = none).
_CGROUP_MEMORY_MAX = "/sys/fs/cgroup/memory.max"


def machine_memory_bytes() -> int | None:
    """Bytes of memory this process may use: the smaller of physical RAM and the cgroup v2 limit.

    ``None`` when neither can be read (not Linux-like).
    """
    sizes: list[int] = []
    with contextlib.suppress(ValueError, OSError, AttributeError):  # no sysconf names on this OS
        sizes.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    with contextlib.suppress(ValueError, OSError):  # no cgroup v2 (or "max"): RAM alone decides
        with open(_CGROUP_MEMORY_MAX, encoding="ascii") as fh:
            sizes.append(int(fh.read().strip()))
    positive = [n for n in sizes if n > 0]
    return min(positive) if positive else None


def default_max_sessions(memory_bytes: int | None = None) -> int:
    """The default ``--max-sessions``: ``SESSION_MEMORY_SHARE`` × memory ÷ ``SESSION_BUDGET_BYTES``, clamped.

    Args:
        memory_bytes: the memory to plan for (default :func:`machine_memory_bytes`); unknown → 8 sessions.

    Returns:
        An int between :data:`MIN_DEFAULT_SESSIONS` and :data:`MAX_DEFAULT_SESSIONS` (23 for 24 GB).
    """
    memory = machine_memory_bytes() if memory_bytes is None else memory_bytes
    if memory is None:
        return 8
    fit = int(memory * SESSION_MEMORY_SHARE // SESSION_BUDGET_BYTES)
    return max(MIN_DEFAULT_SESSIONS, min(MAX_DEFAULT_SESSIONS, fit))


@dataclass(frozen=True)
class HttpOptions:
    """How the HTTP transport is served.

    Attributes:
        host: interface to bind (default ``127.0.0.1``); others need ``auth_token``.
        port: TCP port (0 picks a free one; the chosen one is printed on stderr).
        auth_token: the Bearer token every request must carry; ``None`` = no check (local only).
        shared_context: one browser session for all clients instead of one per client.
        idle_timeout: seconds without a tool call before a client's browser session is closed.
        allowed_hosts: extra ``Host`` header values accepted (``name`` = any port, or ``name:port``), for a
            proxy that passes the public host name (``--allowed-hosts``); default none.
        access_log: log one line per HTTP request and per tool call on stderr (``--access-log``).
        max_sessions: the most MCP sessions open at once (``--max-sessions``); ``None`` (default) =
            :func:`default_max_sessions`, computed from this machine's memory when the app is built.
    """

    host: str = "127.0.0.1"
    port: int = 8931
    auth_token: str | None = None
    shared_context: bool = False
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S
    allowed_hosts: tuple[str, ...] = ()
    access_log: bool = False
    max_sessions: int | None = None


def sdk_idle_timeout(idle_timeout: float) -> float:
    """Seconds after which the SDK drops an MCP session with no request in flight: ``max(2 × idle, idle + 60)``."""
    return max(2 * idle_timeout, idle_timeout + 60)


def check_bind(options: HttpOptions) -> None:
    """Refuse a non-local bind without a token, and malformed options.

    Raises:
        ValueError: ``options.host`` is not a loopback name and no ``auth_token`` is set, or the token is empty,
            or ``idle_timeout`` is not positive, or an ``allowed_hosts`` entry is not a host name.
    """
    if options.auth_token is not None and not options.auth_token.strip():
        raise ValueError("--auth-token is empty")
    if options.host not in LOCAL_HOSTS and not options.auth_token:
        raise ValueError(f"refusing to bind {options.host}: serving beyond this machine needs --auth-token "
                         "(or $BROWSER_CTX_AUTH_TOKEN); clients then send it as a Bearer token")
    if not options.idle_timeout > 0:
        raise ValueError("--idle-timeout must be a positive number of seconds")
    if options.max_sessions is not None and options.max_sessions < 1:
        raise ValueError("--max-sessions must be at least 1")
    for name in options.allowed_hosts:
        if not name or any(c in name for c in "/ @?#,") or name.startswith(":"):
            raise ValueError(f"--allowed-hosts: {name!r} is not a host name (give names like mcp.example.com or "
                             "mcp.example.com:8443, comma-separated)")


def security_settings(options: HttpOptions) -> TransportSecuritySettings:
    """The SDK's ``Host``/``Origin`` checks for ``options`` (see "Host header" in the module docstring)."""
    local = options.host in LOCAL_HOSTS
    extra: list[str] = []
    for name in options.allowed_hosts:
        extra.append(name)
        if ":" not in name.rsplit("]", 1)[-1]:  # no port given ("name", "[::1]"): any port
            extra.append(f"{name}:*")
    if not local and not extra:
        # Reached under any name; the Bearer token is what protects it.
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = [*(_LOCAL_HOST_HEADERS if local else ()), *extra]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


# -- the SDK's private connection ------------------------------------------------------------------


def _connection_of(ctx: Any) -> Connection | None:
    """The request's per-client :class:`~mcp.server.connection.Connection`, or ``None``.

    The ONE place browser-ctx touches the SDK's private API: mcp 2.x hands handlers a
    ``ServerRequestContext`` whose ``session`` (a ``ServerSession``) keeps the connection in the private
    ``_connection`` attribute; there is no public accessor yet. We need it for the session id and to
    close a client's browser context when its MCP session ends (``connection.exit_stack``, ``state``).
    :func:`check_sdk` (run by :func:`build_app`, and by the tests) fails loudly if a new SDK moves it.
    """
    return getattr(getattr(ctx, "session", None), "_connection", None)


def check_sdk() -> None:
    """Check the installed ``mcp`` SDK still keeps the connection where :func:`_connection_of` reads it.

    Raises:
        RuntimeError: ``ServerSession`` no longer stores ``_connection``, or ``Connection`` lost
            ``session_id``, ``state`` or ``exit_stack``; the message names the SDK version to pin.
    """
    missing = [f for f in ("session_id", "state", "exit_stack") if f not in getattr(Connection, "__annotations__", {})]
    try:
        stores = "self._connection = connection" in inspect.getsource(ServerSession.__init__)
        if "self._server_instances" not in inspect.getsource(StreamableHTTPSessionManager.__init__):
            missing.append("StreamableHTTPSessionManager._server_instances")
    except (OSError, TypeError):  # no source available (zipped install): trust the annotations check
        stores = True
    if missing or not stores:
        raise RuntimeError("this mcp SDK version changed ServerSession._connection / Connection "
                           f"(missing: {', '.join(missing) or '_connection'}); browser-ctx's HTTP transport needs "
                           "an update (see browser_ctx.server.http._connection_of), or install mcp 2.3")


def protocol_session_count(manager: StreamableHTTPSessionManager) -> int:
    """MCP protocol sessions the SDK's session manager holds open (initialized, not yet ended).

    The second touch of the SDK's private state (checked by :func:`check_sdk`): the manager keeps its
    transports in ``_server_instances``, with no public count.
    """
    return len(getattr(manager, "_server_instances", ()))


def _session_key(ctx: Any) -> str | None:
    """The MCP session id of the request's client, or ``None`` for a stateless request."""
    sid = getattr(_connection_of(ctx), "session_id", None)
    if sid:
        return str(sid)
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is not None:
        return headers.get("mcp-session-id") or None
    return None


# -- sessions ------------------------------------------------------------------------------------


@dataclass
class _Client:
    session: BrowserSession
    last_used: float


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
        #: The server's metrics (set by :func:`build_app`).
        self.metrics: ServerMetrics | None = None
        #: Counts the MCP protocol sessions open (set by :func:`build_app`; 0 without it).
        self.protocol_sessions: Callable[[], int] = lambda: 0
        #: The most protocol sessions open at once (``--max-sessions``; set by :func:`build_app`).
        self.max_sessions: int | None = None

    @property
    def closing(self) -> bool:
        """Whether the server is shutting down."""
        return self._closing

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
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        sessions = self._sessions()
        self._clients.clear()
        self._shared = None
        await asyncio.gather(*(self._close(s) for s in sessions))
        if self.provider is not None:
            await self.provider.close()

    @staticmethod
    async def _close(session: BrowserSession) -> None:
        try:
            await asyncio.wait_for(session.close(), _CLOSE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - closing one session must never fail shutdown or expiry
            log.debug("closing a session failed: %s", exc)

    def _sessions(self) -> list[BrowserSession]:
        """Every distinct browser session (client ones and the shared one)."""
        sessions = {id(c.session): c.session for c in self._clients.values()}
        if self._shared is not None:
            sessions[id(self._shared)] = self._shared
        return list(sessions.values())

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
                session = BrowserSession(files.session_settings(self.settings), provider=self.provider,
                                         adopt_existing=False)
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

    def peek_session(self, ctx: Any) -> BrowserSession | None:
        """The browser session a request was served with, without creating one (``None`` if it has none)."""
        key = _session_key(ctx)
        if key is None:
            return self._shared
        client = self._clients.get(key)
        return client.session if client is not None else None

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
            except Exception:  # noqa: BLE001 - the reaper's last line of defence: it must keep running
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

    @property
    def browser_up(self) -> bool:
        """Whether the browser is launched / connected right now."""
        if self.provider is not None:
            return self.provider.up
        return self._shared is not None and self._shared.running

    def stats(self) -> PoolStats:
        """Count sessions, contexts and tabs (for ``/healthz`` and ``/metrics``; no page data)."""
        sessions = self._sessions()
        return PoolStats(sessions=len(self._clients), contexts=sum(1 for s in sessions if s.running),
                         tabs=sum(len(s.tabs) for s in sessions if s.running), browser_up=self.browser_up,
                         expired=self.expired_count,
                         reconnects=self.provider.reconnects if self.provider is not None else 0)

    async def ready(self) -> bool:
        """Whether a call could get a browser now (see ``/healthz`` in the module docstring)."""
        if self._closing:
            return False
        if self.provider is not None:
            return await self.provider.available()
        if self.browser_up:
            return True
        try:
            find_executable(self.settings.launch)
        except BrowserCtxError:
            return False
        return True

    async def health(self, *, detail: bool = True) -> tuple[int, dict[str, Any]]:
        """Return the readiness ``(HTTP status, report)``: 200 or 503, and the status word, plus (with
        ``detail``) browser up/down, session, context and tab counts, the mode, and when unavailable the
        ``reason`` the last launch or connection failed. Never page data."""
        ready = await self.ready()
        status = "shutting down" if self._closing else "ok" if ready else "unavailable"
        report: dict[str, Any] = {"status": status}
        if detail:
            s = self.stats()
            report.update(browser="up" if s.browser_up else "down", sessions=s.sessions, contexts=s.contexts,
                          tabs=s.tabs, mode="shared" if self.shared_context else "per-session",
                          protocolSessions=self.protocol_sessions(), maxSessions=self.max_sessions)
            reason = self.provider.failed_recently() if self.provider is not None and not ready else None
            if reason:
                report["reason"] = reason  # why the last launch / connection failed (no page data)
        return (200 if ready else 503), report


# -- HTTP app ------------------------------------------------------------------------------------


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


def _authorized(request: Request, options: HttpOptions) -> bool:
    return not options.auth_token or bool(request.scope.get(AUTHORIZED))


def build_app(settings: Settings, options: HttpOptions, *, caps: tuple[str, ...] = ("default",),
              evaluate: bool = True) -> tuple[ASGIApp, SessionPool]:
    """Build the ASGI app (MCP endpoint at ``/mcp``, ``/livez``, ``/healthz``, ``/metrics``) and its session pool.

    Returns:
        ``(app, pool)``; the app's lifespan opens and closes the pool. ``pool.metrics`` is the server's
        :class:`~browser_ctx.server.metrics.ServerMetrics` (its own registry); ``pool.max_sessions`` the
        session limit in force (``options.max_sessions``, else :func:`default_max_sessions`).

    Raises:
        ValueError: see :func:`check_bind`.
        RuntimeError: see :func:`check_sdk`.
    """
    check_bind(options)
    check_sdk()
    pool = SessionPool(settings, shared_context=options.shared_context, idle_timeout=options.idle_timeout)
    server = create_server(settings, caps=caps, evaluate=evaluate, pool=pool)
    metrics = ServerMetrics(pool.stats, pool.peek_session, (t.name for t in select_tools(caps, evaluate=evaluate)),
                            log_calls=options.access_log)
    pool.metrics = metrics
    server.middleware.append(metrics.middleware)

    async def livez(_request: Request) -> Response:
        ok = not pool.closing
        return JSONResponse({"status": "ok" if ok else "shutting down"}, status_code=200 if ok else 503,
                            headers={"Cache-Control": "no-store"})

    async def healthz(request: Request) -> Response:
        code, report = await pool.health(detail=_authorized(request, options))
        return JSONResponse(report, status_code=code, headers={"Cache-Control": "no-store"})

    async def metrics_page(_request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"})

    limit = options.max_sessions if options.max_sessions is not None else default_max_sessions()
    pool.max_sessions = limit
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        max_sessions=limit,
        # The SDK ends MCP sessions with no request in flight (a vanished client) a while after ours expire,
        # so a client that comes back after our timeout still finds its session and gets a fresh context.
        session_idle_timeout=sdk_idle_timeout(options.idle_timeout),
        host=options.host,
        transport_security=security_settings(options),
        custom_starlette_routes=[Route("/livez", livez, methods=["GET"]),
                                 Route("/healthz", healthz, methods=["GET"]),
                                 Route("/metrics", metrics_page, methods=["GET"])],
    )
    manager = server.session_manager
    pool.protocol_sessions = lambda: protocol_session_count(manager)
    app = SessionLimit(app, limit, pool.protocol_sessions)
    if options.auth_token:
        app = BearerAuth(app, options.auth_token, OPEN_PATHS)
    if options.access_log:
        app = AccessLog(app)
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
    app, _pool = build_app(settings, options, caps=caps, evaluate=evaluate)
    if options.access_log and not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("browser-ctx access: %(asctime)s %(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False
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
                  f"(readiness: /healthz, liveness: /livez, metrics: /metrics)", file=sys.stderr, flush=True)

    announcer = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[sock])
    finally:
        announcer.cancel()
        sock.close()
