"""Read a tab: navigate, resolve targets, and extract visible HTML (the browser half of page reads).

Everything here talks to Playwright and hands strings to the pure core. Targets are
resolved by Playwright in the live page, never by re-parsing a copy of the HTML:
a ref (``e12``, ``f1e3``) goes through the ``bcref`` selector engine in its frame;
anything else is a Playwright selector (CSS, which pierces open shadow roots,
``text=``, ``role=``, ``data-testid=``, XPath…).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from .._errors import (
    ActionTimeout,
    InvalidArgument,
    SchemeRefused,
    SelectorError,
    StaleRefError,
    one_line,
    translate,
)
from ..settings import Settings
from . import extract
from .session import Tab
from .targets import locator_for

__all__ = ["normalise_url", "navigate", "page_title", "NavigationResult", "visible_html", "target_html",
           "count_matches", "MAX_MATCHES",
           "interrupt_scripts"]

log = logging.getLogger("browser_ctx")

#: The longest wait (ms) for the ``load`` event after DOMContentLoaded (and for a client redirect to commit).
LOAD_WAIT_MS = 10_000
#: A ``<meta http-equiv=refresh>`` this many seconds or sooner is followed; also how long (s) we look for it.
CLIENT_REDIRECT_S = 2
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
    """What loading a URL gave: final URL, HTTP status (``None`` if no HTTP response), title, notes."""

    url: str
    status: int | None
    title: str
    notes: tuple[str, ...] = ()


async def navigate(tab: Tab, url: str, settings: Settings) -> NavigationResult:
    """Load ``url`` in ``tab`` up to ``DOMContentLoaded``, then wait briefly for ``load``; a page whose
    ``<meta http-equiv="refresh">`` moves it on within 2 s is followed (:func:`follow_client_redirect`).

    Raises:
        NavigationError: the load failed (names the ``net::ERR_…``).
        ActionTimeout: DOMContentLoaded did not come within the navigation timeout.
    """
    page = tab.page
    timeout = settings.timeouts.navigation_ms
    notes: list[str] = []
    before = page.url
    try:
        response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    except PlaywrightError as exc:  # translated below
        error = translate(exc, action="navigate", url=url, timeout_ms=timeout)
        await _restore(tab, before)
        raise error from exc
    try:
        await page.wait_for_load_state("load", timeout=min(timeout, LOAD_WAIT_MS))
    except PlaywrightError:  # slow subresources are reported, not fatal
        notes.append("the load event had not fired after 10 s; read the page as it is")
    title = await page_title(tab, settings)
    status = response.status if response else None
    if response is not None and response.url != page.url and page.url.split("#", 1)[0] != response.url.split("#", 1)[0]:
        # The page moved on by itself while it loaded (meta refresh, script, history.replaceState);
        # the status is the one of the URL that answered.
        notes.append(f"the page moved on by itself from {response.url}")
    result = NavigationResult(page.url, status, title, tuple(notes))
    try:
        refresh = await asyncio.wait_for(page.main_frame.evaluate(_REFRESH_JS), CLIENT_REDIRECT_S)
    except (PlaywrightError, TimeoutError):  # navigating already (the read that follows handles it), or busy
        refresh = None
    if refresh is not None and refresh <= CLIENT_REDIRECT_S:
        return await follow_client_redirect(tab, result, settings)
    return result


# Seconds of a <meta http-equiv="refresh"> that moves the page on, or null.
_REFRESH_JS = r"""() => {
  const m = document.querySelector('meta[http-equiv="refresh" i]');
  if (!m) return null;
  const found = /^\s*(\d+(?:\.\d+)?)\s*[;,]\s*(?:url\s*=)?\s*\S/i.exec(m.getAttribute('content') || '');
  return found ? Number(found[1]) : null;
}"""


async def follow_client_redirect(tab: Tab, nav: NavigationResult, settings: Settings) -> NavigationResult:
    """The page navigated by itself right after loading (``<meta http-equiv=refresh content=0>``,
    ``location.replace`` on load): wait for the new document (``DOMContentLoaded``, then ``load`` for at
    most 5 s) and describe it, with a note naming the page it came from. Never raises."""
    page = tab.page
    try:
        if page.url == nav.url:  # not committed yet: wait for the new document
            await page.wait_for_event("framenavigated", lambda f: f.parent_frame is None,
                                      timeout=min(settings.timeouts.navigation_ms, LOAD_WAIT_MS))
        await page.wait_for_load_state("domcontentloaded", timeout=settings.timeouts.navigation_ms)
        await page.wait_for_load_state("load", timeout=REDIRECT_LOAD_WAIT_MS)
    except PlaywrightError as exc:  # still loading, or it went nowhere: read it as it is
        log.debug("client redirect not finished: %s", one_line(str(exc), 120))
    title = await page_title(tab, settings)
    return NavigationResult(page.url, None, title, nav.notes + (f"the page moved on by itself from {nav.url}",))


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
        return await _bounded(extract.extract_frame(tab.page.main_frame, frame_ids=tab.frame_ids),
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
        parts = await _bounded(extract.extract_locator(locator, frame_ids=tab.frame_ids, max_matches=MAX_MATCHES),
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

