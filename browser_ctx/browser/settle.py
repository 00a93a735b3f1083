"""Settling's parts that need no watch: the page probe, when to look next, and what a record says of streams.

:class:`~browser_ctx.browser.actions.Watch` settles an action with these (see :mod:`.actions`, step 3):

- :func:`look`: one evaluation of ``js/settle_probe.js`` in the main frame's isolated world: the document's
  timeOrigin, ms since the last DOM mutation that counts (an element's third burst of changes within seconds
  does not: a clock, a progress bar, a feed), ms since the last short animation ended, and whether the
  document has loaded;
- :func:`next_look_ms`: how long settling can sleep before one of its ends could be reached;
- :func:`streams` and :func:`untold`: the long-lived traffic seen while settling, and which of it no record of
  the current document has named yet (a stream is said once per document, not in every record; the tab keeps
  what was said);
- :class:`Settling`: the watch's settling loop (a base of :class:`~browser_ctx.browser.actions.Watch`).

Times are milliseconds unless a name says ``_s``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .scripts import script
from .traffic import LONG_LIVED, POLL_REPEATS, Traffic, short_url, stream_label

if TYPE_CHECKING:
    from ..core.network import RequestRecord
    from ..core.record import ActionRecord
    from ..settings import ActionSettings, Settings
    from .session import Tab

__all__ = ["Look", "look", "next_look_ms", "streams", "stream_counts", "sent_counts", "sent_new", "untold", "Settling",
           "SETTLE_POLL_MS", "PROBE_TIMEOUT_S", "SYNC_TIMEOUT_S"]

#: The shortest wait (ms) between two looks at the network and the DOM while settling.
SETTLE_POLL_MS = 50
#: Seconds a probe of the page (title, settle probe, capture sync) may take.
PROBE_TIMEOUT_S = 2.0
#: Seconds to wait for the tab's capture to receive the events the browser already sent.
SYNC_TIMEOUT_S = 1.0
#: How long (ms) settling waits for a window the page asked for to reach Playwright as a new page.
WINDOW_WAIT_MS = 2000
#: How long (ms) a quick action whose first look saw only DOM changes waits at most before looking again: the look
#: comes once the page's next animation frame after the first look has run (a reaction rendered in a frame is
#: seen; the first look asked for that frame, so one that ran while the early walk was sent is not waited for
#: again), else after this
#: (a page in the background gets no frames); no further change by then and it ends (the keystroke's own reaction
#: is in the DOM already).
FRAME_MS = 20


@dataclass(frozen=True)
class Look:
    """What one settle probe saw.

    Attributes:
        origin: the document's ``performance.timeOrigin``; ``None`` while navigating (the probe failed).
        dom_quiet: ms since the last DOM mutation that counts (0 while navigating).
        layout_quiet: ms since the last short animation ended; negative: ms until a running one ends.
        loaded: the document's ``readyState`` is ``complete``.
        last: the page's clock (``performance.now()``, ms) at the last mutation that counts, or at the probe's
            install until one came: equal in two looks when no mutation that counts came between them.
        recurring: asked with ``since``: the texts of the elements seen changing by themselves again and again
            since then (a clock's: their last three bursts of changes), collapsed, up to 120 characters, at most 20.
        self_only: asked with ``walked``: the page changed since that walk only where elements changed by
            themselves since ``since`` (``js/settle_probe.js``).
        version: the page version (:func:`.refs.page_version`), ``None`` before a walk of this document.
    """

    origin: float | None
    dom_quiet: float
    layout_quiet: float
    loaded: bool
    last: float | None = None
    recurring: tuple[str, ...] = ()
    self_only: bool = False
    version: str | None = None

    @property
    def mark(self) -> tuple[float, float] | None:
        """(timeOrigin, the page's clock at this look in ms), for a later look's ``since``; ``None`` navigating."""
        if self.origin is None or self.last is None:
            return None
        return self.origin, self.last + self.dom_quiet


async def look(tab: Tab, since: tuple[float | None, float] | None = None,
               walked: tuple[float, float] | None = None, *, frame_ms: float = 0, arm: bool = False) -> Look:
    """Probe ``tab``'s main document (installs the probe's observer the first time). ``since``: a :attr:`Look.mark`
    (of our last action's end; ``(None, -1)``: none yet) after which to list what changes by itself; ``walked``:
    a walk's :attr:`.walk.PageWalk.at`, for :attr:`Look.self_only`; ``frame_ms``: look once the page's next
    animation frame has run, waiting at most that long; the frame after the last look with ``arm``, if none ran
    since (a frame that came meanwhile is not waited for again). Never raises."""
    query = {"since": list(since) if since else None, "walked": list(walked) if walked else None,
             "frame": frame_ms, "arm": arm}
    try:
        origin, dom, layout, loaded, last, recurring, self_only, version = await asyncio.wait_for(
            tab.worlds.evaluate(tab.page.main_frame, script("settle_probe"), query), PROBE_TIMEOUT_S)
        return Look(origin, float(dom), float(layout), bool(loaded), float(last),
                    tuple(str(t) for t in recurring if t), bool(self_only), str(version) if version else None)
    except (TimeoutError, PlaywrightError, TypeError, ValueError):  # navigating: the document is changing
        return Look(None, 0.0, 0.0, False)


def next_look_ms(limits: ActionSettings, elapsed: float, dom_quiet: float, net_quiet: float, inflight: bool,
                 streaming: bool, *, layout_quiet: float = float("inf"), navigated: bool = False,
                 loaded: bool = False) -> float:
    """How long (ms) settling can wait before it next looks: until the soonest moment one of its ends could be
    reached (DOM, network and layout quiet; a new document loaded and its DOM quiet; a stream's cut-off; the
    time limit), at least :data:`SETTLE_POLL_MS`. A mutation or a request only pushes those moments later, so
    looking sooner would find nothing new: a quiet click looks twice (20 clients' settles were a fifth of the
    CPU of a concurrency run when they looked every 50 ms). While a new document loads it looks every
    :data:`SETTLE_POLL_MS`."""
    quiet = limits.quiet_ms
    net_left = quiet if inflight else quiet - net_quiet
    if navigated:
        settled = quiet - dom_quiet if loaded else 0.0
    else:
        settled = max(quiet - dom_quiet, net_left, quiet - layout_quiet)
    soonest = min(settled, limits.max_ms - elapsed)
    if streaming:
        soonest = min(soonest, max(net_left, limits.stream_ms - elapsed))
    return max(float(SETTLE_POLL_MS), soonest)


def stream_counts(records: list[RequestRecord]) -> dict[str, tuple[str, int]]:
    """From a tab's capture records: stream request id -> (label, frames/messages so far)."""
    return {rec.request_id: (stream_label(rec), rec.socket.received + rec.socket.sent)
            for rec in records if rec.resource_type in LONG_LIVED and rec.socket is not None}


def sent_counts(records: list[RequestRecord]) -> dict[str, tuple[int, frozenset[str]]]:
    """From a tab's capture records: WebSocket request id -> (frames the page has sent on it so far, the shapes
    of the last few: their text with digits masked, :func:`_frame_shape`)."""
    return {rec.request_id: (rec.socket.sent, frozenset(_frame_shape(t) for d, t in rec.socket.last if d == "↑"))
            for rec in records if rec.resource_type in LONG_LIVED and rec.socket is not None}


def _frame_shape(text: str) -> str:
    return re.sub(r"\d+", "#", text)[:80]


def sent_new(records: list[RequestRecord], before: dict[str, tuple[int, frozenset[str]]]) -> bool:
    """Whether the page sent a frame on an open socket since ``before`` (:func:`sent_counts`) that is not one
    more of a kind it sent before (a heartbeat's ``ping beat 41`` after ``ping beat 40``)."""
    for rec in records:
        if rec.resource_type not in LONG_LIVED or rec.socket is None:
            continue
        n0, shapes = before.get(rec.request_id, (0, frozenset()))
        k = rec.socket.sent - n0
        if k > 0 and any(_frame_shape(t) not in shapes for t in [t for d, t in rec.socket.last if d == "↑"][-k:]):
            return True
    return False


def streams(traffic: Traffic, now: dict[str, tuple[str, int]], before: dict[str, int]) -> dict[str, str]:
    """The long-lived traffic seen since the action started: what it is (``WebSocket <url>``, ``EventSource
    <url>``, ``polling <url>``) -> how a record says it (with what came while settling); empty when none.
    ``now``: :func:`stream_counts` now; ``before``: request id -> count when the action started."""
    out = {label: label for label in traffic.long_lived}
    for rid, (label, n) in now.items():
        got = n - before.get(rid, 0)
        if got > 0:
            out[label] = f"{label} ({got} message{'s' if got != 1 else ''} while settling)"
    for k, n in traffic.poll_counts.items():
        if n >= POLL_REPEATS:
            out[f"polling {short_url(k)}"] = f"polling {short_url(k)} ({n} requests)"
    return out


def untold(tab: Tab, origin: float | None, seen: dict[str, str]) -> list[str]:
    """The texts of ``seen`` (:func:`streams`) that no record of ``tab``'s document ``origin`` (its timeOrigin)
    has named yet; marks them named (``tab.streams_told``)."""
    if tab.streams_document != origin:
        tab.streams_document, tab.streams_told = origin, set()
    new = [text for key, text in seen.items() if key not in tab.streams_told]
    tab.streams_told |= set(seen)
    return new


class Settling:
    """Settling an action: the loop of :class:`~browser_ctx.browser.actions.Watch` (which holds these attributes)."""

    tab: Tab
    settings: Settings
    record: ActionRecord
    _traffic: Traffic
    _last_net: float
    _events0: dict[str, int]
    _sent0: dict[str, tuple[int, frozenset[str]]]
    _doc_changed: bool
    _origin: float | None
    _popups: list[Any]
    _act_start: float
    _still: bool
    _last0: float | None
    _windows_asked: int
    _window_at: float
    _walked_early: asyncio.Future[Any] | None
    _early_kept: bool
    _end_last: float | None  # the last look's mark (Look.last): a walk that saw the same saw the settled page

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _event_streams(self) -> dict[str, tuple[str, int]]:
        """From the tab's event capture: stream request id -> (label, frames/messages so far)."""
        return stream_counts(self.tab.events.records())

    def _streaming(self) -> dict[str, str]:
        """The long-lived traffic seen since the action started (:func:`.settle.streams`)."""
        return streams(self._traffic, self._event_streams(), self._events0)

    def _read_network(self) -> None:
        if self._traffic.read(self.tab.events.records()):
            self._last_net = self._now()

    def _opening(self) -> bool:
        """A popup is opening: one seen has not loaded or closed, or a window the page asked for (CDP
        ``Page.windowOpen``) has not reached Playwright yet (for at most :data:`WINDOW_WAIT_MS`)."""
        asked = self._windows_asked > len(self._popups) and (self._now() - self._window_at) * 1000 < WINDOW_WAIT_MS
        return asked or any(not (pw.loaded or pw.closed) for pw in self._popups)

    def _elsewhere(self, seen: Look) -> bool:
        """Whether ``seen`` shows more than DOM mutations since the action began: another document, a popup, a
        window asked for, or a short animation running."""
        return bool(self._doc_changed or self._popups or self._windows_asked or seen.origin is None
                    or seen.origin != self._origin or seen.layout_quiet < 0)

    def _moved(self, seen: Look) -> bool:
        """Whether ``seen`` shows the page moved since the look before the action (``_last0``): a mutation that
        counts, a short animation running, another document or a popup."""
        return self._elsewhere(seen) or seen.last is None or seen.last != self._last0

    async def _no_requests(self) -> bool:
        """Whether the action started no request and no stream, and sent no new kind of frame on an open one (its
        answer would come later: :func:`sent_new`); the capture synced first (:meth:`settle` syncs it beside a
        quick action's first look)."""
        self._read_network()
        return not (self._traffic.activity or self._traffic.long_lived
                    or sent_new(self.tab.events.records(), self._sent0))

    async def _quick_end(self, seen: Look) -> bool:
        """Whether a quick action ends at its first look ``seen``: it changed nothing the look could see
        (:meth:`_moved`; ``_still`` is then set), or only the DOM and, once the page's next frame has run (at most
        :data:`FRAME_MS`), nothing more; in both cases it started no request. The record's reads (the journal's
        drain and the after walk, ``_walked_early``) run beside that look and are not waited for here (the record's
        other reads start beside them); their walk is the record's only when the look saw nothing change since
        ``seen`` (``_early_kept``)."""
        if not self._moved(seen):
            self._still = await self._no_requests()
            return self._still
        if self._elsewhere(seen) or not await self._no_requests():
            return False
        early = self._walk_after_early()  # the renderer reads the page while we wait out the frame
        again = await look(self.tab, frame_ms=FRAME_MS)
        done = again.origin == seen.origin and again.last == seen.last and again.layout_quiet >= 0
        self._walked_early, self._early_kept = early, done
        return done

    def _walk_after_early(self) -> asyncio.Future[Any] | None:
        """The journal's drain and the after walk, started now (:class:`~browser_ctx.browser.actions.Watch`; its
        exception, if the settle raises, is retrieved); ``None`` here."""
        return None

    async def settle(self, *, quick: bool = False) -> None:
        """Wait until the DOM, the requests the action started and layout were quiet for ``settings.actions
        .quiet_ms``, or a new document loaded, or (streams open) ``stream_ms``; at most ``max_ms``. ``quick``: end
        at the first look when the action changed nothing (typing into a field that nothing listens to), or only
        the DOM and a frame later nothing more (a hint shown as you type; :meth:`_quick_end`): what comes later
        (a debounced autocomplete) is the journal's and the next call's, as after any record."""
        limits = self.settings.actions
        quiet = limits.quiet_ms
        t0 = self._now()
        self._last_net = max(self._last_net, t0)
        note = None
        first = quick
        if not quick:  # no end comes sooner: the network must be quiet that long from now (a look first would wait)
            await asyncio.sleep(quiet / 1000)
        while True:
            elapsed = (self._now() - t0) * 1000
            if first:
                seen, _ = await asyncio.gather(look(self.tab, arm=True), self.tab.events.sync(timeout=SYNC_TIMEOUT_S))
                if await self._quick_end(seen):
                    break
            else:
                self._read_network()
                if self._walked_early is None and not (self._traffic.inflight or self._opening() or self._doc_changed):
                    self._walked_early = self._walk_after_early()  # the record's, if nothing counted moves from here
                seen = await look(self.tab)
            first = False
            if seen.origin is not None and self._origin is not None and seen.origin != self._origin:
                self._doc_changed = True
                self._origin = seen.origin
            if self.tab.page.is_closed():
                break
            self._read_network()
            inflight = self._traffic.inflight
            opening = self._opening()  # a popup loads like a navigation
            net_quiet = 0.0 if inflight or opening else (self._now() - self._last_net) * 1000
            streaming = self._streaming()
            loaded = self._doc_changed and seen.loaded
            if loaded and seen.dom_quiet >= quiet:
                break  # a navigation's load: what the new page fetches after it is not the action's
            if net_quiet >= quiet and seen.dom_quiet >= quiet and seen.layout_quiet >= quiet:
                new = untold(self.tab, self._origin, streaming)
                if new:
                    note = f"The network never goes quiet ({'; '.join(new[:3])}); not waited for."
                break
            if streaming and net_quiet >= quiet and elapsed >= limits.stream_ms:
                new = untold(self.tab, self._origin, streaming)
                note = (f"The network never goes quiet ({'; '.join(new[:3])}); stopped waiting after "
                        f"{elapsed / 1000:.1f} s." if new else
                        f"Stopped waiting after {elapsed / 1000:.1f} s: the page kept changing.")
                break
            if elapsed >= limits.max_ms:
                busy = []
                if inflight:
                    busy.append(f"{len(inflight)} request{'s' if len(inflight) != 1 else ''} still loading "
                                f"({short_url(inflight[0])})")
                if seen.dom_quiet < quiet:
                    busy.append("the page kept changing")
                if seen.layout_quiet < quiet:
                    busy.append("an animation kept running")
                busy.extend(untold(self.tab, self._origin, streaming)[:2])
                note = (f"Still busy after {limits.max_ms / 1000:.0f} s ({'; '.join(busy) or 'activity'}); "
                        "reported as is.")
                break
            await asyncio.sleep(next_look_ms(limits, elapsed, seen.dom_quiet, net_quiet, bool(inflight or opening),
                                             bool(streaming), layout_quiet=seen.layout_quiet,
                                             navigated=self._doc_changed, loaded=loaded) / 1000)
        self._end_last = seen.last
        self.tab.acted_mark = seen.mark or self.tab.acted_mark
        self.record.settle_ms = (self._now() - t0) * 1000
        self.record.settle_note = note
