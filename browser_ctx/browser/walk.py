"""Walk a live page into the core's tree (the browser half of ``docs/visible-html.md``).

The walk happens in ``js/walk.js``, run in each frame's isolated world (:mod:`.worlds`: a page's scripts cannot
patch what it reads; the frame's main world only when the browser offers no CDP). It returns a compact JSON tree
(:func:`browser_ctx.core.tree.from_wire`), and this module grafts onto it, by node identity: Chromium's names,
invalid states and custom controls' values (:mod:`.semantics`, for the first :data:`MAX_SEMANTIC_NODES` nodes of
each frame the walk marked), the walks of closed shadow roots (:mod:`.closed_shadow`) in place of their markers,
and the walks of child frames (cross-origin ones too) inside their placeholders.

Typical use::

    ids, worlds = FrameIds(), Worlds(page)         # one each per page (refs.FrameIds), kept as long as it lives
    walk = await walk_frame(page.main_frame, frame_ids=ids, worlds=worlds)
    render_snapshot(walk.doc, url=page.url)
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from .._errors import ActionTimeout, PageError, translate
from ..core.tree import Document, Node, Walked, document_of, from_wire, name_by_hints, splice
from ..core.wrappers import unwrap
from . import closed_shadow, semantics
from .listeners import MAX_ELEMENTS as LISTENED_MAX_ELEMENTS
from .listeners import NOT_KEPT, Listened, hand_over
from .refs import FrameIds
from .scripts import bundle
from .worlds import Worlds

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Frame, Locator

__all__ = ["DEFAULT_TIMEOUT_MS", "MAX_VALUE_CHARS", "MAX_SEMANTIC_NODES", "SEMANTICS_MAX_ELEMENTS", "Walk", "PageWalk",
           "walk_frame", "walk_page", "walk_locator"]


#: Milliseconds :func:`walk_frame` / :func:`walk_locator` wait in total before raising ActionTimeout.
DEFAULT_TIMEOUT_MS = 15_000
#: Characters of a field's current value kept in ``data-value``.
MAX_VALUE_CHARS = 200
#: Characters of an accessible name kept in ``data-name`` (longer ones end in ``…``).
MAX_NAME_CHARS = semantics.MAX_NAME_CHARS
#: Most nodes of one frame's walk whose names, states and values are asked of Chromium's accessibility tree
#: (the first in document order); the rest keep the walker's own names. Each costs microseconds when read in the
#: page, one CDP round trip (0.3-1 ms, see ``bench/ax_cost.py``) when asked over CDP; an 8,000-token read shows
#: at most about this many named elements.
MAX_SEMANTIC_NODES = 400
#: Documents with more elements than this are walked with the walker's own names: Chromium builds the
#: accessibility tree of the whole document for the first node asked about (and again on every walk, the tree
#: not being kept), 0.7-1.8 s on a page of 200,000 elements against 0.05 s at 10,000. The read says so
#: (:attr:`PageWalk.walker_names`).
SEMANTICS_MAX_ELEMENTS = 50_000

_MARK_FRAME = "(el, id) => { el.__browserCtxFrameId = id }"


@dataclass(frozen=True)
class Walk:
    """What one walk saw: the tree and the walker's JSON of each part (frames and closed roots included).

    Attributes:
        doc: the walked tree (an empty body when nothing is shown).
        wire: the walker's JSON of the frame and of every child frame and closed shadow root grafted onto it,
            in document order: what the page fingerprint hashes.
    """

    doc: Document
    wire: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Characters of the walker's JSON (a measure of the tree's size)."""
        return sum(len(w) for w in self.wire)

    @property
    def empty(self) -> bool:
        """Whether nothing was shown."""
        return not self.doc.body.children


