"""Drag and drop: between two elements (``browser_drag``) and the element at a viewport point (the ``_xy`` tools).

:func:`drag` first drags with the mouse as a person does (Playwright's ``locator.drag_to`` in
:data:`DRAG_STEPS` moves, which starts the browser's own HTML5 drag on a ``draggable`` source, and gives
pointer-event libraries such as SortableJS's fallback, dnd-kit or a jQuery UI sortable the moves they wait for),
ending past the target's middle along the move (a sortable list then puts the source where the target was).
While it drags, a watch in our isolated world (``js/drag_watch.js``) counts the HTML5 drag events and DOM changes.
When the source is an HTML5 drag source and that drag neither started nor changed anything (a page that cancels
``mousedown`` keeps the browser from starting it), the drag is dispatched instead (``js/drag_dispatch.js``):
dragstart … dragend with one shared ``DataTransfer``; the record says so.

:func:`hit` names the element at a point (``document.elementFromPoint`` in the main frame's isolated world,
through open shadow roots) and gives it a ref.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Position

from .scripts import script
from .session import Tab
from .worlds import PIN_ENGINE_NAME, frame_of, in_frame, on_element

__all__ = ["drag", "hit", "Hit", "DRAG_STEPS"]

#: Mouse moves between the source and the target (pointer-event libraries need more than one).
DRAG_STEPS = 10
#: How far along the move, across the target, the drag ends (0.5: its middle).
DROP_AT = 0.75
#: Milliseconds the watch and the dispatch scripts may take.
SCRIPT_TIMEOUT_MS = 2000

_STOP = "() => { const d = globalThis.__browserCtxDrag; return d ? d.stop() : null; }"
_OUTCOME = {
    "dropped": "the target accepted the drop",
    "refused": "the target refused it (no dragover handler called preventDefault)",
    "cancelled": "the page cancelled the dragstart",
    "no-target": "the target was gone",
}


async def drag(tab: Tab, source: Locator, target: Locator, *, timeout_ms: float) -> str | None:
    """Drag ``source`` onto ``target`` (see the module docstring); return a note for the record, or ``None``.

    Raises:
        PlaywrightError, TimeoutError: from Playwright's drag (the caller translates them).
    """
    handle = await source.element_handle(timeout=timeout_ms)
    frame = await frame_of(tab.worlds, handle, tab.page)
    await handle.dispose()
    watched = None
    with contextlib.suppress(PlaywrightError):  # no watch: the drag is only not checked
        watched = await on_element(tab.worlds, source, script("drag_watch"), timeout_ms=SCRIPT_TIMEOUT_MS)
    try:
        await source.drag_to(target, steps=DRAG_STEPS, timeout=timeout_ms,
                             target_position=await _drop_point(source, target, timeout_ms))
    finally:
        seen = None
        if frame is not None and watched is not None:
            with contextlib.suppress(PlaywrightError):  # navigated away: nothing to stop
                seen = await in_frame(tab.worlds, frame, _STOP)
    if not (watched and watched.get("draggable") and seen) or seen["dragstart"] or seen["mutations"]:
        return None
    key = secrets.token_hex(8)
    try:
        if await target.locator(f"{PIN_ENGINE_NAME}=pin:{key}").count() != 1:
            return None
        outcome = await on_element(tab.worlds, source, script("drag_dispatch"), key, timeout_ms=SCRIPT_TIMEOUT_MS)
    except PlaywrightError:  # another frame, or the page moved on: the mouse drag is all there was
        return None
    return (f"The mouse drag did not start the page's HTML5 drag; dispatched dragstart … dragend with one "
            f"DataTransfer instead: {_OUTCOME.get(outcome, outcome)}.")


async def _drop_point(source: Locator, target: Locator, timeout_ms: float) -> Position | None:
    """Where on ``target`` the drag ends (CSS px from its top left): past its middle, :data:`DROP_AT` of the way
    along the move, so a sortable list puts the source where the target was (it swaps an item once the pointer
    passes the item's middle); ``None`` (the middle) when a box cannot be read."""
    try:
        a, b = await asyncio.gather(source.bounding_box(timeout=timeout_ms), target.bounding_box(timeout=timeout_ms))
    except PlaywrightError:
        return None
    if not a or not b:
        return None
    dx = (b["x"] + b["width"] / 2) - (a["x"] + a["width"] / 2)
    dy = (b["y"] + b["height"] / 2) - (a["y"] + a["height"] / 2)
    if abs(dy) >= abs(dx):
        return Position(x=b["width"] / 2, y=b["height"] * (DROP_AT if dy > 0 else 1 - DROP_AT))
    return Position(x=b["width"] * (DROP_AT if dx > 0 else 1 - DROP_AT), y=b["height"] / 2)


class Hit:
    """The element at a point: ``label`` (``button "Save" [e7]``), or ``None`` fields when nothing is there."""

    def __init__(self, found: dict | None) -> None:
        self.found = found
        self.ref = found.get("ref") if found else None

    @property
    def label(self) -> str:
        if not self.found:
            return "nothing (outside the page)"
        role, name = self.found.get("role") or self.found.get("tag") or "element", self.found.get("name")
        text = f'{role} "{name}"' if name else role
        return f"{text} [{self.ref}]" if self.ref else text


async def hit(tab: Tab, x: float, y: float) -> Hit:
    """The element at viewport point (``x``, ``y``) CSS px of the main frame; an unreadable page gives nothing."""
    source = (f"((pt) => ({script('hit_test')})({{registry: ({script('registry')}), "
              f"describe: ({script('describe_element')})}}, pt))")
    try:
        return Hit(await in_frame(tab.worlds, tab.page.main_frame, source, {"x": x, "y": y}))
    except PlaywrightError:  # navigating or closed: the record just cannot name it
        return Hit(None)
