"""What the console and network tool families share (not a family itself: it has no tools).

Listings budget themselves: they render whole entries until the call's budget, less
:data:`LISTING_RESERVE` tokens and :data:`LISTING_RESERVE_CHARS` characters, is used, so the ``cursor``
they hand back (structured field ``cursor``, pass it as ``since``) covers exactly what was shown and a
cut listing never skips unread entries (:mod:`browser_ctx.core.listing`).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ...browser.capture import EventCapture
from ...browser.session import Tab
from ...core.listing import LineBudget
from ..registry import ToolCall

__all__ = ["LISTING_RESERVE", "LISTING_RESERVE_CHARS", "SYNC_TIMEOUT", "SINCE", "LIMIT", "ALL", "synced_events",
           "line_budget"]

#: Tokens of the call's budget kept free for the structured fields and the closing line of a listing.
LISTING_RESERVE = 120
#: Characters of the call's character ceiling kept free for the same.
LISTING_RESERVE_CHARS = 500
#: Seconds a listing waits for the events the browser already sent (a busy page: what is there).
SYNC_TIMEOUT = 1.0

# since/limit are described once, in the server instructions; all in each tool's description.
SINCE: dict[str, Any] = {"type": "integer", "minimum": 0}
LIMIT: dict[str, Any] = {"type": "integer", "minimum": 1}
ALL: dict[str, Any] = {"type": "boolean"}


async def synced_events(call: ToolCall) -> tuple[EventCapture, Tab]:
    """The current tab's capture, attached and up to date (:meth:`EventCapture.sync`), and the tab."""
    tab = await call.session.current_tab()
    try:
        await tab.events.start()  # idempotent: waits if the capture is still attaching
    except PlaywrightError:
        pass  # a capture that could not start still has its (empty) buffers to list
    await tab.events.sync(timeout=SYNC_TIMEOUT)  # events the browser already sent are in the buffers
    return tab.events, tab


def line_budget(call: ToolCall) -> LineBudget:
    """A :class:`LineBudget` of the call's budget less the listing reserves."""
    part = call.budget.reserve(LISTING_RESERVE, LISTING_RESERVE_CHARS)
    return LineBudget(part.tokens, part.chars)
