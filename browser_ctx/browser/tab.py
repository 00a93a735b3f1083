"""A tab of the session: its page, its event capture and every piece of per-page state (frame ids, captures kept for
``offset``, the read history for ``since``, the last walk, self-changing values, opt-in families' state).

Owned by :class:`~browser_ctx.browser.session.BrowserSession`; plain state, except its CDP sessions
(:class:`~.page_cdp.PageCDP`, closed with the tab: by the page's ``close``, or ``await tab.cdp.close()``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import FileChooser, Page

from ..core.fingerprint import ReadHistory
from ..core.journal import Gone
from ..core.testgen import Step
from .capture import EventCapture
from .page_cdp import PageCDP
from .refs import FrameIds
from .sourcemaps import SourceMaps
from .walk import PageWalk
from .worlds import Worlds

__all__ = ["Tab", "Capture"]


@dataclass
class Capture:
    """A rendered result kept so ``offset`` can read on without re-rendering.

    Attributes:
        text: the whole rendered (and scrubbed) result.
        full_tokens: its o200k token count.
        version: page-state version when rendered (``None`` if unknown).
        meta: the structured fields sent with it (re-sent when reading on).
    """

    text: str
    full_tokens: int
    version: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: Its number as an MCP resource (``browser-ctx://tab/T/capture/N``), given when first listed; 0 before.
    number: int = 0


@dataclass
class Tab:
    """One page of the browser context.

    Attributes:
        id: stable 1-based id for the session's lifetime (ids are never reused).
        page: the Playwright page.
        events: the tab's console/network capture.
        cdp: the tab's CDP sessions, one per target, shared by the capture, the worlds and the reads.
        frame_ids: stable ids of the page's frames (used in refs and frame tags).
        captures: recent rendered results keyed by (tool, arguments), oldest first.
        sent: fingerprint last sent per (tool, arguments, offset), for "unchanged since" replies.
        history: the last few reads per (tool, arguments) by fingerprint, bounded, for ``since`` diffs.
        crashed: the page's renderer died (``chrome://crash``, out of memory); the tab is replaced by a
            fresh one the next time it would be used (:meth:`BrowserSession.current_tab`).
        worlds: where our page-side scripts run (each frame's isolated world, :mod:`.worlds`).
    """

    id: int
    page: Page
    events: EventCapture
    cdp: PageCDP
    frame_ids: FrameIds = field(default_factory=FrameIds)
    captures: OrderedDict[str, Capture] = field(default_factory=OrderedDict)
    sent: dict[str, str] = field(default_factory=dict)
    history: ReadHistory = field(default_factory=ReadHistory)
    crashed: bool = False
    #: Source maps of the scripts its console locations name (fetched when a listing shows them).
    source_maps: SourceMaps = field(default_factory=SourceMaps)
    #: The last number given to one of this tab's captures as an MCP resource (``server.resources``).
    last_capture_number: int = 0
    #: A file chooser the last action opened and nobody answered yet (``browser_file_upload`` without target).
    file_chooser: FileChooser | None = None
    #: The tab listens for file choosers for its whole life (a browser we launched: Playwright then intercepts
    #: them), counting them here; else each action listens (a user's browser keeps its native dialogs between).
    holds_choosers: bool = False
    choosers_seen: int = 0
    last_chooser: FileChooser | None = None
    #: When (epoch s) our last navigation of this page ended (or a failed load was undone): documents started
    #: before it were ours (a redirect chain, Chromium's error page, the page gone back to), not the page moving
    #: by itself.
    navigated_at: float = 0.0
    #: Walks of this page made so far (whole-page and targeted reads, action records), for tests and bench.
    walks: int = 0
    #: What an action refused before acting (a stale ref) drained from the journal: the next drain reports it.
    journal_held: tuple[list[Gone], int] | None = None
    #: The last whole-page walk with Chromium's names (a snapshot or an action's record) and the bound it was
    #: walked with (characters): the next action's "before" when the page version has not changed since.
    last_walk: tuple[int, PageWalk] | None = None
    #: The walk of a navigation's card (with Chromium's names), its bound (characters) and the session's call
    #: count when it was made: a snapshot called next reads it when the page version has not changed since.
    card_walk: tuple[int, int, PageWalk] | None = None
    #: The document (timeOrigin) whose locator machinery was set up ahead of the first action
    #: (:func:`.targets.prime_locators`), and the prime waiting for an idle session or running (cancelled when the
    #: tab closes).
    primed_document: str = ""
    priming: asyncio.Future[None] | None = None
    #: Shapes of the lines that changed by themselves on the current document (a clock, a countdown: seen changing
    #: between two walks with no action of ours between, :mod:`.drift`), left out of its records; how
    #: often each shape was seen so; and the document they are of.
    drifting: set[str] = field(default_factory=set)
    drift_seen: dict[str, int] = field(default_factory=dict)
    drift_document: str = ""
    #: (timeOrigin, the page's clock in ms) when our last action on this tab settled (:attr:`.settle.Look.mark`):
    #: what changes again and again after it changes by itself.
    acted_mark: tuple[float, float] | None = None
    #: The streams and polling (``WebSocket <url>``, ``polling <url>``) the records of the current document have
    #: named (each is said once per document, :func:`.settle.untold`), and that document's timeOrigin.
    streams_told: set[str] = field(default_factory=set)
    streams_document: float | None = None
    #: State of the opt-in tool families, by family (``perf``: a recording and the last report; ``emulation``: what
    #: is in force; ``memory``: the last heap summary), owned by their ``browser/`` modules.
    family_state: dict[str, Any] = field(default_factory=dict)
    #: What was done in this tab, for ``browser_generate_test`` (kept only with ``--caps testing``).
    steps: list[Step] = field(default_factory=list)
    worlds: Worlds = field(init=False)

    def __post_init__(self) -> None:
        self.worlds = Worlds(self.page, self.cdp)

    def hold_choosers(self) -> None:
        """Listen for file choosers from now on (:attr:`holds_choosers`)."""
        def opened(chooser: FileChooser) -> None:
            self.choosers_seen += 1
            self.last_chooser = chooser

        self.page.on("filechooser", opened)
        self.holds_choosers = True

    def keep(self, key: str, capture: Capture, limit: int) -> None:
        """Store ``capture`` under ``key``, keeping at most ``limit`` captures."""
        self.captures.pop(key, None)
        self.captures[key] = capture
        while len(self.captures) > limit:
            self.captures.popitem(last=False)
