"""Set a slider to a value: ``browser_fill_form`` fields of type ``slider``.

- A native ``<input type=range>`` is filled (Playwright's ``fill``).
- An ARIA slider (``aria-valuenow``, on the element or its ``[role=slider]`` ancestor) is focused and stepped
  with the arrow keys (Home/End for its ends) until it says the value, at most :data:`MAX_STEPS` keys.
- A value given as a percentage (``"40%"``, as a snapshot shows a handle with no value of its own,
  ``(value from position) = "31%"``) drags the handle to that point of its track (the parent element's box).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator

from .._errors import InvalidArgument, SelectorError
from .worlds import Worlds, on_element

__all__ = ["slide", "MAX_STEPS"]

#: The most arrow keys pressed to reach a value.
MAX_STEPS = 200

_READ_JS = """el => {
  const s = el.closest('[role=slider]') || el;
  const n = (a) => { const v = parseFloat(s.getAttribute(a)); return Number.isFinite(v) ? v : null; };
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  return {now: n('aria-valuenow'), min: n('aria-valuemin'), max: n('aria-valuemax'),
          range: el.localName === 'input' && el.type === 'range', handle: box(el),
          track: el.parentElement ? box(el.parentElement) : null};
}"""


def _number(value: str, label: str) -> float:
    try:
        return float(value.strip())
    except ValueError:
        raise InvalidArgument(f"{label}: a slider value must be a number, or a percentage of its track such as "
                              f"\"40%\" (got {value!r}).") from None


def _shown(x: float) -> str:
    return f"{x:g}"


async def slide(worlds: Worlds | None, locator: Locator, value: str, *, label: str, timeout_ms: float) -> str | None:
    """Set ``locator``'s slider to ``value``; return a note for the record, or ``None``.

    Raises:
        InvalidArgument: ``value`` is not a number or percentage, or is outside the slider's range.
        SelectorError: a number for a slider that says no value (no ``aria-valuenow``), or steps that do not
            land on it.
        playwright.async_api.Error: Playwright failed to act (callers translate it).
    """
    state: dict[str, Any] = await on_element(worlds, locator, _READ_JS, timeout_ms=timeout_ms)
    text = value.strip()
    if text.endswith("%"):
        return await _drag_to(worlds, locator, state, _number(text[:-1], label), label, timeout_ms)
    target = _number(text, label)
    if state["range"]:
        await locator.fill(text, timeout=timeout_ms)
        return None
    now, lo, hi = state["now"], state["min"], state["max"]
    if now is None:
        raise SelectorError(f"Could not set {label} to {text}: it says no value of its own (no aria-valuenow). "
                            "Give a percentage of its track (\"40%\"), or focus it and use browser_press_key "
                            "(Home, End, arrow keys) while reading the value the page shows.")
    if (lo is not None and target < lo) or (hi is not None and target > hi):
        raise InvalidArgument(f"{label} takes {_shown(lo) if lo is not None else '…'} to "
                              f"{_shown(hi) if hi is not None else '…'} (got {text}).")
    await locator.focus(timeout=timeout_ms)
    keyboard = locator.page.keyboard
    for _ in range(MAX_STEPS):
        if now == target:
            return None
        key = ("Home" if target == lo else "ArrowLeft") if target < now else ("End" if target == hi else "ArrowRight")
        await keyboard.press(key)
        moved = (await on_element(worlds, locator, _READ_JS, timeout_ms=timeout_ms))["now"]
        if moved is None or moved == now or (target - now) * (target - moved) < 0:
            now = moved if moved is not None else now
            break  # stuck, or stepped past: its steps do not land on the value
        now = moved
    if now == target:
        return None
    raise SelectorError(f"{label} stopped at {_shown(now)}, not {text}: its steps do not land on that value.")


async def _drag_to(worlds: Worlds | None, locator: Locator, state: dict[str, Any], percent: float, label: str,
                   timeout_ms: float) -> str:
    if not 0 <= percent <= 100:
        raise InvalidArgument(f"{label}: a percentage of its track is 0% to 100% (got {_shown(percent)}%).")
    track = state["track"]
    if not track or track[2] <= 0 or track[3] <= 0:
        raise SelectorError(f"Could not drag {label}: its track has no size on screen.")
    await locator.scroll_into_view_if_needed(timeout=timeout_ms)
    state = await on_element(worlds, locator, _READ_JS, timeout_ms=timeout_ms)  # the boxes after scrolling
    (hx, hy, hw, hh), (tx, ty, tw, th) = state["handle"], state["track"]
    mouse = locator.page.mouse
    await mouse.move(hx + hw / 2, hy + hh / 2)
    await mouse.down()
    if th > tw:  # a vertical slider: 0% at the bottom
        await mouse.move(hx + hw / 2, ty + th * (1 - percent / 100), steps=5)
    else:
        await mouse.move(tx + tw * percent / 100, hy + hh / 2, steps=5)
    await mouse.up()
    return f"Dragged its handle to {_shown(percent)}% of its track."
