"""Perform actions on a tab, let the page settle, and collect what the action caused.

Every action tool runs through :func:`perform`:

1. **Resolve the target** to exactly one element (:func:`browser_ctx.browser.targets.resolve_one`,
   called by the tool before ``perform``).
2. **Watch** (:class:`Watch`): before acting, note URL, title, the condensed snapshot, the dialog
   log position and the tab's request count; while acting and settling, record new tabs/popups
   (including ones that close themselves), downloads and file choosers (Playwright ``page``/``download``/
   ``filechooser`` events; a file chooser is kept on the tab for ``browser_file_upload`` to answer).
   Requests are read from the tab's own network capture (``tab.events``, CDP), the one network
   observer of a tab. One exception: a popup's capture attaches only after the popup's first
   response has come, so a PDF a popup opens is known by its ``document.contentType`` and sized by a
   ``HEAD`` request (:mod:`.pdf_docs`).
3. **Settle**, bounded: wait until the requests the action started (of this tab), the DOM (a
   MutationObserver on the main document, ``js/settle_probe.js``) and layout (short CSS/Web animations)
   have all been quiet for ``settings.actions.quiet_ms`` (100 ms), or a new document has loaded and its
   DOM was quiet that long; at most ``settings.actions.max_ms`` (5,000 ms). An element that changes by
   itself (its third burst of changes within seconds: a clock, a progress bar, a feed) does not count as
   a change. Long-lived connections (EventSource, WebSocket) and polling (the same URL requested
   :data:`~.traffic.POLL_REPEATS`+ times) are not waited for; the first record of a document that sees one
   says the network never goes quiet, later ones do not. With one open, settling stops after
   ``settings.actions.stream_ms`` (1,000 ms) once the action's requests are quiet. A quick action (typing
   without submit) ends at the first look when it changed nothing: no mutation, request or animation since it
   began. The parts: :mod:`.settle`.
   What comes after the record is taken is caught by the transient-UI journal and reported once by the next
   call (``Shown and gone: …``, or ``Appeared since the last call: …`` while it is still shown). The record's
   walk starts beside a look that may end the settle, and is the record's if nothing that counts moved since.
4. **Collect** an :class:`~browser_ctx.core.record.ActionRecord`: URL/title change, dialogs,
   popups (a PDF shows as a PDF with its size), downloads (:mod:`.downloads`), new console errors and
   failed requests, what was shown and went (the transient-UI journal, :mod:`.journal`, drained before
   the action and after it: toasts, status messages, dialogs; what appeared during the action and is still
   shown is left to the delta, so the next call names only what came after the record), and the DOM delta
   between the condensed snapshots before and after, lines matched by ref (or, after a navigation, a short
   card of the new page).

All times are milliseconds unless a name says ``_s``; sizes are bytes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Download, FileChooser, Page
from playwright.async_api import Error as PlaywrightError

from .._errors import (
    BrowserCtxError,
    one_line,
)
from ..core.acted import record_delta
from ..core.budget import Budget
from ..core.journal import Gone, render_gone
from ..core.outline import outline, render_card
from ..core.record import ActionRecord, PopupInfo, human_size
from ..core.snapshot import Line, render_lines
from ..settings import Settings
from .action_errors import action_error, ensure_open
from .downloads import save_downloads
from .drift import learn as learn_drift
from .drift import learn_behind
from .drift import note as drift_note
from .journal import drain as drain_journal
from .journal import drain_tab
from .labels import keep_typed_value
from .pdf_docs import shown_pdf
from .reading import walk_for_record, walk_tab
from .session import BrowserSession, Tab
from .settle import PROBE_TIMEOUT_S, SYNC_TIMEOUT_S, Look, Settling, look, sent_counts
from .targets import prime_locators
from .traffic import Traffic

__all__ = ["Watch", "perform", "action_error", "ensure_open", "DELTA_MAX_TOKENS",
           "RECORD_RESERVE_TOKENS", "DELTA_MIN_TOKENS"]

log = logging.getLogger("browser_ctx")

#: The most tokens the DOM delta of one action may take (a change larger than this is summarised by structure:
#: containers that went or came whole are one line each, then the rest is cut with a line naming
#: browser_snapshot). Measured: in the baseline agent trial (24 MiniWoB++ tasks) action results were 108 tokens
#: median, 324 p90, 623 at most.
DELTA_MAX_TOKENS = 300
#: Tokens of the call's budget left for the rest of the record (action line, URL, dialogs, popups …).
RECORD_RESERVE_TOKENS = 250
#: The least tokens a DOM delta gets, however small the call's budget.
DELTA_MIN_TOKENS = 60
@dataclass
class _PageWatch:
    page: Page
    title: str = ""
    url: str = ""
    closed: bool = False
    loaded: bool = False


@dataclass
class Watch(Settling):
    """Observes one tab from just before an action until it settled. Use :func:`perform`.

    Attributes:
        tab: the tab acted on.
        session: its session.
        settings: server settings (``settings.actions`` for settling and downloads).
        delta: compute the DOM delta (reads the page before and after).
        delta_tokens: the most tokens the delta may take.
        view_tokens: the tokens of the view the delta compares: the page as a snapshot at the call's cap shows
            it (unfolded when it fits), so every ref the agent was shown is in it.
    """

    tab: Tab
    session: BrowserSession
    settings: Settings
    delta: bool = True
    delta_tokens: int = DELTA_MAX_TOKENS
    view_tokens: int = 2000
    record: ActionRecord = field(default_factory=lambda: ActionRecord(action=""))
    _before: list[Line] | None = None
    _drift_new: list[str] = field(default_factory=list)
    _stale: list[Line] | None = None  # the tab's last walk, when the before walk found the page changed since
    _behind: bool = False  # the before is the tab's last walk; the page changed since only by itself
    _recurring: tuple[str, ...] = ()  # the texts the first look saw changing by themselves
    _origin: float | None = None
    _dialog_mark: int = 0
    _traffic: Traffic = field(default_factory=Traffic)
    _last_net: float = 0.0
    _events0: dict[str, int] = field(default_factory=dict)
    _sent0: dict[str, tuple[int, frozenset[str]]] = field(default_factory=dict)
    _popups: list[_PageWatch] = field(default_factory=list)
    _downloads: list[Download] = field(default_factory=list)
    _console_mark: dict[int, int] = field(default_factory=dict)
    _listeners: list[tuple[Any, str, Any]] = field(default_factory=list)
    _doc_changed: bool = False
    _chooser: FileChooser | None = None
    _gone: list[Gone] = field(default_factory=list)
    _gone_dropped: int = 0
    _walk_title: str | None = None
    _docs: dict[bool, Any] = field(default_factory=dict)  # the walked documents of the delta: before (True), after
    _act_start: float = 0.0
    _still: bool = False
    _walked_early: asyncio.Future[Any] | None = None  # the drain and walk the settle began beside a look
    _answer_early: asyncio.Future[Any] | None = None  # the caller's read, run with a quick settle's first look
    _early_kept: bool = False  # its walk is the after walk: the page did not change while it ran
    _end_last: float | None = None  # the settle's last look's mark (Look.last); _settled: the after walk's
    _settled: float | None = None
    _last0: float | None = None
    _windows_asked: int = 0
    _choosers0: int = 0  # the tab's choosers_seen when the watch started
    _window_at: float = 0.0

    # listeners ------------------------------------------------------------------------------

    def _on(self, emitter: Any, event: str, fn: Any) -> None:
        emitter.on(event, fn)
        self._listeners.append((emitter, event, fn))

    def stop_listening(self) -> None:
        """Remove every listener this watch added (idempotent)."""
        for emitter, event, fn in self._listeners:
            emitter.remove_listener(event, fn)
        self._listeners.clear()

    def _on_download(self, download: Download) -> None:
        self._downloads.append(download)

    def _on_window_open(self, _event: Any) -> None:
        """CDP ``Page.windowOpen``: the page asked for a window (``window.open``, a link or form to a new tab),
        before Playwright has the new page (:meth:`_on_new_page`), which settling then waits for."""
        self._windows_asked += 1
        self._window_at = self._last_net = self._now()

    def _on_file_chooser(self, chooser: FileChooser) -> None:
        self._chooser = chooser

    def _on_new_page(self, page: Page) -> None:
        self.session.dialogs.install(page)  # the session's own hook may not have run yet
        if page is self.tab.page or any(p.page is page for p in self._popups):
            return
        pw = _PageWatch(page, url=page.url)
        self._popups.append(pw)

        def closed(_p: Any, pw: _PageWatch = pw) -> None:
            pw.closed = True
            self._last_net = self._now()  # settling waits a quiet window after a popup's load or close

        def loaded(_p: Any, pw: _PageWatch = pw) -> None:
            pw.loaded = True
            self._last_net = self._now()

        def navigated(frame: Any, pw: _PageWatch = pw) -> None:
            if frame.parent_frame is None:
                pw.url = frame.url

        page.on("close", closed)
        page.on("load", loaded)
        page.on("framenavigated", navigated)
        page.on("download", self._on_download)

    async def _console_errors(self, *, sync: bool = True) -> tuple[list[str], int]:
        """New console errors from the tab's event capture (not ``page.on("console")``, which would
        carry every message of a flood through Playwright's driver): one line each, and the count of
        occurrences; ``sync``: sync the capture first (else as the last sync left it)."""
        events = self.tab.events
        if sync:
            await events.sync(timeout=SYNC_TIMEOUT_S)
        found = events.console_errors_since(self._console_mark)
        lines = []
        for entry, new in found:
            where = f" ({entry.source})" if entry.source else ""
            lines.append(f"{'×' + str(new) + ' ' if new > 1 else ''}{one_line(entry.text, 200)}{where}")
        return lines, sum(new for _, new in found)

    # phases ----------------------------------------------------------------------------------

    async def _snapshot(self, *, before: bool = False, probe: Awaitable[Look] | None = None) -> list[Line] | None:
        """The condensed page the record's delta compares (before: the tab's last walk when the page is
        unchanged since, or changed only by itself, :func:`.reading.walk_for_record` with the settle ``probe``'s
        look: then ``_behind``); ``None`` while the page navigates. A before that finds the page changed since the tab's
        last walk keeps that walk's lines (``_stale``), to learn which values change by themselves."""
        try:
            walk, stale, self._behind = await walk_for_record(self.tab, self.settings, reuse=before, probe=probe)
        except BrowserCtxError as exc:  # a page mid-navigation: no delta
            log.debug("snapshot for delta failed: %s", exc)
            return None
        self._walk_title = walk.title
        url = self.tab.page.url
        lines = render_lines(walk.doc, url=url, max_tokens=self.view_tokens)
        self._docs[before] = walk.doc
        self._settled = None if before else walk.settled
        tab = self.tab
        document = (walk.version or "").split(":", 1)[0]
        if tab.drift_document != document:
            tab.drift_document, tab.drifting, tab.drift_seen = document, set(), {}
        if stale is not None:
            self._stale = render_lines(stale.doc, url=url, max_tokens=self.view_tokens)
        return lines

    async def _title(self, page: Page, default: str) -> str:
        try:
            return await asyncio.wait_for(page.title(), PROBE_TIMEOUT_S)
        except (TimeoutError, PlaywrightError):  # navigating, closed or busy
            return default

    async def _walk_or_title(self, *, before: bool, probe: asyncio.Future[Look] | None = None) -> list[Line] | None:
        """The delta's walk (its title kept in ``_walk_title``), or with no delta just the title; ``probe``: the
        settle probe's look beside it (its page version and self-only word)."""
        self._walk_title = None
        if self.delta:
            return await self._snapshot(before=before, probe=probe)
        self._walk_title = await self._title(self.tab.page, "")
        return None

    async def start(self, action: str | Callable[[], str],
                    prepare: Callable[[], Awaitable[object]] | None = None) -> None:
        """Note the state before the action and start listening. The probe (installs the settle observer), the
        journal drain (what was shown since the last call), the before walk (or the tab's last walk, still
        current), the capture sync and ``prepare()`` (resolving a ref target: no waiting) are independent: they
        run at once (what a refused target drained is handed back to the tab for the next call); the title is the
        walk's.
        ``action``: the record's first line, or a function giving it once ``prepare`` has run.

        Raises:
            Whatever ``prepare`` raises, once the other reads are done.
        """
        page = self.tab.page
        self.record = ActionRecord(action="", url_before=page.url)
        self._dialog_mark = self.session.dialogs.mark()
        events = self.tab.events
        failed: list[Exception] = []

        async def ready() -> None:
            if prepare is not None:
                try:
                    await prepare()
                except Exception as exc:  # noqa: BLE001 - raised below, after the other reads
                    failed.append(exc)

        last = self.tab.last_walk
        probe = asyncio.ensure_future(look(self.tab, self.tab.acted_mark or (None, -1.0),
                                           last[1].at if last is not None else None))
        seen, _, self._before, _, drained = await asyncio.gather(
            probe, ready(), self._walk_or_title(before=True, probe=probe), events.sync(timeout=SYNC_TIMEOUT_S),
            drain_tab(self.tab))  # shown since the last call
        self._origin, self._last0, self._recurring = seen.origin, seen.last, seen.recurring
        if self._before is not None:
            self._drift_new = learn_drift(self.tab, self._stale, self._before, seen.recurring)
        if failed:
            self.tab.journal_held = drained  # nothing was done: the next call reports them
            raise failed[0]
        self._gone, self._gone_dropped = drained
        self.record.action = action if isinstance(action, str) else action()
        self.record.title_before = self._walk_title if self._walk_title is not None else await self._title(page, "")
        self._console_mark = events.console_mark()
        self._traffic.base = events.total_requests
        self._events0 = {rid: n for rid, (_, n) in self._event_streams().items()}
        self._last_net = self._now()
        self._on(page, "download", self._on_download)
        self._choosers0 = self.tab.choosers_seen
        if not self.tab.holds_choosers:  # else the tab's own listener counts them (no subscription per action)
            self._on(page, "filechooser", self._on_file_chooser)
        if self.tab.events.cdp is not None:  # the capture keeps Page enabled on it
            self._on(self.tab.events.cdp, "Page.windowOpen", self._on_window_open)
        self._on(page.context, "page", self._on_new_page)

    async def _popup_info(self, pw: _PageWatch, tabs: list[Tab]) -> PopupInfo:
        if pw.closed or pw.page.is_closed():
            return PopupInfo(None, pw.url or pw.page.url, closed=True)
        title = await self._title(pw.page, "")
        index = next((i for i, t in enumerate(tabs) if t.page is pw.page), None)
        tab = tabs[index] if index is not None else None
        if tab is not None:
            await tab.events.sync(timeout=SYNC_TIMEOUT_S)
        pdf, size = await shown_pdf(self.session, pw.page)
        return PopupInfo(index, pw.page.url, title, pdf=pdf, size=size)

    async def finish(self, also: Callable[[], Awaitable[object]] | None = None, typed: str | None = None
                     ) -> ActionRecord:
        """Stop listening and fill in the record (after :meth:`settle`); ``also()`` (a read of the caller's, e.g.
        what a typed-into field shows) runs with the record's own reads, or was run with a quick settle's first
        look (``_answer_early``), whose answer stands when that settle ended at once. After a quick settle that saw
        nothing move (``_still``) there is no after walk, drain or sync (the first look's stand): the DOM did not
        change, and the value typed into field ``typed`` (a ref; ``also()``'s answer) is set in the tab's last walk
        (:func:`.labels.keep_typed_value`)."""
        rec = self.record
        page = self.tab.page
        try:
            rec.downloads = await save_downloads(self._downloads, self.settings)
        finally:
            self.stop_listening()
        rec.dialogs = self.session.dialogs.since(self._dialog_mark)
        if self.tab.choosers_seen > self._choosers0:
            self._chooser = self.tab.last_chooser
        if self._chooser is not None:
            self.tab.file_chooser = self._chooser
            many = "files" if self._chooser.is_multiple() else "a file"
            rec.notes.append(f"A file chooser opened (for {many}); answer it with browser_file_upload "
                             "(paths only, no target).")
        tabs = self.session.tabs
        for pw in self._popups:
            rec.popups.append(await self._popup_info(pw, tabs))
        closed = page.is_closed()
        # The capture sync (console errors, requests) and the caller's read run with the journal drain and then
        # the after walk (its title is the record's): the drain first, so what shows by the walk is in the delta.
        early, self._answer_early = self._answer_early, None
        if early is not None and not (self._still or self._early_kept):
            await asyncio.wait([early])  # its answer is not the record's: the page moved on (read again below)
            early = None
        read = early if early is not None else also() if also is not None else asyncio.sleep(0)
        (rec.console_errors, rec.console_error_count), ((gone, dropped), after), answer = await asyncio.gather(
            self._console_errors(sync=not self._still), self._journal_and_walk(closed), read)
        if self._still:
            keep_typed_value(self.tab, typed, answer)
        self._read_network()
        rec.failed_requests, rec.failed_request_count = self._traffic.failed, len(self._traffic.failed)
        rec.mocked_requests = self._traffic.mocked
        if closed or page.is_closed():
            rec.notes.append("The tab closed itself.")
            return rec
        rec.url_after = page.url
        rec.new_document = self._doc_changed
        # (what appeared during the action and is still shown is in the delta, not in this line)
        rec.shown_and_gone = render_gone(self._gone + [g for g in gone if not g.shown], self._gone_dropped + dropped)
        rec.title_after = self._walk_title if self._walk_title is not None else await self._title(page,
                                                                                                   rec.title_before)
        pdf, size = await shown_pdf(self.session, page) if rec.new_document else (False, None)
        if pdf:
            rec.page_card = f"PDF document, {human_size(size)}, shown in the browser's PDF viewer."
        elif rec.new_document:
            rec.page_card = await self._card()
        elif after is not None and self._before is not None:
            if self._behind:  # the before is the tab's last walk: what the probe saw ticking since is not the action's
                self._drift_new += learn_behind(self.tab, self._before, after, self._recurring)
            rec.delta = record_delta(self._before, after, action=rec.action, before_doc=self._docs.get(True),
                                     after_doc=self._docs.get(False), drifting=self.tab.drifting,
                                     value_said=(rec.action.startswith("Typed ") and answer is not None) or any(
                                         n.startswith("Now shows:") for n in rec.notes),
                                     max_tokens=self.delta_tokens)
        said = drift_note(self._drift_new)
        if said:
            rec.notes.append(said)
        return rec

    async def _journal_and_walk(self, closed: bool) -> tuple[tuple[list[Gone], int], list[Line] | None]:
        """The journal drained since the action's start, then the after walk (none after a navigation). After a
        quick settle that saw nothing move (``_still``): neither (the journal holds only what the DOM did; what
        comes after the first look is the next call's). The drain and walk the settle began (``_walked_early``)
        are the record's when the page did not change while they ran (a quick settle's frame look said so, or
        the walk saw the settle's last look's mark: ``_settled``); else their drain is kept and the page drained
        and walked again."""
        page, ids = self.tab.page, self.tab.frame_ids
        early, self._walked_early = self._walked_early, None
        if early is not None:
            drained, lines = await early  # begun by the settle, beside its last look or the record's other reads
            if self._early_kept or (self._settled is not None and self._settled == self._end_last):
                if lines is None:
                    self._walk_title = None
                return drained, lines
            more = await drain_journal(page, ids)
            drained = (drained[0] + more[0], drained[1] + more[1])
        elif self._still:
            self._walk_title = self.record.title_before  # the DOM did not change: neither did the title
            return ([], 0), None
        else:
            drained = await drain_journal(page, ids)
        walk = not (closed or self._doc_changed) and self._before is not None
        self._walk_title = None
        return drained, await self._snapshot() if walk else None

    def _walk_after_early(self) -> asyncio.Future[Any] | None:
        if not self.delta or self._before is None or self._doc_changed:
            return None
        early = asyncio.ensure_future(asyncio.gather(drain_journal(self.tab.page, self.tab.frame_ids),
                                                     self._snapshot()))
        early.add_done_callback(lambda f: f.cancelled() or f.exception())  # a settle that raises leaves it
        return early

    async def _card(self) -> str | None:
        try:
            walk = await walk_tab(self.tab, self.settings)
        except BrowserCtxError:  # navigating again or busy: no card
            return None
        prime_locators(self.session, self.tab)
        card = render_card(url=self.tab.page.url, status=None, title=self.record.title_after,
                           outline=outline(walk.doc))
        lines = [ln for ln in card.splitlines() if not ln.startswith(("Page:", "Load:"))]
        return "\n".join(lines) or None


