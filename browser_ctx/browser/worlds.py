"""Where our page-side JavaScript runs: an isolated world of each frame, out of the page's reach.

A page's scripts can patch ``getComputedStyle``, ``Element.prototype.getAttributeNames``, ``JSON``, ``Array``
methods or remove ``WeakRef``; code run in the page's main world would then read what the page chooses (hidden
text as visible) or fail. An isolated world shares the DOM with the page but not its globals or prototypes.

We use the isolated world Playwright already keeps in every frame of a Chromium page (created with CDP
``Page.createIsolatedWorld`` and re-created for each new document, named
``__playwright_utility_world_<page guid>``): selector engines registered with ``content_script=True`` run
there too, so the ``bcref`` engine sees the ref registry our walker keeps in it (``window.__browserCtx`` of
that world), and locators of refs keep working for every Playwright action.

- :class:`Worlds` (one per page, owned by its ``Tab``) opens one CDP session for the page, lazily, and learns
  the world's name once (``Runtime.enable`` lists the contexts, then ``Runtime.disable``: the session does
  not stay subscribed to console or context events). A frame's context in that world comes from
  ``Page.createIsolatedWorld {frameId, worldName}``, which answers the existing world's context (worlds are
  shared by name), kept until a call finds it gone with its document. An out-of-process iframe gets its own
  session the same way.
- A Playwright :class:`~playwright.async_api.Frame` is matched to its CDP frame id once: the ``bcpin``
  selector engine (``js/pin_engine.js``, a content script) pins the frame's root element under a random key,
  and the context holding the key names the frame. The main frame is the root of ``Page.getFrameTree``.
- An element (a locator's first match, or a handle) is handed to a script the same way: pinned under a random
  key by Playwright, taken out by the script.
- Code that has a locator or a frame but no tab (choosing options, reading a widget's state, a document's facts)
  uses :func:`on_element`, :func:`on_elements` and :func:`in_frame`: they run in the world of the tab the current
  tool call works on (:meth:`Worlds.enter`, set when the call gets its tab; a ``ContextVar``, so concurrent
  calls of other sessions never see it), when the element is on that tab's page, else in the main world.

Cost: one ``Runtime.callFunctionOn`` per script call (the script's text fixed, its arguments apart, so V8's
compilation cache keeps it), as Playwright's own ``frame.evaluate``; the first call on a
page adds a session and ``Runtime.enable`` (a few ms), the first on each frame one pin; an element adds one
Playwright round trip (the pin).

Fallback: when the page offers no CDP session (a non-Chromium browser), :attr:`Worlds.isolated` is ``False``
and every script runs in the frame's main world through Playwright, as before: a page that patches builtins
can then make reads lie or fail, and refs resolve through the main-world engine (``bcrefmain``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from .._errors import error_kind

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, ElementHandle, Frame, Page

__all__ = ["Worlds", "PIN_ENGINE_NAME", "UTILITY_WORLD_PREFIX", "on_element", "on_elements", "in_frame", "frame_of"]

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
#: ``"root"`` for the first argument's ``root`` key). Arguments: the script, its arguments, the pin key, ``at``.
_CALL = ("((f, args, key, at) => {"
         " if (key) { const pins = globalThis.__browserCtxPins; const el = pins && pins.get(key);"
         " if (pins) pins.delete(key);"
         " if (at === 'all') { args.splice(0, 0, Array.isArray(el) ? el : []); return f(...args); }"
         " if (!el || !el.isConnected) throw new Error('Element is not attached to the DOM');"
         " if (at === 'root') args[0] = Object.assign({}, args[0], {root: el}); else args.splice(at, 0, el); }"
         " else if (at === 'all') args.splice(0, 0, []);"
         " return f(...args); })")
_NAVIGATED = "Execution context was destroyed, most likely because of a navigation"
#: The worlds of the tab the current tool call works on (see :meth:`Worlds.enter`).
_CURRENT: ContextVar[Worlds | None] = ContextVar("browser_ctx_worlds", default=None)


class _Session:
    """One CDP session (the page's, or an out-of-process iframe's) and its frames' isolated-world contexts,
    as last asked for (a context dies with its document: a call that finds it gone asks again)."""

    def __init__(self, cdp: CDPSession) -> None:
        self.cdp = cdp
        self.contexts: dict[str, int] = {}  # CDP frame id -> execution context id of the utility world
        self.closed = False

    def forget(self, frame_id: str, context_id: int) -> None:
        if self.contexts.get(frame_id) == context_id:
            del self.contexts[frame_id]


def _closed(exc: BaseException) -> bool:
    return error_kind(exc) == "closed"


def _stale(exc: BaseException) -> bool:
    return error_kind(exc) in ("stale-context", "navigated")


class _NoWorld(PlaywrightError):
    """The frame's document has no world of ours (yet): it navigated, or has no document."""


