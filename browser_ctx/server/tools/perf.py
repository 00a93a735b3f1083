"""Performance (``--caps perf``): ``browser_performance`` (a trace condensed to a report, and its insights) and
``browser_memory`` (heap and DOM counters, and what grew since the last call).

Drop-in for chrome-devtools-mcp's ``performance_start_trace`` / ``performance_stop_trace`` /
``performance_analyze_insight`` and its heap snapshot: the same data (a CDP trace with DevTools' categories, the
page's own performance entries, a V8 heap snapshot; files saved for DevTools), answered in a few hundred tokens by
:mod:`browser_ctx.core.perf` and :mod:`browser_ctx.core.heap`.
"""

from __future__ import annotations

from typing import Any

from ..._errors import InvalidArgument
from ...browser import emulation, memory, perf
from ...core.heap import render as render_memory
from ...core.perf import INSIGHTS, render_insight, render_report
from ...core.urls import shorten_url
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "performance", "memory_summary"]


async def performance(call: ToolCall) -> Rendered:
    """``action: "start"`` (``reload``: reload the page first and record its load), ``action: "stop"`` (the
    report), or ``insight`` (one part of the last report in full: a name from
    :data:`browser_ctx.core.perf.INSIGHTS`).

    Raises:
        InvalidArgument: neither or both of action and insight; an unknown insight; stop without start; start
            while recording; insight before any report.
        PageError, ActionTimeout.
    """
    args = call.args
    action, insight = args.get("action"), args.get("insight")
    if bool(action) == bool(insight):
        raise InvalidArgument('Pass action ("start" or "stop") or insight (a name the report gives), not both '
                              "and not neither.")
    tab = await call.session.current_tab()
    if insight:
        if insight not in INSIGHTS:
            raise InvalidArgument(f"Unknown insight {insight!r}; choose from {', '.join(INSIGHTS)}.")
        last = perf.perf_state(tab).last
        if last is None:
            raise InvalidArgument('No performance report on this tab yet; record one with browser_performance '
                                  '{action: "start"} then {action: "stop"}.')
        return Rendered(render_insight(insight, last.entries, last.trace, last.maps), tab=tab.id)
    if action == "start":
        reload = bool(args.get("reload", False))
        recording = await perf.start(tab, call.settings, reload=reload)
        throttled = emulation.throttling(tab)
        text = (f"Recording {shorten_url(recording.url, base=recording.url, limit=80)}"
                + (", reloaded" if reload else "") + '; use the page, then browser_performance {action: "stop"}.'
                + (f" Emulation in force: {throttled}." if throttled else ""))
        return Rendered(text, meta={"recording": True}, capture=False, tab=tab.id)
    if action != "stop":
        raise InvalidArgument(f'action must be "start" or "stop" (got {action!r}).')
    data = await perf.stop(tab, call.settings)
    report = render_report(data.entries, data.trace, data.maps, trace_path=str(data.path) if data.path else None,
                           emulation=emulation.throttling(tab), seconds=data.seconds, reload=data.recording.reload,
                           note=data.note)
    return Rendered(report.text, meta=report.meta, tab=tab.id)


async def memory_summary(call: ToolCall) -> Rendered:
    """JS heap used/total, DOM nodes, listeners and documents, the largest object groups of a heap snapshot (saved
    for DevTools) and, from the second call on the same page, what grew since the last.

    Raises:
        PageError, ActionTimeout.
    """
    tab = await call.session.current_tab()
    now, before, note = await memory.measure(tab, call.settings)
    text = render_memory(now, before) + (f"\nNote: {note}." if note else "")
    meta: dict[str, Any] = {"jsHeapUsed": now.used, "jsHeapTotal": now.total, "domNodes": now.counters.get("nodes"),
                            "listeners": now.counters.get("jsEventListeners"), "snapshot": now.path}
    if before is not None:
        meta["domNodesGrown"] = now.counters.get("nodes", 0) - before.counters.get("nodes", 0)
    return Rendered(text, meta=meta, tab=tab.id)


TOOLS = [
    ToolSpec(
        name="browser_performance",
        description="Trace the page: action start (reload: true records the load), use the page, then stop: LCP, "
                    "CLS, INP with elements and source locations, long tasks, render-blocking, main thread, "
                    "transfers; trace saved for DevTools. insight: one part in full.",
        properties={"action": {"enum": ["start", "stop"]}, "reload": {"type": "boolean"},
                    "insight": {"type": "string"}},
        handler=performance,
        caps="perf",
        read_only=False,
    ),
    ToolSpec(
        name="browser_memory",
        description="JS heap, DOM nodes and listeners, largest object types (heap snapshot saved for DevTools); "
                    "call again after repeating an action to see what grew.",
        properties={},
        handler=memory_summary,
        caps="perf",
    ),
]
