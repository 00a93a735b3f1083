"""Follow a page where it goes by itself after loading: meta refresh, a script setting ``location``
(the client-side half of :func:`~browser_ctx.browser.navigation.navigate`).

Each document of the main frame is watched after its load; a new one (not a ``pushState`` of the same)
is a hop of the navigation's chain, named by CDP ``Page.frameRequestedNavigation`` where it was heard.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from playwright.async_api import CDPSession, Frame
from playwright.async_api import Error as PlaywrightError

from .._errors import one_line
from ..core.outline import Hop
from ..core.record import DialogInfo
from ..settings import Settings
from .page_cdp import PageCDP
from .reading import page_title
from .scripts import script
from .session import Tab
from .worlds import in_frame

__all__ = ["NavigationResult", "NavigationReasons", "Document", "BUSY", "document_facts", "follow_client_redirect",
           "wait_for_new_document", "hops_between", "left_by", "defragged", "CLIENT_REDIRECT_S",
           "CLIENT_REDIRECT_WATCH_MS", "KEPT_NAVIGATING", "STOPPED_FOLLOWING"]

log = logging.getLogger("browser_ctx")

#: A ``<meta http-equiv=refresh>`` this many seconds or sooner is followed; also how long (s) we look for it.
CLIENT_REDIRECT_S = 2
#: After each page of a navigation has loaded, how long (ms) we watch for it to move on by itself (a
#: script's ``location.replace`` on a timer, a meta refresh added late) before the card describes it,
#: when one of its inline scripts sets ``location`` (``location.href = …``, ``location.replace(…)``…) and starts a
#: timer or a load handler…
CLIENT_REDIRECT_WATCH_MS = 2_000
#: or a small external script of it sets ``location`` and starts a timer (:meth:`NavigationReasons.timer_redirect`)…
#: … and when none does (an app bundle may still move it; most pages stay): the cost every navigation pays. A
#: page that asks to go elsewhere meanwhile (CDP ``Page.frameRequestedNavigation``: ``location`` set from a
#: load handler or a timer of its own) is then watched for :data:`CLIENT_REDIRECT_WATCH_MS` ms from that moment.
QUIET_WATCH_MS = 15
#: The most client-side hops (meta refresh, script) a navigation follows; the chain stops there.
MAX_CLIENT_HOPS = 5
#: The longest wait (ms) for the ``load`` event of the page a client redirect led to.
REDIRECT_LOAD_WAIT_MS = 5_000


@dataclass(frozen=True)
class NavigationResult:
    """What loading a URL gave.

    Attributes:
        url: the final URL (where the page ended, after server and client redirects).
        status: HTTP status of the final document (``None`` if it had no HTTP response).
        title: the final document's title.
        notes: one-line notes for the card.
        chain: the pages left on the way, first first (see :class:`~browser_ctx.core.outline.Hop`).
        dialogs: dialogs the pages opened while loading, as they were answered.
        read: when :func:`.navigation.navigate` was given ``read``: its task, run while the final document was
            watched for a client redirect (done; its exception, if any, is kept in it). ``None`` otherwise, or when
            the page moved on after it started (read it again).
    """

    url: str
    status: int | None
    title: str
    notes: tuple[str, ...] = ()
    chain: tuple[Hop, ...] = ()
    dialogs: tuple[DialogInfo, ...] = ()
    read: asyncio.Future[Any] | None = None


#: CDP ``Page.frameRequestedNavigation`` reasons as the card names them (others are shown as Chromium names them).
_REASONS = {"metaTagRefresh": "meta refresh", "httpHeaderRefresh": "Refresh header", "scriptInitiated": "script",
            "formSubmissionGet": "form submission", "formSubmissionPost": "form submission",
            "anchorClick": "link click", "reload": "reload"}


#: The longest wait (s) for each step of the navigation reasons (the session's opening, ``Page.enable`` and
#: ``Page.getFrameTree``, ``Page.disable``): a renderer stuck in a script never answers them.
CDP_WAIT_S = 1.0
#: Code that sets ``location`` (the same test as ``js/document_facts.js`` makes of inline scripts)…
_SETS_LOCATION = re.compile(r"\blocation(?:\.href)?\s*=(?!=)|\blocation\.(?:replace|assign|reload)\s*\(")
#: … and starts a timer: an external script with both may move the page on after its load.
_TIMER = re.compile(r"\bset(?:Timeout|Interval)\s*\(")
#: External scripts of a document read for :meth:`NavigationReasons.timer_redirect`: at most this many, each
#: of at most this many bytes (a redirect helper is small; an app bundle is not read). It is read only when the
#: page's resource timing shows such a script (``Document.small_scripts``; a cross-origin one without
#: ``Timing-Allow-Origin`` has no size there and is not read).
SCANNED_SCRIPTS = 8
SCANNED_SCRIPT_BYTES = 20_000
#: The longest wait (s) for the main frame's resource tree and those scripts' text.
SCAN_WAIT_S = 0.5


class NavigationReasons:
    """While a navigation loads, why the page asked to go elsewhere: CDP ``Page.frameRequestedNavigation``
    (meta refresh, script, Refresh header…) on the tab's session of the page (``Page`` held enabled, the listener
    removed at the end).
    ``by_url`` maps each requested URL (without fragment) to how the card names the reason; ``last_requested``
    is the URL (without fragment) the main frame last asked to go to, and ``requested`` is set each time it
    asks. Never raises: without CDP (a non-Chromium remote browser) all stay empty and hops are named from the
    page's facts."""

    def __init__(self, cdp: PageCDP) -> None:
        self._pc = cdp
        self._cdp: CDPSession | None = None
        self._enabled = False
        self._main_frame_id: str | None = None
        self.by_url: dict[str, str] = {}
        self.last_requested: str | None = None
        self.requested = asyncio.Event()

    def _on_request(self, params: dict[str, Any]) -> None:
        reason = str(params.get("reason") or "")
        if params.get("url"):
            url = defragged(str(params["url"]))
            self.by_url[url] = _REASONS.get(reason, reason or "client redirect")
            if params.get("frameId") == self._main_frame_id and params.get("disposition", "currentTab") == "currentTab":
                self.last_requested = url
                self.requested.set()

    async def __aenter__(self) -> NavigationReasons:
        try:  # a renderer stuck in a script answers neither: then hops are named without it
            self._cdp = cdp = await asyncio.wait_for(self._pc.session(), CDP_WAIT_S)
            cdp.on("Page.frameRequestedNavigation", self._on_request)
            _, tree = await asyncio.wait_for(asyncio.gather(self._enable(cdp), cdp.send("Page.getFrameTree")),
                                             CDP_WAIT_S)
            self._main_frame_id = str(tree["frameTree"]["frame"]["id"])
        except (PlaywrightError, TimeoutError, KeyError) as exc:  # no CDP here, the page closed, or busy
            log.debug("no CDP session for navigation reasons: %s", one_line(str(exc), 120))
        return self

    async def _enable(self, cdp: CDPSession) -> None:
        await self._pc.enable(cdp, "Page")
        self._enabled = True

    async def timer_redirect(self) -> bool:
        """Whether a small external script of the main frame's current document both sets ``location`` and
        starts a timer (``setTimeout``/``setInterval``): it may move the page on after its load, where no inline
        script says so. Reads the scripts the page already has (CDP ``Page.getResourceTree``, then
        ``Page.getResourceContent`` of at most :data:`SCANNED_SCRIPTS` of at most :data:`SCANNED_SCRIPT_BYTES`
        bytes each): no request is made. ``False`` without CDP, or with no answer within :data:`SCAN_WAIT_S` s."""
        if self._cdp is None or not self.listening:
            return False
        try:
            return await asyncio.wait_for(self._scan(self._cdp), SCAN_WAIT_S)
        except (PlaywrightError, TimeoutError, KeyError, TypeError) as exc:  # closed, navigating or busy
            log.debug("external scripts not read: %s", one_line(str(exc), 120))
            return False

    @staticmethod
    async def _scan(cdp: CDPSession) -> bool:
        tree = (await cdp.send("Page.getResourceTree"))["frameTree"]
        small = [r["url"] for r in tree.get("resources", ())
                 if r.get("type") == "Script" and 0 < (r.get("contentSize") or 0) <= SCANNED_SCRIPT_BYTES]
        answers = await asyncio.gather(*(
            cdp.send("Page.getResourceContent", {"frameId": tree["frame"]["id"], "url": url})
            for url in small[:SCANNED_SCRIPTS]), return_exceptions=True)
        return any(isinstance(a, dict) and not a.get("base64Encoded") and _SETS_LOCATION.search(str(a.get("content")))
                   and _TIMER.search(str(a.get("content"))) for a in answers)

    @property
    def listening(self) -> bool:
        """Whether the CDP session is up (requests are being heard)."""
        return self._main_frame_id is not None

    def pending_for(self, nav_url: str) -> bool:
        """Whether the main frame has asked to go somewhere other than ``nav_url`` (the URL its current
        document was loaded from): a navigation it requested and has not committed yet."""
        return self.last_requested is not None and self.last_requested != defragged(nav_url)

    async def __aexit__(self, *_exc: object) -> None:
        cdp, self._cdp = self._cdp, None
        if cdp is None:
            return
        cdp.remove_listener("Page.frameRequestedNavigation", self._on_request)
        if self._enabled:
            # Gone already, or a renderer stuck in a script never answers the disable (sent only when no one
            # else, such as the capture, holds Page): nothing is left listening that matters.
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(self._pc.release(cdp, "Page"), CDP_WAIT_S)


