"""The CDP sessions and isolated-world contexts behind :class:`.worlds.Worlds` (its bookkeeping half).

:class:`WorldSessions` (the base of ``Worlds``, one per page) uses the tab's CDP sessions (:class:`.page_cdp.PageCDP`:
the page's, and one per out-of-process iframe, shared with the capture and the reads), and learns the world's
name once, from the contexts the page's session reported (``Runtime`` held enabled for a moment when no one
holds it: the contexts are listed before it answers). A frame's context in that world comes from
``Page.createIsolatedWorld {frameId, worldName}``, which answers the existing world's context (worlds are
shared by name), kept until a call finds it gone with its document. A Playwright
:class:`~playwright.async_api.Frame` is matched to its CDP frame id once: the ``bcpin`` selector engine
(``js/pin_engine.js``, a content script) pins the frame's root element under a random key, and the context
holding the key names the frame. The main frame is the root of ``Page.getFrameTree``.

``_call`` runs one script in a frame's world (one ``Runtime.callFunctionOn``, tried again when the document was
replaced); handing elements to scripts and main-world calls are :mod:`.worlds`'.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import weakref
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .._errors import error_kind
from .listeners import Kept
from .page_cdp import PageCDP

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Frame, Page

__all__ = ["WorldSessions", "PIN_ENGINE_NAME", "UTILITY_WORLD_PREFIX", "CONTEXT_WAIT_S", "CONTEXT_POLL_S",
           "CALL_ATTEMPTS"]


#: Name of the selector engine that hands elements to the isolated world (``js/pin_engine.js``).
PIN_ENGINE_NAME = "bcpin"
#: How Playwright names its utility world in Chromium (followed by the page's guid).
UTILITY_WORLD_PREFIX = "__playwright_utility_world_"
#: Seconds a call waits for a frame's world to appear (a document being replaced) before it gives up.
CONTEXT_WAIT_S = 2.0
#: Seconds between looks for a frame's world while waiting.
CONTEXT_POLL_S = 0.01
#: Tries of a call whose context died under it (the document was replaced) before it gives up.
CALL_ATTEMPTS = 3

#: Runs a script with its arguments, an element taken from the pins put in at ``at`` (an argument's index, or
#: ``"root"`` for the first argument's ``root`` key); a key ``ref:N`` takes the element the walker registered as
#: ref ``eN`` in this document instead. Arguments: the script, its arguments, the key, ``at``.
_CALL = ("((f, args, key, at) => {"
         " if (key) { let el;"
         " if (key.startsWith('ref:')) { const bc = globalThis.__browserCtx;"
         " const w = bc && bc.refs && bc.refs.get(Number(key.slice(4))); el = w && w.deref();"
         " if (el && el.ownerDocument !== document) el = null; }"
         " else { const pins = globalThis.__browserCtxPins; el = pins && pins.get(key); if (pins) pins.delete(key); }"
         " if (at === 'all') { args.splice(0, 0, Array.isArray(el) ? el : []); return f(...args); }"
         " if (!el || !el.isConnected) throw new Error('Element is not attached to the DOM');"
         " if (at === 'root') args[0] = Object.assign({}, args[0], {root: el}); else args.splice(at, 0, el); }"
         " else if (at === 'all') args.splice(0, 0, []);"
         " return f(...args); })")
_NAVIGATED = "Execution context was destroyed, most likely because of a navigation"
#: Scripts longer than this (characters) are sent once per document: kept in the world under a number, then
#: called by it (a 100 kB walk costs Chromium 2-3 ms a call to take in again).
KEEP_CHARS = 8_000
_KEPT = "globalThis.__browserCtxScripts"
_MISSING = "browser-ctx: script not kept"
_kept_ids: dict[str, int] = {}


def _declarations(source: str) -> tuple[str, str | None, int]:
    """The ``Runtime.callFunctionOn`` declarations of ``source``: (the whole script, which keeps it when long;
    the call of the kept script, ``None`` for a short one; its number)."""
    if len(source) <= KEEP_CHARS:
        return f"function (args, key, at) {{ return {_CALL}(({source}), args, key, at); }}", None, 0
    n = _kept_ids.setdefault(source, len(_kept_ids) + 1)
    whole = (f"function (args, key, at) {{ const f = ({source}); "
             f"({_KEPT} || ({_KEPT} = new Map())).set({n}, f); return {_CALL}(f, args, key, at); }}")
    kept = (f"function (args, key, at) {{ const f = {_KEPT} && {_KEPT}.get({n}); "
            f"if (!f) throw new Error({_MISSING!r}); return {_CALL}(f, args, key, at); }}")
    return whole, kept, n


class _Session:
    """One CDP session (the page's, or an out-of-process iframe's) and its frames' isolated-world contexts,
    as last asked for or reported (a context dies with its document: a call that finds it gone asks again). While
    someone holds ``Runtime`` on the session (the capture does), its context events keep them current, so the
    first call into a new document neither fails on the old context nor asks for the new one. Closed when a
    call found it closed or the tab's :class:`.page_cdp.PageCDP` no longer has it. A new main world (a document
    shown, even one restored from the back/forward cache) drops the session's remembered document object
    (``listened``, :class:`.listeners.Kept`)."""

    def __init__(self, cdp: CDPSession, owner: PageCDP, world: str = "", listened: Kept | None = None) -> None:
        self.cdp = cdp
        self._listened = listened
        self.contexts: dict[str, int] = {}  # CDP frame id -> execution context id of the utility world
        self.kept: dict[int, set[int]] = {}  # context id -> the long scripts kept there (_declarations)
        self._owner = owner
        self._dead = False
        self._world = world
        cdp.on("Runtime.executionContextCreated", self._created)
        cdp.on("Runtime.executionContextDestroyed", self._destroyed)
        cdp.on("Runtime.executionContextsCleared", self._cleared)

    def _created(self, event: dict[str, Any]) -> None:
        context = event.get("context") or {}
        frame_id = (context.get("auxData") or {}).get("frameId")
        if self._listened is not None and (context.get("auxData") or {}).get("isDefault"):
            self._listened.documents.pop(self.cdp, None)
        if self._world and context.get("name") == self._world and frame_id and isinstance(context.get("id"), int):
            self.contexts[str(frame_id)] = context["id"]

    def _destroyed(self, event: dict[str, Any]) -> None:
        gone = event.get("executionContextId")
        for frame_id in [f for f, c in self.contexts.items() if c == gone]:
            del self.contexts[frame_id]
        if isinstance(gone, int):
            self.kept.pop(gone, None)

    def _cleared(self, _event: Any) -> None:
        self.contexts.clear()
        self.kept.clear()

    @property
    def closed(self) -> bool:
        return self._dead or not self._owner.is_open(self.cdp)

    @closed.setter
    def closed(self, value: bool) -> None:
        self._dead = value
        if value:
            self._owner.lost(self.cdp)

    def forget(self, frame_id: str, context_id: int) -> None:
        if self.contexts.get(frame_id) == context_id:
            del self.contexts[frame_id]
        self.kept.pop(context_id, None)


def _closed(exc: BaseException) -> bool:
    return error_kind(exc) == "closed"


def _stale(exc: BaseException) -> bool:
    return error_kind(exc) in ("stale-context", "navigated")


class _NoWorld(PlaywrightError):
    """The frame's document has no world of ours (yet): it navigated, or has no document."""