class Worlds:
    """Runs our page-side scripts in an isolated world of each frame of one page (see the module docstring).

    Args:
        page: the Playwright page; one instance per page, kept as long as the page lives.

    Attributes:
        isolated: ``True`` once scripts run in the isolated world, ``False`` when the page has no CDP
            session (they run in the main world), ``None`` before the first call.
    """

    def __init__(self, page: Page) -> None:
        self._page = page
        self._session: _Session | None = None
        self._opening: asyncio.Task[_Session | None] | None = None
        self._oopif: dict[Frame, _Session | None] = {}
        self._frames: dict[Frame, tuple[_Session, str]] = {}
        self._world_name: str | None = None
        self.isolated: bool | None = None

    def enter(self) -> None:
        """Make these the worlds of the current tool call (for :func:`on_element`, :func:`in_frame` …): set by
        the session when a call gets its tab; holds for the rest of the call's task and tasks it starts."""
        _CURRENT.set(self)

    @property
    def page(self) -> Page:
        """The page whose frames these worlds are."""
        return self._page

    # --- sessions -----------------------------------------------------------------------------------------

    async def _open(self, target: Page | Frame) -> _Session | None:
        """A new session on ``target``, or ``None`` when it has no session of its own (an in-process frame,
        a non-Chromium browser). The first also learns the world's name.

        Raises:
            PlaywrightError: the page has no utility world (not Playwright's Chromium page) or closed.
        """
        try:
            cdp = await self._page.context.new_cdp_session(target)
        except PlaywrightError:
            return None
        if self._world_name is None:
            names: list[str] = []

            def created(event: dict[str, Any]) -> None:
                name = str((event.get("context") or {}).get("name", ""))
                if name.startswith(UTILITY_WORLD_PREFIX):
                    names.append(name)

            cdp.on("Runtime.executionContextCreated", created)
            try:
                await cdp.send("Runtime.enable")  # existing contexts are reported before it answers
                await cdp.send("Runtime.disable")
            finally:
                cdp.remove_listener("Runtime.executionContextCreated", created)
            if not names or not await self._pin_engine_usable():
                with contextlib.suppress(PlaywrightError):
                    await cdp.detach()
                return None
            self._world_name = names[0]
        return _Session(cdp)

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
        if self._opening is None or self._opening.done() and self._opening.exception() is not None:
            self._opening = asyncio.ensure_future(self._open(self._page))
        session = await asyncio.shield(self._opening)  # a caller's timeout must not cancel the opening
        if session is None:
            if self._page.is_closed():
                raise PlaywrightError("Target page, context or browser has been closed")
            self.isolated = False
            return None
        self._session, self.isolated = session, True
        return session

    async def close(self) -> None:
        """Detach every session this page's worlds opened. Never raises."""
        sessions = [s for s in [self._session, *self._oopif.values()] if s is not None]
        self._session, self._opening = None, None
        self._oopif.clear()
        self._frames.clear()
        for s in sessions:
            s.closed = True
            try:
                await s.cdp.detach()
            except PlaywrightError:
                pass  # the page is gone, and its sessions with it

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
            old = self._oopif.pop(gone)
            if old is not None:
                old.closed = True
                with contextlib.suppress(PlaywrightError):
                    await old.cdp.detach()
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
        # The script's text is the same on every call (its arguments travel apart), so V8 compiles it once.
        declaration = f"function (args, key, at) {{ return {_CALL}(({source}), args, key, at); }}"
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
                answer = await session.cdp.send("Runtime.callFunctionOn", {
                    "functionDeclaration": declaration, "executionContextId": context_id, "arguments": arguments,
                    "returnByValue": True, "awaitPromise": True})
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

    async def evaluate(self, frame: Frame, source: str, arg: Any = None, *, root: ElementHandle | None = None) -> Any:
        """Return ``source(arg)`` run in ``frame``'s isolated world, by value (JSON-like data).

        Args:
            frame: the frame to run in.
            source: one function expression (``scripts.script(name)``).
            arg: its argument; JSON-serialisable (``None``: none).
            root: an element of ``frame`` passed as ``arg["root"]`` (``arg`` must then be a dict).

        Raises:
            PlaywrightError: the script threw (its message), the frame navigated or detached, the page closed.
        """
        if await self._page_session() is None:
            if root is not None:
                arg = {**(arg or {}), "root": root}
            return await frame.evaluate(source, arg)
        key = None
        if root is not None:
            key = await self._pin(root)
        return await self._call(frame, source, [arg], key, "root")

    async def on_element(self, target: Locator | ElementHandle, source: str, arg: Any = None, *,
                         timeout_ms: float | None = None) -> Any:
        """Return ``source(element, arg)`` run in the isolated world, for ``target``'s element (a locator's
        first match, waited for up to ``timeout_ms`` as Playwright's ``locator.evaluate`` waits).

        Raises:
            PlaywrightError: as :meth:`evaluate`; Playwright's timeout when the locator matches nothing.
        """
        if await self._page_session() is None:
            if isinstance(target, Locator):
                return await target.first.evaluate(source, arg, timeout=timeout_ms)
            return await target.evaluate(source, arg)
        key = secrets.token_hex(8)
        pinned: ElementHandle | None
        if isinstance(target, Locator):
            pinned = await target.first.locator(f"{PIN_ENGINE_NAME}=pin:{key}").element_handle(timeout=timeout_ms)
        else:
            pinned = await target.query_selector(f"{PIN_ENGINE_NAME}=pin:{key}")
            if pinned is None:
                raise PlaywrightError("Element is not attached to the DOM")
        try:
            frame = await self._frame_holding(key, take=False) or await pinned.owner_frame()
        finally:
            await _dispose(pinned)
        if frame is None:
            raise PlaywrightError("Element is not attached to the DOM")
        return await self._call(frame, source, [arg], key, 0)

    async def on_all(self, locator: Locator, source: str, arg: Any = None) -> Any:
        """Return ``source(elements, arg)`` run in the isolated world, for every match of ``locator`` in
        document order (``[]`` when none; no waiting), like Playwright's ``locator.evaluate_all``.

        Raises:
            PlaywrightError: as :meth:`evaluate`.
        """
        if await self._page_session() is None:
            return await locator.evaluate_all(source, arg)
        key = secrets.token_hex(8)
        pinned = locator.locator(f"{PIN_ENGINE_NAME}=all:{key}")
        if await pinned.count() == 0:
            return await self._call_nowhere(source, arg)
        frame = await self._frame_holding(key, take=False)
        if frame is None:  # not in a frame we could probe: ask Playwright (main-world code)
            handle = await locator.first.element_handle()
            try:
                frame = await handle.owner_frame()
            finally:
                await _dispose(handle)
        if frame is None:
            raise PlaywrightError("Element is not attached to the DOM")
        return await self._call(frame, source, [arg], key, "all")

    async def frame_of(self, handle: ElementHandle) -> Frame | None:
        """The frame whose document holds ``handle``'s element, or ``None`` when it is detached.

        Unlike Playwright's ``ElementHandle.owner_frame()``, which runs code in the page's main world (where a
        page that replaced ``window.Map`` makes it throw), this pins the element in the isolated world and
        asks each frame's world whether it holds the pin (the main frame first); ``owner_frame()`` is the
        fallback when no frame answers (and the only way without CDP).

        Raises:
            PlaywrightError: the page closed.
        """
        if await self._page_session() is None:
            return await handle.owner_frame()
        key = secrets.token_hex(8)
        pinned = await handle.query_selector(f"{PIN_ENGINE_NAME}=pin:{key}")
        if pinned is None:
            return None  # not attached
        await _dispose(pinned)
        frame = await self._frame_holding(key, take=True)
        return frame if frame is not None else await handle.owner_frame()

    async def _frame_holding(self, key: str, *, take: bool) -> Frame | None:
        """The frame of this page whose isolated world holds pin ``key`` (taken out when ``take``), or ``None``.
        The main frame is asked first, then every other frame at once; a frame that cannot answer (navigating,
        detached) counts as not holding it."""
        probe = ("(key, take) => { const p = globalThis.__browserCtxPins;"
                 " return !!(p && (take ? p.delete(key) : p.has(key))); }")

        async def holds(frame: Frame) -> bool:
            if frame.is_detached():
                return False
            try:
                return await self._call(frame, probe, [key, take], None, 0) is True
            except PlaywrightError:
                return False

        main = self._page.main_frame
        if await holds(main):
            return main
        others = [f for f in self._page.frames if f is not main]
        hits = await asyncio.gather(*(holds(f) for f in others))
        return next((f for f, hit in zip(others, hits, strict=True) if hit), None)

    async def cdp_available(self) -> bool:
        """Whether this page offers our CDP session (opened here on first use); ``False`` in non-Chromium
        browsers. Raises PlaywrightError when the page closed."""
        return await self._page_session() is not None

    async def in_main_world(self, function: str) -> Any:
        """Return ``function()`` run in the main frame's *main* world (the page's own globals), by value, through
        CDP ``Runtime.evaluate`` on our session: V8 serialises the result, so unlike Playwright's
        ``page.evaluate`` (whose main-world helper builds ``Map``s) a page that replaced ``window.Map`` or
        other builtins cannot break the call itself. A returned promise is awaited.

        Args:
            function: one function expression taking no arguments.

        Returns:
            Its JSON-like result; ``None`` for ``undefined``.

        Raises:
            PlaywrightError: it threw (the exception's first line, e.g. ``"SyntaxError: …"``), the page closed;
                "no CDP session" when the page has none (callers then use Playwright's ``page.evaluate``).
        """
        session = await self._page_session()
        if session is None:
            raise PlaywrightError("no CDP session")
        try:
            answer = await session.cdp.send("Runtime.evaluate", {
                "expression": f"({function}\n)()", "returnByValue": True, "awaitPromise": True,
                "userGesture": True})
        except PlaywrightError as exc:
            if _closed(exc):
                session.closed = True
            raise
        thrown = answer.get("exceptionDetails")
        if thrown:
            described = (thrown.get("exception") or {}).get("description") or thrown.get("text") or "Error"
            raise PlaywrightError(str(described).split("\n    at ")[0])
        return (answer.get("result") or {}).get("value")

    async def on_element_in_main_world(self, locator: Locator, function: str, *,
                                       timeout_ms: float | None = None) -> Any:
        """Return ``function(element)`` for ``locator``'s first match (waited for up to ``timeout_ms``), run in
        its frame's *main* world by CDP (:meth:`in_main_world`'s reasons): the element is pinned in the
        isolated world, found there, named by its backend node id and resolved in the main world
        (``DOM.resolveNode``). Falls back to Playwright's ``locator.evaluate`` without CDP or when no frame of
        this page's session holds the element (an out-of-process iframe).

        Raises:
            PlaywrightError: it threw (first line of the exception), the element went, the page closed;
                Playwright's timeout when the locator matches nothing.
        """
        if await self._page_session() is None:
            return await locator.first.evaluate(function, timeout=timeout_ms)
        key = secrets.token_hex(8)
        pinned = await locator.first.locator(f"{PIN_ENGINE_NAME}=pin:{key}").element_handle(timeout=timeout_ms)
        await _dispose(pinned)
        frame = await self._frame_holding(key, take=False)
        located = await self._locate(frame) if frame is not None else None
        if located is None or located[0] is not self._session:
            return await locator.first.evaluate(function, timeout=timeout_ms)
        session, frame_id = located
        cdp = session.cdp
        context_id = await self._context(session, frame_id)
        taken = await cdp.send("Runtime.callFunctionOn", {
            "functionDeclaration": "function (key) { const p = globalThis.__browserCtxPins; const el = p && p.get(key);"
                                   " if (p) p.delete(key); return el && el.isConnected ? el : null; }",
            "executionContextId": context_id, "arguments": [{"value": key}], "returnByValue": False})
        isolated = (taken.get("result") or {}).get("objectId")
        if not isolated:
            raise PlaywrightError("Element is not attached to the DOM")
        try:
            node = await cdp.send("DOM.describeNode", {"objectId": isolated})
        finally:
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Runtime.releaseObject", {"objectId": isolated})
        resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": node["node"]["backendNodeId"]})
        main_object = str((resolved.get("object") or {}).get("objectId") or "")
        if not main_object:
            raise PlaywrightError("Element is not attached to the DOM")
        try:
            answer = await cdp.send("Runtime.callFunctionOn", {
                "functionDeclaration": f"function () {{ return ({function}\n)(this); }}", "objectId": main_object,
                "returnByValue": True, "awaitPromise": True, "userGesture": True})
        finally:
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Runtime.releaseObject", {"objectId": main_object})
        thrown = answer.get("exceptionDetails")
        if thrown:
            described = (thrown.get("exception") or {}).get("description") or thrown.get("text") or "Error"
            raise PlaywrightError(str(described).split("\n    at ")[0])
        return (answer.get("result") or {}).get("value")

    async def _call_nowhere(self, source: str, arg: Any) -> Any:
        """``source([], arg)`` for a locator that matched nothing (run in the main frame's world)."""
        return await self._call(self._page.main_frame, source, [arg], None, "all")

    async def _pin(self, handle: ElementHandle) -> str:
        key = secrets.token_hex(8)
        pinned = await handle.query_selector(f"{PIN_ENGINE_NAME}=pin:{key}")
        if pinned is None:
            raise PlaywrightError("Element is not attached to the DOM")
        await _dispose(pinned)
        return key

    async def mark_frame(self, child: Frame, frame_id: str) -> None:
        """Label ``child``'s ``<iframe>`` element with its id (``f3``) in the world the walker reads it in.

        Raises:
            PlaywrightError: the frame is detached or has no element.
        """
        handle = await child.frame_element()
        try:
            if await self._page_session() is None:
                await handle.evaluate("(el, id) => { el.__browserCtxFrameId = id }", frame_id)
            else:
                marked = await handle.query_selector(f"{PIN_ENGINE_NAME}=frame:{frame_id}")
                if marked is not None:
                    await marked.dispose()
        finally:
            await handle.dispose()

    async def context_of(self, frame: Frame) -> tuple[bool, int] | None:
        """Whether ``frame`` is out of the page's process (it has a CDP session of its own) and its world's
        execution context id, valid in any CDP session of the same target; ``None`` without CDP.

        Raises:
            PlaywrightError: the frame's world cannot be found (navigating, detached) or the page closed.
        """
        located = await self._locate(frame)
        if located is None:
            return None
        session, frame_id = located
        return session is not self._session, await self._context(session, frame_id)