def defragged(url: str) -> str:
    return url.split("#", 1)[0]


def hops_between(tab: Tab, left_url: str, left_status: int | None, target: str, reasons: dict[str, str],
                 fallback: str) -> list[Hop]:
    """The hops from the document loaded from ``left_url`` to the one loaded from ``target``: through every
    URL the page asked for in between (``reasons``, in the order asked, from :class:`NavigationReasons`),
    each named by its reason; ``fallback`` names the hop when the page's request was not seen. Statuses of
    pages passed through come from the tab's network capture (``None`` when it has no such document)."""
    asked = list(reasons.items())
    start = next((i + 1 for i, (u, _how) in enumerate(asked) if u == defragged(left_url)), 0)
    path: list[tuple[str, str]] = []
    for url, how in asked[start:]:
        path.append((url, how))
        if url == defragged(target):
            break
    else:
        path = [(defragged(target), reasons.get(defragged(target), fallback))]
    hops: list[Hop] = []
    url, code = left_url, left_status
    for next_url, how in path:
        hops.append(Hop(url, code, how))
        url, code = next_url, _document_status(tab, next_url)
    return hops


def _document_status(tab: Tab, url: str) -> int | None:
    """The HTTP status of the latest document request to ``url`` in the tab's network capture, or ``None``."""
    for record in reversed(tab.events.records()):
        if record.resource_type == "document" and defragged(record.url) == url:
            return record.status
    return None


