"""Targets: a ref or a selector → a Playwright locator, a few words describing it, "exactly one" checks.

A target is either a ref handed out by a read (``e12`` in the main frame, ``f3e12`` in child frame
``f3``), resolved by the ``bcref`` selector engine in its frame (:mod:`.refs`), or any Playwright
selector (CSS, which pierces open shadow roots, ``text=``, ``role=``, ``data-testid=``, XPath…),
resolved by Playwright in the live page, never by re-parsing a copy of the HTML.

Refs are never reused, so a stale ref matches nothing instead of another element.
"""

from __future__ import annotations

import asyncio
import contextlib

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator
from playwright.async_api import TimeoutError as PlaywrightTimeout

from .._errors import BrowserCtxError, InvalidArgument, SelectorError, StaleRefError, translate
from ..settings import Settings
from . import refs
from .scripts import bundle, script
from .session import BrowserSession, Tab
from .walk import walk_locator

__all__ = ["locator_for", "prime_locators", "describe_element", "describe_matches", "resolve_one", "stale_ref",
           "missing_ref", "DESCRIBE_MATCHES", "SCAN_MATCHES"]

#: How many matches a "several elements" error describes.
DESCRIBE_MATCHES = 3
#: How many matches a "several elements" error looks at to put the visible ones first (and count hidden ones).
SCAN_MATCHES = 20
#: An element's tag, id and classes, for telling matches apart: ``[tag, id, class]``.
_TAG_ID_CLASS = "e => [e.localName, e.id || '', e.getAttribute('class') || '']"
#: Milliseconds reading an element's role and name (or its ref) may take before it is described vaguely.
DESCRIBE_TIMEOUT_MS = 1000
#: Milliseconds pinning a selector's one match to a ref may take (else the selector is used as it is).
PIN_TIMEOUT_MS = 2000
#: Seconds a session must be idle (no call running, none ended since) before a new document is primed.
PRIME_IDLE_S = 0.1
#: Milliseconds looking up (or registering) the ref of an element being described may take.
REF_LOOKUP_TIMEOUT_MS = 2000



def stale_ref(ref: str, why: str = "its element was removed or the page changed") -> StaleRefError:
    """Return the error for a ref that matches nothing (``why`` says what happened to it)."""
    return StaleRefError(f"Ref {ref} is stale: {why}. Take a new browser_snapshot.")


def missing_ref(tab: Tab, ref: str) -> StaleRefError:
    """Return the error for a ref that matches nothing in ``tab``: stale, or beyond every ref handed out
    on this page (mistyped or made up), which the message says apart."""
    frame = tab.frame_ids.frame_for(tab.page, refs.ref_frame_prefix(ref))
    high = tab.frame_ids.highest_ref(frame) if frame is not None else 0
    number = int(ref.strip().rpartition("e")[2])
    if frame is not None and number > high:
        so_far = f"refs here go up to {refs.ref_frame_prefix(ref)}e{high}" if high else "no refs were given here yet"
        return StaleRefError(f"Ref {ref} matches nothing on this page ({so_far}): it may be mistyped. "
                             "Take a browser_snapshot and use a ref from it.")
    return stale_ref(ref)


def locator_for(tab: Tab, target: str) -> Locator:
    """Return a Playwright locator for ``target`` (a ref or a selector) in ``tab``, without checking matches.

    Raises:
        InvalidArgument: an empty target.
        StaleRefError: a ref whose frame is gone.
    """
    target = target.strip()
    if not target:
        raise InvalidArgument("target is empty; pass a ref from browser_snapshot or a selector.")
    if not refs.is_ref(target):
        return tab.page.locator(target)
    frame = tab.frame_ids.frame_for(tab.page, refs.ref_frame_prefix(target))
    if frame is None or frame.is_detached():
        raise stale_ref(target, "its frame is gone")
    engine = refs.MAIN_REF_ENGINE_NAME if tab.worlds.isolated is False else refs.REF_ENGINE_NAME
    locator = frame.locator(f"{engine}={target}")
    if frame is tab.page.main_frame:
        tab.worlds.know_ref(locator, int(target.rpartition("e")[2]))
    return locator