@dataclass(frozen=True)
class PageWalk(Walk):
    """A bounded walk of a whole frame (:func:`walk_page`).

    Attributes:
        version: the page version at the walk (as :func:`.refs.page_version`), from the same evaluate; ``None``
            when the page gave none.
        loading: the document had not reached ``load`` (``document.readyState`` was not ``complete``).
        elements: elements in the document (light DOM, hidden ones included) at the walk.
        walked: elements the walk visited (each hidden subtree counts as one).
        complete: the walk reached the end of the document (``False``: it stopped at ``max_chars``).
        rest: for a walk that stopped early, a hash of the text and form values of the whole document (what
            was not collected included), for the page fingerprint; ``""`` for a complete walk.
        siblings_left: for a walk that stopped early, the most element siblings left unread in one parent on
            its way out (the rest of the list or run it stopped in); 0 for a complete walk.
        title: the document's title at the walk (``document.title``), from the same evaluate.
        walker_names: names come from the walker alone, not Chromium's accessibility tree, because the document
            has more than :data:`SEMANTICS_MAX_ELEMENTS` elements.
        at: (the document's ``performance.timeOrigin``, its clock in ms) at the walk; ``None`` if not given.
        settled: the settle probe's mark at the walk (:attr:`.settle.Look.last`); ``None`` without a probe there.
    """

    version: str | None = None
    loading: bool = False
    elements: int = 0
    walked: int = 0
    complete: bool = True
    rest: str = ""
    siblings_left: int = 0
    title: str = ""
    walker_names: bool = False
    at: tuple[float, float] | None = None
    settled: float | None = None

    @property
    def elements_left(self) -> int:
        """Elements not walked, an estimate (0 for a complete walk): all elements less those walked."""
        return 0 if self.complete else max(0, self.elements - self.walked)


async def _mark_child(child: Frame, frame_ids: FrameIds, worlds: Worlds | None) -> None:
    """Store the child's id on its ``<iframe>`` element (in the walker's world), once per frame; never raises."""
    if frame_ids.is_marked(child):
        return
    try:
        if worlds is not None:
            await worlds.mark_frame(child, frame_ids.id_for(child))
        else:
            handle = await child.frame_element()
            try:
                await handle.evaluate(_MARK_FRAME, frame_ids.id_for(child))
            finally:
                await handle.dispose()
    except PlaywrightError:  # a detached/crashed child frame just stays an empty placeholder
        return
    frame_ids.mark(child)


async def _semantics(walked: Walked, frame: Frame, token: str, sessions: semantics.FrameSessions,
                     worlds: Worlds | None, held: bool = False, computed: tuple | None = None) -> None:
    """Put Chromium's names, states and values on the nodes one frame's walk marked; when they cannot be
    reached (the frame navigated meanwhile), the walker's own names stay. ``held``: the frame's accessibility
    tree is built already (:func:`.semantics.hold_small_tree`); ``computed``: the roles and names the walk read.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        world = await worlds.context_of(frame) if worlds is not None else None
        answers = await semantics.kept_semantics(sessions, frame, token, limit=MAX_SEMANTIC_NODES, world=world,
                                                 held=held, computed=computed)
    except PageError:
        raise
    except PlaywrightError:
        return  # the frame went away between the walk and the question: keep the walker's names
    semantics.apply_semantics(walked.semantic, answers, MAX_NAME_CHARS, MAX_VALUE_CHARS)


def _drop(marker: Node) -> None:
    parent = marker.parent
    if parent is not None:
        splice(parent, parent.children.index(marker), [])


async def _closed_roots(walked: Walked, frame: Frame, frame_ids: FrameIds, token: str,
                        sessions: semantics.FrameSessions, worlds: Worlds | None, opts: dict) -> list[str]:
    """Graft the walks of the closed shadow roots one frame's walk marked onto its tree, in the world the walk
    ran in (without one, no CDP, the markers are dropped). Returns the walker's JSON of each root grafted.

    Raises:
        PageError: the page or browser closed.
    """
    found: dict[int, str] = {}
    try:
        world = await worlds.context_of(frame) if worlds is not None else None
        cdp = await sessions.for_frame(frame if world and world[0] else None) if world else None
        found, last = await closed_shadow.fill(cdp, world[1] if world else None, token,
                                               {k: opts[k] for k in ("framePrefix", "maxValueChars", "maxNameChars",
                                                                     "refBase")})
        frame_ids.saw_ref(frame, last)
    except PageError:
        raise
    except PlaywrightError:  # the frame went away between the walk and the question: no closed roots to add
        found = {}
    wires: list[str] = []
    for index, marker in walked.shadows:
        part = from_wire(found[index]) if index in found else None
        if part is None or part.root is None or marker.parent is None:
            _drop(marker)
            continue
        wires.append(found[index])
        splice(marker.parent, marker.parent.children.index(marker), [part.root])
        walked.frames.extend(part.frames)
    return wires


def _listened(given: Listened) -> dict[str, object]:
    """The walk's options for what :func:`.listeners.hand_over` did."""
    return {"listenedNone": True} if given.none else {"listened": given.token} if given.token else {}