async def _dispose(handle: ElementHandle) -> None:
    try:
        await handle.dispose()
    except PlaywrightError:
        pass  # the page went away: the handle with it


def _current(page: Page) -> Worlds | None:
    worlds = _CURRENT.get()
    return worlds if worlds is not None and worlds.page is page else None


async def on_element(locator: Locator, source: str, arg: Any = None, *, timeout_ms: float | None = None) -> Any:
    """Return ``source(element, arg)`` for ``locator``'s first match (waited for up to ``timeout_ms``), run in
    the isolated world of the current call's tab (:meth:`Worlds.on_element`), or in the main world when the
    element is on another page or no call set its worlds (:meth:`Worlds.enter`).

    Raises:
        PlaywrightError: as :meth:`Worlds.on_element`.
    """
    worlds = _current(locator.page)
    if worlds is None:
        return await locator.first.evaluate(source, arg, timeout=timeout_ms)
    return await worlds.on_element(locator, source, arg, timeout_ms=timeout_ms)


async def on_elements(locator: Locator, source: str, arg: Any = None) -> Any:
    """Return ``source(elements, arg)`` for every match of ``locator`` (:meth:`Worlds.on_all`), in the isolated
    world as :func:`on_element` decides, else through Playwright's ``evaluate_all`` in the main world."""
    worlds = _current(locator.page)
    if worlds is None:
        return await locator.evaluate_all(source, arg)
    return await worlds.on_all(locator, source, arg)


async def frame_of(handle: ElementHandle, page: Page) -> Frame | None:
    """The frame of ``handle``'s element on ``page`` (:meth:`Worlds.frame_of`: no main-world code) when the
    current call works on ``page``, else Playwright's ``owner_frame()``; ``None`` when it is detached."""
    worlds = _current(page)
    if worlds is None:
        return await handle.owner_frame()
    return await worlds.frame_of(handle)


async def in_frame(frame: Frame, source: str, arg: Any = None) -> Any:
    """Return ``source(arg)`` run in ``frame`` (:meth:`Worlds.evaluate`), in the isolated world as
    :func:`on_element` decides, else through Playwright in the main world."""
    worlds = _current(frame.page)
    if worlds is None:
        return await frame.evaluate(source, arg)
    return await worlds.evaluate(frame, source, arg)
