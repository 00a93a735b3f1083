"""The transient-UI journal's browser half: install ``js/journal.js`` and drain it.

The journal is added to the browser context as an init script (:func:`install`), so it runs in every
frame's main world before the page's own scripts, in every new document (it survives navigations by
being added again; entries of a document that is left are lost with it). :func:`drain` collects and
empties what every frame of a page recorded since the last drain. Page text comes back unscrubbed: the
caller's result goes through the pipeline's scrub.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..core.journal import Gone, parse_entries
from .scripts import invocation

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame, Page

    from .refs import FrameIds
    from .tab import Tab

__all__ = ["install", "drain", "drain_tab", "JOURNAL_ENTRIES", "JOURNAL_TEXT_CHARS", "JOURNAL_TRACKED",
           "DRAIN_TIMEOUT_S", "DRAIN_FRAMES"]

log = logging.getLogger("browser_ctx")

#: Entries one document keeps between drains (the oldest are dropped and counted).
JOURNAL_ENTRIES = 50
#: Characters of text kept per entry.
JOURNAL_TEXT_CHARS = 200
#: Elements (and live regions) one document watches at once.
JOURNAL_TRACKED = 100
#: Seconds one frame may take to answer a drain (a busy frame is asked again next time).
DRAIN_TIMEOUT_S = 1.0
#: Frames of a page drained (the main frame first).
DRAIN_FRAMES = 20

_DRAIN = "() => { const j = window.__browserCtxJournal; return j ? j.drain() : null; }"


async def install(context: BrowserContext) -> None:
    """Add the journal to every future document of ``context``. Raises what Playwright raises when the
    context is closed."""
    await context.add_init_script(invocation("journal", JOURNAL_ENTRIES, JOURNAL_TEXT_CHARS, JOURNAL_TRACKED))


async def _drain_frame(frame: Frame) -> object:
    try:
        return await asyncio.wait_for(frame.evaluate(_DRAIN), DRAIN_TIMEOUT_S)
    except (PlaywrightError, TimeoutError) as exc:  # navigating, detached or busy: its entries wait for next time
        log.debug("journal drain skipped a frame: %s", exc)
        return None


async def drain(page: Page, frame_ids: FrameIds) -> tuple[list[Gone], int]:
    """Return what the page's frames (at most :data:`DRAIN_FRAMES`) recorded as shown and gone since the
    last drain, oldest first per frame, and how many entries the page had to drop. Never raises."""
    if page.is_closed():
        return [], 0
    # A frame with no URL never committed a document (a blocked file: iframe): Playwright would wait for one.
    frames = [f for f in page.frames if not f.is_detached() and f.url][:DRAIN_FRAMES]
    answers = await asyncio.gather(*(_drain_frame(f) for f in frames))
    gone: list[Gone] = []
    dropped = 0
    for frame, raw in zip(frames, answers, strict=True):
        entries, lost = parse_entries(raw, frame_ids.id_for(frame))
        gone.extend(entries)
        dropped += lost
    return gone, dropped


async def drain_tab(tab: Tab) -> tuple[list[Gone], int]:
    """:func:`drain` of ``tab``'s page, after what a refused action drained and handed back (``tab.journal_held``):
    what was shown since the last call. Never raises."""
    held, tab.journal_held = tab.journal_held, None
    gone, dropped = await drain(tab.page, tab.frame_ids)
    return (held[0] + gone, held[1] + dropped) if held is not None else (gone, dropped)