async def _walk(frame: Frame, frame_ids: FrameIds, root: ElementHandle | None, budget_s: float,
                max_chars: int = 0, facts: dict | None = None,
                sessions: semantics.FrameSessions | None = None, worlds: Worlds | None = None,
                walker_names: bool = False) -> tuple[Node | None, list[str]]:
    """One frame (or ``root`` in it) with its closed roots and child frames grafted: the walked root and the
    walker's JSON of each part. Raises what Playwright raises.

    ``max_chars`` > 0 bounds each frame's walk (characters, as HTML would take them); ``facts``, when given,
    receives the frame's facts from the same evaluate (``version``, ``readyState``, ``elements``, ``walked``,
    ``stopped``). With ``sessions``, the names, invalid state and custom-control values of the nodes the walk
    marked come from Chromium's accessibility tree (:mod:`.semantics`), unless ``walker_names`` or the document
    (with ``facts``) has over :data:`SEMANTICS_MAX_ELEMENTS` elements (``facts["walkerNames"]``).
    """
    children = [c for c in frame.child_frames if not c.is_detached()]
    if children:
        await asyncio.gather(*(_mark_child(c, frame_ids, worlds) for c in children))
    opts: dict = {"framePrefix": frame_ids.id_for(frame), "maxValueChars": MAX_VALUE_CHARS,
                  "maxNameChars": MAX_NAME_CHARS, "refBase": frame_ids.highest_ref(frame)}
    token = secrets.token_hex(8)
    if sessions is not None:
        opts["axToken"] = token
    if max_chars > 0:
        opts["maxChars"] = max_chars
    # withCounter: also the frame's ref counter, so refs keep growing across the documents of a frame
    # (a ref from an earlier page then matches nothing instead of a new page's element).
    opts = {**opts, "withCounter": True, "withFacts": facts is not None}
    held: asyncio.Future[bool] | None = None
    if sessions is not None and worlds is not None and root is None:  # listeners too for walker names: the card
        if frame.parent_frame is None and not walker_names:  # the tree is built while its listeners are found
            known = worlds.listened.documents if LISTENED_MAX_ELEMENTS <= SEMANTICS_MAX_ELEMENTS else None
            held = asyncio.ensure_future(semantics.hold_small_tree(sessions, SEMANTICS_MAX_ELEMENTS, known))
            held.add_done_callback(lambda f: f.cancelled() or f.exception())
        opts.update(_listened(await hand_over(frame, sessions, worlds)))
    tree_held = await held if held is not None else False
    if tree_held:  # the walk reads Chromium's names of its kept nodes itself (js/ax_computed.js)
        opts["axNames"] = {"limit": MAX_SEMANTIC_NODES, "valueRoles": sorted(semantics.VALUE_ROLES)}
    if worlds is not None:
        try:
            got = await worlds.evaluate(frame, bundle("walk"), opts, root=root)
        except PlaywrightError as exc:  # its world was not given the set remembered (a replaced document)
            if NOT_KEPT not in str(exc) or sessions is None:
                raise
            opts = {k: v for k, v in opts.items() if k not in ("listened", "listenedNone")}
            opts.update(_listened(await hand_over(frame, sessions, worlds, again=True)))
            got = await worlds.evaluate(frame, bundle("walk"), opts, root=root)
    else:
        got = await frame.evaluate(bundle("walk"), {**opts, "root": root} if root is not None else opts)
    wire, counter = got[0], got[1]
    computed = semantics.computed_rows(got[3]) if tree_held and len(got) > 3 else None
    if facts is not None and len(got) > 2 and isinstance(got[2], dict):
        facts.update(got[2])
        if sessions is not None and int(facts.get("elements") or 0) > SEMANTICS_MAX_ELEMENTS:
            facts["walkerNames"] = walker_names = True
    if isinstance(counter, (int, float)):
        frame_ids.saw_ref(frame, int(counter))
    walked = from_wire(wire)
    wires = [wire] if wire else []
    if walked.root is None:
        return None, wires
    if sessions is not None and not walker_names and walked.semantic:
        await _semantics(walked, frame, token, sessions, worlds, tree_held, computed)
    if walked.hinted:
        name_by_hints(walked.hinted)
    if walked.operable:
        unwrap(walked.operable)
    if walked.shadows:
        if sessions is not None:
            wires.extend(await _closed_roots(walked, frame, frame_ids, token, sessions, worlds, opts))
        else:
            for _, marker in walked.shadows:
                _drop(marker)
    placeholders = {n.attrs.get("data-frame"): n for n in walked.frames}
    wanted = [(c, placeholders[fid]) for c in children if (fid := frame_ids.id_for(c)) in placeholders]
    if not wanted:
        return walked.root, wires
    child_budget = max(0.5, budget_s * 0.5)

    async def child_walk(child: Frame) -> tuple[Node | None, list[str]]:
        if not child.url or child.url.startswith("chrome-error:"):
            # Chromium's own error page, or a frame whose load was blocked (a file: iframe): no document
            # ever committed there, and Playwright would wait for one for ever.
            return None, []
        try:
            return await asyncio.wait_for(
                _walk(child, frame_ids, None, child_budget, max_chars, None, sessions, worlds, walker_names),
                child_budget)
        except (PlaywrightError, TimeoutError):  # never raise for a child frame: leave its placeholder empty
            return None, []

    inner = await asyncio.gather(*(child_walk(c) for c, _ in wanted))
    for (child, holder), (body, parts) in zip(wanted, inner, strict=True):
        holder.attrs["data-url"] = "(failed to load)" if child.url.startswith("chrome-error:") else child.url
        wires.extend(parts)
        if body is not None:
            splice(holder, len(holder.children), [*body.children] if body.tag in ("body", "html") else [body],
                   replace=False)
    return walked.root, wires