class WorldSessions:
    """The sessions, frames and contexts of one page's isolated worlds, and one script call in a frame's world
    (see the module docstring); :class:`.worlds.Worlds` adds element hand-off and main-world calls.

    Args:
        page: the Playwright page; one instance per page, kept as long as the page lives.
        cdp: the tab's CDP sessions (default: sessions of its own, detached by :meth:`close`).

    Attributes:
        isolated: ``True`` once scripts run in the isolated world, ``False`` when the page has no CDP
            session (they run in the main world), ``None`` before the first call.
    """

    def __init__(self, page: Page, cdp: PageCDP | None = None) -> None:
        self._page = page
        self._cdp = cdp if cdp is not None else PageCDP(page)
        self._owns_cdp = cdp is None
        self._session: _Session | None = None
        self._opening: asyncio.Task[_Session | None] | None = None
        self._oopif: dict[Frame, _Session | None] = {}
        self._frames: dict[Frame, tuple[_Session, str]] = {}
        self._world_name: str | None = None
        self._ref_locators: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self.isolated: bool | None = None
        #: What the listener pass remembers of this tab (:class:`.listeners.Kept`).
        self.listened = Kept()


    @property
    def page(self) -> Page:
        """The page whose frames these worlds are."""
        return self._page

    @property
    def cdp(self) -> PageCDP:
        """The CDP sessions these worlds use (the tab's)."""
        return self._cdp

    # --- sessions -----------------------------------------------------------------------------------------

    async def _open(self, frame: Frame | None) -> _Session | None:
        """The tab's session of the page (``frame`` ``None``) or of an out-of-process ``frame``, or ``None`` when
        it has none (an in-process frame, a non-Chromium browser). The first also learns the world's name.

        Raises:
            PlaywrightError: the page has no utility world (not Playwright's Chromium page) or closed.
        """
        try:
            cdp = await self._cdp.session(frame)
        except PlaywrightError:
            return None
        if self._world_name is None:
            names = self._utility_worlds()
            if not names:
                await self._cdp.enable(cdp, "Runtime")  # existing contexts are reported before it answers
                await self._cdp.release(cdp, "Runtime")
                names = self._utility_worlds()
            if not names or not await self._pin_engine_usable():
                return None
            self._world_name = names[0]
        return _Session(cdp, self._cdp, self._world_name, self.listened)

    def _utility_worlds(self) -> list[str]:
        return sorted(n for n in self._cdp.context_names() if n.startswith(UTILITY_WORLD_PREFIX))

    async def _pin_engine_usable(self) -> bool:
        """Whether the ``bcpin`` engine reaches this page's context. A context that existed before we connected
        (``--cdp-endpoint``: the user's browser) may not get the engines Playwright registers, and every hand-off
        to the isolated world would fail with 'Unknown engine'; such a page is read in its main world."""
        try:
            await self._page.main_frame.locator(f"{PIN_ENGINE_NAME}=probe").count()  # matches nothing, pins nothing
        except PlaywrightError as exc:
            if error_kind(exc) == "unknown-engine":
                # its pages are read in their main world
                return False
            raise
        return True

    async def _page_session(self) -> _Session | None:
        """The page's session (opened on first use; shared by callers), or ``None`` without CDP."""
        if self.isolated is False:
            return None
        if self._session is not None and not self._session.closed:
            return self._session
        if self._page.is_closed():
            raise PlaywrightError("Target page, context or browser has been closed")
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._open(None))
        session = await asyncio.shield(self._opening)  # a caller's timeout must not cancel the opening
        if session is None:
            if self._page.is_closed():
                raise PlaywrightError("Target page, context or browser has been closed")
            self.isolated = False
            return None
        self._session, self.isolated = session, True
        return session

    async def close(self) -> None:
        """Forget every session and context (and detach the sessions when these worlds have their own).
        Never raises."""
        self._session, self._opening = None, None
        self._oopif.clear()
        self._frames.clear()
        if self._owns_cdp:
            await self._cdp.close()

    # --- frames ---------------------------------------------------------------------------------------------

    async def _find_pin(self, session: _Session, key: str) -> str | None:
        """The CDP frame id (of ``session``'s frames) whose world holds pin ``key`` (taken out), or ``None``."""
        probe = (f"(() => {{ const p = globalThis.__browserCtxPins; return !!(p && p.delete({json.dumps(key)})); }})()")
        try:
            tree = await session.cdp.send("Page.getFrameTree")
        except PlaywrightError:
            return None
        frame_ids: list[str] = []
        todo = [tree.get("frameTree") or {}]
        while todo:
            node = todo.pop()
            frame_ids.append(str((node.get("frame") or {}).get("id")))
            todo.extend(node.get("childFrames") or ())

        async def holds(frame_id: str) -> str | None:
            try:
                context_id = await self._context(session, frame_id, wait=False)
                got = await session.cdp.send("Runtime.evaluate", {"expression": probe, "contextId": context_id,
                                                                  "returnByValue": True})
            except PlaywrightError:
                return None
            return frame_id if (got.get("result") or {}).get("value") is True else None

        hits = await asyncio.gather(*(holds(f) for f in frame_ids))
        return next((h for h in hits if h), None)

    async def _locate(self, frame: Frame) -> tuple[_Session, str] | None:
        """The session and CDP frame id of ``frame`` (cached), or ``None`` without CDP.

        Raises:
            PlaywrightError: the frame's world cannot be found (navigating, detached) or the page closed.
        """
        page_session = await self._page_session()
        if page_session is None:
            return None
        known = self._frames.get(frame)
        if known is not None and not known[0].closed:
            return known
        for gone in [f for f in self._frames if f.is_detached()]:
            del self._frames[gone]
        for gone in [f for f in self._oopif if f.is_detached()]:
            del self._oopif[gone]  # its session went with it (the tab's PageCDP detaches it)
        if frame.parent_frame is None:
            tree = await page_session.cdp.send("Page.getFrameTree")
            found = (page_session, str(tree["frameTree"]["frame"]["id"]))
        else:
            key = secrets.token_hex(8)
            if await frame.locator(f":root >> {PIN_ENGINE_NAME}=pin:{key}").count() == 0:
                raise _NoWorld(f"{_NAVIGATED} (no world: the frame has no document)")
            frame_id = await self._find_pin(page_session, key)
            session = page_session
            if frame_id is None:  # an out-of-process iframe: its own session
                if frame not in self._oopif or (self._oopif[frame] or page_session).closed:
                    self._oopif[frame] = await self._open(frame)
                oopif = self._oopif[frame]
                frame_id = await self._find_pin(oopif, key) if oopif is not None else None
                session = oopif or page_session
            if frame_id is None:
                raise _NoWorld(f"{_NAVIGATED} (no world found for the frame)")
            found = (session, frame_id)
        self._frames[frame] = found
        return found

    async def _context(self, session: _Session, frame_id: str, *, wait: bool = True) -> int:
        """The world's context id in ``frame_id``'s current document (asked for with ``Page.createIsolatedWorld``
        when not known), trying for up to :data:`CONTEXT_WAIT_S` while the frame is between documents
        (``wait``).

        Raises:
            PlaywrightError: no context (the frame is gone or still navigating), or the session closed.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CONTEXT_WAIT_S
        while True:
            if session.closed:
                raise PlaywrightError("Target closed (session detached)")
            context_id = session.contexts.get(frame_id)
            if context_id is not None:
                return context_id
            try:
                got = await session.cdp.send("Page.createIsolatedWorld", {
                    "frameId": frame_id, "worldName": self._world_name, "grantUniveralAccess": True})
                session.contexts[frame_id] = context_id = int(got["executionContextId"])
                return context_id
            except PlaywrightError as exc:
                if _closed(exc):
                    session.closed = True
                    raise
                if not wait or loop.time() >= deadline:
                    raise _NoWorld(f"{_NAVIGATED} (no world for the frame's document: {exc})") from exc
            await asyncio.sleep(CONTEXT_POLL_S)

    # --- calls ----------------------------------------------------------------------------------------------

    async def _call(self, frame: Frame, source: str, args: list[Any], key: str | None, at: int | str) -> Any:
        """Run ``source(*args)`` in ``frame``'s world, by value; tried again when its context died (the document
        was replaced) or the frame changed process."""
        # The script's text is the same on every call (its arguments travel apart), so V8 compiles it once; a
        # long one is sent once per document (_declarations).
        whole, short, n = _declarations(source)
        arguments = [{"value": args}, {"value": key} if key is not None else {}, {"value": at}]
        for attempt in range(CALL_ATTEMPTS):
            session: _Session | None = None
            frame_id, context_id = "", -1
            try:
                located = await self._locate(frame)
                if located is None:
                    raise PlaywrightError("no CDP session")  # not reached: callers check isolated first
                session, frame_id = located
                context_id = await self._context(session, frame_id)
                kept = session.kept.setdefault(context_id, set())
                answer = await session.cdp.send("Runtime.callFunctionOn", {
                    "functionDeclaration": short if short is not None and n in kept else whole,
                    "executionContextId": context_id, "arguments": arguments,
                    "returnByValue": True, "awaitPromise": True})
                if short is not None:
                    if _MISSING in str((answer.get("exceptionDetails") or {}).get("exception", {}).get("description")):
                        kept.discard(n)  # the world was made again under the same id: send it whole
                        continue
                    kept.add(n)
            except PlaywrightError as exc:
                if session is not None and _closed(exc):
                    session.closed = True
                    self._frames.pop(frame, None)
                elif session is not None and _stale(exc):
                    session.forget(frame_id, context_id)
                    if isinstance(exc, _NoWorld):
                        self._frames.pop(frame, None)  # it may have moved to another process: find it again
                else:
                    raise
                if attempt + 1 >= CALL_ATTEMPTS or self._page.is_closed() or frame.is_detached():
                    raise
                await asyncio.sleep(CONTEXT_POLL_S)
                continue
            thrown = answer.get("exceptionDetails")
            if thrown:
                described = (thrown.get("exception") or {}).get("description") or thrown.get("text") or "Error"
                if key is not None and "Element is not attached" in described:
                    raise PlaywrightError("Element is not attached to the DOM")
                raise PlaywrightError(str(described).split("\n    at ")[0])
            return (answer.get("result") or {}).get("value")
        raise PlaywrightError(_NAVIGATED)  # not reached

    async def cdp_available(self) -> bool:
        """Whether this page offers our CDP session (opened here on first use); ``False`` in non-Chromium
        browsers. Raises PlaywrightError when the page closed."""
        return await self._page_session() is not None

    async def context_of(self, frame: Frame, *, stale: int | None = None) -> tuple[bool, int] | None:
        """Whether ``frame`` is out of the page's process (it has a CDP session of its own) and its world's
        execution context id, valid in any CDP session of the same target; ``None`` without CDP. ``stale``: a
        context id a call found gone (its document was replaced), asked for again.

        Raises:
            PlaywrightError: the frame's world cannot be found (navigating, detached) or the page closed.
        """
        located = await self._locate(frame)
        if located is None:
            return None
        session, frame_id = located
        if stale is not None:
            session.forget(frame_id, stale)
        return session is not self._session, await self._context(session, frame_id)
