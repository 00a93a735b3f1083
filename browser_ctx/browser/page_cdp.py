"""The CDP sessions of one tab: one per target (the page, each out-of-process iframe), shared by every user.

:class:`PageCDP` (one per :class:`~.tab.Tab`, closed with it) is the only place browser-ctx opens a CDP session
(``BrowserContext.new_cdp_session``). On the same sessions:

- the isolated worlds (:mod:`.worlds`): script calls and frame lookups;
- the accessibility queries of each read (:class:`.semantics.FrameSessions`);
- the event capture (:mod:`.capture`): ``Page``, ``Network``, ``Log`` and ``Runtime`` enabled for the tab's life,
  and ``Runtime.terminateExecution``; the perf, emulation and memory tools use its session (``EventCapture.cdp``);
- navigation reasons (:class:`.redirects.NavigationReasons`, ``Page.frameRequestedNavigation``) and leaving a
  wedged page (``Emulation.setScriptExecutionDisabled``, :mod:`.navigation`).

Sharing rules:

- A domain is enabled with :meth:`PageCDP.enable` and let go with :meth:`PageCDP.release`, counted per session:
  enabled by the first user, disabled when the last lets go, so one user's ``disable`` never silences another's
  events.
- A user removes the event listeners it added.
- A setting CDP keeps once per session that two users need differently gets a session of its own
  (:meth:`PageCDP.own_session`): the capture's worker hold, auto-attached flattened and paused where the page's
  session auto-attaches unflattened (:mod:`.capture.workers`).

A session is opened on first use (concurrent callers share one opening, which a caller's timeout does not
cancel), forgotten when the browser closes it (an iframe went back into its parent's process, the page closed)
or its frame detaches, and detached by :meth:`PageCDP.close`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Frame, Page

__all__ = ["PageCDP", "MAX_CONTEXT_NAMES"]

#: Names of execution contexts kept from the page's session (:meth:`PageCDP.context_names`); a page has a few.
MAX_CONTEXT_NAMES = 64

_CLOSED = "Target page, context or browser has been closed"


@dataclass
class _Domain:
    """One domain enabled on one session: how many users hold it, and the ``enable`` sent for the first."""

    holders: int
    sent: asyncio.Future[Any]


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a background future's exception as seen (its awaiters, if any, handle it)."""
    if not future.cancelled():
        future.exception()