async def walk_frame(frame: Frame, *, frame_ids: FrameIds, root: ElementHandle | None = None,
                     timeout_ms: float = DEFAULT_TIMEOUT_MS, worlds: Worlds | None = None) -> Walk:
    """Walk ``frame`` (or ``root``, an element in that frame), child frames grafted in.

    The tree follows ``docs/visible-html.md``: each child frame inside it is a ``bc-frame`` node
    (``data-frame="f1"``, ``data-url``) holding that frame's own walk (cross-origin frames too). A child frame
    that is detached, crashed or too slow leaves its placeholder empty; it never raises. A ``root`` that is hidden
    gives an empty walk.

    Args:
        frame: the Playwright frame to walk (``page.main_frame`` for the whole page).
        frame_ids: the page's :class:`~.refs.FrameIds`; gives ref prefixes and frame ids.
        root: an element handle in ``frame`` to walk instead of the whole document.
        timeout_ms: milliseconds for the whole walk, child frames included (default 15,000).
        worlds: the page's :class:`~.worlds.Worlds`: the walk runs in each frame's isolated world (default
            ``None``: in the main world, where the page's scripts can patch what it reads).

    Raises:
        ActionTimeout: the walk took longer than ``timeout_ms``.
        PageError: the frame navigated, closed or crashed during the walk.
    """
    frame_ids.forget_detached()
    async with semantics.FrameSessions(frame.page, worlds.cdp if worlds is not None else None) as sessions:
        return await _walk_with(frame, frame_ids, root, timeout_ms, sessions, worlds)


