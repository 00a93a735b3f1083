"""Which elements a page listens to for clicks (stage 1 of the reading pipeline, before the walk).

A control built without ARIA (an icon ``<span>``, a word with a click handler, a tree item) often has nothing
but a listener to say it is one. CDP knows the page's listeners: ``DOMDebugger.getEventListeners`` of the
document (its whole subtree, one call) gives each listener's type and node. It lists the listeners of the
world the document object comes from, so the document is taken from the main world, where the page's scripts
run (the default context of ``cdp``'s target: a page's main frame, or an out-of-process iframe). The nodes with
click, mouse, pointer or touch listeners are handed to the walker's world (``DOM.resolveNode`` each, at most
:data:`MAX_NODES`; ``js/listened.js`` keeps them in the registry), where the walk reads them
(``js/operable.js``). Nothing is patched in the page. The same elements are not handed over again: the set is kept
with a token the next walk is told to expect (``listened``), and a world that lacks it (its document was replaced,
even under the same context id) makes the walk throw :data:`NOT_KEPT`; it is then handed over again.

Skipped (the walk then has no listeners to go by): documents over :data:`MAX_ELEMENTS` elements, frames that
share their parent's process (their main world has no context id here), and a frame that cannot be reached.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
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

__all__ = ["CLICK_EVENTS", "MAX_NODES", "MAX_ELEMENTS", "NOT_KEPT", "Kept", "Listened", "mark_listened",
           "hand_over"]

#: Listener types that make an element operable.
CLICK_EVENTS = frozenset("click dblclick mousedown mouseup pointerdown pointerup touchstart touchend".split())
#: Most listened-to elements handed to the walk (the first in the order CDP lists them).
MAX_NODES = 300
#: Documents whose listened ids ``mark_listened``'s ``kept`` remembers (the most recent).
KEPT_CONTEXTS = 16
#: What a walk told to expect a listened set its world was not given throws (``js/walk.js``).
NOT_KEPT = "browser-ctx: listened set not kept"
#: Documents with more elements than this are not asked (the listing walks the whole document).
MAX_ELEMENTS = 50_000
#: A remembered document object is asked again while its listing takes less than this (seconds); a slower one is
#: counted again first (:data:`MAX_ELEMENTS`).
QUICK_LISTING_S = 0.05
#: The object group of the remembered document objects (not the read's :data:`.ax_nodes.OBJECT_GROUP`, which each
#: read releases; they go with their document's world).
DOCUMENT_GROUP = "browser-ctx-listened-document"

_DOCUMENT = f"document.getElementsByTagName('*').length <= {MAX_ELEMENTS} ? document : null"


class Kept:
    """What the listener pass remembers of one tab (:attr:`.world_sessions.WorldSessions.listened`): per (session,
    world context id) the backend node ids kept there last and their token (at most :data:`KEPT_CONTEXTS`), and per
    session its main world's document object, asked again instead of found again (one round trip fewer) until a
    call on it fails (its document went) or its listing is slow."""

    def __init__(self) -> None:
        self.sets: dict[tuple[CDPSession, int], tuple[tuple[int, ...], str]] = {}
        self.documents: dict[CDPSession, str] = {}

    def keep(self, cdp: CDPSession, context_id: int, ids: tuple[int, ...], token: str) -> None:
        self.sets[(cdp, context_id)] = (ids, token)
        while len(self.sets) > KEPT_CONTEXTS:
            del self.sets[next(iter(self.sets))]


@dataclass(frozen=True)
class Listened:
    """What :func:`hand_over` did: ``none``: the document has no listened-to elements (the walk forgets those kept
    before, its ``listenedNone``); ``token``: the walk is to find the set kept under it (its ``listened``)."""

    none: bool = False
    token: str | None = None


async def mark_listened(cdp: CDPSession, context_id: int, *, keep_none: bool = True,
                        kept: Kept | None = None) -> int | None:
    """Find the elements of the document of ``cdp``'s target's main frame that have click, mouse, pointer or
    touch listeners and keep them in the registry of ``context_id`` (that frame's isolated world) for the next
    walk. Returns how many were found (0 when the document is too large or cannot be asked). A document with
    none keeps an empty set, or, with ``keep_none=False``, nothing (one call less): ``None`` is returned and the
    caller has the walk forget what was kept before (its ``listenedNone`` option). ``kept``: the tab's memo, updated
    here: the same ids are not handed over again (two round trips fewer; the walk is to check the token), and the
    document object is reused.

    Raises:
        PlaywrightError: only when the target closed, or ``context_id`` is gone (its document was replaced:
            ``error_kind`` "stale-context"; ask for the frame's context again).
    """
    try:
        got = await _listing(cdp, kept)
        if got is None:
            return 0
        ids: list[int] = []
        seen: set[int] = set()
        for listener in got.get("listeners") or ():
            node = listener.get("backendNodeId")
            if node and listener.get("type") in CLICK_EVENTS and node not in seen:
                seen.add(node)
                ids.append(int(node))
                if len(ids) >= MAX_NODES:
                    break
        was = kept.sets.pop((cdp, context_id), None) if kept is not None else None
        if kept is not None and was is not None and was[0] == tuple(ids) and (ids or keep_none):
            kept.keep(cdp, context_id, *was)
            return len(ids)
        token = secrets.token_hex(6)
        if not ids:
            if not keep_none:
                return None
            await _keep(cdp, context_id, token, [])
        else:
            resolved = await asyncio.gather(*(_resolve(cdp, node, context_id) for node in ids))
            await _keep(cdp, context_id, token, [r for r in resolved if r])
        if kept is not None:
            kept.keep(cdp, context_id, tuple(ids), token)
        return len(ids)
    except PlaywrightError as exc:
        if target_closed(exc) or error_kind(exc) == "stale-context":
            raise
        return 0  # the document went away meanwhile: the walk goes by the other signals


async def _listing(cdp: CDPSession, kept: Kept | None) -> dict[str, Any] | None:
    """``DOMDebugger.getEventListeners`` of the main world's document (remembered in ``kept``); ``None`` when the
    document is over :data:`MAX_ELEMENTS` elements or gone."""
    params = {"depth": -1, "pierce": False}
    doc_id = kept.documents.get(cdp) if kept is not None else None
    if kept is not None and doc_id is not None:
        started = time.monotonic()
        try:
            got = await cdp.send("DOMDebugger.getEventListeners", {"objectId": doc_id, **params})
        except PlaywrightError as exc:
            if target_closed(exc):
                raise
            kept.documents.pop(cdp, None)
        else:
            if time.monotonic() - started >= QUICK_LISTING_S:
                kept.documents.pop(cdp, None)
            return got
    doc = await cdp.send("Runtime.evaluate", {"expression": _DOCUMENT,
                                              "objectGroup": OBJECT_GROUP if kept is None else DOCUMENT_GROUP})
    doc_id = (doc.get("result") or {}).get("objectId")
    if not doc_id:
        return None
    got = await cdp.send("DOMDebugger.getEventListeners", {"objectId": doc_id, **params})
    if kept is not None:
        kept.documents[cdp] = doc_id
    return got


async def _resolve(cdp: CDPSession, backend_node_id: int, context_id: int) -> str | None:
    try:
        got = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_node_id, "executionContextId": context_id,
                                                 "objectGroup": OBJECT_GROUP})
    except PlaywrightError as exc:
        if target_closed(exc) or error_kind(exc) == "stale-context":
            raise
        return None
    return (got.get("object") or {}).get("objectId")


async def _keep(cdp: CDPSession, context_id: int, token: str, object_ids: list[str]) -> int:
    arguments: list[dict[str, Any]] = [{"value": token}, *({"objectId": oid} for oid in object_ids)]
    got = await cdp.send("Runtime.callFunctionOn", {"functionDeclaration": bundle("listened"),
                                                    "executionContextId": context_id, "arguments": arguments,
                                                    "returnByValue": True})
    value = (got.get("result") or {}).get("value")
    return int(value) if isinstance(value, (int, float)) else 0


async def hand_over(frame: Frame, sessions: FrameSessions, worlds: Worlds, *, again: bool = False) -> Listened:
    """Hand the frame's listened-to elements to its next walk (:func:`mark_listened`, remembered in ``worlds``); a
    frame that cannot be reached is walked without them. ``again``: the walk found its world without the set
    (:data:`NOT_KEPT`): hand it over whatever is remembered.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        world = await worlds.context_of(frame)
        if world is None or (not world[0] and frame.parent_frame is not None):
            return Listened()  # an in-process child frame: its main world is not the session's default context
        cdp, kept = await sessions.for_frame(frame if world[0] else None), worlds.listened
        if cdp is None:
            return Listened()
        if again:
            kept.sets.pop((cdp, world[1]), None)
        try:
            none = await mark_listened(cdp, world[1], keep_none=False, kept=kept) is None
        except PlaywrightError as exc:  # the world's context died with its document (a navigation): ask again
            if error_kind(exc) != "stale-context":
                raise
            world = await worlds.context_of(frame, stale=world[1])
            if world is None:
                return Listened()
            none = await mark_listened(cdp, world[1], keep_none=False, kept=kept) is None
        was = kept.sets.get((cdp, world[1]))
        return Listened(none, None if none or was is None else was[1])
    except PageError:
        raise
    except PlaywrightError:  # navigating or detached: the walk that follows says what it can
        return Listened()