class PageCDP:
    """The shared CDP sessions of one page (see the module docstring).

    Args:
        page: the Playwright page; one instance per page, closed with its tab.

    Attributes:
        opened: what each session opened so far was for, in order: ``"page"``, ``"frame"`` (an out-of-process
            iframe) or ``"own"`` (:meth:`own_session`); for tests and bench.
    """

    def __init__(self, page: Page) -> None:
        self._page = page
        self._sessions: dict[Frame | None, CDPSession] = {}  # None: the page's own
        self._opening: dict[Frame | None, asyncio.Future[CDPSession]] = {}
        self._own: list[CDPSession] = []
        self._domains: dict[CDPSession, dict[str, _Domain]] = {}
        self._names: set[str] = set()
        self._closed = False
        self._listening = True
        self.opened: list[str] = []
        page.on("framedetached", self._on_frame_detached)
        page.on("close", self._on_page_closed)

    @property
    def page(self) -> Page:
        """The page these sessions are of."""
        return self._page

    # --- sessions -------------------------------------------------------------------------------------------

    async def session(self, frame: Frame | None = None) -> CDPSession:
        """The session of the page (``frame`` ``None`` or the main frame) or of the out-of-process iframe
        ``frame``, opened on first use and shared by every caller.

        Raises:
            PlaywrightError: no such session: the page closed or offers no CDP (a non-Chromium browser), or
                ``frame`` is in its parent's process (it has no session of its own) or detached.
        """
        key = None if frame is None or frame.parent_frame is None else frame
        if self._closed or self._page.is_closed():
            raise PlaywrightError(_CLOSED)
        known = self._sessions.get(key)
        if known is not None:
            return known
        opening = self._opening.get(key)
        if opening is None or opening.done():
            opening = self._opening[key] = asyncio.ensure_future(self._open(key))
            opening.add_done_callback(_retrieve)
        return await asyncio.shield(opening)  # a caller's timeout must not cancel an opening others share

    async def _attach(self, target: Page | Frame) -> CDPSession:
        """The one place browser-ctx opens a CDP session (``tests/test_page_cdp.py`` checks it)."""
        return await self._page.context.new_cdp_session(target)

    async def _open(self, frame: Frame | None) -> CDPSession:
        try:
            cdp = await self._attach(frame if frame is not None else self._page)
        finally:
            self._opening.pop(frame, None)
        if self._closed or self._page.is_closed() or (frame is not None and frame.is_detached()):
            with contextlib.suppress(PlaywrightError):  # gone meanwhile: nothing to keep it for
                await cdp.detach()
            raise PlaywrightError(_CLOSED if frame is None else "Frame has been detached.")
        self.opened.append("page" if frame is None else "frame")
        cdp.on("close", lambda _s: self.lost(cdp))
        if frame is None:
            cdp.on("Runtime.executionContextCreated", self._on_context)
        self._sessions[frame] = cdp
        return cdp

    async def own_session(self) -> CDPSession:
        """A new session of the page used by one caller only (for a per-session setting others must not share),
        detached with the others by :meth:`close`.

        Raises:
            PlaywrightError: the page closed or offers no CDP.
        """
        if self._closed or self._page.is_closed():
            raise PlaywrightError(_CLOSED)
        cdp = await self._attach(self._page)
        if self._closed:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()
            raise PlaywrightError(_CLOSED)
        self.opened.append("own")
        self._own.append(cdp)
        return cdp

    def is_open(self, cdp: CDPSession) -> bool:
        """Whether ``cdp`` is one of the sessions handed out and not closed since."""
        return not self._closed and (any(s is cdp for s in self._sessions.values()) or any(s is cdp for s in self._own))

    def lost(self, cdp: CDPSession) -> None:
        """Forget ``cdp`` (the browser closed it, or a user found it closed); the next caller opens a new one."""
        for key in [k for k, s in self._sessions.items() if s is cdp]:
            del self._sessions[key]
        self._own = [s for s in self._own if s is not cdp]
        self._domains.pop(cdp, None)

    async def drop(self, cdp: CDPSession) -> None:
        """Forget and detach ``cdp`` (a session a user could not set up). Never raises."""
        self.lost(cdp)
        with contextlib.suppress(PlaywrightError):  # gone already: nothing to release
            await cdp.detach()

    def _on_frame_detached(self, frame: Frame) -> None:
        cdp = self._sessions.pop(frame, None)
        if cdp is not None:
            self.lost(cdp)
            task = asyncio.ensure_future(cdp.detach())
            task.add_done_callback(_retrieve)  # the frame's target is going away: a failed detach says nothing

    def _on_page_closed(self, _page: Page) -> None:
        self._closed = True  # every session died with the page
        self._sessions.clear()
        self._own.clear()
        self._domains.clear()

    async def close(self) -> None:
        """Detach every session (safe to call twice, or after the page closed). Never raises."""
        if not self._listening:
            return
        self._closed, self._listening = True, False
        sessions = [*self._sessions.values(), *self._own]
        self._sessions.clear()
        self._own.clear()
        self._domains.clear()
        self._page.remove_listener("framedetached", self._on_frame_detached)
        self._page.remove_listener("close", self._on_page_closed)
        for cdp in sessions:
            with contextlib.suppress(PlaywrightError):  # the page is gone, and its sessions with it
                await cdp.detach()

    # --- domains --------------------------------------------------------------------------------------------

    async def enable(self, cdp: CDPSession, domain: str, params: dict[str, Any] | None = None) -> None:
        """Hold ``domain`` (``"Page"``, ``"Runtime"``…) enabled on ``cdp``: ``<domain>.enable`` is sent for the
        first holder only (with its ``params``); later holders wait for that answer. Pair with :meth:`release`.

        Raises:
            PlaywrightError: the enable failed (the session closed); the caller then holds nothing.
        """
        domains = self._domains.setdefault(cdp, {})
        held = domains.get(domain)
        if held is None:
            sent = asyncio.ensure_future(cdp.send(f"{domain}.enable", params or {}))
            sent.add_done_callback(_retrieve)
            held = domains[domain] = _Domain(0, sent)
        held.holders += 1
        try:
            await asyncio.shield(held.sent)
        except BaseException:
            held.holders -= 1
            if held.holders <= 0 and domains.get(domain) is held:
                del domains[domain]
                held.sent.add_done_callback(lambda f: self._undo(cdp, domain, f))
            raise

    def _undo(self, cdp: CDPSession, domain: str, sent: asyncio.Future[Any]) -> None:
        """An enable whose every holder gave up (timed out) answered: disable it again unless someone holds it."""
        if sent.cancelled() or sent.exception() is not None or domain in self._domains.get(cdp, {}):
            return
        task = asyncio.ensure_future(cdp.send(f"{domain}.disable"))
        task.add_done_callback(_retrieve)

    async def release(self, cdp: CDPSession, domain: str) -> None:
        """Let go of ``domain`` on ``cdp`` (held with :meth:`enable`): ``<domain>.disable`` is sent when no one
        holds it any more. Never raises."""
        domains = self._domains.get(cdp, {})
        held = domains.get(domain)
        if held is None:
            return
        held.holders -= 1
        if held.holders > 0:
            return
        del domains[domain]
        if self.is_open(cdp):
            with contextlib.suppress(PlaywrightError):  # the session closed meanwhile: nothing left enabled
                await cdp.send(f"{domain}.disable")

    def holds(self, cdp: CDPSession, domain: str) -> bool:
        """Whether someone holds ``domain`` enabled on ``cdp``."""
        return domain in self._domains.get(cdp, {})

    # --- what the page's session reported ---------------------------------------------------------------------

    def _on_context(self, event: dict[str, Any]) -> None:
        name = str((event.get("context") or {}).get("name") or "")
        if name and len(self._names) < MAX_CONTEXT_NAMES:
            self._names.add(name)

    def context_names(self) -> frozenset[str]:
        """Names of the execution contexts (worlds) the page's session reported (``Runtime.executionContextCreated``,
        while someone held ``Runtime``), from the moment it was opened."""
        return frozenset(self._names)
