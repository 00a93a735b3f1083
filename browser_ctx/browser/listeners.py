"""Which elements a page listens to for clicks (stage 1 of the reading pipeline, before the walk).

A control built without ARIA (an icon ``<span>``, a word with a click handler, a tree item) often has nothing
but a listener to say it is one. CDP knows the page's listeners: ``DOMDebugger.getEventListeners`` of the
document (its whole subtree, one call) gives each listener's type and node. It lists the listeners of the
world the document object comes from, so the document is taken from the main world, where the page's scripts
run (the default context of ``cdp``'s target: a page's main frame, or an out-of-process iframe). The nodes with
click, mouse, pointer or touch listeners are handed to the walker's world (``DOM.resolveNode`` each, at most
:data:`MAX_NODES`; ``js/listened.js`` keeps them in the registry), where the walk reads them
(``js/operable.js``). Nothing is patched in the page.

Skipped (the walk then has no listeners to go by): documents over :data:`MAX_ELEMENTS` elements, frames that
share their parent's process (their main world has no context id here), and a frame that cannot be reached.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from .._errors import PageError, error_kind
from .ax_nodes import OBJECT_GROUP
from .closed_shadow import target_closed
from .scripts import bundle

if TYPE_CHECKING:
    from playwright.async_api import Frame

    from .semantics import FrameSessions
    from .worlds import Worlds

__all__ = ["CLICK_EVENTS", "MAX_NODES", "MAX_ELEMENTS", "mark_listened", "hand_over"]

#: Listener types that make an element operable.
CLICK_EVENTS = frozenset("click dblclick mousedown mouseup pointerdown pointerup touchstart touchend".split())
#: Most listened-to elements handed to the walk (the first in the order CDP lists them).
MAX_NODES = 300
#: Documents whose listened ids ``mark_listened``'s ``kept`` remembers (the most recent).
KEPT_CONTEXTS = 16
#: Documents with more elements than this are not asked (the listing walks the whole document).
MAX_ELEMENTS = 50_000

_DOCUMENT = f"document.getElementsByTagName('*').length <= {MAX_ELEMENTS} ? document : null"


async def mark_listened(cdp: CDPSession, context_id: int, *, keep_none: bool = True,
                        kept: dict[tuple[CDPSession, int], tuple[int, ...]] | None = None) -> int | None:
    """Find the elements of the document of ``cdp``'s target's main frame that have click, mouse, pointer or
    touch listeners and keep them in the registry of ``context_id`` (that frame's isolated world) for the next
    walk. Returns how many were found (0 when the document is too large or cannot be asked). A document with
    none keeps an empty set, or, with ``keep_none=False``, nothing (one call less): ``None`` is returned and the
    caller has the walk forget what was kept before (its ``listenedNone`` option). ``kept``: (session, context id) ->
    the backend node ids kept there last (the tab's :attr:`.world_sessions.WorldSessions.listened`, updated here);
    the same ids are not handed over again (two round trips fewer).

    Raises:
        PlaywrightError: only when the target closed, or ``context_id`` is gone (its document was replaced:
            ``error_kind`` "stale-context"; ask for the frame's context again).
    """
    try:
        doc = await cdp.send("Runtime.evaluate", {"expression": _DOCUMENT, "objectGroup": OBJECT_GROUP})
        doc_id = (doc.get("result") or {}).get("objectId")
        if not doc_id:
            return 0
        got = await cdp.send("DOMDebugger.getEventListeners", {"objectId": doc_id, "depth": -1, "pierce": False})
        ids: list[int] = []
        seen: set[int] = set()
        for listener in got.get("listeners") or ():
            node = listener.get("backendNodeId")
            if node and listener.get("type") in CLICK_EVENTS and node not in seen:
                seen.add(node)
                ids.append(int(node))
                if len(ids) >= MAX_NODES:
                    break
        if kept is not None and kept.get((cdp, context_id)) == tuple(ids) and (ids or keep_none):
            return len(ids)
        if kept is not None:
            kept.pop((cdp, context_id), None)
        if not ids:
            if not keep_none:
                return None
            await _keep(cdp, context_id, [])
        else:
            resolved = await asyncio.gather(*(_resolve(cdp, node, context_id) for node in ids))
            await _keep(cdp, context_id, [r for r in resolved if r])
        if kept is not None:
            kept[(cdp, context_id)] = tuple(ids)
            while len(kept) > KEPT_CONTEXTS:
                del kept[next(iter(kept))]
        return len(ids)
    except PlaywrightError as exc:
        if target_closed(exc) or error_kind(exc) == "stale-context":
            raise
        return 0  # the document went away meanwhile: the walk goes by the other signals


async def _resolve(cdp: CDPSession, backend_node_id: int, context_id: int) -> str | None:
    try:
        got = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_node_id, "executionContextId": context_id,
                                                 "objectGroup": OBJECT_GROUP})
    except PlaywrightError as exc:
        if target_closed(exc) or error_kind(exc) == "stale-context":
            raise
        return None
    return (got.get("object") or {}).get("objectId")


async def _keep(cdp: CDPSession, context_id: int, object_ids: list[str]) -> int:
    arguments: list[dict[str, Any]] = [{"objectId": oid} for oid in object_ids]
    got = await cdp.send("Runtime.callFunctionOn", {"functionDeclaration": bundle("listened"),
                                                    "executionContextId": context_id, "arguments": arguments,
                                                    "returnByValue": True})
    value = (got.get("result") or {}).get("value")
    return int(value) if isinstance(value, (int, float)) else 0


async def hand_over(frame: Frame, sessions: FrameSessions, worlds: Worlds) -> bool:
    """Hand the frame's listened-to elements to its next walk (:func:`mark_listened`); a frame that cannot be reached
    is walked without them. Returns whether it has none (the walk then forgets those kept before).

    Raises:
        PageError: the page or browser closed.
    """
    try:
        world = await worlds.context_of(frame)
        if world is None or (not world[0] and frame.parent_frame is not None):
            return False  # an in-process child frame: its main world is not the session's default context
        # not remembered across walks: a new renderer process reuses context and backend node ids
        cdp, kept = await sessions.for_frame(frame if world[0] else None), None
        try:
            return cdp is not None and await mark_listened(cdp, world[1], keep_none=False, kept=kept) is None
        except PlaywrightError as exc:  # the world's context died with its document (a navigation): ask again
            if cdp is None or error_kind(exc) != "stale-context":
                raise
            fresh = await worlds.context_of(frame, stale=world[1])
            return fresh is not None and await mark_listened(cdp, fresh[1], keep_none=False, kept=kept) is None
    except PageError:
        raise
    except PlaywrightError:  # navigating or detached: the walk that follows says what it can
        return False
