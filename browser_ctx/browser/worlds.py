"""Where our page-side JavaScript runs: an isolated world of each frame, out of the page's reach.

A page's scripts can patch ``getComputedStyle``, ``Element.prototype.getAttributeNames``, ``JSON``, ``Array``
methods or remove ``WeakRef``; code run in the page's main world would then read what the page chooses (hidden
text as visible) or fail. An isolated world shares the DOM with the page but not its globals or prototypes.

We use the isolated world Playwright already keeps in every frame of a Chromium page (created with CDP
``Page.createIsolatedWorld`` and re-created for each new document, named
``__playwright_utility_world_<page guid>``): selector engines registered with ``content_script=True`` run
there too, so the ``bcref`` engine sees the ref registry our walker keeps in it (``window.__browserCtx`` of
that world), and locators of refs keep working for every Playwright action.

- :class:`Worlds` (one per page, owned by its ``Tab``) uses the tab's CDP sessions (:class:`.page_cdp.PageCDP`:
  the page's, one per out-of-process iframe) and keeps each frame's context in that world
  (:mod:`.world_sessions`, its base class).
- An element (a locator's first match, or a handle) is handed to a script through the ``bcpin`` selector
  engine (``js/pin_engine.js``, a content script): pinned under a random key by Playwright, taken out by the
  script.
- Code that has a locator or a frame and is given its tab's worlds (choosing options, reading a widget's state,
  a document's facts) uses :func:`on_element`, :func:`on_elements`, :func:`frame_of` and :func:`in_frame`: they run
  in those worlds when the element is on their page, else (no worlds given, another page) in the main world.

Cost: one ``Runtime.callFunctionOn`` per script call (the script's text fixed, its arguments apart, so V8's
compilation cache keeps it; one over 8,000 characters, the walk, is sent once per document and then called by
number), as Playwright's own ``frame.evaluate``; the first call on a
page may add ``Runtime.enable`` (a few ms), the first on each frame one pin; an element adds one
Playwright round trip (the pin).

Fallback: when the page offers no CDP session (a non-Chromium browser), :attr:`Worlds.isolated` is ``False``
and every script runs in the frame's main world through Playwright, as before: a page that patches builtins
can then make reads lie or fail, and refs resolve through the main-world engine (``bcrefmain``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from .world_sessions import PIN_ENGINE_NAME, UTILITY_WORLD_PREFIX, WorldSessions, _closed

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Frame, Page

__all__ = ["Worlds", "PIN_ENGINE_NAME", "UTILITY_WORLD_PREFIX", "on_element", "on_elements", "in_frame", "frame_of"]

class Worlds(WorldSessions):
    """Runs our page-side scripts in an isolated world of each frame of one page (see the module docstring).

    Args:
        page: the Playwright page; one instance per page, kept as long as the page lives.
        cdp: the tab's CDP sessions (:class:`.page_cdp.PageCDP`; default: sessions of its own).

    Attributes:
        isolated: ``True`` once scripts run in the isolated world, ``False`` when the page has no CDP
            session (they run in the main world), ``None`` before the first call.
    """

    # --- scripts, element hand-off, main-world calls ------------------------------------------------------

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

    def know_ref(self, locator: Locator, number: int) -> None:
        """Note that ``locator`` is the main frame's ref ``e<number>`` (:func:`.targets.locator_for`): on a page
        of one frame, :meth:`on_element` then takes its element from the walker's registry in one round trip,
        without waiting (a ref's element is there or never: it raises "Element is not attached to the DOM")."""
        self._ref_locators[locator] = number

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
        number = self._ref_locators.get(target) if isinstance(target, Locator) else None
        if number is not None and len(self._page.frames) == 1:  # a ref is there or never: no waiting
            return await self._call(self._page.main_frame, source, [arg], f"ref:{number}", 0)
        key = secrets.token_hex(8)
        if isinstance(target, Locator) and len(self._page.frames) == 1:
            # one frame: the pin is there; no handle to dispose, no frame to find (two round trips fewer)
            await target.first.locator(f"{PIN_ENGINE_NAME}=pin:{key}").wait_for(state="attached",
                                                                                timeout=timeout_ms)
            return await self._call(self._page.main_frame, source, [arg], key, 0)
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

    async def ready_and_insert(self, locator: Locator, source: str, text: str) -> bool:
        """For a ref's locator (:meth:`know_ref`) on a page of one frame: run ``source(element)`` in the isolated
        world and, when it returns true, insert ``text`` where the focus is (CDP ``Input.insertText``, what
        Playwright's fill sends): two round trips. ``False`` when nothing was done (not a ref, more frames, no
        CDP, or ``source`` said no).

        Raises:
            PlaywrightError: as :meth:`on_element` (the ref's element is gone, the page closed).
        """
        number = self._ref_locators.get(locator)
        if number is None or len(self._page.frames) != 1:
            return False
        session = await self._page_session()
        if session is None or not await self._call(self._page.main_frame, source, [None], f"ref:{number}", 0):
            return False
        await session.cdp.send("Input.insertText", {"text": text})
        return True

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

async def _dispose(handle: ElementHandle) -> None:
    try:
        await handle.dispose()
    except PlaywrightError:
        pass  # the page went away: the handle with it


def _of(worlds: Worlds | None, page: Page) -> Worlds | None:
    return worlds if worlds is not None and worlds.page is page else None


async def on_element(worlds: Worlds | None, locator: Locator, source: str, arg: Any = None, *,
                     timeout_ms: float | None = None) -> Any:
    """Return ``source(element, arg)`` for ``locator``'s first match (waited for up to ``timeout_ms``), run in
    the isolated world of ``worlds`` (the tab's, :meth:`Worlds.on_element`), or in the main world when the
    element is on another page or no worlds are given.

    Raises:
        PlaywrightError: as :meth:`Worlds.on_element`.
    """
    own = _of(worlds, locator.page)
    if own is None:
        return await locator.first.evaluate(source, arg, timeout=timeout_ms)
    return await own.on_element(locator, source, arg, timeout_ms=timeout_ms)


async def on_elements(worlds: Worlds | None, locator: Locator, source: str, arg: Any = None) -> Any:
    """Return ``source(elements, arg)`` for every match of ``locator`` (:meth:`Worlds.on_all`), in the isolated
    world as :func:`on_element` decides, else through Playwright's ``evaluate_all`` in the main world."""
    own = _of(worlds, locator.page)
    if own is None:
        return await locator.evaluate_all(source, arg)
    return await own.on_all(locator, source, arg)


async def frame_of(worlds: Worlds | None, handle: ElementHandle, page: Page) -> Frame | None:
    """The frame of ``handle``'s element on ``page`` (:meth:`Worlds.frame_of`: no main-world code) when
    ``worlds`` are ``page``'s, else Playwright's ``owner_frame()``; ``None`` when it is detached."""
    own = _of(worlds, page)
    if own is None:
        return await handle.owner_frame()
    return await own.frame_of(handle)


async def in_frame(worlds: Worlds | None, frame: Frame, source: str, arg: Any = None) -> Any:
    """Return ``source(arg)`` run in ``frame`` (:meth:`Worlds.evaluate`), in the isolated world as
    :func:`on_element` decides, else through Playwright in the main world."""
    own = _of(worlds, frame.page)
    if own is None:
        return await frame.evaluate(source, arg)
    return await own.evaluate(frame, source, arg)