def left_by(first: Document | None, url: str) -> str:
    """How the document loaded from ``url`` was left, from its facts read at DOMContentLoaded (``first``):
    ``meta refresh`` when it had one, ``script`` when not, ``client redirect`` when it was gone already."""
    if first is None or defragged(first.nav_url) != defragged(url):
        return "client redirect"
    return "meta refresh" if first.refresh is not None else "script"


class Document(NamedTuple):
    """Facts of one document in the main frame (``browser/js/document_facts.js``)."""

    origin: float  # performance.timeOrigin: differs for every document, not for pushState
    url: str
    nav_url: str  # the URL the document was loaded from (pushState/replaceState do not change it)
    status: int | None  # the navigation timing entry's responseStatus; None when 0 or unknown
    refresh: float | None  # seconds of a <meta http-equiv=refresh> that moves the page on, or None
    scripted: bool  # an inline script sets `location` and defers work: it may move the page on a timer
    loaded: bool = False  # document.readyState was "complete"
    small_scripts: int = 0  # scripts loaded from files of a known size up to SCANNED_SCRIPT_BYTES


#: What :func:`document_facts` returns for a page too busy to answer (an endless script).
BUSY = Document(-1.0, "", "", None, None, False)


async def document_facts(tab: Tab, timeout_s: float) -> Document | None:
    """The facts of the tab's current document (read in its isolated world); ``None`` when it cannot answer
    (navigating, closed); :data:`BUSY` when it does not answer within ``timeout_s`` s (a script keeps it busy: it
    is not going anywhere by itself, and waiting longer for it would only spend the call's time)."""
    page = tab.page
    try:
        got = await asyncio.wait_for(in_frame(tab.worlds, page.main_frame, script("document_facts")), timeout_s)
    except TimeoutError:
        return BUSY
    except PlaywrightError:  # navigating already, or closed
        return None
    if not isinstance(got, dict):
        return None
    code, refresh = got.get("status"), got.get("refresh")
    return Document(float(got.get("origin") or 0), str(got.get("url") or page.url),
                    str(got.get("navUrl") or got.get("url") or page.url),
                    int(code) if isinstance(code, (int, float)) and code > 0 else None,
                    float(refresh) if isinstance(refresh, (int, float)) else None, bool(got.get("scripted")),
                    bool(got.get("loaded")), int(got.get("smallScripts") or 0))