def prime_locators(session: BrowserSession, tab: Tab) -> None:
    """Have Playwright set up its locator machinery in ``tab``'s current document once the session is idle
    (:data:`PRIME_IDLE_S`), in the background: it builds its injected script in a document on the first locator
    call there (about 20 ms of the renderer's time), which the first action on the page would otherwise wait for,
    and which a call made meanwhile would queue behind. Once per document; a prime still waiting is replaced;
    what it raises is dropped (the page moved on or closed)."""
    if tab.priming is not None:
        tab.priming.cancel()
    if not tab.page.is_closed():
        tab.priming = asyncio.ensure_future(_prime(session, tab))


async def _prime(session: BrowserSession, tab: Tab) -> None:
    with contextlib.suppress(PlaywrightError, BrowserCtxError):
        await session.until_idle(PRIME_IDLE_S)  # a closed tab cancels this
        version = await refs.page_version(tab.page, worlds=tab.worlds)
        document = (version or "").split(":", 1)[0]
        if document and tab.primed_document != document:
            tab.primed_document = document
            await locator_for(tab, "e1").count()


async def describe_element(locator: Locator, tab: Tab | None = None, ref: str | None = None) -> str:
    """Describe one element in a few words: ``button "Add" [e5]`` (role, accessible name of at most
    50 characters, ref).

    Args:
        locator: a locator matching the element (the first match is described).
        tab: when given and ``ref`` is not, the element's ref is looked up (registered if new).
        ref: the element's ref, when already known.

    Never raises: returns ``"a hidden element"`` for a hidden one (its name is never shown), and
    ``"element"`` (with the ref when known) when the element cannot be read.
    """
    try:
        if not await locator.first.is_visible():
            return "a hidden element"  # never name what the page hides
        if tab is not None:
            role, name = await tab.worlds.on_element(locator, script("describe_element"),
                                                     timeout_ms=DESCRIBE_TIMEOUT_MS)
        else:
            role, name = await locator.first.evaluate(script("describe_element"), timeout=DESCRIBE_TIMEOUT_MS)
    except PlaywrightError:  # detached, navigating, or too slow: describe it vaguely
        return f"element [{ref}]" if ref else "element"
    if ref is None and tab is not None:
        ref = await _ref_of(locator, tab)
    text = f'{role} "{name}"' if name else role
    return f"{text} [{ref}]" if ref else text


async def _ref_of(locator: Locator, tab: Tab) -> str | None:
    """Return the ref of the (single) element ``locator`` points at, registering one if needed; ``None``
    when it cannot be read (describing is best effort)."""
    try:
        parts = await walk_locator(locator.first, frame_ids=tab.frame_ids,
                                              timeout_ms=REF_LOOKUP_TIMEOUT_MS, worlds=tab.worlds)
    except (TimeoutError, BrowserCtxError, PlaywrightError):
        return None
    top = parts[0].doc.body.children if parts else []
    return top[0].attrs.get("data-ref") if top and not top[0].is_text else None  # the element, not a descendant


async def _selector_of(locator: Locator, tab: Tab) -> str:
    """``span#rate.star``: the element's tag, id and first three classes (``""`` when it cannot be read)."""
    try:
        tag, ident, classes = await tab.worlds.on_element(locator, _TAG_ID_CLASS, timeout_ms=DESCRIBE_TIMEOUT_MS)
    except PlaywrightError:
        return ""
    return str(tag) + (f"#{ident}" if ident else "") + "".join(f".{c}" for c in str(classes).split()[:3])


async def _register_ref(locator: Locator, tab: Tab) -> str | None:
    """Register a ref for the element ``locator`` points at (one the walker gives none, a plain ``span``), so a
    listed match can be acted on; ``None`` when it cannot be done."""
    source = f"((el) => ({script('register_ref')})({{registry: ({script('registry')})}}, el))"
    try:
        ref, number = await tab.worlds.on_element(locator, source, timeout_ms=REF_LOOKUP_TIMEOUT_MS)
    except PlaywrightError:
        return None
    frame = tab.frame_ids.frame_for(tab.page, refs.ref_frame_prefix(str(ref)))
    if frame is not None:
        tab.frame_ids.saw_ref(frame, int(number))
    return str(ref)


