"""Condense a performance recording to a report an agent can act on in one read (``browser_performance``).

Pure: takes the page's performance entries (the plain data ``browser/js/perf_entries.js`` returns: LCP, layout
shifts, event timing, long tasks, long animation frames, Navigation and Resource Timing, elements described),
the trace summary (:class:`~browser_ctx.core.trace.TraceSummary`) and the source maps of the scripts it names.

:func:`render_report` gives a few hundred tokens: LCP with its element and phases, CLS with what shifted and
the likely cause, INP (or the slowest interaction) with its handler's source location, long tasks, render-blocking
requests, main-thread time by category and the largest transfers; each line names the ``insight`` call that
shows more (:data:`INSIGHTS`, rendered by :func:`render_insight`). Times are ms on the page's clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .sourcemap import LoadedMap, MapFailure
from .trace import Location, TraceSummary
from .urls import shorten_url

__all__ = ["INSIGHTS", "Report", "render_report", "render_insight", "cls_windows", "interactions", "lcp_phases"]

#: Insight names ``browser_performance {insight}`` takes (DevTools' names where one exists).
INSIGHTS = ("LCPBreakdown", "CLSCulprits", "INPBreakdown", "LongTasks", "RenderBlocking", "MainThread",
            "NetworkTransfers")
#: (good up to, poor above) per metric, as web.dev rates them.
_RATING = {"LCP": (2500, 4000), "CLS": (0.1, 0.25), "INP": (200, 500)}
_KINDS = {"FunctionCall": "script", "TimerFire": "timer", "EvaluateScript": "script evaluation",
          "ParseHTML": "HTML parsing", "v8.compileModule": "module compile", "v8.evaluateModule": "module",
          "FireAnimationFrame": "animation frame", "EventDispatch": "event"}
#: Event types of user input (an interaction's events).
_INPUT = frozenset(("click", "pointerdown", "pointerup", "mousedown", "mouseup", "keydown", "keyup", "keypress",
                    "input", "change", "submit", "touchstart", "touchend", "auxclick", "contextmenu", "dblclick"))
Maps = Mapping[str, "LoadedMap | MapFailure | None"]


@dataclass(frozen=True)
class Report:
    """A rendered report: ``text`` and the structured fields sent with it (camelCase)."""

    text: str
    meta: dict[str, Any]


def _rate(metric: str, value: float) -> str:
    good, poor = _RATING[metric]
    return "good" if value <= good else "poor" if value > poor else "needs improvement"


def _ms(v: float) -> str:
    return f"{v:,.0f} ms"


def _bytes(n: float) -> str:
    return f"{n:,.0f} B" if n < 1024 else f"{n / 1024:,.1f} kB" if n < 1024 * 1024 else f"{n / 1048576:,.1f} MB"


def element(desc: Mapping[str, Any] | None) -> str:
    """``img#hero "Spring collection" [e5]``; an element with neither id nor ref names its selector."""
    if not desc:
        return "(element gone)"
    text = str(desc.get("tag") or "element") + (f"#{desc['id']}" if desc.get("id") else "")
    if desc.get("name"):
        text += f' "{desc["name"]}"'
    if desc.get("ref"):
        text += f" [{desc['ref']}]"
    elif not desc.get("id") and desc.get("selector"):
        text += f" ({desc['selector']})"
    if desc.get("connected") is False:
        text += " (since removed)"
    return text


def where(loc: Location | None, maps: Maps, base: str) -> str:
    """A script location as shown, source-mapped where the script's map allows: ``buildReport
    (src/report.js:8:22)``, or the generated one with why it is not mapped."""
    if loc is None:
        return ""
    loaded = maps.get(loc.url)
    fn = loc.function
    if isinstance(loaded, LoadedMap) and loc.line:
        hit = loaded.lookup(loc.line, loc.col or 1, fn)
        if hit is not None:
            return f"{hit.function or fn or '(anonymous)'} ({hit.path}:{hit.line}:{hit.col})"
    shown = f"{fn or '(anonymous)'} ({shorten_url(loc.url, base=base, limit=70)}" \
            + (f":{loc.line}:{loc.col}" if loc.line else "") + ")"
    if isinstance(loaded, MapFailure):
        shown += f" (not source-mapped: {loaded})"
    return shown


