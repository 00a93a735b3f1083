"""The capture of one tab: which CDP sessions it listens on, and the public API the rest of browser-ctx uses.

:class:`EventCapture` listens, from the moment a navigation starts, on the tab's CDP sessions
(:class:`~..page_cdp.PageCDP`: ours, shared with the worlds and the reads; nothing of Playwright's is touched):

- the page's session, with ``Page``, ``Network``, ``Log`` and ``Runtime`` held enabled for the tab's life: the
  page's requests, uncaught errors, the browser's log, the console hook's batches, and ``Page.frameNavigated`` /
  ``Page.navigatedWithinDocument`` for the sections (:mod:`.sections`);
- the session of each out-of-process (cross-site) iframe, from when its document commits (up to
  :data:`MAX_FRAME_SESSIONS` per tab): its network and errors; requests such a frame makes before
  that session is attached are missed (its document request itself is seen by the page's session);
- the page's dedicated workers, through the page's session, and a second session of the page, its own (a
  session has one auto-attach setting), that holds each new worker until its network is enabled
  (:mod:`.workers`).

What is done with the events: console in :mod:`.console`, network in :mod:`.network`.

Interface the rest of browser-ctx relies on (``Tab.events``):

- ``EventCapture(page, settings, redactor, hook=ConsoleHook(), cdp=tab_cdp)``: one :class:`~.console.ConsoleHook`
  per browser-ctx session, the tab's :class:`~..page_cdp.PageCDP` (default: sessions of its own);
  ``await start()`` right after the page is created and before any navigation; ``await close()`` when the tab
  goes away;
- ``await sync()`` before reading: delivers what the page and the browser already produced;
- ``load_summary() -> {"consoleErrors": int, "failedRequests": int}``: counts since the last full
  navigation started (used by ``browser_navigate``'s page card);
- ``console_mark()`` / ``console_errors_since(mark)`` (action records), ``records()``, ``record(i)``,
  ``total_requests``, ``response_body(rec)``, ``request_body(rec)`` (the network tools),
  ``section(id)``, ``current_section``, ``terminate_execution()``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession, Frame, Page
from playwright.async_api import Error as PlaywrightError

from ...core.console import ConsoleBuffer, ConsoleEntry
from ...core.listing import ShownMemory
from ...core.network import RequestRecord
from ...core.sections import Section
from ..page_cdp import PageCDP
from .bodies import Body
from .console import ConsoleCapture, ConsoleHook
from .network import NetworkCapture
from .sections import SectionLog
from .workers import WorkerCapture

if TYPE_CHECKING:
    from ...core.redact import Redactor
    from ...settings import EventSettings

__all__ = ["EventCapture", "MAX_FRAME_SESSIONS", "START_ATTEMPTS", "TERMINATE_TIMEOUT"]

log = logging.getLogger("browser_ctx")

#: Out-of-process iframes per tab whose network is captured through a CDP session of their own.
MAX_FRAME_SESSIONS = 20
#: Times the page's CDP session is opened before giving up (it dies when the page swaps renderers).
START_ATTEMPTS = 3
#: Seconds between two such attempts.
START_RETRY_DELAY = 0.05
#: Seconds to wait for ``Runtime.terminateExecution`` to be accepted.
TERMINATE_TIMEOUT = 5.0

Handler = Callable[[dict[str, Any]], None]


async def _ping(session: CDPSession) -> None:
    """A round trip over ``session``: its reply comes after every event its target sent before."""
    try:
        await session.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
    except PlaywrightError:
        pass  # the frame went away: it has nothing more to deliver


def _guard(handler: Handler) -> Handler:
    """Run a CDP event handler so that a malformed event never breaks the capture."""
    def run(params: dict[str, Any]) -> None:
        try:
            handler(params)
        except Exception:  # noqa: BLE001 - an event handler's last line of defence: one odd event is dropped
            log.debug("event handler failed", exc_info=True)
    return run


class EventCapture:
    """Console, page-error and network capture for one tab (see the module docstring).

    Attributes:
        settings: the capture settings (buffer sizes, message cut).
        redactor: the session's secret scrubber.
        console: the folded console buffer.
        sections: sections by id, oldest first (at most :data:`~.sections.MAX_SECTIONS`).
        console_shown / network_shown: what cut console / network listings of this tab already showed,
            per cursor they handed back (so paging with ``since`` goes on instead of repeating).
    """

    def __init__(self, page: Page, settings: EventSettings, redactor: Redactor, *,
                 hook: ConsoleHook | None = None, cdp: PageCDP | None = None) -> None:
        self._page = page
        self._pc = cdp if cdp is not None else PageCDP(page)
        self._owns_pc = cdp is None
        self.settings = settings
        self.redactor = redactor
        self._sections = SectionLog(redactor, page.url)
        self._console = ConsoleCapture(self._sections, settings, redactor, hook or ConsoleHook())
        self._network = NetworkCapture(self._sections, settings, redactor)
        self._workers = WorkerCapture(self._network, self._sections)
        self._cdp: CDPSession | None = None
        self._hold: CDPSession | None = None  # holds new workers (see workers.py)
        self._closed = False
        self._hooked = False
        self._frame_sessions: dict[Frame, CDPSession] = {}  # OOPIF frame -> its session
        self._listening: list[tuple[CDPSession, str, Handler]] = []  # our listeners, removed by close()
        self._attaching: set[Frame] = set()
        self._starting: asyncio.Future[None] | None = None
        self.console_shown = ShownMemory()
        self.network_shown = ShownMemory()

    # -- state read by the tools ------------------------------------------------------------------

    @property
    def console(self) -> ConsoleBuffer:
        """The folded console buffer."""
        return self._console.buffer

    @property
    def sections(self) -> OrderedDict[int, Section]:
        """Sections by id, oldest first."""
        return self._sections.sections

    @property
    def hook_batches(self) -> int:
        """Console batches received from the in-page hook (each folds many calls)."""
        return self._console.hook_batches

    @property
    def evicted_requests(self) -> int:
        """Requests dropped from the buffer to make room."""
        return self._network.evicted

    @property
    def cdp(self) -> CDPSession | None:
        """The tab's CDP session of the page as the capture set it up (``Page``, ``Network``, ``Runtime``
        enabled), used by the tools that need one per tab (tracing, emulation, memory); ``None`` before
        :meth:`start` or after :meth:`close`."""
        return self._cdp

    @property
    def net_seq(self) -> int:
        """Sequence number of the latest network change (``since`` cursors compare it)."""
        return self._network.seq

    # -- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Install the console hook, take the tab's CDP session of the page and hold its Page, Network, Log and
        Runtime domains enabled (with the hook's binding).

        Idempotent and safe to call concurrently: later calls wait for the first one to finish, so
        a caller that must not miss the next navigation's events can ``await start()`` again.
        A session that dies while starting (the page swapped renderer processes) is retried
        (:data:`START_ATTEMPTS` in all). Raises ``playwright.async_api.Error`` if the page is closed
        (the caller ignores it).
        """
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        await self._install_hook()
        for attempt in range(START_ATTEMPTS):
            try:
                await self._open_session()
                return
            except PlaywrightError:
                sessions = [s for s in (self._cdp, self._hold) if s is not None]
                self._cdp = self._hold = None
                for session in sessions:
                    self._unlisten(session)
                    await self._pc.drop(session)  # it died (a renderer swap): the next attempt opens another
                if attempt == START_ATTEMPTS - 1 or self._page.is_closed() or self._closed:
                    raise
                await asyncio.sleep(START_RETRY_DELAY)

    async def _install_hook(self) -> None:
        """Add the console hook to the browser context (once per context and session), watch frames for
        out-of-process iframes, and run the hook in the frames already there (a tab adopted from a
        remote browser). Once per capture."""
        if self._hooked:
            return
        page = self._page
        hook = self._console.hook
        await hook.install(page.context, self.settings.console_entries)
        page.on("framenavigated", self._on_frame_committed)
        page.on("framedetached", self._on_frame_detached)
        self._hooked = True
        if page.url not in ("", "about:blank") or len(page.frames) > 1:
            for frame in page.frames:
                await hook.run_in(frame, self.settings.console_entries)

    def _listen(self, cdp: CDPSession, handlers: dict[str, Handler]) -> None:
        for event, handler in handlers.items():
            guarded = _guard(handler)
            cdp.on(event, guarded)
            self._listening.append((cdp, event, guarded))

    def _unlisten(self, cdp: CDPSession) -> None:
        """Remove our listeners from ``cdp`` (a session others go on using)."""
        for session, event, handler in [entry for entry in self._listening if entry[0] is cdp]:
            session.remove_listener(event, handler)
        self._listening = [entry for entry in self._listening if entry[0] is not cdp]

    async def _open_session(self) -> None:
        cdp = await self._pc.session()
        self._cdp = self._network.page_session = cdp
        self._hold = hold = await self._pc.own_session()
        self._listen(cdp, self._network.handlers() | self._console.handlers() | self._workers.page_handlers()
                     | {"Page.frameNavigated": self._on_frame_navigated,
                        "Page.navigatedWithinDocument": self._on_same_document})
        self._listen(hold, self._workers.hold_handlers())
        tree = await cdp.send("Page.getFrameTree")
        self._sections.main_frame = tree["frameTree"]["frame"]["id"]
        await self._pc.enable(cdp, "Page")
        await self._network.enable(cdp, self._pc)
        await self._pc.enable(cdp, "Log")
        await self._console.enable(cdp, self._pc)
        await self._workers.watch(cdp, hold)
        # If a navigation committed while we were attaching, label the section with it.
        tree = await cdp.send("Page.getFrameTree")
        frame = tree["frameTree"]["frame"]
        if frame.get("loaderId") and frame.get("loaderId") != self._sections.loader \
                and not self._sections.counts(self._sections.current.id)["items"]:
            self._sections.shown = self._sections.new(frame.get("url", ""), frame.get("loaderId"))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return asyncio.ensure_future(coro)

    def _on_frame_committed(self, frame: Frame) -> None:
        if frame.parent_frame is not None and not self._closed and frame not in self._attaching:
            self._attaching.add(frame)
            task = self._spawn(self._attach_frame(frame))
            task.add_done_callback(lambda _t: self._attaching.discard(frame))

    def _on_frame_detached(self, frame: Frame) -> None:
        held = self._frame_sessions.pop(frame, None)
        if held is not None:
            self._unlisten(held)  # the tab's PageCDP detaches the session

    async def _attach_frame(self, frame: Frame) -> None:
        """Capture the network of an out-of-process (cross-site) iframe through the session of its own
        target, from when its document commits. Frames in the page's process are already covered; at
        most :data:`MAX_FRAME_SESSIONS` frames are listened to."""
        held = self._frame_sessions.get(frame)
        if self._closed or (held is None and len(self._frame_sessions) >= MAX_FRAME_SESSIONS):
            return
        try:
            cdp = await self._pc.session(frame)
        except PlaywrightError:  # in the page's process (or gone): the page's session covers it
            held = self._frame_sessions.pop(frame, None)
            if held is not None:
                self._unlisten(held)
            return
        held = self._frame_sessions.get(frame)
        if self._closed or held is cdp:  # the same target as before: already listened to
            return
        if held is not None:
            self._unlisten(held)
        self._frame_sessions[frame] = cdp
        try:
            self._listen(cdp, {event: self._network.seen_by(cdp, handler)
                               for event, handler in self._network.handlers().items()})
            self._listen(cdp, self._console.handlers(top_target=False))
            await self._network.enable(cdp, self._pc)
            await self._pc.enable(cdp, "Log")
            await self._console.enable(cdp, self._pc)
        except PlaywrightError as exc:  # the frame navigated or closed meanwhile
            log.debug("frame capture failed: %s", exc)
            if self._frame_sessions.get(frame) is cdp:
                del self._frame_sessions[frame]
            self._unlisten(cdp)

    async def terminate_execution(self) -> bool:
        """Stop the JavaScript running in the page (CDP ``Runtime.terminateExecution``) over the capture's
        session, which is already attached (attaching a new one would wait on a busy renderer).
        Returns whether the browser accepted it within :data:`TERMINATE_TIMEOUT` seconds."""
        cdp = self._cdp
        if cdp is None:
            return False
        try:
            await asyncio.wait_for(cdp.send("Runtime.terminateExecution"), TERMINATE_TIMEOUT)
            return True
        except (TimeoutError, PlaywrightError):  # detached, or a remote browser refused it
            return False

    async def sync(self, timeout: float = 2.0) -> bool:
        """Wait until what the page and the browser produced before this call has been processed.

        Asks the console hook of every frame to send what it holds and waits for it to be received
        (its ``drain()``), and sends a no-op to the renderer (``Runtime.evaluate``) and to the browser
        side (``Target.getTargetInfo``) over the capture's own session, whose replies come after every
        event queued before them. Returns ``False`` if that took longer than ``timeout`` seconds (a
        page busy in a long script) or failed; the buffers are then as fresh as they could be.
        """
        cdp = self._cdp
        if cdp is None:
            return False
        waits: list[Any] = [cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True}),
                            cdp.send("Target.getTargetInfo")]
        waits.extend(_ping(child) for child in list(self._frame_sessions.values()))
        if not self._page.is_closed():
            waits.extend(self._console.hook.drain(frame) for frame in self._page.frames)
        try:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)
            await asyncio.sleep(0)  # let a batch whose reply is in flight reach its handler
            return True
        except (TimeoutError, PlaywrightError):  # navigating, closed, or busy: take what we have
            return False

    async def close(self) -> None:
        """Stop listening: our listeners are removed and the worker hold detached; the shared sessions stay
        with the tab, their domains held (safe to call twice, or after the page closed; never asks the page)."""
        self._closed = self._console.closed = True
        hold = self._hold
        self._cdp = self._hold = None
        for session in {id(s): s for s, _, _ in self._listening}.values():
            self._unlisten(session)
        self._frame_sessions.clear()
        self._network.forget_sessions()
        self._workers.close()
        if hold is not None:
            await self._pc.drop(hold)
        if self._owns_pc:
            await self._pc.close()

    # -- sections ---------------------------------------------------------------------------------

    def section(self, sid: int) -> Section | None:
        """The section with id ``sid``, also one dropped from :attr:`sections` whose entries are still held."""
        return self._sections.get(sid)

    @property
    def current_section(self) -> Section:
        """The section of the current document."""
        return self._sections.current

    def _on_frame_navigated(self, p: dict[str, Any]) -> None:
        frame = p.get("frame") or {}
        main = self._sections.main_frame
        if frame.get("parentId") or (main and frame.get("id") != main):
            return
        url = frame.get("url", "") + (frame.get("urlFragment") or "")
        loader = frame.get("loaderId")
        if loader and loader == self._sections.loader:
            self._console.on_document(self._sections.current)
            self._sections.current.url = self.redactor.url(url)
        else:
            self._console.on_document(self._sections.new(url, loader))
        self._sections.shown = self._sections.current
        self._network.close_cut(self._sections.current.id)

    def _on_same_document(self, p: dict[str, Any]) -> None:
        main = self._sections.main_frame
        if main and p.get("frameId") != main:
            return
        self._sections.current.routes.append(self.redactor.url(p.get("url", "")))

    # -- reading ----------------------------------------------------------------------------------

    def load_summary(self) -> dict[str, int]:
        """Return ``{"consoleErrors": n, "failedRequests": m}`` since the last full navigation started
        (console errors count every occurrence, repeats included; the browser's own ``/favicon.ico``
        fetch and its "Failed to load resource" message are not counted). ``await sync()`` first for
        figures that include every event the browser has already sent."""
        counts = self._sections.counts(self._sections.current.id)
        return {"consoleErrors": counts["consoleErrors"], "failedRequests": counts["failedRequests"]}

    def console_mark(self) -> dict[int, int]:
        """A mark for :meth:`console_errors_since`: the occurrence count of every held error entry."""
        return self._console.mark()

    def console_errors_since(self, mark: dict[int, int]) -> list[tuple[ConsoleEntry, int]]:
        """Error entries with occurrences after ``mark`` (from :meth:`console_mark`), in time order,
        each with how many new occurrences it got; the browser's own favicon failure is left out.
        ``await sync()`` first."""
        return self._console.errors_since(mark)

    def records(self) -> list[RequestRecord]:
        """Held request records, oldest first."""
        return self._network.records()

    @property
    def total_requests(self) -> int:
        """Requests seen in all (held or evicted)."""
        return self._network.total

    def record(self, index: int) -> RequestRecord:
        """Return the request with this 1-based ``index``.

        Raises:
            InvalidArgument: no such request (never seen, or evicted); says which are held.
        """
        return self._network.record(index)

    async def response_body(self, rec: RequestRecord) -> Body:
        """The response body of ``rec`` (see :meth:`.network.NetworkCapture.response_body`)."""
        return await self._network.response_body(rec, page_closed=self._page.is_closed())

    async def request_body(self, rec: RequestRecord) -> Body:
        """The (redacted) request body of ``rec``, fetched if it was too large to arrive inline."""
        return await self._network.request_body(rec, page_closed=self._page.is_closed())
