"""``browser_drag`` (a core tool, as in ``@playwright/mcp`` 0.0.83) and the ``extra`` caps:
``browser_navigate_forward`` and ``browser_reload``.

Forward and reload are core in ``@playwright/mcp`` only for its skills; they are kept out of the default set
here because the default set's ``tools/list`` must stay within 2,000 tokens. Names and parameters follow
``@playwright/mcp`` (``startTarget``, ``endTarget``, optional ``startElement``/``endElement``). Each returns an
action record, like ``browser_click`` (:func:`browser_ctx.browser.actions.perform`).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..._errors import translate
from ...browser import refs
from ...browser.actions import action_error, ensure_open, perform
from ...browser.drag import drag as drag_elements
from ...browser.labels import walked_label
from ...browser.session import Tab
from ...browser.targets import describe_element, resolve_one
from ...core.record import render_record
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS"]


async def _tab(call: ToolCall) -> Tab:
    tab = await call.session.current_tab()
    ensure_open(tab)
    return tab


async def _label(tab: Tab, locator: Any, target: str, element: str | None) -> str:
    """The caller's ``element`` words, else the last walk's line for a ref, else the page's description."""
    ref = target.strip() if refs.is_ref(target) else None
    if element:
        return f"{element} [{ref or target}]"
    return (walked_label(tab, ref) if ref else None) or await describe_element(locator, tab, ref=ref)


async def drag(call: ToolCall) -> Rendered:
    """Drag ``startTarget`` onto ``endTarget`` (:func:`browser_ctx.browser.drag.drag`); return the record.

    Raises:
        SelectorError, StaleRefError: a target that is not exactly one element.
        ActionTimeout: an element Playwright could not drag (covered, hidden …), named.
    """
    a = call.args
    tab = await _tab(call)
    start, end = a["startTarget"], a["endTarget"]
    source = await resolve_one(tab, start, call.settings, verb="drag")
    target = await resolve_one(tab, end, call.settings, verb="drop onto")
    what = await _label(tab, source, start, a.get("startElement"))
    onto = await _label(tab, target, end, a.get("endElement"))
    timeout = call.settings.timeouts.action_ms

    async def run() -> str | None:
        try:
            return await drag_elements(tab, source, target, timeout_ms=timeout)
        except (PlaywrightError, TimeoutError) as exc:
            raise action_error(exc, verb="drag", target=start, timeout_ms=timeout, element=what) from exc

    record = await perform(call.session, tab, call.settings, f"Dragged {what} onto {onto}", run, budget=call.budget)
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def navigate_forward(call: ToolCall) -> Rendered:
    """Go forward in the current tab's history; return the record (it says when there is no next page)."""
    tab = await _tab(call)
    timeout = call.settings.timeouts.navigation_ms

    async def run() -> str | None:
        before = tab.page.url
        try:
            await tab.page.go_forward(wait_until="commit", timeout=timeout)
        except PlaywrightError as exc:
            raise translate(exc, action="go forward", url=before, timeout_ms=timeout) from exc
        return "There is no next page in this tab's history." if tab.page.url == before else None

    record = await perform(call.session, tab, call.settings, "Went forward", run, budget=call.budget)
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def reload(call: ToolCall) -> Rendered:
    """Reload the current page; return the record (``Page reloaded: <url>`` and the page's card)."""
    tab = await _tab(call)
    timeout = call.settings.timeouts.navigation_ms

    async def run() -> None:
        try:
            await tab.page.reload(wait_until="commit", timeout=timeout)
        except PlaywrightError as exc:
            raise translate(exc, action="reload", url=tab.page.url, timeout_ms=timeout) from exc

    record = await perform(call.session, tab, call.settings, "Reloaded", run, budget=call.budget)
    return Rendered(render_record(record), capture=False, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}


def _spec(name: str, description: str, properties: dict, handler: Any, required: tuple[str, ...] = (),
          caps: str = "extra") -> ToolSpec:
    return ToolSpec(name=name, description=description, properties=properties, handler=handler,
                    required=required, pageable=False, caps=caps, read_only=False)


TOOLS = [
    _spec("browser_drag", "Drag startTarget onto endTarget.",
          {"startTarget": _STR, "endTarget": _STR, "startElement": _STR, "endElement": _STR},
          drag, ("startTarget", "endTarget"), caps="core"),
    _spec("browser_navigate_forward", "Go forward in history.", {}, navigate_forward),
    _spec("browser_reload", "Reload the page.", {}, reload),
]
