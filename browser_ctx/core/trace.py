"""Condense a Chrome trace (the ``traceEvents`` of CDP ``Tracing`` with the DevTools categories) to what a
performance report needs: the page's main-thread time by category, its long tasks and the slowest event
dispatches, each with the script location that ran (``url``, 1-based ``line``/``col``, ``function``).

Pure: takes the trace's event dicts. Only the renderer main threads of the traced page count (the
``CrRendererMain`` threads of the processes its outermost main frame lived in, from
``TracingStartedInBrowser`` and ``FrameCommittedInBrowser``); other tabs and processes are ignored.
Times are milliseconds; ``start`` values are from the trace's first main-thread task, or from the last
main-frame ``navigationStart`` when the trace holds a navigation (then they match the page's own
``performance.now()`` clock).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Location", "Task", "Dispatch", "TraceSummary", "summarise_trace", "CATEGORIES", "LONG_TASK_MS"]

#: A task at least this long (ms) is a long task (the Long Tasks API's threshold).
LONG_TASK_MS = 50.0
#: Long tasks and dispatches kept, the longest first.
KEEP = 10

#: Event name -> main-thread category (DevTools' grouping: script, style, layout, paint, parse); names not
#: listed take their parent's category, or ``other`` at the top of a task.
CATEGORIES: dict[str, str] = {
    **dict.fromkeys((
        "FunctionCall", "EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule", "v8.run",
        "v8.callFunction", "V8.Execute", "TimerFire", "EventDispatch", "FireAnimationFrame", "FireIdleCallback",
        "RunMicrotasks", "XHRReadyStateChange", "XHRLoad", "MajorGC", "MinorGC", "V8.GCScavenger",
        "V8.GCCompactor", "V8.GCFinalizeMC", "V8.GCIncrementalMarking", "BlinkGC.AtomicPhase", "CppGC.AtomicMark",
        "ScheduledAction::execute", "v8.produceCache", "v8.deserializeOnBackground", "ScriptCatchup",
        "v8.newInstance", "WebSocketReceiveHandshakeResponse", "FrameStartedLoading",
    ), "script"),
    **dict.fromkeys(("UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet", "InvalidateLayout"), "style"),
    **dict.fromkeys(("Layout", "HitTest", "PrePaint", "IntersectionObserverController::computeIntersections",
                     "ScrollLayer", "UpdateLayer"), "layout"),
    **dict.fromkeys(("Paint", "PaintImage", "Decode Image", "ImageDecodeTask", "Decode LazyPixelRef", "Rasterize",
                     "CompositeLayers", "Layerize", "Commit", "PaintSetup", "UpdateLayerTree", "RasterTask",
                     "Draw LazyPixelRef"), "paint"),
    **dict.fromkeys(("ParseHTML", "ResourceReceivedData"), "parse"),
}
#: Events that name the script that runs inside them, most specific first.
_SCRIPT_EVENTS = ("FunctionCall", "EvaluateScript", "v8.compileModule", "v8.evaluateModule", "ParseHTML",
                  "TimerFire", "EventDispatch", "FireAnimationFrame")


@dataclass(frozen=True)
class Location:
    """Where a script ran: ``url``, 1-based ``line`` and ``col`` (0 when unknown), ``function`` (``""``)."""

    url: str
    line: int = 0
    col: int = 0
    function: str = ""


@dataclass(frozen=True)
class Task:
    """One long main-thread task: ``start``/``duration`` (ms), what ran (``kind``: the event that took the
    most of it, e.g. ``TimerFire``, ``EventDispatch click``, ``ParseHTML``) and its script ``location``."""

    start: float
    duration: float
    kind: str
    location: Location | None = None


@dataclass(frozen=True)
class Dispatch:
    """One DOM event dispatch: its ``type`` (``click``), ``start``/``duration`` (ms) and the handler that
    took the most of it (``location``)."""

    type: str
    start: float
    duration: float
    location: Location | None = None


@dataclass
class TraceSummary:
    """What :func:`summarise_trace` found.

    Attributes:
        duration: ms from the first to the last main-thread event.
        categories: main-thread self time by category (ms): script, style, layout, paint, parse, other.
        long_tasks: tasks of at least :data:`LONG_TASK_MS`, the longest first (at most :data:`KEEP`).
        long_task_count / long_task_total: all long tasks, and their summed duration (ms).
        dispatches: event dispatches of at least 16 ms, the longest first (at most :data:`KEEP`).
        navigated: the trace holds a main-frame navigation (``start`` values are on the page's clock).
        threads: main threads found (0: the trace has none of the page's, and the rest is empty).
    """

    duration: float = 0.0
    categories: dict[str, float] = field(default_factory=dict)
    long_tasks: list[Task] = field(default_factory=list)
    long_task_count: int = 0
    long_task_total: float = 0.0
    dispatches: list[Dispatch] = field(default_factory=list)
    navigated: bool = False
    threads: int = 0


def _data(event: dict[str, Any]) -> dict[str, Any]:
    args = event.get("args") or {}
    data = args.get("data") or args.get("beginData") or {}
    return data if isinstance(data, dict) else {}


def _main_threads(events: list[dict[str, Any]]) -> set[tuple[Any, Any]]:
    """``(pid, tid)`` of the traced page's renderer main threads."""
    frames: set[str] = set()
    pids: set[Any] = set()
    for e in events:
        name = e.get("name")
        if name == "TracingStartedInBrowser":
            for f in _data(e).get("frames") or ():
                if f.get("isOutermostMainFrame") or (f.get("isInPrimaryMainFrame") and not f.get("parent")):
                    frames.add(str(f.get("frame")))
                    pids.add(f.get("processId"))
    for e in events:
        if e.get("name") == "FrameCommittedInBrowser":
            d = _data(e)
            if str(d.get("frame")) in frames and d.get("processId") is not None:
                pids.add(d.get("processId"))
    threads = {(e.get("pid"), e.get("tid")) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"
               and (e.get("args") or {}).get("name") == "CrRendererMain"}
    if pids:
        return {t for t in threads if t[0] in pids}
    return threads if len(threads) == 1 else set()


def _location(event: dict[str, Any]) -> Location | None:
    d = _data(event)
    url = d.get("url")
    if not url:
        return None
    line, col = d.get("lineNumber"), d.get("columnNumber")
    if event.get("name") == "ParseHTML":
        line, col = (d.get("startLine") or 0) + 1, 0
    return Location(str(url), int(line or 0), int(col or 0), str(d.get("functionName") or ""))


@dataclass
class _Node:
    event: dict[str, Any]
    start: float
    end: float
    category: str
    children_ms: float = 0.0
    scripts: list[dict[str, Any]] = field(default_factory=list)  # script events nested inside (tasks only)


def _heaviest_script(events: Iterable[dict[str, Any]]) -> tuple[str, Location | None]:
    """The event that names the script taking most of a task: ``(kind, location)``."""
    best: dict[str, Any] | None = None
    best_loc: Location | None = None
    for rank, name in enumerate(_SCRIPT_EVENTS):
        for e in events:
            if e.get("name") != name:
                continue
            loc = _location(e)
            if loc is None and name not in ("TimerFire", "EventDispatch", "FireAnimationFrame"):
                continue
            if best is None or (loc is not None and best_loc is None) or (
                    (loc is not None) == (best_loc is not None) and float(e.get("dur", 0)) > float(best.get("dur", 0))):
                best, best_loc = e, loc
        if best_loc is not None and rank < 3:
            break
    if best is None:
        return "", None
    kind = str(best.get("name"))
    return kind, best_loc


def summarise_trace(events: list[dict[str, Any]]) -> TraceSummary:
    """Summarise a trace's ``traceEvents`` (see the module docstring). Never raises on odd events: an event
    without ``ts``/``dur`` is skipped."""
    threads = _main_threads(events)
    out = TraceSummary(threads=len(threads))
    if not threads:
        return out
    nav_starts = [float(e["ts"]) for e in events if e.get("name") == "navigationStart" and "ts" in e
                  and (e.get("pid"), e.get("tid")) in threads and _data(e).get("isOutermostMainFrame", True)
                  and str(_data(e).get("documentLoaderURL") or "").startswith(("http", "file"))]
    complete = sorted((e for e in events if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in threads
                       and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))),
                      key=lambda e: (e.get("tid"), e["ts"], -e["dur"]))
    if not complete:
        return out
    first = min(float(e["ts"]) for e in complete)
    last = max(float(e["ts"]) + float(e["dur"]) for e in complete)
    out.navigated = bool(nav_starts)
    origin = max(nav_starts) if nav_starts else first
    out.duration = (last - first) / 1000
    cats: dict[str, float] = {}
    tasks: list[Task] = []
    dispatches: list[Dispatch] = []
    stack: list[_Node] = []
    task: _Node | None = None

    def close(node: _Node) -> None:
        nonlocal task
        self_ms = max(0.0, (node.end - node.start) / 1000 - node.children_ms)
        cats[node.category] = cats.get(node.category, 0.0) + self_ms
        e = node.event
        if e.get("name") == "EventDispatch" and float(e["dur"]) >= 16_000:
            _kind, loc = _heaviest_script([s for s in node.scripts if s.get("name") == "FunctionCall"])
            dispatches.append(Dispatch(str(_data(e).get("type") or "event"), (node.start - origin) / 1000,
                                       float(e["dur"]) / 1000, loc))
        if node is task:
            dur = float(e["dur"]) / 1000
            if dur >= LONG_TASK_MS:
                kind, loc = _heaviest_script(node.scripts)
                events = [s for s in node.scripts if s.get("name") == "EventDispatch"]
                longest = max(events, key=lambda s: float(s.get("dur", 0))) if events else None
                if longest is not None and float(longest.get("dur", 0)) >= float(e["dur"]) / 2:
                    kind = f"{_data(longest).get('type') or 'event'} event"
                elif kind in ("EventDispatch", "TimerFire", "FireAnimationFrame") and loc is None:
                    kind = "other"  # a short dispatch in a task whose time went elsewhere (no script named)
                if not (out.navigated and node.start < origin):  # the previous document's unload
                    tasks.append(Task((node.start - origin) / 1000, dur, kind or "other", loc))
            task = None

    for e in complete:
        start, end = float(e["ts"]), float(e["ts"]) + float(e["dur"])
        while stack and (start >= stack[-1].end or stack[-1].event.get("tid") != e.get("tid")):
            close(stack.pop())
        name = str(e.get("name"))
        parent = stack[-1] if stack else None
        category = CATEGORIES.get(name) or (parent.category if parent is not None else "other")
        node = _Node(e, start, min(end, parent.end) if parent is not None else end, category)
        if parent is not None:
            parent.children_ms += (node.end - node.start) / 1000
        else:
            task = node
        if task is not None and task is not node and name in _SCRIPT_EVENTS:
            task.scripts.append(e)
        if stack and name == "FunctionCall":
            for anc in stack:
                if anc.event.get("name") == "EventDispatch":
                    anc.scripts.append(e)
        stack.append(node)
    while stack:
        close(stack.pop())
    out.categories = {k: round(v, 1) for k, v in sorted(cats.items(), key=lambda kv: -kv[1])}
    tasks.sort(key=lambda t: -t.duration)
    out.long_task_count, out.long_task_total = len(tasks), round(sum(t.duration for t in tasks), 1)
    out.long_tasks = tasks[:KEEP]
    dispatches.sort(key=lambda d: -d.duration)
    out.dispatches = dispatches[:KEEP]
    return out
