"""MCP over streamable HTTP: ``browser-ctx serve --transport http --port P``.

The sessions live in :mod:`.http_sessions`, the middleware (token, session limit, access log) in
:mod:`.http_guards`; this module builds the app and serves it, with the SDK's
:class:`~mcp.server.streamable_http_manager.StreamableHTTPSessionManager` (via ``Server.streamable_http_app``)
on uvicorn:

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
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from ..settings import Settings
from .app import create_server, select_tools
from .http_guards import AUTHORIZED, MCP_PATH, RETRY_AFTER_S, AccessLog, BearerAuth, SessionLimit
from .http_sessions import DEFAULT_IDLE_TIMEOUT_S, SessionPool, check_sdk, protocol_session_count
from .metrics import CONTENT_TYPE, ServerMetrics

__all__ = ["HttpOptions", "SessionPool", "BearerAuth", "AccessLog", "SessionLimit", "build_app", "serve_http",
           "default_max_sessions", "machine_memory_bytes", "protocol_session_count",
           "DEFAULT_IDLE_TIMEOUT_S", "LOCAL_HOSTS", "OPEN_PATHS", "check_bind", "check_sdk", "security_settings",
           "AUTHORIZED", "MCP_PATH", "RETRY_AFTER_S"]

log = logging.getLogger("browser_ctx")
access_log = logging.getLogger("browser_ctx.access")

#: Seconds open HTTP requests get to finish on shutdown before sessions are closed anyway.
GRACEFUL_SHUTDOWN_S = 3
#: Hosts that may be bound without an auth token.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: ``Host`` header values accepted by a loopback-bound server (any port).
_LOCAL_HOST_HEADERS = ("127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]")
#: Paths answered without the Bearer token: the status word only (see the module docstring).
OPEN_PATHS = frozenset({"/livez", "/healthz"})
#: Memory one client session is planned at, in bytes, for the default ``--max-sessions`` (512 MiB).
SESSION_BUDGET_BYTES = 512 * 1024 * 1024
#: Share of the machine's memory the default ``--max-sessions`` plans for sessions (the rest: the server,
#: the browser process, the system).
SESSION_MEMORY_SHARE = 0.5
#: Bounds of the memory-aware default ``--max-sessions``.
MIN_DEFAULT_SESSIONS, MAX_DEFAULT_SESSIONS = 2, 64
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


# -- HTTP app ------------------------------------------------------------------------------------


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
    names = (t.name for t in select_tools(caps, evaluate=evaluate, only=settings.tools))
    metrics = ServerMetrics(pool.stats, pool.peek_session, names, log_calls=options.access_log)
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