async def follow_client_redirect(tab: Tab, nav: NavigationResult, settings: Settings,
                                 reasons: NavigationReasons | None = None,
                                 read: Callable[[], Awaitable[Any]] | None = None,
                                 facts: Document | None = None) -> NavigationResult:
    """Follow the page where it moves by itself after loading.

    Each document is watched after its load for :data:`CLIENT_REDIRECT_WATCH_MS` ms when an inline script
    of it sets ``location`` beside a timer or a load handler, a small external one sets it on a timer
    (:meth:`NavigationReasons.timer_redirect`) or the page has asked to go elsewhere (``reasons``), else
    :data:`QUIET_WATCH_MS` ms, extended when it asks meanwhile (plus the delay of
    a ``<meta http-equiv=refresh>`` due within :data:`CLIENT_REDIRECT_S` s). A new document (not a
    ``pushState``/``replaceState`` of the same one) adds a :class:`Hop` to ``nav.chain`` ("meta refresh"
    or "script"; ``reasons``, from :class:`NavigationReasons`, names it exactly where it has the URL), at
    most :data:`MAX_CLIENT_HOPS` of them. Returns the result for the final document:
    its URL, HTTP status and title, ``nav``'s notes, chain and dialogs kept. With ``read``, each document is read
    while it is watched, and the read of the one the page stays on is returned (``NavigationResult.read``; the
    title is then ``""``: the caller has it from its read). Never raises."""
    page = tab.page
    chain = list(nav.chain)
    notes = list(nav.notes)
    status = nav.status
    if facts is None:  # else the caller has just read them (``facts``)
        facts = await document_facts(tab, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
    if facts is not None and facts.status is not None:
        status = facts.status
    left_url = facts.url if facts is not None else nav.url
    clock = asyncio.get_running_loop()
    deadline = clock.time() + FOLLOW_BUDGET_MS / 1000
    for hop in range(MAX_CLIENT_HOPS + 1 if facts is not BUSY else 0):  # a busy page goes nowhere
        due = facts is not None and facts.refresh is not None and facts.refresh <= CLIENT_REDIRECT_S
        asked = reasons is not None and facts is not None and reasons.pending_for(facts.nav_url)
        reading = asyncio.ensure_future(read()) if read is not None and facts is not None else None
        # read beside the card's read (a few ms: hidden by it), and only when nothing else says to watch long
        later = (reasons is not None and facts is not None and facts.small_scripts > 0
                 and not (facts.scripted or asked or due) and await reasons.timer_redirect())
        watch_ms: float = (CLIENT_REDIRECT_WATCH_MS if facts is None or facts.scripted or asked or later
                           else QUIET_WATCH_MS)
        watch_ms += facts.refresh * 1000 if due and facts and facts.refresh else 0
        try:
            moved = await asyncio.wait_for(wait_for_new_document(
                tab, facts.origin if facts is not None else None, watch_ms, settings, reasons, facts),
                max(0.0, deadline - clock.time()))
        except TimeoutError:  # a page that navigates again and again (every 50 ms): describe it as it is now
            notes.append(f"{KEPT_NAVIGATING}; stopped following it after {FOLLOW_BUDGET_MS / 1000:g} s")
            await _discard(reading)
            break
        if moved is None:
            if reading is not None:
                await asyncio.wait([reading])
                return NavigationResult(page.url, status, "", tuple(notes), tuple(chain), nav.dialogs, reading)
            break
        await _discard(reading)  # it read the document the page left
        chain.extend(hops_between(tab, left_url, status, moved.nav_url, reasons.by_url if reasons else {},
                                  "meta refresh" if due else "script"))
        facts, status, left_url = moved, moved.status, moved.url
        if hop == MAX_CLIENT_HOPS - 1:
            notes.append(f"{STOPPED_FOLLOWING} after {MAX_CLIENT_HOPS} client-side redirects")
            break
    # A page stuck in a script would not give its title either: the read that follows reports it.
    title = "" if facts is BUSY else await page_title(tab, settings)
    return NavigationResult(page.url, status, title, tuple(notes), tuple(chain), nav.dialogs)


async def _discard(task: asyncio.Future[Any] | None) -> None:
    """Let a read of a document the page has left finish, and drop its result (or its error)."""
    if task is not None:
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved: a read of a replaced document fails, and that is expected


#: The longest time (ms) following client-side redirects may take in all, whatever the hops.
FOLLOW_BUDGET_MS = 5_000
#: The card's note for a page that was still navigating when following stopped.
KEPT_NAVIGATING = "the page kept navigating by itself"
#: The card's note for a page that was still redirecting after :data:`MAX_CLIENT_HOPS` hops. Like
#: :data:`KEPT_NAVIGATING`, its documents count as its own (``navigation._navigating_by_itself``): it may still be
#: moving.
STOPPED_FOLLOWING = "stopped following the page"


async def wait_for_new_document(tab: Tab, origin: float | None, watch_ms: float, settings: Settings,
                                reasons: NavigationReasons | None = None,
                                known: Document | None = None) -> Document | None:
    """Wait up to ``watch_ms`` ms for the main frame to hold a document other than the one whose
    ``timeOrigin`` is ``origin`` (``None``: the page was leaving it already), then for that document's
    ``load`` (at most :data:`REDIRECT_LOAD_WAIT_MS` ms). When the page asks to go elsewhere meanwhile
    (``reasons``), the window runs :data:`CLIENT_REDIRECT_WATCH_MS` ms from then. Returns the new document's
    facts, or ``None`` if the page stayed (or never answered). ``known``: the document's facts just read, for
    the first look."""
    page = tab.page
    loop = asyncio.get_running_loop()
    deadline = loop.time() + watch_ms / 1000
    navigated = asyncio.Event()

    def on_navigated(frame: Frame) -> None:
        if frame.parent_frame is None:
            navigated.set()

    page.on("framenavigated", on_navigated)
    try:
        while True:
            navigated.clear()
            facts = known if known is not None else await document_facts(
                tab, max(NAVIGATION_POLL_MS / 1000, deadline - loop.time()))
            known = None
            if facts is BUSY:  # an endless script: it is not navigating
                return None
            if facts is not None and (origin is None or facts.origin != origin):
                if facts.loaded:
                    return facts
                try:
                    await page.wait_for_load_state("load", timeout=REDIRECT_LOAD_WAIT_MS)
                except PlaywrightError as exc:  # still loading: read it as it is
                    log.debug("client redirect not loaded: %s", one_line(str(exc), 120))
                loaded = await document_facts(tab, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
                return loaded if loaded is not None and loaded is not BUSY else facts
            if facts is not None and reasons is not None and reasons.pending_for(facts.nav_url):
                deadline = max(deadline, loop.time() + CLIENT_REDIRECT_WATCH_MS / 1000)
            if not await _navigated_within(navigated, reasons, deadline - loop.time()):
                return None
    finally:
        page.remove_listener("framenavigated", on_navigated)


async def _navigated_within(navigated: asyncio.Event, reasons: NavigationReasons | None, left_s: float) -> bool:
    """Wait up to ``left_s`` s for the main frame to navigate (``navigated``) or to ask to
    (``reasons.requested``); ``False`` when neither came."""
    if left_s <= 0:
        return False
    waits = [asyncio.ensure_future(navigated.wait())]
    if reasons is not None:
        reasons.requested.clear()
        waits.append(asyncio.ensure_future(reasons.requested.wait()))
    try:
        done, _ = await asyncio.wait(waits, timeout=left_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
    return bool(done)


#: Shortest wait (ms) for a document's facts while the watch window is nearly over.
NAVIGATION_POLL_MS = 250
