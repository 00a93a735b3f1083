"""Refs and the page's registry: frame ids, the ``bcref`` selector engines, and the page-state version.

The walker (:mod:`.walk`) gives every interactive element a ref (``e12``; ``f3e12`` in child frame ``f3``),
kept in the registry of the world it runs in (``js/registry.js``); ``page.locator("bcref=e12")`` resolves it.

Typical use::

    await register_ref_engine(playwright)          # once per Playwright instance
    ids = FrameIds()                               # one per page, kept as long as the page lives
    await page.locator("bcref=e12").click()
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from .._errors import InvalidArgument, translate
from .scripts import bundle, script
from .worlds import PIN_ENGINE_NAME, Worlds

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page, Playwright

__all__ = [
    "REF_ENGINE_NAME",
    "MAIN_REF_ENGINE_NAME",
    "FrameIds",
    "register_ref_engine",
    "ref_frame_prefix",
    "is_ref",
    "page_version",
]

#: Seconds :func:`page_version` waits for a page's answer before saying it has none (a busy page).
VERSION_TIMEOUT_S = 5.0
#: Tries :func:`page_version` makes while the page is navigating, :data:`VERSION_RETRY_S` apart.
VERSION_ATTEMPTS = 3
VERSION_RETRY_S = 0.05

_REF_RE = re.compile(r"(f[1-9][0-9]*)?e([1-9][0-9]*)")

#: Name of the selector engine that resolves refs: ``page.locator("bcref=e12")``. It runs in the isolated world
#: our walker runs in (:mod:`.worlds`), where the ref registry lives.
REF_ENGINE_NAME = "bcref"
#: The same engine in the main world, for pages whose scripts run there (no CDP: :attr:`Worlds.isolated` False).
MAIN_REF_ENGINE_NAME = "bcrefmain"


class FrameIds:
    """Stable ids for the frames of one page: the main frame is ``''``, child frames ``'f1'``, ``'f2'``, ….

    Keyed by Playwright :class:`Frame` objects, which stay the same object while the frame lives (also across
    its navigations). Keep one instance per page for the page's lifetime; ids are never reused. It also keeps,
    per frame, the highest ref number handed out, so a frame's refs keep counting up across its documents.
    """

    def __init__(self) -> None:
        self._ids: dict[Frame, str] = {}
        self._next = 1
        self._ref_high: dict[Frame, int] = {}
        self._marked: set[Frame] = set()

    def id_for(self, frame: Frame) -> str:
        """Return ``''`` for a main frame, else this frame's ``'f<N>'`` id (assigned on first sight)."""
        if frame.parent_frame is None:
            return ""
        fid = self._ids.get(frame)
        if fid is None:
            fid = f"f{self._next}"
            self._next += 1
            self._ids[frame] = fid
        return fid

    def frame_for(self, page: Page, prefix: str) -> Frame | None:
        """Return the attached frame of ``page`` whose id is ``prefix`` (``''`` = main frame), or ``None``."""
        if prefix == "":
            return page.main_frame
        for frame, fid in self._ids.items():
            if fid == prefix:
                if frame.is_detached() or frame.page is not page:
                    return None
                return frame
        return None

    def highest_ref(self, frame: Frame) -> int:
        """The highest ref number a walk of ``frame`` has handed out so far (0 before any walk)."""
        return self._ref_high.get(frame, 0)

    def saw_ref(self, frame: Frame, number: int) -> None:
        """Note that a walk of ``frame`` handed out refs up to ``number``."""
        if number > self._ref_high.get(frame, 0):
            self._ref_high[frame] = number

    def is_marked(self, frame: Frame) -> bool:
        """Whether ``frame``'s ``<iframe>`` element carries its id (:meth:`mark`)."""
        return frame in self._marked

    def mark(self, frame: Frame) -> None:
        """Note that ``frame``'s ``<iframe>`` element now carries its id."""
        self._marked.add(frame)

    def forget_detached(self) -> None:
        """Drop bookkeeping for frames that are gone (their ids are never handed out again)."""
        for frame in [f for f in self._ids if f.is_detached()]:
            del self._ids[frame]
            self._marked.discard(frame)
            self._ref_high.pop(frame, None)


async def register_ref_engine(playwright: Playwright) -> None:
    """Register our selector engines on ``playwright.selectors`` (idempotent).

    ``frame.locator("bcref=e12")`` then matches exactly the element the walker registered as ``e12`` in that
    frame, if it is still connected to the frame's current document, and nothing otherwise. ``bcref`` runs in
    Playwright's utility world, the isolated world the walker runs in (:mod:`.worlds`; it reads that world's
    ``window.__browserCtx``); ``bcrefmain`` is the same engine in the main world, for pages without CDP;
    ``bcpin`` hands elements to the isolated world. Registering after contexts exist is fine: Playwright
    pushes the engines to existing contexts too.
    """
    for name, source, content in ((REF_ENGINE_NAME, "ref_engine", True), (MAIN_REF_ENGINE_NAME, "ref_engine", False),
                                  (PIN_ENGINE_NAME, "pin_engine", True)):
        try:
            await playwright.selectors.register(name, script(source), content_script=content)
        except PlaywrightError as exc:
            if "already registered" not in str(exc):
                raise translate(exc, action="register the ref selector engine") from exc


def is_ref(target: str) -> bool:
    """Return True if ``target`` is a ref such as ``e12`` (main frame) or ``f3e12`` (child frame f3)."""
    return isinstance(target, str) and _REF_RE.fullmatch(target.strip()) is not None


def ref_frame_prefix(ref: str) -> str:
    """Return the frame id of ``ref``: ``''`` for ``e12``, ``'f3'`` for ``f3e12``.

    Raises:
        InvalidArgument: ``ref`` is not a ref.
    """
    m = _REF_RE.fullmatch(ref.strip()) if isinstance(ref, str) else None
    if m is None:
        raise InvalidArgument(f"{ref!r} is not a ref; refs look like e12 or f3e12 (from browser_snapshot).")
    return m.group(1) or ""


async def page_version(page: Page, timeout_s: float = VERSION_TIMEOUT_S, worlds: Worlds | None = None) -> str | None:
    """Return an opaque string that changes when the main document navigates or its DOM mutates, or
    ``None`` when the page has no version now: mid-navigation (after :data:`VERSION_ATTEMPTS` tries),
    closed, crashed, or stuck (no answer within ``timeout_s`` seconds, default 5).

    ``js/page_version.js``: the document's ``performance.timeOrigin`` (new per document), the registry's
    MutationObserver count (``js/registry.js``, installed here if no walk has run yet) and ``location.href``.
    Mutations made before the observer was installed are not counted; compare versions, never parse them.
    Every caller that stamps or compares versions uses this one function, with the page's ``worlds`` (the
    counter lives in the walker's world; without it, the main world's). Never raises.
    """
    try:
        return await asyncio.wait_for(_read_version(page, worlds), timeout_s)
    except (TimeoutError, PlaywrightError):
        return None


async def _read_version(page: Page, worlds: Worlds | None) -> str | None:
    for attempt in range(VERSION_ATTEMPTS):
        try:
            if worlds is not None:
                return await worlds.evaluate(page.main_frame, bundle("page_version"))
            return await page.main_frame.evaluate(bundle("page_version"))
        except PlaywrightError as exc:
            low = str(exc).lower()
            if attempt + 1 < VERSION_ATTEMPTS and ("context was destroyed" in low or "navigat" in low):
                await asyncio.sleep(VERSION_RETRY_S)
                continue
            return None  # closed, crashed, or still navigating
    return None
