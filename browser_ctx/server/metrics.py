"""Prometheus metrics of one HTTP server: ``GET /metrics`` (text exposition format).

Each :class:`ServerMetrics` owns its own :class:`prometheus_client.CollectorRegistry`, so two servers in
one process (tests) never share counters, and nothing is registered in the library's global registry.

Exported series (all names start with ``browser_ctx_``):

==============================================  =========  ==========================================================
name                                            type       meaning
==============================================  =========  ==========================================================
``browser_ctx_sessions``                        gauge      MCP client sessions with a browser session
``browser_ctx_contexts``                        gauge      open browser contexts (one per client session, or shared)
``browser_ctx_tabs``                            gauge      open tabs over all contexts
``browser_ctx_browser_up``                      gauge      1 while the (launched or remote) browser is connected
``browser_ctx_sessions_expired_total``          counter    client sessions closed for idleness
``browser_ctx_browser_reconnects_total``        counter    relaunches / reconnections after the first start
``browser_ctx_tool_calls_total``                counter    tool calls, labels ``tool`` and ``outcome``
``browser_ctx_tool_call_seconds``               histogram  wall time of a tool call (seconds), label ``tool``
``browser_ctx_tokens_returned_total``           counter    o200k tokens returned (text + structured content + image
                                                           estimate), label ``tool``
==============================================  =========  ==========================================================

``outcome`` is ``ok``, ``error`` (a one-line ``isError`` result: bad input, page failure, timeout) or
``failed`` (the request itself failed: unknown session state, protocol error). ``tool`` is one of the
server's tool names, or ``unknown`` for any other name (so a client cannot grow the label set).
No label ever carries a URL, a selector or page text.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ..browser.session import BrowserSession

__all__ = ["PoolStats", "ServerMetrics", "CONTENT_TYPE", "LATENCY_BUCKETS_S"]

log = logging.getLogger("browser_ctx")
access_log = logging.getLogger("browser_ctx.access")

#: ``Content-Type`` of the ``/metrics`` answer (Prometheus text format 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Upper bounds of the call-latency histogram buckets, in seconds (navigation can take up to 40 s,
#: a call is abandoned after ``--timeout-call``, default 120 s).
LATENCY_BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


@dataclass(frozen=True)
class PoolStats:
    """A point-in-time count of what a session pool holds (no page data).

    Attributes:
        sessions: client sessions with a browser session.
        contexts: open browser contexts.
        tabs: open tabs over all contexts.
        browser_up: whether the browser is currently launched / connected.
        expired: client sessions closed for idleness so far.
        reconnects: browser relaunches or reconnections after the first start so far.
    """

    sessions: int
    contexts: int
    tabs: int
    browser_up: bool
    expired: int
    reconnects: int


class _PoolCollector(Collector):
    """Reads the pool's gauges at scrape time (nothing to keep in sync)."""

    def __init__(self, stats: Callable[[], PoolStats]) -> None:
        self._stats = stats

    def collect(self) -> Iterable[Metric]:
        s = self._stats()
        yield GaugeMetricFamily("browser_ctx_sessions", "MCP client sessions with a browser session", value=s.sessions)
        yield GaugeMetricFamily("browser_ctx_contexts", "Open browser contexts", value=s.contexts)
        yield GaugeMetricFamily("browser_ctx_tabs", "Open tabs over all browser contexts", value=s.tabs)
        yield GaugeMetricFamily("browser_ctx_browser_up", "1 while the browser is launched or connected",
                                value=1 if s.browser_up else 0)
        yield CounterMetricFamily("browser_ctx_sessions_expired", "Client sessions closed for idleness",
                                  value=s.expired)
        yield CounterMetricFamily("browser_ctx_browser_reconnects",
                                  "Browser relaunches or reconnections after the first start", value=s.reconnects)


class ServerMetrics:
    """The metrics of one HTTP server, and the MCP middleware that records tool calls.

    Args:
        stats: returns the pool's current :class:`PoolStats` (called on every scrape).
        session_of: returns the browser session a request was served with, or ``None`` (used to read the
            tokens the call added to the session's ledger).
        tool_names: the server's tool names; any other name is counted as ``unknown``.
        log_calls: also write one access-log line per tool call (logger ``browser_ctx.access``):
            tool, outcome, milliseconds, tokens and the first 8 characters of the MCP session id; never
            arguments, URLs or page text.

    Use :meth:`middleware` as a ``Server.middleware`` entry and :meth:`render` for ``GET /metrics``.
    """

    def __init__(self, stats: Callable[[], PoolStats], session_of: Callable[[Any], BrowserSession | None],
                 tool_names: Iterable[str], *, log_calls: bool = False) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._session_of = session_of
        self._tools = frozenset(tool_names)
        self._log_calls = log_calls
        # Ledger total already attributed, per browser session (shared sessions serve several clients).
        self._seen: weakref.WeakKeyDictionary[BrowserSession, int] = weakref.WeakKeyDictionary()
        self.calls = Counter("browser_ctx_tool_calls", "Tool calls by tool and outcome (ok, error, failed)",
                             ["tool", "outcome"], registry=self.registry)
        self.latency = Histogram("browser_ctx_tool_call_seconds", "Wall time of a tool call in seconds", ["tool"],
                                 buckets=LATENCY_BUCKETS_S, registry=self.registry)
        self.tokens = Counter("browser_ctx_tokens_returned", "o200k tokens returned to clients (text, structured "
                              "content and estimated image tokens)", ["tool"], registry=self.registry)
        self.registry.register(_PoolCollector(stats))

    def render(self) -> bytes:
        """Return every series in the Prometheus text format (see :data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)

    def _tool(self, ctx: ServerRequestContext[Any, Any]) -> str:
        name = ctx.params.get("name") if ctx.params else None
        return name if isinstance(name, str) and name in self._tools else "unknown"

    def _tokens_added(self, ctx: ServerRequestContext[Any, Any]) -> int:
        session = self._session_of(ctx)
        if session is None:
            return 0
        total = session.ledger.session_tokens
        added = total - self._seen.get(session, 0)
        self._seen[session] = total
        return max(0, added)

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """``Server.middleware`` entry: times and counts ``tools/call`` requests; passes everything else on."""
        if ctx.method != "tools/call":
            return await call_next(ctx)
        tool = self._tool(ctx)
        started = time.perf_counter()
        outcome = "failed"
        try:
            result = await call_next(ctx)
            outcome = "error" if isinstance(result, types.CallToolResult) and result.is_error else "ok"
            return result
        finally:
            seconds = time.perf_counter() - started
            self.calls.labels(tool, outcome).inc()
            self.latency.labels(tool).observe(seconds)
            tokens = self._tokens_added(ctx)
            self.tokens.labels(tool).inc(tokens)
            if self._log_calls:
                sid = getattr(ctx.request, "headers", {}).get("mcp-session-id", "") if ctx.request else ""
                access_log.info("call tool=%s outcome=%s ms=%.0f tokens=%d session=%s", tool, outcome,
                                seconds * 1000, tokens, sid[:8] or "-")

    def samples(self) -> Iterator[tuple[str, dict[str, str], float]]:
        """Yield ``(name, labels, value)`` of every sample (for tests and the benchmark)."""
        for metric in self.registry.collect():
            for sample in metric.samples:
                yield sample.name, dict(sample.labels), sample.value
