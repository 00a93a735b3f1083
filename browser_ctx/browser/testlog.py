"""How a generated test will find an element again (:class:`browser_ctx.core.testgen.Pick`), read before a
tool acts on it.

The element's role and accessible name come from Playwright's own ``aria_snapshot`` of it (so they are what
``get_by_role`` matches), its test id, kind and text from one read in the isolated world. Each candidate
locator is kept only if it matches exactly one element and that element is the one acted on
(``acted.and_(candidate)``): role and name, then ``data-testid``, then exact text, then the caller's own
selector (never a ref), then role and name with an index.
"""

from __future__ import annotations

import json
import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from .._errors import BrowserCtxError
from ..core.testgen import Pick
from . import refs
from .session import Tab
from .targets import locator_for

__all__ = ["pick"]

#: Milliseconds each read of the element may take; a slower page gets no pick (the step becomes a comment).
READ_TIMEOUT_MS = 1000
#: The most matches of a non-unique role and name searched for the element's index.
MAX_NTH = 20
#: Longest exact text used as a locator, in characters.
MAX_TEXT_CHARS = 80

#: ``[tag, type, contenteditable, data-testid, text]`` of the element (text whitespace-collapsed, 200 chars).
_FACTS_JS = """el => [el.localName, (el.getAttribute('type') || '').toLowerCase(), !!el.isContentEditable,
  el.getAttribute('data-testid'), (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 200)]"""
#: First line of an aria snapshot: ``- role "name"`` (the name JSON-quoted), ``- role`` or ``- text: …``.
_FIRST = re.compile(r'^- ([a-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?')
_NOT_A_FIELD = ("checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color", "hidden")


def _kind(tag: str, type_: str, editable: bool) -> str:
    if tag == "select":
        return "select"
    if tag == "input" and type_ in ("checkbox", "radio"):
        return "check"
    if tag == "textarea" or editable or tag == "input" and type_ not in _NOT_A_FIELD:
        return "field"
    return "other"


async def _is_it(acted: Locator, candidate: Locator) -> bool:
    return await candidate.count() == 1 and await acted.and_(candidate).count() == 1


async def _nth(acted: Locator, candidate: Locator) -> int | None:
    for i in range(min(await candidate.count(), MAX_NTH)):
        if await acted.and_(candidate.nth(i)).count() == 1:
            return i
    return None


async def pick(tab: Tab, target: str) -> Pick | None:
    """Return how a test finds ``target``'s element (a ref or selector in ``tab``), or ``None``.

    A selector matching no element or several gives ``Pick("selector", target)`` (a wait, a count or a hidden
    check names such selectors); a ref whose element is gone gives ``None``. Never raises.
    """
    try:
        acted = locator_for(tab, target)
        n = await acted.count()
        if n != 1:
            return None if refs.is_ref(target) else Pick("selector", target)
        tag, type_, editable, test_id, text = await tab.worlds.on_element(acted, _FACTS_JS,
                                                                         timeout_ms=READ_TIMEOUT_MS)
        kind = _kind(tag, type_, editable)
        page = tab.page
        role = name = None
        first = _FIRST.match(await acted.aria_snapshot(timeout=READ_TIMEOUT_MS) or "")
        if first and first.group(1) != "text":
            role, name = first.group(1), json.loads(f'"{first.group(2)}"') if first.group(2) is not None else None
            by_role = page.get_by_role(role, name=name, exact=True) if name else page.get_by_role(role)  # type: ignore[arg-type]
            if await _is_it(acted, by_role):
                return Pick("role", role, name, kind=kind)
        if test_id and await _is_it(acted, page.get_by_test_id(test_id)):
            return Pick("testid", test_id, kind=kind)
        if text and len(text) <= MAX_TEXT_CHARS and await _is_it(acted, page.get_by_text(text, exact=True)):
            return Pick("text", text, kind=kind)
        if not refs.is_ref(target):
            return Pick("selector", target, kind=kind)
        if role and name:
            nth = await _nth(acted, page.get_by_role(role, name=name, exact=True))  # type: ignore[arg-type]
            if nth is not None:
                return Pick("role", role, name, nth=nth, kind=kind)
    except (PlaywrightError, BrowserCtxError, TimeoutError, ValueError):  # gone, in a frame, or too slow
        return None
    return None
