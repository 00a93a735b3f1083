"""The browser sessions of the HTTP transport (:class:`SessionPool`: one per MCP client session, or one
shared), and the one place that reads the ``mcp`` SDK's private state to tell clients apart
(:func:`check_sdk` fails loudly when an SDK update moves it). See :mod:`.http` for the behaviour.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from .. import files
from .._errors import BrowserCtxError
from ..browser.launcher import find_executable
from ..browser.remote import BrowserProvider, LaunchedBrowser, RemoteBrowser
from ..browser.session import BrowserSession
from ..settings import Settings
from .metrics import PoolStats, ServerMetrics

__all__ = ["SessionPool", "DEFAULT_IDLE_TIMEOUT_S", "check_sdk", "protocol_session_count"]

log = logging.getLogger("browser_ctx")

#: Seconds without a tool call after which a client's browser session is closed (30 minutes).
DEFAULT_IDLE_TIMEOUT_S = 1800.0
#: Seconds one session may take to close (its context) on shutdown or expiry.
_CLOSE_TIMEOUT_S = 10
#: Expired session ids remembered (to tell a returning client its context was reset).
_EXPIRED_KEPT = 1000


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
                           "an update (see browser_ctx.server.http_sessions._connection_of), or install mcp 2.3")


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
