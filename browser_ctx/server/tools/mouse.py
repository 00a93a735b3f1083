"""Coordinates, in the ``vision`` caps next to screenshots: click, move, drag and wheel at CSS-pixel points of the
viewport (what a ``scale: css`` screenshot shows: one image px per CSS px).

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``browser_mouse_click_xy {x, y, button?, clickCount?,
delay?}``, ``browser_mouse_move_xy {x, y}``, ``browser_mouse_drag_xy {startX, startY, endX, endY}``,
``browser_mouse_wheel {deltaX, deltaY}``); the wheel also takes ``x``/``y`` to move there first. Each returns an
action record (:func:`browser_ctx.browser.actions.perform`) whose first line names the element that was at
the point (:func:`browser_ctx.browser.drag.hit`, with a ref for later calls).
"""

from __future__ import annotations

import math
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..._errors import InvalidArgument, translate
from ...browser.actions import ensure_open, perform
from ...browser.drag import DRAG_STEPS, hit
from ...browser.session import Tab
from ...browser.worlds import in_frame
from ...core.record import render_record
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "MAX_CLICKS", "MAX_DELAY_MS"]

#: Most clicks of one ``browser_mouse_click_xy`` (3 = a triple click).
MAX_CLICKS = 3
#: Longest press of one click, milliseconds.
MAX_DELAY_MS = 5000
_SCROLL = "() => [Math.round(scrollX), Math.round(scrollY)]"


def _point(args: dict[str, Any], *names: str) -> list[float]:
    values = [args[n] for n in names]
    bad = [n for n, v in zip(names, values, strict=True) if not math.isfinite(v) or abs(v) > 1e6]
    if bad:
        raise InvalidArgument(f"{bad[0]} must be a finite number of CSS px (got {args[bad[0]]!r}).")
    return values


def _at(x: float, y: float) -> str:
    return f"({x:g}, {y:g})"


async def _record(call: ToolCall, tab: Tab, action: str, do: Any, verb: str) -> Any:
    async def run() -> None:
        try:
            await do(tab.page.mouse)
        except PlaywrightError as exc:
            raise translate(exc, action=verb) from exc

    return await perform(call.session, tab, call.settings, action, run, budget=call.budget)


async def _tab(call: ToolCall) -> Tab:
    tab = await call.session.current_tab()
    ensure_open(tab)
    return tab


async def click_xy(call: ToolCall) -> Rendered:
    """Click at (``x``, ``y``) CSS px: ``button`` (left), ``clickCount`` (1-3), ``delay`` (ms between down and up)."""
    a = call.args
    x, y = _point(a, "x", "y")
    count, delay = int(a.get("clickCount") or 1), float(a.get("delay") or 0)
    if not 1 <= count <= MAX_CLICKS or a.get("clickCount", 1) != count:
        raise InvalidArgument(f"clickCount must be 1 to {MAX_CLICKS} (got {a.get('clickCount')!r}).")
    if not 0 <= delay <= MAX_DELAY_MS:
        raise InvalidArgument(f"delay must be 0 to {MAX_DELAY_MS} ms (got {a.get('delay')!r}).")
    tab = await _tab(call)
    what = (await hit(tab, x, y)).label
    verb = {1: "Clicked", 2: "Double-clicked", 3: "Triple-clicked"}[count]
    button = a.get("button") or "left"
    how = f" ({button} button)" if button != "left" else ""

    async def do(mouse: Any) -> None:
        await mouse.click(x, y, button=button, click_count=count, delay=delay)

    record = await _record(call, tab, f"{verb} at {_at(x, y)} on {what}{how}", do, "click")
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def move_xy(call: ToolCall) -> Rendered:
    """Move the mouse to (``x``, ``y``) CSS px (hover effects, menus that open on hover)."""
    x, y = _point(call.args, "x", "y")
    tab = await _tab(call)
    what = (await hit(tab, x, y)).label

    async def do(mouse: Any) -> None:
        await mouse.move(x, y)

    record = await _record(call, tab, f"Moved the mouse to {_at(x, y)} over {what}", do, "move the mouse")
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def drag_xy(call: ToolCall) -> Rendered:
    """Press the left button at (``startX``, ``startY``), move in :data:`~browser_ctx.browser.drag.DRAG_STEPS`
    steps to (``endX``, ``endY``) and release."""
    x0, y0, x1, y1 = _point(call.args, "startX", "startY", "endX", "endY")
    tab = await _tab(call)
    start, end = (await hit(tab, x0, y0)).label, (await hit(tab, x1, y1)).label

    async def do(mouse: Any) -> None:
        await mouse.move(x0, y0)
        await mouse.down()
        await mouse.move(x1, y1, steps=DRAG_STEPS)
        await mouse.up()

    record = await _record(call, tab, f"Dragged from {_at(x0, y0)} on {start} to {_at(x1, y1)} on {end}", do,
                           "drag the mouse")
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def wheel(call: ToolCall) -> Rendered:
    """Turn the mouse wheel by ``deltaX``/``deltaY`` CSS px (default 0), over (``x``, ``y``) when given; the
    record says how far the page scrolled."""
    a = call.args
    dx, dy = _point({"deltaX": a.get("deltaX") or 0, "deltaY": a.get("deltaY") or 0}, "deltaX", "deltaY")
    if ("x" in a) != ("y" in a):
        raise InvalidArgument("Give both x and y (where to turn the wheel), or neither.")
    point = _point(a, "x", "y") if "x" in a else None
    tab = await _tab(call)
    where = f" over {(await hit(tab, *point)).label}" if point else ""
    before = await _scroll(tab)

    async def do(mouse: Any) -> None:
        if point:
            await mouse.move(*point)
        await mouse.wheel(dx, dy)

    record = await _record(call, tab, f"Turned the wheel by {_at(dx, dy)}{where}", do, "turn the mouse wheel")
    after = await _scroll(tab)
    if before and after and before != after:
        record.notes.append(f"The page scrolled from {_at(*before)} to {_at(*after)}.")
    elif before and after:
        record.notes.append("The page itself did not scroll (an element under the mouse may have).")
    return Rendered(render_record(record), capture=False, tab=tab.id)


async def _scroll(tab: Tab) -> list[int] | None:
    try:
        return list(await in_frame(tab.worlds, tab.page.main_frame, _SCROLL))
    except PlaywrightError:  # navigating: no scroll position to compare
        return None


_NUM: dict[str, Any] = {"type": "number"}


def _spec(name: str, description: str, properties: dict, handler: Any, required: tuple[str, ...] = ()) -> ToolSpec:
    return ToolSpec(name=name, description=description, properties=properties, handler=handler,
                    required=required, pageable=False, caps="vision", read_only=False)


TOOLS = [
    _spec("browser_mouse_click_xy", "Click at x, y (CSS px).",
          {"x": _NUM, "y": _NUM, "button": {"enum": ["left", "right", "middle"]}, "clickCount": _NUM,
           "delay": _NUM}, click_xy, ("x", "y")),
    _spec("browser_mouse_move_xy", "Move the mouse to x, y.", {"x": _NUM, "y": _NUM}, move_xy, ("x", "y")),
    _spec("browser_mouse_drag_xy", "Drag the left button from start to end.",
          {"startX": _NUM, "startY": _NUM, "endX": _NUM, "endY": _NUM}, drag_xy,
          ("startX", "startY", "endX", "endY")),
    _spec("browser_mouse_wheel", "Scroll the wheel by deltaX/deltaY, at x, y if given.",
          {"deltaX": _NUM, "deltaY": _NUM, "x": _NUM, "y": _NUM}, wheel),
]