def frame_script(s: Mapping[str, Any], maps: Maps, base: str) -> str:
    """A long animation frame's script as ``function (source:line:col)``: its ``sourceCharPosition`` mapped
    through the script's source map where there is one, else the script URL."""
    url, fn, at = str(s.get("url") or ""), str(s.get("fn") or ""), s.get("at")
    loaded = maps.get(url)
    if isinstance(loaded, LoadedMap) and isinstance(at, int) and at >= 0:
        line, col = loaded.position(at)
        shown = where(Location(url, line, col, fn), maps, base)
        if shown:
            return shown
    return f"{fn or s.get('invoker') or '(anonymous)'} ({shorten_url(url, base=base, limit=60) or '?'})"


def _more(insight: str) -> str:
    return f'→ {{insight: "{insight}"}}'


# --- the metrics -------------------------------------------------------------------------------------------


def lcp_phases(entries: Mapping[str, Any]) -> dict[str, Any] | None:
    """The last LCP candidate with its phases (web-vitals attribution): ``ttfb``, ``loadDelay``, ``loadTime``,
    ``renderDelay`` (ms; the load phases only for an image or other resource), ``url`` and ``element``."""
    lcps = entries.get("lcp") or []
    if not lcps:
        return None
    lcp = lcps[-1]
    start = float(lcp.get("start") or 0)
    ttfb = float((entries.get("nav") or {}).get("ttfb") or 0)
    out: dict[str, Any] = {"start": start, "element": lcp.get("element"), "url": lcp.get("url") or "",
                           "size": lcp.get("size") or 0, "ttfb": min(ttfb, start)}
    res = next((r for r in entries.get("resources") or () if lcp.get("url") and r.get("url") == lcp.get("url")), None)
    if res is not None:
        req = float(res.get("requestStart") or res.get("start") or 0)
        end = float(res.get("end") or 0)
        out["loadDelay"] = max(0.0, req - ttfb)
        out["loadTime"] = max(0.0, end - req)
        out["renderDelay"] = max(0.0, start - max(end, ttfb))
        out["transfer"] = res.get("transfer") or res.get("encoded") or 0
    else:
        out["renderDelay"] = max(0.0, start - ttfb)
    return out


def cls_windows(shifts: list[Mapping[str, Any]]) -> tuple[float, list[Mapping[str, Any]]]:
    """CLS (the largest session window: shifts under 1 s apart, at most 5 s long; shifts right after input do
    not count) and the shifts of that window."""
    best, best_shifts = 0.0, []
    cur, first, prev = 0.0, 0.0, -1e9
    cur_shifts: list[Mapping[str, Any]] = []
    for s in sorted((s for s in shifts if not s.get("recentInput")), key=lambda s: float(s.get("start") or 0)):
        t = float(s.get("start") or 0)
        if t - prev > 1000 or t - first > 5000:
            cur, cur_shifts, first = 0.0, [], t
        cur += float(s.get("value") or 0)
        cur_shifts.append(s)
        prev = t
        if cur > best:
            best, best_shifts = cur, list(cur_shifts)
    return best, best_shifts