async def describe_matches(locator: Locator, count: int, tab: Tab) -> list[str]:
    """Describe the matches of ``locator`` (``count`` of them) for "several elements" errors: the first
    :data:`DESCRIBE_MATCHES` visible ones (of the first :data:`SCAN_MATCHES`), each as ``role "name" [ref]
    (tag#id.classes)`` (a ref registered if it had none), then how many are hidden, with their tags and classes
    (``3 more hidden (span.star)``), and how many were not looked at. Never raises."""
    scanned = min(count, SCAN_MATCHES)
    visible: list[int] = []
    hidden: list[int] = []
    for i in range(scanned):
        try:
            shown = await locator.nth(i).is_visible()
        except PlaywrightError:
            shown = False
        (visible if shown else hidden).append(i)
    out: list[str] = []
    for i in visible[:DESCRIBE_MATCHES]:
        one = locator.nth(i)
        ref = await _ref_of(one, tab) or await _register_ref(one, tab)
        what = await describe_element(one, tab, ref=ref)
        where = await _selector_of(locator.nth(i), tab)
        out.append(f"{what} ({where})" if where else what)
    if hidden:
        kinds = list(dict.fromkeys([await _selector_of(locator.nth(i), tab) for i in hidden[:DESCRIBE_MATCHES]]))
        words = ", ".join(k for k in kinds if k)
        more = " more" if out else ""
        out.append(f"{len(hidden)}{more} hidden" + (f" ({words}{', …' if len(hidden) > DESCRIBE_MATCHES else ''})"
                                                    if words else ""))
    if len(visible) > DESCRIBE_MATCHES:
        out.append(f"{len(visible) - DESCRIBE_MATCHES} more visible")
    if count > scanned:
        out.append(f"{count - scanned} more not looked at")
    return out


async def resolve_one(tab: Tab, target: str, settings: Settings, *, verb: str = "act on") -> Locator:
    """Return a locator that matches exactly one element for ``target``.

    Args:
        tab: the tab to look in.
        target: a ref (``e12``) or a Playwright selector.
        settings: for the action timeout (``settings.timeouts.action_ms``) a selector may wait for a match.
        verb: what we are about to do, for messages ("click", "type into" …).

    Raises:
        StaleRefError: a ref that matches no connected element (at once, no waiting).
        SelectorError: an invalid selector, no match after waiting, or several matches (names how many and
            describes the first few).
    """
    locator = locator_for(tab, target)
    ref = refs.is_ref(target.strip())
    try:
        n = await locator.count()
        if n == 0 and not ref:
            try:
                await locator.first.wait_for(state="attached", timeout=settings.timeouts.action_ms)
            except PlaywrightTimeout:
                pass  # counted again below: still none is reported as "no element matches"
            n = await locator.count()
    except PlaywrightError as exc:
        raise translate(exc, action=verb, target=target) from exc
    if n == 0:
        if ref:
            raise missing_ref(tab, target)
        raise SelectorError(f"No element matches {target!r} (waited {settings.timeouts.action_ms:.0f} ms). "
                            "Check the selector, or take a browser_snapshot to find a ref.")
    if n > 1:
        shown = await describe_matches(locator, n, tab)
        raise SelectorError(f"{target!r} matches {n} elements; actions need exactly one: {'; '.join(shown)}. "
                            "Use one of those refs or a more specific selector.")
    return locator if ref else await pinned(tab, locator)


async def pinned(tab: Tab, locator: Locator) -> Locator:
    """A locator of the one element ``locator`` matches now, by a ref it is given (``js/pin_ref.js``): the action
    then acts on that element throughout, even if the selector stops matching it meanwhile (a popup that marks
    the rest of the page aria-hidden). The locator itself when the element cannot be pinned (no CDP, navigating)."""
    if tab.worlds.isolated is False:
        return locator
    try:
        handle = await locator.element_handle(timeout=PIN_TIMEOUT_MS)
        try:
            frame = await tab.worlds.frame_of(handle)
        finally:
            await handle.dispose()
        if frame is None:
            return locator
        got = await tab.worlds.on_element(locator, bundle("pin_ref"), {
            "prefix": tab.frame_ids.id_for(frame), "base": tab.frame_ids.highest_ref(frame)},
            timeout_ms=PIN_TIMEOUT_MS)
    except (PlaywrightError, BrowserCtxError):
        return locator
    ref, last = got[0], int(got[1])
    tab.frame_ids.saw_ref(frame, last)
    return frame.locator(f"{refs.REF_ENGINE_NAME}={ref}")
