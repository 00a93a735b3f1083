"""Read a tab: navigate, resolve targets, and extract visible HTML (the browser half of page reads).

Everything here talks to Playwright and hands strings to the pure core. Targets are
resolved by Playwright in the live page, never by re-parsing a copy of the HTML:
a ref (``e12``, ``f1e3``) goes through the ``bcref`` selector engine in its frame;
anything else is a Playwright selector (CSS, which pierces open shadow roots,
``text=``, ``role=``, ``data-testid=``, XPath…).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import CDPSession, Frame, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

from .._errors import (
    ActionTimeout,
    BrowserCtxError,
    InvalidArgument,
    SchemeRefused,
    SelectorError,
    StaleRefError,
    auth_required,
    one_line,
    translate,
    without_credentials,
)
from ..core.outline import Hop
from ..core.record import DialogInfo
from ..settings import Settings
from . import extract
from .dialogs import DialogCenter
from .scripts import script
from .session import Tab
from .targets import locator_for
from .worlds import in_frame

__all__ = ["normalise_url", "navigate", "page_title", "NavigationResult", "visible_html", "read_page", "target_html",
           "count_matches", "MAX_MATCHES",
           "interrupt_scripts"]

log = logging.getLogger("browser_ctx")

#: The longest wait (ms) for the ``load`` event after DOMContentLoaded (and for a client redirect to commit).
LOAD_WAIT_MS = 10_000
#: A ``<meta http-equiv=refresh>`` this many seconds or sooner is followed; also how long (s) we look for it.
CLIENT_REDIRECT_S = 2
#: After each page of a navigation has loaded, how long (ms) we watch for it to move on by itself (a
#: script's ``location.replace`` on a timer, a meta refresh added late) before the card describes it,
#: when one of its inline scripts sets ``location`` (``location.href = …``, ``location.replace(…)``…)…
CLIENT_REDIRECT_WATCH_MS = 2_000
#: … and when none does (an app bundle may still move it; most pages stay): the cost every navigation pays. A
#: page that asks to go elsewhere meanwhile (CDP ``Page.frameRequestedNavigation``: ``location`` set from a
#: load handler or a timer of its own) is then watched for :data:`CLIENT_REDIRECT_WATCH_MS` ms from that moment.
QUIET_WATCH_MS = 30
#: The most client-side hops (meta refresh, script) a navigation follows; the chain stops there.
MAX_CLIENT_HOPS = 5
#: The longest wait (ms) for the ``load`` event of the page a client redirect led to.
REDIRECT_LOAD_WAIT_MS = 5_000
#: After a failed load: how long (ms) to wait for Chromium's error page, then to go back from it.
ERROR_PAGE_WAIT_MS = 2_000
RESTORE_WAIT_MS = 5_000

_T = TypeVar("_T")


def normalise_url(url: str, allowed_schemes: tuple[str, ...] = ()) -> str:
    """Return ``url`` with a scheme (``http://`` for localhost, else ``https://``).

    Raises:
        SchemeRefused: a scheme other than http(s) that ``allowed_schemes`` does not list.
        InvalidArgument: an empty URL.
    """
    url = url.strip()
    if not url:
        raise InvalidArgument("url is empty; pass an http(s) URL such as https://example.com/.")
    scheme = urlsplit(url).scheme.lower()
    if not scheme or (scheme not in ("http", "https") and "://" not in url and url.split(":", 1)[1][:1].isdigit()):
        host = url.split("/", 1)[0].lower()
        local = host.startswith(("localhost", "127.", "[::1]", "0.0.0.0"))
        return ("http://" if local else "https://") + url
    if scheme in ("http", "https") or scheme in allowed_schemes:
        return url
    raise SchemeRefused(f"Refused {scheme}: URL; browser_navigate loads only http(s) URLs "
                        f"(start the server with --allow-scheme {scheme} to allow it).")


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
        read: when :func:`navigate` was given ``read``: its task, run while the final document was watched for a
            client redirect (done; its exception, if any, is kept in it). ``None`` otherwise, or when the page
            moved on after it started (read it again).
    """

    url: str
    status: int | None
    title: str
    notes: tuple[str, ...] = ()
    chain: tuple[Hop, ...] = ()
    dialogs: tuple[DialogInfo, ...] = ()
    read: asyncio.Future[Any] | None = None


async def navigate(tab: Tab, url: str, settings: Settings, dialogs: DialogCenter | None = None,
                   read: Callable[[], Awaitable[Any]] | None = None) -> NavigationResult:
    """Load ``url`` in ``tab`` up to ``DOMContentLoaded``, wait briefly for ``load``, then follow the page
    where it goes by itself: a ``<meta http-equiv="refresh">`` of 2 s or less, or a script that changes
    ``location`` within :data:`CLIENT_REDIRECT_WATCH_MS` ms of a page's load (:data:`QUIET_WATCH_MS` ms when
    no inline script sets ``location``; at most
    :data:`MAX_CLIENT_HOPS` hops). Server redirects (3xx) and client hops are listed in ``chain``;
    ``status`` is the final document's. ``dialogs`` (the session's) lists what opened during the load.
    ``read`` (optional): a read of the page started once the final document has loaded, beside the watch for
    a client redirect (which is mostly waiting), returned in ``NavigationResult.read``; the title is then
    left to the caller (``""``), who has it from that read.

    Raises:
        NavigationError: the load failed (names the ``net::ERR_…``), or the page answered with an HTTP
            authentication challenge (401/407: scheme and realm named, credentials never shown).
        ActionTimeout: DOMContentLoaded did not come within the navigation timeout.
    """
    page = tab.page
    notes: list[str] = []
    mark = dialogs.mark() if dialogs is not None else 0
    before = page.url
    given = settings.launch.http_credentials is not None or without_credentials(url) != url
    if dialogs is not None and dialogs.opened_within(DIALOG_STORM_S) and await _leave_wedged_page(page):
        notes.append("the page was opening dialogs non-stop; its scripts were stopped to leave it")
    elif _navigating_by_itself(tab) and await _leave_wedged_page(page):
        # Its next self-navigation could otherwise land after ours and be followed as a redirect of ours.
        notes.append("the page was navigating by itself non-stop; its scripts were stopped to leave it")
    async with _NavigationReasons(page) as reasons:
        nav = await _load(tab, url, settings, dialogs, notes, before, given, mark, reasons, read)
    if not any(note.startswith((KEPT_NAVIGATING, STOPPED_FOLLOWING)) for note in nav.notes):
        tab.navigated_at = time.time()  # the documents of its chain were ours; a page still moving is not counted out
    return nav


async def _load(tab: Tab, url: str, settings: Settings, dialogs: DialogCenter | None, notes: list[str],
                before: str, given: bool, mark: int, reasons: _NavigationReasons,
                read: Callable[[], Awaitable[Any]] | None) -> NavigationResult:
    """The body of :func:`navigate`, with ``reasons`` filled by :class:`_NavigationReasons` as it goes."""
    page = tab.page
    timeout = settings.timeouts.navigation_ms
    try:
        response = await _goto(page, url, timeout)
    except PlaywrightError as exc:  # translated below
        if AUTH_REFUSED in str(exc):  # Playwright answered a challenge and the server refused the answer
            error: BrowserCtxError = auth_required(401, await _challenge(tab, url), url, credentials_given=given)
        else:
            error = translate(exc, action="navigate", url=url, timeout_ms=timeout)
        await _restore(tab, before)
        tab.navigated_at = time.time()  # the error page and the page gone back to were ours
        raise error from exc
    if response is not None and response.status in (401, 407):
        header = "proxy-authenticate" if response.status == 407 else "www-authenticate"
        challenge = await response.header_value(header)
        raise auth_required(response.status, challenge, url, credentials_given=given)
    chain: list[Hop] = []
    first: _Document | None = None
    if response is not None:
        chain.extend(await _server_hops(response.request))
        if not reasons.listening:
            # Without CDP's reasons, the document's own facts say how it may be left. With them, nothing is
            # evaluated before `load`: on a page of 200,000 elements an evaluate between DOMContentLoaded and
            # `load` held `load` back from 1.8 s to 3.6 s (the renderer lays the page out first to answer it).
            first = await _document(page, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
            first = None if first is _BUSY else first
    try:
        await page.wait_for_load_state("load", timeout=min(timeout, LOAD_WAIT_MS))
    except PlaywrightError:  # slow subresources are reported, not fatal
        notes.append("the load event had not fired after 10 s; read the page as it is")
    status = response.status if response else None
    facts: _Document | None = None
    if response is not None:
        # The document now (waiting out one that is being replaced, as after a meta refresh of 0 s).
        facts = await _wait_for_new_document(page, None, CLIENT_REDIRECT_WATCH_MS, settings)
        if facts is not None and facts is not _BUSY and _defragged(facts.nav_url) != _defragged(response.url):
            # The document goto() loaded was replaced while it loaded: list every page passed through.
            chain.extend(_hops_between(tab, response.url, status, facts.nav_url, reasons.by_url,
                                       _left_by(first, response.url)))
            status = facts.status
    nav = NavigationResult(page.url, status, "", tuple(notes), tuple(chain))
    nav = await follow_client_redirect(tab, nav, settings, reasons, read,
                                       facts if facts is not None and facts is not _BUSY else None)
    found = tuple(dialogs.since(mark)) if dialogs is not None else ()
    return replace(nav, dialogs=found)


#: CDP ``Page.frameRequestedNavigation`` reasons as the card names them (others are shown as Chromium names them).
_REASONS = {"metaTagRefresh": "meta refresh", "httpHeaderRefresh": "Refresh header", "scriptInitiated": "script",
            "formSubmissionGet": "form submission", "formSubmissionPost": "form submission",
            "anchorClick": "link click", "reload": "reload"}


#: The longest wait (s) for each step of the navigation-reasons CDP session (open, enable, detach): a
#: renderer stuck in a script never answers them.
CDP_WAIT_S = 1.0


class _NavigationReasons:
    """While a navigation loads, why the page asked to go elsewhere: CDP ``Page.frameRequestedNavigation``
    (meta refresh, script, Refresh header…) on a CDP session of its own, closed at the end.
    ``by_url`` maps each requested URL (without fragment) to how the card names the reason; ``last_requested``
    is the URL (without fragment) the main frame last asked to go to, and ``requested`` is set each time it
    asks. Never raises: without CDP (a non-Chromium remote browser) all stay empty and hops are named from the
    page's facts."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._cdp: CDPSession | None = None
        self._main_frame_id: str | None = None
        self.by_url: dict[str, str] = {}
        self.last_requested: str | None = None
        self.requested = asyncio.Event()

    def _on_request(self, params: dict[str, Any]) -> None:
        reason = str(params.get("reason") or "")
        if params.get("url"):
            url = _defragged(str(params["url"]))
            self.by_url[url] = _REASONS.get(reason, reason or "client redirect")
            if params.get("frameId") == self._main_frame_id and params.get("disposition", "currentTab") == "currentTab":
                self.last_requested = url
                self.requested.set()

    async def __aenter__(self) -> _NavigationReasons:
        try:  # a renderer stuck in a script answers neither: then hops are named without it
            self._cdp = await asyncio.wait_for(self._page.context.new_cdp_session(self._page), CDP_WAIT_S)
            self._cdp.on("Page.frameRequestedNavigation", self._on_request)
            _, tree = await asyncio.wait_for(asyncio.gather(self._cdp.send("Page.enable"),
                                                            self._cdp.send("Page.getFrameTree")), CDP_WAIT_S)
            self._main_frame_id = str(tree["frameTree"]["frame"]["id"])
        except (PlaywrightError, TimeoutError, KeyError) as exc:  # no CDP here, the page closed, or busy
            log.debug("no CDP session for navigation reasons: %s", one_line(str(exc), 120))
        return self

    @property
    def listening(self) -> bool:
        """Whether the CDP session is up (requests are being heard)."""
        return self._main_frame_id is not None

    def pending_for(self, nav_url: str) -> bool:
        """Whether the main frame has asked to go somewhere other than ``nav_url`` (the URL its current
        document was loaded from): a navigation it requested and has not committed yet."""
        return self.last_requested is not None and self.last_requested != _defragged(nav_url)

    async def __aexit__(self, *_exc: object) -> None:
        if self._cdp is not None:
            # Gone already, or a renderer stuck in a script never answers the detach: the session then
            # closes with the page; nothing is left listening that matters.
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(self._cdp.detach(), CDP_WAIT_S)


#: The network error Chromium gives when the credentials sent for an HTTP challenge were refused.
AUTH_REFUSED = "net::ERR_INVALID_AUTH_CREDENTIALS"
#: The longest wait (ms) for the request that reads a refused challenge's ``WWW-Authenticate`` header.
CHALLENGE_PROBE_MS = 5_000


async def _challenge(tab: Tab, url: str) -> str | None:
    """The ``WWW-Authenticate`` header ``url`` answers with (through the context's request client, which
    sends the same credentials), or ``None`` if it cannot be read."""
    try:
        answer = await tab.page.context.request.get(url, max_redirects=0, timeout=CHALLENGE_PROBE_MS)
    except PlaywrightError as exc:  # unreachable now, or refused again at the network level
        log.debug("challenge probe failed: %s", one_line(without_credentials(str(exc)), 120))
        return None
    try:
        return answer.headers.get("www-authenticate")
    finally:
        await answer.dispose()


def _defragged(url: str) -> str:
    return url.split("#", 1)[0]


def _hops_between(tab: Tab, left_url: str, left_status: int | None, target: str, reasons: dict[str, str],
                  fallback: str) -> list[Hop]:
    """The hops from the document loaded from ``left_url`` to the one loaded from ``target``: through every
    URL the page asked for in between (``reasons``, in the order asked, from :class:`_NavigationReasons`),
    each named by its reason; ``fallback`` names the hop when the page's request was not seen. Statuses of
    pages passed through come from the tab's network capture (``None`` when it has no such document)."""
    asked = list(reasons.items())
    start = next((i + 1 for i, (u, _how) in enumerate(asked) if u == _defragged(left_url)), 0)
    path: list[tuple[str, str]] = []
    for url, how in asked[start:]:
        path.append((url, how))
        if url == _defragged(target):
            break
    else:
        path = [(_defragged(target), reasons.get(_defragged(target), fallback))]
    hops: list[Hop] = []
    url, code = left_url, left_status
    for next_url, how in path:
        hops.append(Hop(url, code, how))
        url, code = next_url, _document_status(tab, next_url)
    return hops


def _document_status(tab: Tab, url: str) -> int | None:
    """The HTTP status of the latest document request to ``url`` in the tab's network capture, or ``None``."""
    for record in reversed(tab.events.records()):
        if record.resource_type == "document" and _defragged(record.url) == url:
            return record.status
    return None


def _left_by(first: _Document | None, url: str) -> str:
    """How the document loaded from ``url`` was left, from its facts read at DOMContentLoaded (``first``):
    ``meta refresh`` when it had one, ``script`` when not, ``client redirect`` when it was gone already."""
    if first is None or _defragged(first.nav_url) != _defragged(url):
        return "client redirect"
    return "meta refresh" if first.refresh is not None else "script"


async def _server_hops(request: Request) -> list[Hop]:
    """The server redirects (3xx) that led to ``request``, first first."""
    hops: list[Hop] = []
    earlier = request.redirected_from
    while earlier is not None and len(hops) < MAX_SERVER_HOPS:
        try:
            answer = await earlier.response()
        except PlaywrightError:  # the hop's response is gone with its request; its status is unknown
            answer = None
        code = answer.status if answer is not None else None
        hops.append(Hop(earlier.url, code, f"HTTP {code}" if code else "server redirect"))
        earlier = earlier.redirected_from
    return hops[::-1]


#: Server redirects (3xx) listed per navigation; Chromium itself stops at 20.
MAX_SERVER_HOPS = 20


class _Document(NamedTuple):
    """Facts of one document in the main frame (``browser/js/document_facts.js``)."""

    origin: float  # performance.timeOrigin: differs for every document, not for pushState
    url: str
    nav_url: str  # the URL the document was loaded from (pushState/replaceState do not change it)
    status: int | None  # the navigation timing entry's responseStatus; None when 0 or unknown
    refresh: float | None  # seconds of a <meta http-equiv=refresh> that moves the page on, or None
    scripted: bool  # an inline script sets `location`: it may move the page on a timer
    loaded: bool = False  # document.readyState was "complete"


#: What :func:`_document` returns for a page too busy to answer (an endless script).
_BUSY = _Document(-1.0, "", "", None, None, False)


async def _document(page: Page, timeout_s: float) -> _Document | None:
    """The facts of the page's current document; ``None`` when it cannot answer (navigating, closed);
    :data:`_BUSY` when it does not answer within ``timeout_s`` s (a script keeps it busy: it is not
    going anywhere by itself, and waiting longer for it would only spend the call's time)."""
    try:
        got = await asyncio.wait_for(in_frame(page.main_frame, script("document_facts")), timeout_s)
    except TimeoutError:
        return _BUSY
    except PlaywrightError:  # navigating already, or closed
        return None
    if not isinstance(got, dict):
        return None
    code, refresh = got.get("status"), got.get("refresh")
    return _Document(float(got.get("origin") or 0), str(got.get("url") or page.url),
                     str(got.get("navUrl") or got.get("url") or page.url),
                     int(code) if isinstance(code, (int, float)) and code > 0 else None,
                     float(refresh) if isinstance(refresh, (int, float)) else None, bool(got.get("scripted")),
                     bool(got.get("loaded")))


async def follow_client_redirect(tab: Tab, nav: NavigationResult, settings: Settings,
                                 reasons: _NavigationReasons | None = None,
                                 read: Callable[[], Awaitable[Any]] | None = None,
                                 facts: _Document | None = None) -> NavigationResult:
    """Follow the page where it moves by itself after loading.

    Each document is watched after its load for :data:`CLIENT_REDIRECT_WATCH_MS` ms when an inline script
    of it sets ``location`` or the page has asked to go elsewhere (``reasons``), else :data:`QUIET_WATCH_MS` ms,
    extended when it asks meanwhile (plus the delay of
    a ``<meta http-equiv=refresh>`` due within :data:`CLIENT_REDIRECT_S` s). A new document (not a
    ``pushState``/``replaceState`` of the same one) adds a :class:`Hop` to ``nav.chain`` ("meta refresh"
    or "script"; ``reasons``, from :class:`_NavigationReasons`, names it exactly where it has the URL), at
    most :data:`MAX_CLIENT_HOPS` of them. Returns the result for the final document:
    its URL, HTTP status and title, ``nav``'s notes, chain and dialogs kept. With ``read``, each document is read
    while it is watched, and the read of the one the page stays on is returned (``NavigationResult.read``; the
    title is then ``""``: the caller has it from its read). Never raises."""
    page = tab.page
    chain = list(nav.chain)
    notes = list(nav.notes)
    status = nav.status
    if facts is None:  # else the caller has just read them (``facts``)
        facts = await _document(page, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
    if facts is not None and facts.status is not None:
        status = facts.status
    left_url = facts.url if facts is not None else nav.url
    clock = asyncio.get_running_loop()
    deadline = clock.time() + FOLLOW_BUDGET_MS / 1000
    for hop in range(MAX_CLIENT_HOPS + 1 if facts is not _BUSY else 0):  # a busy page goes nowhere
        due = facts is not None and facts.refresh is not None and facts.refresh <= CLIENT_REDIRECT_S
        asked = reasons is not None and facts is not None and reasons.pending_for(facts.nav_url)
        watch_ms: float = CLIENT_REDIRECT_WATCH_MS if facts is None or facts.scripted or asked else QUIET_WATCH_MS
        watch_ms += facts.refresh * 1000 if due and facts and facts.refresh else 0
        reading = asyncio.ensure_future(read()) if read is not None and facts is not None else None
        try:
            moved = await asyncio.wait_for(_wait_for_new_document(
                page, facts.origin if facts is not None else None, watch_ms, settings, reasons, facts),
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
        chain.extend(_hops_between(tab, left_url, status, moved.nav_url, reasons.by_url if reasons else {},
                                   "meta refresh" if due else "script"))
        facts, status, left_url = moved, moved.status, moved.url
        if hop == MAX_CLIENT_HOPS - 1:
            notes.append(f"{STOPPED_FOLLOWING} after {MAX_CLIENT_HOPS} client-side redirects")
            break
    # A page stuck in a script would not give its title either: the read that follows reports it.
    title = "" if facts is _BUSY else await page_title(tab, settings)
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
#: :data:`KEPT_NAVIGATING`, its documents count as its own (:func:`_navigating_by_itself`): it may still be moving.
STOPPED_FOLLOWING = "stopped following the page"


async def _wait_for_new_document(page: Page, origin: float | None, watch_ms: float, settings: Settings,
                                 reasons: _NavigationReasons | None = None,
                                 known: _Document | None = None) -> _Document | None:
    """Wait up to ``watch_ms`` ms for the main frame to hold a document other than the one whose
    ``timeOrigin`` is ``origin`` (``None``: the page was leaving it already), then for that document's
    ``load`` (at most :data:`REDIRECT_LOAD_WAIT_MS` ms). When the page asks to go elsewhere meanwhile
    (``reasons``), the window runs :data:`CLIENT_REDIRECT_WATCH_MS` ms from then. Returns the new document's
    facts, or ``None`` if the page stayed (or never answered). ``known``: the document's facts just read, for
    the first look."""
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
            facts = known if known is not None else await _document(
                page, max(NAVIGATION_POLL_MS / 1000, deadline - loop.time()))
            known = None
            if facts is _BUSY:  # an endless script: it is not navigating
                return None
            if facts is not None and (origin is None or facts.origin != origin):
                if facts.loaded:
                    return facts
                try:
                    await page.wait_for_load_state("load", timeout=REDIRECT_LOAD_WAIT_MS)
                except PlaywrightError as exc:  # still loading: read it as it is
                    log.debug("client redirect not loaded: %s", one_line(str(exc), 120))
                loaded = await _document(page, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
                return loaded if loaded is not None and loaded is not _BUSY else facts
            if facts is not None and reasons is not None and reasons.pending_for(facts.nav_url):
                deadline = max(deadline, loop.time() + CLIENT_REDIRECT_WATCH_MS / 1000)
            if not await _navigated_within(navigated, reasons, deadline - loop.time()):
                return None
    finally:
        page.remove_listener("framenavigated", on_navigated)


async def _navigated_within(navigated: asyncio.Event, reasons: _NavigationReasons | None, left_s: float) -> bool:
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


async def _goto(page: Page, url: str, timeout: float) -> Response | None:
    """``page.goto(url)`` up to DOMContentLoaded. When the page's own navigation (a script moving it every
    50 ms) aborts ours (``net::ERR_ABORTED`` while the page went somewhere else by itself), its scripts are
    stopped, it is left for ``about:blank``, and the load is tried once more. Raises what ``goto`` raises."""
    before = page.url
    try:
        return await page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    except PlaywrightError as exc:
        moved_by_itself = page.url not in (before, url) and not page.url.startswith("chrome-error:")
        if "net::ERR_ABORTED" not in str(exc) or not moved_by_itself or not await _leave_wedged_page(page):
            raise
    return await page.goto(url, wait_until="domcontentloaded", timeout=timeout)


#: A dialog answered this recently (s) before a navigation means the page may be opening them non-stop
#: (``setInterval(alert, 10)``): Chromium then never starts the navigation, so the page is left first.
DIALOG_STORM_S = 0.5
#: A page that started this many documents of its own within :data:`SELF_NAVIGATION_WINDOW_S` seconds
#: (``location`` set every 50 ms) is left for ``about:blank`` with its scripts stopped before a navigation. The
#: window is 2 s because a loaded machine slows such a page to a few documents a second.
SELF_NAVIGATIONS = 3
SELF_NAVIGATION_WINDOW_S = 2.0


def _navigating_by_itself(tab: Tab) -> bool:
    """Whether the tab's page keeps replacing its own document (from the capture's sections: one per
    main-frame document, with its start time). Documents our last navigation went through (its client-side
    redirect chain; after a failed load, Chromium's error page and the page gone back to) are not counted."""
    since = max(time.time() - SELF_NAVIGATION_WINDOW_S, tab.navigated_at)
    recent = sum(1 for section in tab.events.sections.values() if section.started >= since)
    return recent >= SELF_NAVIGATIONS


#: The longest wait (ms) to leave such a page for ``about:blank`` with its scripts stopped.
LEAVE_WAIT_MS = 5_000


async def _leave_wedged_page(page: Page) -> bool:
    """Leave a page that keeps the renderer busy with dialogs: stop its scripts (CDP
    ``Emulation.setScriptExecutionDisabled``), load ``about:blank``, and turn scripts back on for the next
    page. Returns whether the page was left (if not, the navigation is tried anyway)."""
    try:
        cdp = await page.context.new_cdp_session(page)
    except PlaywrightError as exc:  # a remote browser without CDP, or the page closed: navigate as usual
        log.debug("no CDP session to leave a wedged page: %s", one_line(str(exc), 120))
        return False
    try:
        await cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
        await page.goto("about:blank", wait_until="commit", timeout=LEAVE_WAIT_MS)
        return True
    except PlaywrightError as exc:  # still stuck: the real navigation reports what happens
        log.debug("could not leave a wedged page: %s", one_line(str(exc), 120))
        return False
    finally:
        with contextlib.suppress(PlaywrightError):  # the session or page is gone: nothing left to turn back on
            await cdp.send("Emulation.setScriptExecutionDisabled", {"value": False})
            await cdp.detach()


async def _restore(tab: Tab, before: str) -> None:
    """After a failed load, go back to the page we were on, so a bad URL does not lose it."""
    page = tab.page
    if not before or before == "about:blank" or before.startswith("chrome-error:"):
        return
    try:
        # Chromium commits its error page a moment after goto() fails.
        await page.wait_for_url("chrome-error://**", timeout=ERROR_PAGE_WAIT_MS)
    except PlaywrightError:  # no error page: we are still where we were
        return
    try:
        await page.go_back(wait_until="domcontentloaded", timeout=RESTORE_WAIT_MS)
    except PlaywrightError as exc:  # best effort; the navigation error is what matters
        log.debug("could not go back after a failed load: %s", one_line(str(exc), 120))


async def interrupt_scripts(tab: Tab) -> bool:
    """Stop the JavaScript running in the tab's page (CDP ``Runtime.terminateExecution``), e.g. an
    endless loop that a timed-out evaluate left behind. Returns whether the browser accepted it."""
    return await tab.events.terminate_execution()


async def page_title(tab: Tab, settings: Settings) -> str:
    """Return the tab's document title, or ``""`` if the page does not answer within the read timeout."""
    try:
        return await asyncio.wait_for(tab.page.title(), settings.timeouts.read_ms / 1000)
    except (PlaywrightError, TimeoutError):  # busy (endless script), navigating or closed
        return ""


async def _bounded(coro: Awaitable[_T], settings: Settings, what: str) -> _T:
    timeout = settings.timeouts.read_ms
    try:
        return await asyncio.wait_for(coro, timeout / 1000)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout:.0f} ms while {what}; the page may be busy "
                            "(an endless script?). Try again or reload the page.") from exc


async def visible_html(tab: Tab, settings: Settings) -> str:
    """Return the visible HTML of the whole page, frames spliced in."""
    try:
        return await _bounded(extract.extract_frame(tab.page.main_frame, frame_ids=tab.frame_ids, worlds=tab.worlds),
                              settings, "reading the page")
    except PlaywrightError as exc:
        raise translate(exc, action="read the page") from exc


async def read_page(tab: Tab, settings: Settings, max_chars: int, *,
                    with_semantics: bool = True) -> extract.PageRead:
    """Return a bounded read of the whole page (:func:`extract.extract_page`): visible HTML up to about
    ``max_chars`` characters (frames spliced in), the page version, whether it is still loading and how many
    elements it has, in one evaluate per frame. ``with_semantics=False``: names from the walker, without
    Chromium's accessibility tree (a navigation's card, text reads).

    Raises:
        ActionTimeout: no answer within the read timeout (``settings.timeouts.read_ms``).
        PageError: the page navigated, closed or crashed during the read.
    """
    try:
        return await _bounded(extract.extract_page(tab.page.main_frame, frame_ids=tab.frame_ids, max_chars=max_chars,
                                                      worlds=tab.worlds, with_semantics=with_semantics),
                              settings, "reading the page")
    except PlaywrightError as exc:
        raise translate(exc, action="read the page") from exc


#: Most matches of one target that a read renders; the rest are counted, not read.
MAX_MATCHES = 50


async def count_matches(tab: Tab, target: str) -> int:
    """Return how many elements ``target`` matches (0 for a stale ref).

    Raises:
        SelectorError: the selector is invalid.
    """
    try:
        return await locator_for(tab, target).count()
    except StaleRefError:
        return 0
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=target) from exc


async def target_html(tab: Tab, target: str, settings: Settings) -> list[str]:
    """Return the visible HTML of the elements ``target`` matches, in document order: at most
    :data:`MAX_MATCHES` of them (the first ones); :func:`count_matches` tells how many there are.

    Raises:
        SelectorError: the selector is invalid or matches nothing (named in the message).
        StaleRefError: a ref whose element is gone.
    """
    locator = locator_for(tab, target)
    try:
        parts = await _bounded(extract.extract_locator(locator, frame_ids=tab.frame_ids, max_matches=MAX_MATCHES,
                                                       worlds=tab.worlds),
                               settings, f"reading {target!r}")
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=target) from exc
    if not parts:
        if extract.is_ref(target):
            raise StaleRefError(f"Ref {target} is stale: its element is gone or the page changed. "
                                "Take a new browser_snapshot.")
        raise SelectorError(f"No element matches {target!r}. Check the selector, or take a browser_snapshot "
                            "to find a ref.")
    return parts