async def _walk_with(frame: Frame, frame_ids: FrameIds, root: ElementHandle | None, timeout_ms: float,
                     sessions: semantics.FrameSessions, worlds: Worlds | None) -> Walk:
    """:func:`walk_frame` with the CDP sessions of a read that walks several roots (one set for all of them)."""
    budget = max(0.001, timeout_ms / 1000)
    try:
        node, wires = await asyncio.wait_for(_walk(frame, frame_ids, root, budget, sessions=sessions,
                                                   worlds=worlds), budget)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms reading the page; it may be busy. "
                            "Try again, or read a smaller part with a selector.") from exc
    except PlaywrightError as exc:  # every Playwright error becomes one of ours
        raise translate(exc, action="read the page") from exc
    return Walk(document_of(node), tuple(wires))


async def walk_page(frame: Frame, *, frame_ids: FrameIds, max_chars: int = 0,
                    timeout_ms: float = DEFAULT_TIMEOUT_MS, worlds: Worlds | None = None,
                    with_semantics: bool = True) -> PageWalk:
    """Walk ``frame`` (normally ``page.main_frame``) like :func:`walk_frame`, bounded, in one evaluate.

    The walk stops collecting once it holds about ``max_chars`` characters (counted as HTML would take them; 0:
    no bound) and counts the rest without walking it; the same evaluate returns the page version, whether the
    document is still loading and how many elements it has, so a walk costs one round trip however large the
    page. ``worlds`` as for :func:`walk_frame`. ``with_semantics=False`` leaves Chromium's accessibility tree out
    (names from the walker alone; closed shadow roots are still walked): a navigation's card (headings and
    counts) and text reads (markdown and plain text show no accessible names) do not need it (holding the tree
    costs what building it costs: tens of milliseconds on a corpus page).

    Raises:
        ActionTimeout: the walk took longer than ``timeout_ms``.
        PageError: the frame navigated, closed or crashed during the walk.
    """
    frame_ids.forget_detached()
    budget = max(0.001, timeout_ms / 1000)
    facts: dict = {}
    try:
        async with semantics.FrameSessions(frame.page, worlds.cdp if worlds is not None else None) as sessions:
            node, wires = await asyncio.wait_for(_walk(frame, frame_ids, None, budget, max_chars, facts, sessions,
                                                       worlds, walker_names=not with_semantics), budget)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms reading the page; it may be busy. "
                            "Try again, or read a smaller part with a selector.") from exc
    except PlaywrightError as exc:  # every Playwright error becomes one of ours
        raise translate(exc, action="read the page") from exc
    version = facts.get("version")
    return PageWalk(doc=document_of(node), wire=tuple(wires), version=version if isinstance(version, str) else None,
                    loading=facts.get("readyState", "complete") != "complete",
                    elements=int(facts.get("elements") or 0), walked=int(facts.get("walked") or 0),
                    complete=not facts.get("stopped"), rest=str(facts.get("rest") or ""),
                    siblings_left=int(facts.get("siblingsLeft") or 0), title=str(facts.get("title") or ""),
                    walker_names=bool(facts.get("walkerNames")), at=_clock(facts.get("at")),
                    settled=float(settled) if isinstance(settled := facts.get("settled"), (int, float)) else None)


def _clock(mark: object) -> tuple[float, float] | None:
    if isinstance(mark, list) and len(mark) == 2 and all(isinstance(x, (int, float)) for x in mark):
        return float(mark[0]), float(mark[1])
    return None


#: A target that is part of a table (a row, a cell, a body) is read inside a table of its own, under the table's
#: header row (the main world finds it: the row of ``<thead>``, else a first row of ``<th>`` cells).
_TABLE_PARTS = frozenset(("tr", "td", "th", "tbody", "thead", "tfoot"))
_HEADER_ROW = ("e => { const t = e.closest('table'); if (!t) return null;"
               " const h = t.tHead && t.tHead.rows[0] ? t.tHead.rows[0]"
               " : (t.rows[0] && t.rows[0].querySelector('th') ? t.rows[0] : null);"
               " return h && h !== e && !h.contains(e) && !e.contains(h) ? h : null; }")


