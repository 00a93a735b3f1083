"""Read a tab: walks of the page or of a target (the browser half of page reads), each with one timeout.

Everything here talks to Playwright and hands trees (:mod:`.walk`) to the pure core. Targets are
resolved by Playwright in the live page, never by re-parsing a copy of the HTML:
a ref (``e12``, ``f1e3``) goes through the ``bcref`` selector engine in its frame;
anything else is a Playwright selector (CSS, which pierces open shadow roots,
``text=``, ``role=``, ``data-testid=``, XPath…). Loading a URL is :mod:`.navigation`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, NamedTuple

from playwright.async_api import Error as PlaywrightError

from .._errors import SelectorError, StaleRefError, translate
from ..core.capping import collect_chars
from ..settings import Settings
from .refs import is_ref, page_version
from .session import Tab
from .targets import locator_for
from .walk import PageWalk, Walk, walk_frame, walk_locator, walk_page

if TYPE_CHECKING:
    from .settle import Look

__all__ = ["page_title", "walk_tab", "walk_tab_page", "walk_target", "walk_for_record", "RecordWalk", "walk_after_card",
           "remember", "count_matches", "MAX_MATCHES", "interrupt_scripts"]


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


async def walk_tab(tab: Tab, settings: Settings) -> Walk:
    """Walk the whole page, frames grafted in, within the read timeout (``settings.timeouts.read_ms``).

    Raises:
        ActionTimeout: no answer within the read timeout.
        PageError: the page navigated, closed or crashed during the walk.
    """
    tab.walks += 1
    return await walk_frame(tab.page.main_frame, frame_ids=tab.frame_ids, worlds=tab.worlds,
                            timeout_ms=settings.timeouts.read_ms)


async def walk_tab_page(tab: Tab, settings: Settings, max_chars: int, *, with_semantics: bool = True) -> PageWalk:
    """Return a bounded walk of the whole page (:func:`.walk.walk_page`): up to about ``max_chars`` characters
    (frames grafted in), the page version, whether it is still loading and how many elements it has, in one
    evaluate per frame, within the read timeout. ``with_semantics=False``: names from the walker, without
    Chromium's accessibility tree (a navigation's card, text reads).

    Raises:
        ActionTimeout: no answer within the read timeout (``settings.timeouts.read_ms``).
        PageError: the page navigated, closed or crashed during the walk.
    """
    tab.walks += 1
    return await walk_page(tab.page.main_frame, frame_ids=tab.frame_ids, max_chars=max_chars, worlds=tab.worlds,
                           with_semantics=with_semantics, timeout_ms=settings.timeouts.read_ms)


def remember(tab: Tab, bound: int, walk: PageWalk) -> None:
    """Keep ``walk`` (a whole-page walk with Chromium's names, bounded at ``bound`` characters) as the tab's last,
    for :func:`walk_for_record`."""
    if walk.version is not None and not walk.loading:
        tab.last_walk = (bound, walk)


async def walk_after_card(tab: Tab, settings: Settings, bound: int, calls: int) -> PageWalk:
    """A whole-page walk bounded at ``bound`` characters, as :func:`walk_tab_page`: the walk of the navigation's
    card (``tab.card_walk``) when it was the session's last call (``calls``: the calls made before this one), it
    was walked with the same bound on a page without child frames, and the page version has not changed since
    (one small evaluate); else a new walk. The card's walk is read once.

    Raises:
        ActionTimeout: no answer within the read timeout.
        PageError: the page navigated, closed or crashed during the walk.
    """
    card, tab.card_walk = tab.card_walk, None
    if card is not None and card[0] == bound and card[1] + 1 == calls and len(tab.page.frames) == 1:
        version = await page_version(tab.page, worlds=tab.worlds)
        if version is not None and version == card[2].version:
            return card[2]
    return await walk_tab_page(tab, settings, bound)


class RecordWalk(NamedTuple):
    """What :func:`walk_for_record` returns.

    Attributes:
        walk: the walk (or the tab's last).
        stale: the tab's last walk when the page changed since it with no action of ours between (``reuse``):
            what changed by itself in between.
        behind: ``walk`` is the tab's last walk although the page changed since, only where the settle probe
            counts no change (values that change by themselves: a clock, a progress bar).
    """

    walk: PageWalk
    stale: PageWalk | None = None
    behind: bool = False


async def walk_for_record(tab: Tab, settings: Settings, *, reuse: bool,
                          probe: Awaitable[Look] | None = None) -> RecordWalk:
    """The walk an action's record compares: bounded as a default snapshot is (``collect_chars`` of the default
    ``maxTokens``), and kept as the tab's last. With ``reuse`` (the "before" of an action), the tab's last walk
    is returned instead when it covered as much (complete, or the same bound), on a page without child frames
    (their changes have no version here), and either the page version has not changed since it or the settle
    probe's look asked with that walk (``probe``, :attr:`.settle.Look.self_only`) says it changed since only
    where elements change by themselves (``behind``). The version is the probe's (:attr:`.settle.Look.version`),
    or asked for (one small evaluate) when it has none.

    Raises:
        ActionTimeout: no answer within the read timeout.
        PageError: the page navigated, closed or crashed during the walk.
    """
    bound = collect_chars(settings.caps.default_max_tokens, settings.caps.ceiling_chars)
    last = tab.last_walk
    if reuse and last is not None and (last[1].complete or last[0] == bound) and len(tab.page.frames) == 1:
        seen = await probe if probe is not None else None
        version = seen.version if seen is not None and seen.version else await page_version(tab.page,
                                                                                            worlds=tab.worlds)
        if version is not None and version == last[1].version:
            return RecordWalk(last[1])
        if version is not None and seen is not None and seen.self_only:
            return RecordWalk(last[1], behind=True)
    walk = await walk_tab_page(tab, settings, bound)
    remember(tab, bound, walk)
    stale = last[1] if reuse and last is not None and last[0] == bound else None
    if stale is not None and _document(stale.version) != _document(walk.version):
        stale = None  # another document: nothing changed by itself
    return RecordWalk(walk, stale)


def _document(version: str | None) -> str:
    """The document part of a page version (its time origin)."""
    return (version or "").split(":", 1)[0]


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


async def walk_target(tab: Tab, target: str, settings: Settings) -> list[Walk]:
    """Walk the elements ``target`` matches, in document order: at most :data:`MAX_MATCHES` of them (the first
    ones; :func:`count_matches` tells how many there are), within the read timeout.

    Raises:
        SelectorError: the selector is invalid or matches nothing (named in the message).
        StaleRefError: a ref whose element is gone.
        ActionTimeout: no answer within the read timeout.
    """
    locator = locator_for(tab, target)
    tab.walks += 1
    parts = await walk_locator(locator, frame_ids=tab.frame_ids, max_matches=MAX_MATCHES, worlds=tab.worlds,
                               target=target, timeout_ms=settings.timeouts.read_ms)
    if not parts:
        if is_ref(target):
            raise StaleRefError(f"Ref {target} is stale: its element is gone or the page changed. "
                                "Take a new browser_snapshot.")
        raise SelectorError(f"No element matches {target!r}. Check the selector, or take a browser_snapshot "
                            "to find a ref.")
    return parts