def interactions(events: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Interactions (event-timing entries grouped by ``interactionId``), the slowest first: ``duration``, the
    ``types`` of its events, ``name`` (the main one), ``element``, ``inputDelay``, ``processing``,
    ``presentation`` (ms), ``start``."""
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for e in events:
        if e.get("interaction"):
            groups.setdefault(e["interaction"], []).append(e)
    out: list[dict[str, Any]] = []
    for group in groups.values():
        start = min(float(e.get("start") or 0) for e in group)
        duration = max(float(e.get("duration") or 0) for e in group)
        p_start = min(float(e.get("processingStart") or 0) for e in group)
        p_end = max(float(e.get("processingEnd") or 0) for e in group)
        types = list(dict.fromkeys(str(e.get("name")) for e in group))
        name = next((t for t in ("click", "keydown", "keypress", "pointerdown", "pointerup", "input") if t in types),
                    types[0])
        el = next((e.get("element") for e in group if e.get("name") == name and e.get("element")), None) \
            or next((e.get("element") for e in group if e.get("element")), None)
        out.append({"start": start, "duration": duration, "types": types, "name": name, "element": el,
                    "inputDelay": max(0.0, p_start - start), "processing": max(0.0, p_end - p_start),
                    "presentation": max(0.0, start + duration - p_end)})
    out.sort(key=lambda i: -float(i["duration"]))
    return out


def _inp(found: list[dict[str, Any]]) -> dict[str, Any] | None:
    """INP: the slowest interaction, or (50 or more) the one at the 98th percentile."""
    if not found:
        return None
    return found[min(len(found) // 50, len(found) - 1)]


def _handler(interaction: Mapping[str, Any], trace: TraceSummary | None) -> Location | None:
    """The script location of the slowest trace dispatch of one of the interaction's event types."""
    if trace is None:
        return None
    types = set(interaction.get("types") or ())
    hits = [d for d in trace.dispatches if d.type in types and d.location is not None]
    return max(hits, key=lambda d: d.duration).location if hits else None


def _culprits(window: list[Mapping[str, Any]], entries: Mapping[str, Any]) -> list[str]:
    """Likely causes of the shifts: images without width and height that finished loading just before one."""
    resources = {r.get("url"): r for r in entries.get("resources") or ()}
    images = entries.get("unsizedImages") or []
    found: list[str] = []
    for img in images:
        res = resources.get(img.get("src"))
        end = float(res.get("end") or 0) if res else None
        if end is None or any(float(s.get("start") or 0) - 600 <= end <= float(s.get("start") or 0) + 50
                              for s in window):
            found.append(f"{element(img)} has no width/height" + (f" (loaded at {end / 1000:.2f} s)" if end else ""))
    return found[:3]


# --- the report --------------------------------------------------------------------------------------------


def _lcp_line(entries: Mapping[str, Any], base: str) -> tuple[list[str], float | None]:
    p = lcp_phases(entries)
    if p is None:
        what = "the page loaded before the recording; start with reload: true to measure it" \
            if not (entries.get("nav") and entries.get("since") == 0) else "no candidate reported"
        return [f"LCP: none in this recording ({what})."], None
    res = f", {shorten_url(p['url'], base=base, limit=50)}" if p["url"] else ""
    lines = [f"LCP {_ms(p['start'])} ({_rate('LCP', p['start'])}): {element(p['element'])}{res}"]
    phases = [("TTFB", p["ttfb"]), ("load delay", p.get("loadDelay")), ("load", p.get("loadTime")),
              ("render delay", p["renderDelay"])]
    shown = [(n, v) for n, v in phases if v is not None]
    total = sum(v for _, v in shown) or 1.0
    big = [n for n, v in shown if v / total >= 0.25]
    arrived = max(float(p["ttfb"]), float(p.get("loadDelay") or 0) + float(p.get("loadTime") or 0) + float(p["ttfb"]))
    blockers = [r for r in _blocking(entries) if float(r.get("end") or 0) > arrived - 50
                and float(r.get("start") or 0) < p["start"]]
    size = f" ({_bytes(float(p['transfer']))} in {_ms(float(p['loadTime']))})" if p.get("transfer") else ""
    waited = ("rendering waited for render-blocking " + ", ".join(
        f"{shorten_url(str(r.get('url')), base=base, limit=60)} (until {_ms(float(r.get('end') or 0))})"
        for r in blockers[:2])) if blockers else "it was ready but rendering waited (main-thread work, fonts, styles)"
    hint = {"TTFB": "the server is slow to send the document", "load delay": "the resource was requested late "
            "(not discoverable early: preload it or set fetchpriority=high)",
            "load": f"the resource is slow to arrive{size}", "render delay": waited}
    lines.append("  " + " · ".join(f"{n} {v:,.0f}" for n, v in shown) + " ms; "
                 + "; ".join(f"{n}: {hint[n]}" for n in big) + f" {_more('LCPBreakdown')}")
    return lines, p["start"]


def _cls_line(entries: Mapping[str, Any]) -> tuple[list[str], float]:
    shifts = entries.get("shifts") or []
    value, window = cls_windows(shifts)
    if not window:
        return [f"CLS 0 ({_rate('CLS', 0)}): no layout shift."], 0.0
    moved: dict[str, int] = {}
    for s in window:
        for src in s.get("sources") or ():
            key = element(src.get("element"))
            moved[key] = max(moved.get(key, 0), int(src.get("moved") or 0))
    top = sorted(moved.items(), key=lambda kv: -kv[1])[:3]
    line = (f"CLS {value:.3f} ({_rate('CLS', value)}): {len(window)} shift{'s' if len(window) != 1 else ''} from "
            f"{float(window[0].get('start') or 0) / 1000:.2f} s moved " + ", ".join(f"{k} by {v} px" for k, v in top))
    causes = _culprits(window, entries)
    lines = [line]
    if causes:
        lines.append("  likely cause: " + "; ".join(causes))
    lines[-1] += f" {_more('CLSCulprits')}"
    return lines, value


def _inp_line(entries: Mapping[str, Any], trace: TraceSummary | None, maps: Maps,
              base: str) -> tuple[list[str], float | None]:
    found = interactions(entries.get("events") or [])
    inp = _inp(found)
    if inp is None:
        slow = next((d for d in trace.dispatches if d.location is not None and d.type in _INPUT), None) \
            if trace is not None else None
        if slow is not None and slow.duration >= 50:
            return [f"INP: no interaction timed by the page; slowest input event in the trace: {slow.type} "
                    f"{_ms(slow.duration)} in {where(slow.location, maps, base)}"], None
        return ["INP: no interaction (click or type while recording)."], None
    loc = _handler(inp, trace)
    handler = f"; handler {where(loc, maps, base)}" if loc is not None else ""
    label = "INP" if len(found) >= 1 else "slowest interaction"
    return [f"{label} {_ms(inp['duration'])} ({_rate('INP', inp['duration'])}): {inp['name']} on "
            f"{element(inp['element'])}: input delay {_ms(inp['inputDelay'])}, processing "
            f"{_ms(inp['processing'])}, presentation {_ms(inp['presentation'])}{handler} {_more('INPBreakdown')}"], \
        inp["duration"]


def _task(t: Any, maps: Maps, base: str) -> str:
    kind = _KINDS.get(t.kind, t.kind)
    loc = where(t.location, maps, base)
    return f"{_ms(t.duration)} {kind} at {t.start / 1000:.2f} s" + (f" in {loc}" if loc else "")


def _tasks_line(entries: Mapping[str, Any], trace: TraceSummary | None, maps: Maps, base: str) -> list[str]:
    frames = sorted(entries.get("frames") or [], key=lambda f: -float(f.get("duration") or 0))
    loaf = ""
    if frames:
        f = frames[0]
        script = next(iter(sorted(f.get("scripts") or [], key=lambda s: -float(s.get("duration") or 0))), None)
        by = f" in {frame_script(script, maps, base)}" if script and script.get("url") else ""
        loaf = (f"; long animation frames: {len(frames)}, longest {_ms(float(f.get('duration') or 0))} "
                f"(blocking {_ms(float(f.get('blocking') or 0))}){by}")
    if trace is not None and trace.threads:
        if not trace.long_task_count:
            return ["Long tasks: none" + loaf + "."]
        shown = _task(trace.long_tasks[0], maps, base)
        return [f"Long tasks: {trace.long_task_count}, {_ms(trace.long_task_total)} in all; longest {shown}{loaf} "
                f"{_more('LongTasks')}"]
    tasks = sorted(entries.get("longTasks") or [], key=lambda t: -float(t.get("duration") or 0))
    if not tasks:
        return ["Long tasks: none" + loaf + "."]
    return [f"Long tasks: {len(tasks)}, longest {_ms(float(tasks[0].get('duration') or 0))} at "
            f"{float(tasks[0].get('start') or 0) / 1000:.2f} s{loaf} {_more('LongTasks')}"]


def _blocking(entries: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = [r for r in entries.get("resources") or () if r.get("blocking") == "blocking"]
    return sorted(found, key=lambda r: -float(r.get("duration") or 0))


def _res(r: Mapping[str, Any], base: str, *, short: bool = False) -> str:
    """A request as ``/path?query (1,221 ms, 3.0 kB)``; ``short``: its file name only."""
    size = r.get("transfer") or r.get("encoded") or 0
    url = str(r.get("url"))
    name = (url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] or url) if short else \
        shorten_url(url, base=base, limit=60)
    return f"{name} ({_ms(float(r.get('duration') or 0))}" + (f", {_bytes(float(size))}" if size else "") + ")"


def render_report(entries: Mapping[str, Any], trace: TraceSummary | None, maps: Maps, *, trace_path: str | None,
                  emulation: str, seconds: float, reload: bool, note: str = "") -> Report:
    """The condensed report (see the module docstring). ``emulation`` says what throttling was in force
    (``""``: none); ``seconds`` is how long the recording ran."""
    base = str(entries.get("url") or "")
    head = (f"Performance of {shorten_url(base, base=base, limit=80) or 'the page'} "
            f"({'page load, ' if reload else ''}{seconds:.1f} s; "
            + (f"emulation in force: {emulation})" if emulation else "no throttling)"))
    lines = [head]
    lcp_lines, lcp = _lcp_line(entries, base)
    cls_lines, cls = _cls_line(entries)
    inp_lines, inp = _inp_line(entries, trace, maps, base)
    lines += lcp_lines + cls_lines + inp_lines + _tasks_line(entries, trace, maps, base)
    blocking = _blocking(entries)
    if blocking:
        lines.append("Render-blocking: " + "; ".join(_res(r, base) for r in blocking[:3])
                     + (f"; {len(blocking) - 3} more" if len(blocking) > 3 else "") + f" {_more('RenderBlocking')}")
    if trace is not None and trace.categories:
        lines.append("Main thread: " + ", ".join(f"{k} {v:,.0f}" for k, v in list(trace.categories.items())[:4]
                                                 if v >= 1)
                     + f" ms {_more('MainThread')}")
    transfers = sorted(entries.get("resources") or [], key=lambda r: -float(r.get("transfer") or r.get("encoded") or 0))
    if transfers:
        lines.append("Largest transfers: " + "; ".join(_res(r, base, short=True) for r in transfers[:3])
                     + f" {_more('NetworkTransfers')}")
    if note:
        lines.append(f"Note: {note}.")
    if trace_path:
        lines.append(f"Trace for DevTools' Performance panel: {trace_path}")
    lines.append('More on a line: browser_performance {insight: "<name after →>"}.')
    meta: dict[str, Any] = {"lcpMs": round(lcp) if lcp is not None else None, "cls": round(cls, 4),
                            "inpMs": round(inp) if inp is not None else None, "trace": trace_path}
    if emulation:
        meta["emulation"] = emulation
    return Report("\n".join(lines), meta)


def render_insight(name: str, entries: Mapping[str, Any], trace: TraceSummary | None, maps: Maps) -> str:
    """One insight in full (``name`` from :data:`INSIGHTS`; the caller checks it)."""
    base = str(entries.get("url") or "")
    if name == "LCPBreakdown":
        lines = [f"LCP candidates ({len(entries.get('lcp') or [])}):"]
        lines += [f"  {_ms(float(c.get('start') or 0))}: {element(c.get('element'))}, {c.get('size') or 0:,} px²"
                  + (f", {shorten_url(str(c['url']), base=base, limit=90)}" if c.get("url") else "")
                  for c in (entries.get("lcp") or [])[-8:]]
        p = lcp_phases(entries)
        if p is not None:
            lines.append("Phases of the last: " + ", ".join(
                f"{k} {_ms(float(p[k]))}" for k in ("ttfb", "loadDelay", "loadTime", "renderDelay") if k in p))
            if p.get("transfer"):
                lines.append(f"Resource transfer: {_bytes(float(p['transfer']))}")
        nav = entries.get("nav") or {}
        if nav:
            lines.append(f"Document: TTFB {_ms(nav.get('ttfb') or 0)}, DOMContentLoaded {_ms(nav.get('dcl') or 0)}, "
                         f"load {_ms(nav.get('load') or 0)}")
        blocking = _blocking(entries)
        if blocking:
            lines.append("Render-blocking before it: " + "; ".join(_res(r, base) for r in blocking[:5]))
        return "\n".join(lines)
    if name == "CLSCulprits":
        value, window = cls_windows(entries.get("shifts") or [])
        lines = [f"CLS {value:.3f}; shifts ({len(entries.get('shifts') or [])}):"]
        for s in (entries.get("shifts") or [])[:20]:
            srcs = ", ".join(f"{element(x.get('element'))} by {x.get('moved')} px" for x in s.get("sources") or ())
            lines.append(f"  {float(s.get('start') or 0) / 1000:.2f} s: {float(s.get('value') or 0):.4f}"
                         + (" (after input, not counted)" if s.get("recentInput") else "")
                         + (f": {srcs}" if srcs else ""))
        causes = _culprits(window, entries)
        lines.append("Likely causes: " + ("; ".join(causes) if causes else "none found among images"))
        return "\n".join(lines)
    if name == "INPBreakdown":
        found = interactions(entries.get("events") or [])
        lines = [f"Interactions ({len(found)}):"]
        for i in found[:15]:
            loc = _handler(i, trace)
            lines.append(f"  {_ms(i['duration'])} {i['name']} ({', '.join(i['types'])}) on {element(i['element'])} at "
                         f"{i['start'] / 1000:.2f} s: input delay {_ms(i['inputDelay'])}, processing "
                         f"{_ms(i['processing'])}, presentation {_ms(i['presentation'])}"
                         + (f"; handler {where(loc, maps, base)}" if loc else ""))
        if trace is not None and trace.dispatches:
            lines.append("Slowest event dispatches in the trace:")
            lines += [f"  {d.type} {_ms(d.duration)} at {d.start / 1000:.2f} s"
                      + (f" in {where(d.location, maps, base)}" if d.location else "") for d in trace.dispatches[:8]]
        return "\n".join(lines)
    if name == "LongTasks":
        lines = []
        if trace is not None:
            lines.append(f"Long tasks in the trace ({trace.long_task_count}, {_ms(trace.long_task_total)}):")
            lines += [f"  {_task(t, maps, base)}" for t in trace.long_tasks]
        lines.append(f"Long animation frames ({len(entries.get('frames') or [])}):")
        for f in sorted(entries.get("frames") or [], key=lambda f: -float(f.get("duration") or 0))[:8]:
            scripts = "; ".join(f"{_ms(float(s.get('duration') or 0))} {frame_script(s, maps, base)} "
                                f"({s.get('type')}: {s.get('invoker')})" for s in f.get("scripts") or ())
            lines.append(f"  {_ms(float(f.get('duration') or 0))} at {float(f.get('start') or 0) / 1000:.2f} s, "
                         f"blocking {_ms(float(f.get('blocking') or 0))}" + (f": {scripts}" if scripts else ""))
        return "\n".join(lines)
    if name == "RenderBlocking":
        blocking = _blocking(entries)
        return "Render-blocking requests:\n" + ("\n".join(f"  {_res(r, base)} from {float(r.get('start') or 0):,.0f} ms"
                                                           for r in blocking) or "  none")
    if name == "MainThread":
        if trace is None or not trace.categories:
            return "Main thread: no trace data."
        return (f"Main thread over {trace.duration / 1000:.1f} s (self time by category):\n"
                + "\n".join(f"  {k}: {_ms(v)}" for k, v in trace.categories.items()))
    transfers = sorted(entries.get("resources") or [], key=lambda r: -float(r.get("transfer") or r.get("encoded") or 0))
    return f"Requests by transfer size ({len(transfers)}):\n" + "\n".join(
        f"  {_res(r, base)} {r.get('initiator') or ''}" for r in transfers[:20])
