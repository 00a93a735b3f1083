"""Load a URL in a tab: ``goto``, server redirects, HTTP authentication challenges, leaving a wedged page,
going back after a failed load; client-side redirects are followed by :mod:`.redirects`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Request, Response

from .._errors import (
    BrowserCtxError,
    InvalidArgument,
    SchemeRefused,
    auth_required,
    error_kind,
    net_error,
    one_line,
    translate,
    without_credentials,
)
from ..core.outline import Hop
from ..settings import Settings
from .dialogs import DialogCenter
from .redirects import (
    BUSY,
    CLIENT_REDIRECT_S,
    CLIENT_REDIRECT_WATCH_MS,
    KEPT_NAVIGATING,
    STOPPED_FOLLOWING,
    Document,
    NavigationReasons,
    NavigationResult,
    defragged,
    document_facts,
    follow_client_redirect,
    hops_between,
    left_by,
    wait_for_new_document,
)
from .session import Tab

__all__ = ["normalise_url", "navigate"]

log = logging.getLogger("browser_ctx")

#: The longest wait (ms) for the ``load`` event after DOMContentLoaded (and for a client redirect to commit).
LOAD_WAIT_MS = 10_000
#: After a failed load: how long (ms) to wait for Chromium's error page, then to go back from it.
ERROR_PAGE_WAIT_MS = 2_000
RESTORE_WAIT_MS = 5_000


def normalise_url(url: str, allowed_schemes: tuple[str, ...] = ()) -> str:
    """Return ``url`` with a scheme (``http://`` for localhost, else ``https://``).

    Raises:
        SchemeRefused: a scheme other than http(s) that ``allowed_schemes`` does not list.
        InvalidArgument: an empty URL, an http(s) URL with no host (``http://``) or no colon (``http//``), or no
            scheme and a host with spaces ("not a url").
    """
    url = url.strip()
    if not url:
        raise InvalidArgument("url is empty; pass an http(s) URL such as https://example.com/.")
    scheme = urlsplit(url).scheme.lower()
    if not scheme or (scheme not in ("http", "https") and "://" not in url and url.split(":", 1)[1][:1].isdigit()):
        host = url.split("/", 1)[0].lower()
        if host in ("http", "https") and url[len(host):].startswith("//"):
            raise InvalidArgument(f"{url[:80]!r} has no colon after {host}; pass {host}:{url[len(host):80]}.")
        if not host or any(c.isspace() for c in host):
            raise InvalidArgument(f"{url[:80]!r} is not a URL; pass an http(s) URL such as https://example.com/ "
                                  "(or localhost:3000).")
        local = host.startswith(("localhost", "127.", "[::1]", "0.0.0.0"))
        return ("http://" if local else "https://") + url
    if scheme in ("http", "https") and not urlsplit(url).hostname:
        raise InvalidArgument(f"{url[:80]!r} has no host; pass an http(s) URL such as https://example.com/ "
                              "(or localhost:3000).")
    if scheme in ("http", "https") or scheme in allowed_schemes:
        return url
    raise SchemeRefused(f"Refused {scheme}: URL; browser_navigate loads only http(s) URLs "
                        f"(start the server with --allow-scheme {scheme} to allow it).")


async def navigate(tab: Tab, url: str, settings: Settings, dialogs: DialogCenter | None = None,
                   read: Callable[[], Awaitable[Any]] | None = None) -> NavigationResult:
    """Load ``url`` in ``tab`` up to ``DOMContentLoaded``, wait briefly for ``load``, then follow the page
    where it goes by itself: a ``<meta http-equiv="refresh">`` of 2 s or less, or a script that changes
    ``location`` within :data:`CLIENT_REDIRECT_WATCH_MS` ms of a page's load (:data:`QUIET_WATCH_MS` ms when
    no inline script sets ``location`` beside a timer or a load handler; at most
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
    if dialogs is not None and dialogs.opened_within(DIALOG_STORM_S) and await _leave_wedged_page(tab):
        notes.append("the page was opening dialogs non-stop; its scripts were stopped to leave it")
    elif _navigating_by_itself(tab) and await _leave_wedged_page(tab):
        # Its next self-navigation could otherwise land after ours and be followed as a redirect of ours.
        notes.append("the page was navigating by itself non-stop; its scripts were stopped to leave it")
    async with NavigationReasons(tab.cdp) as reasons:
        nav = await _load(tab, url, settings, dialogs, notes, before, given, mark, reasons, read)
    if not any(note.startswith((KEPT_NAVIGATING, STOPPED_FOLLOWING)) for note in nav.notes):
        tab.navigated_at = time.time()  # the documents of its chain were ours; a page still moving is not counted out
    return nav


async def _load(tab: Tab, url: str, settings: Settings, dialogs: DialogCenter | None, notes: list[str],
                before: str, given: bool, mark: int, reasons: NavigationReasons,
                read: Callable[[], Awaitable[Any]] | None) -> NavigationResult:
    """The body of :func:`navigate`, with ``reasons`` filled by :class:`NavigationReasons` as it goes."""
    page = tab.page
    timeout = settings.timeouts.navigation_ms
    try:
        response = await _goto(tab, url, timeout)
    except PlaywrightError as exc:  # translated below
        if net_error(exc) == AUTH_REFUSED:  # Playwright answered a challenge and the server refused the answer
            error: BrowserCtxError = auth_required(401, await _challenge(tab, url), url, credentials_given=given)
        else:
            error = translate(exc, action="navigate", url=url, timeout_ms=timeout)
        if error_kind(exc) == "timeout" and await _stop_uncommitted(tab, before):
            error = type(error)(f"{error} The load was stopped: the tab still shows {before}.")
        elif await _restore(tab, before):
            error = type(error)(f"{error} The tab went back to {before}, loaded again: its state and refs are new.")
        tab.navigated_at = time.time()  # the error page and the page gone back to were ours
        raise error from exc
    if response is not None and response.status in (401, 407):
        header = "proxy-authenticate" if response.status == 407 else "www-authenticate"
        challenge = await response.header_value(header)
        raise auth_required(response.status, challenge, url, credentials_given=given)
    chain: list[Hop] = []
    first: Document | None = None
    if response is not None:
        chain.extend(await _server_hops(response.request))
        if not reasons.listening:
            # Without CDP's reasons, the document's own facts say how it may be left. With them, nothing is
            # evaluated before `load`: on a page of 200,000 elements an evaluate between DOMContentLoaded and
            # `load` held `load` back from 1.8 s to 3.6 s (the renderer lays the page out first to answer it).
            first = await document_facts(tab, min(settings.timeouts.read_ms / 1000, CLIENT_REDIRECT_S))
            first = None if first is BUSY else first
    try:
        await page.wait_for_load_state("load", timeout=min(timeout, LOAD_WAIT_MS))
    except PlaywrightError:  # slow subresources are reported, not fatal
        notes.append("the load event had not fired after 10 s; read the page as it is")
    status = response.status if response else None
    facts: Document | None = None
    if response is not None:
        # The document now (waiting out one that is being replaced, as after a meta refresh of 0 s).
        facts = await wait_for_new_document(tab, None, CLIENT_REDIRECT_WATCH_MS, settings)
        if facts is not None and facts is not BUSY and defragged(facts.nav_url) != defragged(response.url):
            # The document goto() loaded was replaced while it loaded: list every page passed through.
            chain.extend(hops_between(tab, response.url, status, facts.nav_url, reasons.by_url,
                                      left_by(first, response.url)))
            status = facts.status
    nav = NavigationResult(page.url, status, "", tuple(notes), tuple(chain))
    nav = await follow_client_redirect(tab, nav, settings, reasons, read,
                                       facts if facts is not None and facts is not BUSY else None)
    found = tuple(dialogs.since(mark)) if dialogs is not None else ()
    return replace(nav, dialogs=found)


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


async def _goto(tab: Tab, url: str, timeout: float) -> Response | None:
    """``page.goto(url)`` up to DOMContentLoaded. When the page's own navigation (a script moving it every
    50 ms) aborts ours (``net::ERR_ABORTED`` while the page went somewhere else by itself), its scripts are
    stopped, it is left for ``about:blank``, and the load is tried once more. Raises what ``goto`` raises."""
    page = tab.page
    before = page.url
    try:
        return await page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    except PlaywrightError as exc:
        moved_by_itself = page.url not in (before, url) and not page.url.startswith("chrome-error:")
        if net_error(exc) != "net::ERR_ABORTED" or not moved_by_itself or not await _leave_wedged_page(tab):
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


async def _leave_wedged_page(tab: Tab) -> bool:
    """Leave a page that keeps the renderer busy with dialogs: stop its scripts (CDP
    ``Emulation.setScriptExecutionDisabled`` on the tab's session of the page, already open), load
    ``about:blank``, and turn scripts back on for the next page. Returns whether the page was left (if not, the
    navigation is tried anyway)."""
    page = tab.page
    try:
        cdp = await tab.cdp.session()
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


async def _stop_uncommitted(tab: Tab, before: str) -> bool:
    """After a load timed out with no document of it committed (its server never answered), stop it (CDP
    ``Page.stopLoading``): Chromium does not run the page's scripts meanwhile, so every read would time out.
    Returns whether it was stopped (not when the new document committed, or without CDP)."""
    if not before or tab.page.url != before:
        return False
    try:
        await (await tab.cdp.session()).send("Page.stopLoading")
    except PlaywrightError as exc:
        log.debug("could not stop a load: %s", one_line(str(exc), 120))
        return False
    return True


async def _restore(tab: Tab, before: str) -> bool:
    """After a failed load, go back to the page we were on, so a bad URL does not lose it. Returns whether it went
    back (the page was loaded again: a new document)."""
    page = tab.page
    if not before or before == "about:blank" or before.startswith("chrome-error:"):
        return False
    try:
        # Chromium commits its error page a moment after goto() fails.
        await page.wait_for_url("chrome-error://**", timeout=ERROR_PAGE_WAIT_MS)
    except PlaywrightError:  # no error page: we are still where we were
        return False
    try:
        await page.go_back(wait_until="domcontentloaded", timeout=RESTORE_WAIT_MS)
    except PlaywrightError as exc:  # best effort; the navigation error is what matters
        log.debug("could not go back after a failed load: %s", one_line(str(exc), 120))
        return False
    return True
