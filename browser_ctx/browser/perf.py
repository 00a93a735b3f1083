"""Record a performance trace of a tab and read its performance entries (``browser_performance``).

- The trace: CDP ``Tracing`` with DevTools' default categories (JavaScript sampling left out: it slows the page,
  and the report needs only the trace's task and function-call events), on the tab's capture session
  (:attr:`~browser_ctx.browser.capture.EventCapture.cdp`: one CDP session per tab), returned as a stream and
  written straight to a file (``<output dir>/traces/trace-….json``) that Chrome DevTools' Performance panel
  opens; then read back and condensed by :func:`browser_ctx.core.trace.summarise_trace`.
- The entries: ``js/perf_entries.js`` in the page's isolated world observes from ``start`` and, at ``stop``,
  adds the buffered entries (LCP, layout shifts, event timing, long tasks, long animation frames) and the
  Navigation and Resource Timing entries, each element described (and its ref, when the walker gave it one).
- The script locations the report names are source-mapped through the tab's source maps (as console stacks).

State (a running recording, the last report's data for ``insight``) is kept on the tab
(``Tab.family_state["perf"]``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .. import files
from .._errors import ActionTimeout, InvalidArgument, PageError, translate
from ..core.sourcemap import LoadedMap, MapFailure
from ..core.trace import TraceSummary, summarise_trace
from .scripts import script

if TYPE_CHECKING:
    from playwright.async_api import CDPSession

    from ..settings import Settings
    from .session import Tab

__all__ = ["DEVTOOLS_CATEGORIES", "Recording", "PerfData", "perf_state", "start", "stop", "MAX_TRACE_BYTES"]

#: DevTools' default trace categories (``TracingDefaultCategories`` of the DevTools trace engine), without its
#: optional JavaScript sampling and screenshots.
DEVTOOLS_CATEGORIES = (
    "blink.console", "blink.user_timing", "loading", "devtools.timeline",
    "disabled-by-default-devtools.target-rundown", "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack", "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.v8-source-rundown-sources", "disabled-by-default-devtools.v8-source-rundown",
    "disabled-by-default-layout_shift.debug", "disabled-by-default-v8.inspector", "disabled-by-default-lighthouse",
    "v8.execute", "v8", "cppgc", "navigation,rail",
)
#: A saved trace larger than this (bytes) is kept for DevTools but not read back: the report then has the
#: page's entries only.
MAX_TRACE_BYTES = 200 * 1024 * 1024
#: Bytes asked for per ``IO.read`` of the trace stream.
READ_CHUNK = 1 << 20
#: Seconds to wait for ``Tracing.tracingComplete`` after ``Tracing.end``.
END_TIMEOUT_S = 60.0
#: Entries of each type the page keeps for a report.
ENTRY_LIMIT = 200


@dataclass
class Recording:
    """A running trace: when it started (epoch s), whether the page was reloaded, the page's URL then."""

    started: float
    reload: bool
    url: str


@dataclass
class PerfData:
    """What a stopped recording gathered: the page's ``entries`` (``js/perf_entries.js``'s answer), the trace
    summary (``None`` when the trace could not be read), the saved ``path``, the recording, the script maps."""

    entries: dict[str, Any]
    trace: TraceSummary | None
    path: Path | None
    recording: Recording
    seconds: float
    maps: dict[str, LoadedMap | MapFailure | None] = field(default_factory=dict)
    note: str = ""


@dataclass
class _State:
    recording: Recording | None = None
    last: PerfData | None = None


def perf_state(tab: Tab) -> _State:
    """The tab's performance state (created on first use)."""
    got = tab.family_state.get("perf")
    if not isinstance(got, _State):
        got = tab.family_state["perf"] = _State()
    return got


def _session(tab: Tab) -> CDPSession:
    cdp = tab.events.cdp
    if cdp is None:
        raise PageError("This tab has no CDP session (not a Chromium page, or it is closing); performance "
                        "recording needs Chromium.")
    return cdp


async def start(tab: Tab, settings: Settings, *, reload: bool) -> Recording:
    """Start tracing the tab (and, with ``reload``, reload it and wait for ``load``), then observe its entries.

    Raises:
        InvalidArgument: a recording is already running on the tab.
        PageError: no CDP session; ActionTimeout: the reload did not reach ``load`` in time.
    """
    state = perf_state(tab)
    if state.recording is not None:
        raise InvalidArgument("A performance recording is already running on this tab; stop it first with "
                              "browser_performance {action: \"stop\"}.")
    cdp = _session(tab)
    try:
        await cdp.send("Tracing.start", {"transferMode": "ReturnAsStream", "streamFormat": "json",
                                         "traceConfig": {"includedCategories": list(DEVTOOLS_CATEGORIES),
                                                         "excludedCategories": ["*"]}})
    except PlaywrightError as exc:
        raise translate(exc, action="start a performance trace") from exc
    recording = Recording(time.time(), reload, tab.page.url)
    try:
        if reload:
            await tab.page.reload(wait_until="load", timeout=settings.timeouts.navigation_ms)
        await tab.worlds.evaluate(tab.page.main_frame, script("perf_entries"),
                                  {"mode": "start", "reload": reload, "limit": ENTRY_LIMIT})
    except PlaywrightError as exc:
        await _discard(cdp)
        raise translate(exc, action="reload the page for a trace" if reload else "start a performance trace",
                        timeout_ms=settings.timeouts.navigation_ms) from exc
    state.recording = recording
    return recording