async def perform(call_session: BrowserSession, tab: Tab, settings: Settings, action: str | Callable[[], str],
                  act: Callable[[], Awaitable[str | None]], *, delta: bool = True, settle: bool = True,
                  budget: Budget | None = None, also: Callable[[], Awaitable[object]] | None = None,
                  quick: bool | Callable[[], bool] = False, prepare: Callable[[], Awaitable[object]] | None = None,
                  typed: str | None = None) -> ActionRecord:
    """Run ``act()`` (a coroutine function) on ``tab`` under a :class:`Watch` and return the record.

    Args:
        call_session: the browser session.
        tab: the tab acted on.
        settings: server settings (timeouts; ``settings.actions`` for settling and downloads).
        action: the record's first line, e.g. ``'Clicked button "Add" [e5]'``, or a function giving it after
            ``prepare``.
        act: ``async () -> str | None``; its return value, if a string, is added as a note.
        delta: compute the DOM delta.
        settle: wait for the page to settle (else collect at once).
        budget: the call's budget (``budget.tokens`` caps the whole result; default: the server default);
            the delta gets at most :data:`DELTA_MAX_TOKENS` tokens and leaves :data:`RECORD_RESERVE_TOKENS`
            for the rest of the record.
        also: ``async () -> object``, run after settling with the record's reads, or with a quick settle's first
            look (run again after settling when that settle did not end there; :meth:`Watch.finish`).
        quick: settling ends at once when the action changed nothing (:meth:`Watch.settle`); the record then
            has no after walk, and ``typed`` (the ref typed into) gets ``also()``'s answer as its value in the tab's
            last walk (:meth:`Watch.finish`).
        prepare: ``async () -> object`` run with the watch's first reads (:meth:`Watch.start`), e.g. resolving a
            ref target; what it raises is raised before anything is done.

    Raises:
        Whatever ``act`` raises (already translated by the caller); listeners are removed either way.
    """
    cap = budget.tokens if budget is not None else settings.caps.default_max_tokens
    watch = Watch(tab, call_session, settings, delta=delta,
                  delta_tokens=max(DELTA_MIN_TOKENS, min(DELTA_MAX_TOKENS, cap - RECORD_RESERVE_TOKENS)),
                  view_tokens=cap)
    await watch.start(action, prepare)
    watch._act_start = watch._now()
    watch._sent0 = sent_counts(tab.events.records())  # frames a socket's own timer sends before the act are not its
    try:
        note = await act()
    except BaseException:
        watch.stop_listening()
        raise
    if isinstance(note, str) and note:
        watch.record.notes.append(note)
    if settle:
        quick = quick() if callable(quick) else quick
        if quick and also is not None:  # beside the first look; the record's if the settle ends there
            watch._answer_early = asyncio.ensure_future(also())
            watch._answer_early.add_done_callback(lambda f: f.cancelled() or f.exception())
        await watch.settle(quick=quick)
    else:
        seen = await look(tab)
        tab.acted_mark = seen.mark or tab.acted_mark
        origin = seen.origin
        if origin is not None and watch._origin is not None and origin != watch._origin:
            watch._doc_changed = True
    return await watch.finish(also, typed)