async def _in_its_table(walk: Walk, handle: ElementHandle, frame: Frame, frame_ids: FrameIds,
                        sessions: semantics.FrameSessions, worlds: Worlds | None, deadline: float) -> Walk:
    """A walk of a table part as a table of its own with the table's header row, so its cells read as cells
    (``| 218 | Ana Silva | …``) under their column names; other walks as they are."""
    top = [c for c in walk.doc.body.children if not c.is_text]
    if len(top) != 1 or top[0].tag not in _TABLE_PARTS:
        return walk
    part = top[0]
    header: Node | None = None
    try:
        found = (await handle.evaluate_handle(_HEADER_ROW)).as_element()
        if found is not None:
            left_ms = max(1.0, (deadline - asyncio.get_running_loop().time()) * 1000)
            head = await _walk_with(frame, frame_ids, found, left_ms, sessions, worlds)
            rows = [c for c in head.doc.body.children if c.tag == "tr"]
            header = rows[0] if rows else None
            await found.dispose()
            walk = Walk(walk.doc, walk.wire + head.wire)
    except (PlaywrightError, ActionTimeout):
        header = None  # no header to add: the part still reads as a table
    table = Node("table", {})
    if header is not None:
        thead = Node("thead", {}, table)
        table.children.append(thead)
        splice(thead, 0, [header], replace=False)
    if part.tag in ("td", "th"):
        row = Node("tr", {})
        splice(row, 0, [part], replace=False)
        part = row
    body = part if part.tag in ("tbody", "thead", "tfoot") else Node("tbody", {})
    if body is not part:
        splice(body, 0, [part], replace=False)
    splice(table, len(table.children), [body], replace=False)
    return Walk(document_of(table), walk.wire)


def _locator_text(locator: Locator) -> str:
    impl = getattr(locator, "_impl_obj", None)
    return str(getattr(impl, "_selector", None) or locator)


async def walk_locator(locator: Locator, *, frame_ids: FrameIds, timeout_ms: float = DEFAULT_TIMEOUT_MS,
                       target: str | None = None, max_matches: int | None = None,
                       worlds: Worlds | None = None) -> list[Walk]:
    """Walk every element ``locator`` matches, in document order, each with :func:`walk_frame` in its own frame.

    An element that is hidden gives an empty walk in its slot. A locator that matches nothing returns ``[]``
    (the caller decides whether that is a :class:`SelectorError`).

    Args:
        locator: any Playwright locator (CSS, ``text=``, ``role=``, ``bcref=e12``, chained, in frames).
        frame_ids: the page's :class:`~.refs.FrameIds`.
        timeout_ms: milliseconds for the whole walk (default 15,000).
        target: how to name the selector in error messages (default: the locator's selector string).
        max_matches: walk at most this many matches, the first in document order (default: all).
        worlds: as for :func:`walk_frame`.

    Raises:
        SelectorError: the selector is malformed.
        ActionTimeout: the walk took longer than ``timeout_ms``.
        PageError: the page navigated or closed during the walk.
    """
    name = target or _locator_text(locator)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.001, timeout_ms / 1000)
    try:
        count = await locator.count()
        if count == 0:
            return []
        if max_matches is not None and count > max_matches:
            found = [await locator.nth(i).element_handle() for i in range(max_matches)]
            handles = [h for h in found if h is not None]
        else:
            handles = await locator.element_handles()
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=name) from exc
    results: list[Walk] = []
    frame_ids.forget_detached()
    try:
        cdp = worlds.cdp if worlds is not None else None
        async with semantics.FrameSessions(locator.page, cdp) as sessions:  # one set of CDP sessions for every match
            for handle in handles:
                frame = await (worlds.frame_of(handle) if worlds is not None else handle.owner_frame())
                if frame is None:
                    results.append(Walk(document_of(None)))
                    continue
                left_ms = max(1.0, (deadline - loop.time()) * 1000)
                walk = await _walk_with(frame, frame_ids, handle, left_ms, sessions, worlds)
                results.append(await _in_its_table(walk, handle, frame, frame_ids, sessions, worlds, deadline))
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=name) from exc
    finally:
        for handle in handles:
            with contextlib.suppress(PlaywrightError):  # the page may be gone already, and the handle with it
                await handle.dispose()
    return results