async def stop(tab: Tab, settings: Settings) -> PerfData:
    """Stop the tab's recording: read the page's entries, end the trace, save and summarise it, and fetch the
    source maps of the scripts it names. The result is also kept as the tab's last report data.

    Raises:
        InvalidArgument: no recording is running on the tab.
        PageError: no CDP session.
    """
    state = perf_state(tab)
    recording = state.recording
    if recording is None:
        raise InvalidArgument("No performance recording is running on this tab; start one with "
                              "browser_performance {action: \"start\"} (reload: true to record the page load).")
    state.recording = None
    cdp = _session(tab)
    note = ""
    try:
        entries = await tab.worlds.evaluate(tab.page.main_frame, script("perf_entries"),
                                            {"mode": "read", "limit": ENTRY_LIMIT}) or {}
    except PlaywrightError as exc:
        entries, note = {}, f"the page's performance entries could not be read ({str(exc).splitlines()[0][:120]})"
    name = f"trace-{time.strftime('%Y%m%d-%H%M%S')}-tab{tab.id}.json"
    saved: Path | None = files.artifact_dir(settings, "traces") / name
    try:
        size = await _save_trace(cdp, files.artifact_dir(settings, "traces") / name)
    except (PlaywrightError, OSError, TimeoutError) as exc:
        saved, size = None, 0
        note = note or f"the trace could not be saved ({str(exc).splitlines()[0][:120]})"
    summary = _read_summary(saved, size) if saved is not None else None
    data = PerfData(entries, summary, saved, recording, time.time() - recording.started, note=note)
    data.maps = await tab.source_maps.maps_for(tab.page, _script_urls(data))
    state.last = data
    return data


def _settle(future: asyncio.Future[dict[str, Any]], value: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(value)


async def _discard(cdp: CDPSession) -> None:
    """End a trace whose recording failed to start, dropping its data."""
    try:
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        cdp.once("Tracing.tracingComplete", lambda p: _settle(done, p))
        await cdp.send("Tracing.end")
        got = await asyncio.wait_for(done, END_TIMEOUT_S)
        if got.get("stream"):
            await cdp.send("IO.close", {"handle": got["stream"]})
    except (PlaywrightError, TimeoutError):
        pass  # the page went away: its trace with it


async def _save_trace(cdp: CDPSession, path: Path) -> int:
    """End the trace and stream it into ``path``; returns its size (bytes)."""
    done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    cdp.once("Tracing.tracingComplete", lambda p: _settle(done, p))
    await cdp.send("Tracing.end")
    try:
        got = await asyncio.wait_for(done, END_TIMEOUT_S)
    except TimeoutError as exc:
        raise ActionTimeout(f"The browser did not finish the trace within {END_TIMEOUT_S:.0f} s.") from exc
    handle = got.get("stream")
    if not handle:
        raise PlaywrightError("the browser returned no trace stream")
    size = 0
    try:
        with path.open("wb") as out:
            while True:
                chunk = await cdp.send("IO.read", {"handle": handle, "size": READ_CHUNK})
                data = chunk.get("data") or ""
                raw = base64.b64decode(data) if chunk.get("base64Encoded") else data.encode("utf-8")
                out.write(raw)
                size += len(raw)
                if chunk.get("eof") or not data:
                    break
    finally:
        try:
            await cdp.send("IO.close", {"handle": handle})
        except PlaywrightError:
            pass  # the stream is gone with the page
    return size


def _read_summary(path: Path, size: int) -> TraceSummary | None:
    if size <= 0 or size > MAX_TRACE_BYTES:
        return None
    try:
        with path.open("rb") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    return summarise_trace(events) if isinstance(events, list) else None


def _script_urls(data: PerfData) -> set[str]:
    urls: set[str] = set()
    if data.trace is not None:
        locations = [t.location for t in data.trace.long_tasks] + [d.location for d in data.trace.dispatches]
        urls.update(loc.url for loc in locations if loc is not None and loc.url)
    for frame in data.entries.get("frames") or ():
        for s in frame.get("scripts") or ():
            if s.get("url"):
                urls.add(str(s["url"]))
    return urls
