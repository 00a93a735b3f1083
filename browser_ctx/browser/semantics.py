"""Semantics from Chromium's accessibility tree for the nodes a walk kept (stage 2 of the reading pipeline).

Chromium computes roles, accessible names (W3C accname, CSS generated content included), values and states for
every node. The walk marks the nodes it wants them for (``data-ax``, kept on the frame's registry under a
token); this module answers for exactly those, never for the whole tree of a page:

- :func:`kept_semantics` answers for a walk's kept nodes. It reads their roles and names in the page
  (:func:`computed_semantics`: ``Element.computedRole``/``computedName``, the same tree's answers, in one
  ``Runtime.evaluate`` once :func:`hold_tree` has had the tree built), and asks over CDP only about the
  nodes whose answer says more than a name (a value role, an invalid state, a name from ``title`` or a
  placeholder, a node Chromium may ignore: not rendered, under ``aria-hidden``/``inert``). A browser without the
  feature flag (one we attached to) has every node asked over CDP (:func:`.ax_nodes.fetch`).
- :class:`FrameSessions` takes the CDP sessions one read asks (the tab's, :class:`.page_cdp.PageCDP`) and lets go of
  what the read left in them; :func:`apply_semantics` (pure) puts the answers on the walked tree's nodes.

The per-node CDP path (:class:`NodeSemantics`, :func:`fetch`, :func:`subtree`, :func:`object_ids`,
:func:`handoff`, :func:`resolve`, :func:`release`, :func:`parse_node`) lives in :mod:`.ax_nodes` and is
importable from here too.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from playwright.async_api import CDPSession, Frame, Page
from playwright.async_api import Error as PlaywrightError

from .._errors import translate
from ..core.tree import INVISIBLE_CHARS, Node
from .ax_nodes import (
    OBJECT_GROUP,
    TABLE_ROLES,
    NodeKey,
    NodeSemantics,
    fetch,
    handoff,
    object_ids,
    parse_node,
    release,
    resolve,
    session_closed,
    subtree,
)
from .page_cdp import PageCDP
from .scripts import invocation, script

__all__ = [
    "NodeSemantics",
    "NodeKey",
    "TABLE_ROLES",
    "OBJECT_GROUP",
    "fetch",
    "subtree",
    "object_ids",
    "handoff",
    "resolve",
    "release",
    "parse_node",
    "kept_array",
    "kept_keys",
    "FrameSessions",
    "kept_semantics",
    "computed_semantics",
    "computed_rows",
    "hold_tree",
    "hold_small_tree",
    "apply_semantics",
    "MAX_NAME_CHARS",
    "MAX_VALUE_CHARS",
    "VALUE_ROLES",
]

# --- the walk's kept nodes -------------------------------------------------------------------------------------

#: Characters of an accessible name kept in ``data-name`` (longer ones end in ``…``), as the walker does.
MAX_NAME_CHARS = 200
#: Characters of a value kept in ``data-value`` (longer ones end in ``…``), as the walker does.
MAX_VALUE_CHARS = 200
#: Roles whose value Chromium reports is shown as ``data-value`` when the walker found none (a custom
#: combobox's current option, a slider's or spinbutton's ``aria-valuetext``/``aria-valuenow``).
VALUE_ROLES = frozenset({"combobox", "slider", "spinbutton", "progressbar", "meter", "scrollbar"})

_WHITESPACE = re.compile(r"[ \t\n\r\f]+")
#: What reads sent to let go of what they left and the page has not answered yet (kept so that they run to their
#: end; a page stuck in a script answers later, and later commands on the session come after them).
_LETTING_GO: set[asyncio.Future[list[None]]] = set()


async def kept_array(cdp: CDPSession, token: str, context_id: int | None = None) -> str | None:
    """Return the ``objectId`` (in :data:`OBJECT_GROUP`) of the array of nodes a walk kept under ``token``, or
    ``None`` when ``cdp`` cannot reach them.

    The walker stores its kept nodes on its frame's registry (``window.__browserCtx.axKept``, with
    ``axToken``); ``js/ax_kept.js``, evaluated in the main world of ``cdp``'s main frame, finds them in
    that frame or any frame reachable from it that is not cross-origin, and drops them from the registry
    (read once). One ``Runtime.evaluate``. ``None`` means the frame is out of process (ask its own session)
    or gone. ``context_id``: evaluate there instead (the isolated world of the walked frame, :mod:`.worlds`;
    context ids hold in every session of the target).

    Raises:
        PageError: the page or browser closed.
    """
    where = {"contextId": context_id} if context_id is not None else {}
    try:
        answer = await cdp.send("Runtime.evaluate", {"expression": invocation("ax_kept", token),
                                                     "objectGroup": OBJECT_GROUP, **where})
    except PlaywrightError as exc:
        if session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None  # the frame navigated meanwhile: nothing of this walk is left to ask about
    return (answer.get("result") or {}).get("objectId")


async def kept_keys(cdp: CDPSession, array_id: str) -> list[str | None] | None:
    """Return objectId keys for the nodes of a kept array (:func:`kept_array`), ``None`` when it is gone.

    One ``Runtime.getProperties`` call whatever the number of nodes.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        return await object_ids(cdp, array_id)
    except PlaywrightError as exc:
        if session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None


class FrameSessions:
    """The CDP sessions of one page read: the page's, and one per out-of-process iframe asked about.

    Taken from the tab's :class:`.page_cdp.PageCDP` (``cdp``) as the read asks for them; :meth:`close` (use
    ``async with``) lets go of what the read left in them: its remote objects (:data:`OBJECT_GROUP`) and the
    accessibility tree Chromium built for it (``Accessibility.enable`` then ``disable`` drops the tree a query
    built, so it is not kept up to date between reads), as detaching a session of the read's own did. Without
    ``cdp`` (a page with no tab) the read opens sessions of its own and detaches them. Keeps no state between
    reads.
    """

    def __init__(self, page: Page, cdp: PageCDP | None = None) -> None:
        self._cdp = cdp if cdp is not None else PageCDP(page)
        self._owns_cdp = cdp is None
        self._sessions: dict[Frame | None, CDPSession | None] = {}

    async def for_frame(self, frame: Frame | None = None) -> CDPSession | None:
        """Return the session of the page (``frame=None``) or of an out-of-process ``frame``.

        ``None`` when ``frame`` shares its parent's process (it has no session of its own) or is gone.
        """
        if frame not in self._sessions:
            try:
                self._sessions[frame] = await self._cdp.session(frame)
            except PlaywrightError:
                self._sessions[frame] = None  # an in-process frame (or a closed page): no session of its own
        return self._sessions[frame]

    async def close(self) -> None:
        """Let go of what the read left in the sessions it used; never raises. The commands are sent, not waited
        for (the page answers them after the read returns; one stuck in a script answers later)."""
        used = list({id(s): s for s in self._sessions.values() if s is not None}.values())
        self._sessions.clear()
        if self._owns_cdp:
            await self._cdp.close()  # detaching is done by the browser process: it never waits on the page
            return
        if used:  # sent now, not waited for: later commands on these sessions come after them
            letting_go = asyncio.ensure_future(asyncio.gather(*(
                _let_go(cdp, drop_tree=not self._cdp.holds(cdp, "Accessibility")) for cdp in used)))
            _LETTING_GO.add(letting_go)
            letting_go.add_done_callback(_LETTING_GO.discard)
            await asyncio.sleep(0)  # the sends go out before the read returns

    async def __aenter__(self) -> FrameSessions:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _let_go(cdp: CDPSession, *, drop_tree: bool) -> None:
    """Free the read's remote objects in ``cdp`` and (``drop_tree``: no one holds ``Accessibility`` enabled there)
    drop the accessibility tree its queries built. Never raises."""
    sends = [cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})]
    if drop_tree:
        sends += [cdp.send("Accessibility.enable"), cdp.send("Accessibility.disable")]
    await asyncio.gather(*sends, return_exceptions=True)  # the page navigated or closed: nothing of the read is left


async def hold_tree(cdp: CDPSession, context_id: int | None = None) -> None:
    """Have Chromium build and keep the accessibility tree of the document of ``context_id`` (``cdp``'s main
    world by default): one ``getPartialAXTree`` of the document element.

    Chromium keeps a document's tree once a CDP query built it, and reading a node's ``computedName`` in the
    page then costs microseconds; without it each read builds the whole tree again (tens of milliseconds a
    node). Building it costs what the first node asked about costs anyway (tens of milliseconds on a corpus
    page). ``Accessibility.enable`` is not sent: it would keep the tree updated, and sent on to the browser
    process, for as long as the page lives (Chromium's memory under 20 concurrent clients: 761 MB with it,
    338 MB without).
    Never raises for a frame that went away.

    Raises:
        PageError: the page or browser closed.
    """
    await _build_tree(cdp, "document.documentElement", context_id)


async def _build_tree(cdp: CDPSession, expression: str, context_id: int | None = None) -> bool:
    """Have Chromium build the accessibility tree of the element ``expression`` gives in ``context_id`` (``cdp``'s
    main world by default): one ``getPartialAXTree`` of it. Returns whether it was built (``False``: the
    expression gave no element, or the frame went away).

    Raises:
        PageError: the page or browser closed.
    """
    where = {"contextId": context_id} if context_id is not None else {}
    try:
        root = await cdp.send("Runtime.evaluate", {"expression": expression, "objectGroup": OBJECT_GROUP, **where})
        object_id = (root.get("result") or {}).get("objectId")
        if object_id:
            await cdp.send("Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False})
    except PlaywrightError as exc:
        if session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return False
    return bool(object_id)


async def computed_semantics(cdp: CDPSession, array_id: str, limit: int | None = None,
                             context_id: int | None = None, *,
                             held: bool = False) -> tuple[int, list[tuple[int, str, str, bool]]] | None:
    """Read Chromium's role and accessible name of the nodes of a kept array (:func:`kept_array`) in the page.

    ``js/ax_computed.js`` reads ``Element.computedRole``/``computedName`` (Chromium exposes them with
    ``--enable-blink-features=ComputedAccessibilityInfo``, which :func:`.launcher.chromium_args` passes): the
    values ``Accessibility.getPartialAXTree`` gives, from the same tree, in one ``Runtime.callFunctionOn``
    instead of one CDP message per node. The walks of 126 of the 130 corpus pages are the same either way; 3
    others differ only by random numbers in their markup, and on the last a submit button inside an empty
    ``<label>`` is named by its value here and unnamed in the CDP answer.
    :func:`hold_tree` runs first (in ``context_id``, where the array lives) unless ``held`` (the caller had it
    built). ``limit`` as for :func:`kept_semantics`.

    Returns:
        ``(number of kept nodes, [(index, role, name, ask), …])``: ``role`` is ``""`` for Chromium's internal
        roles; ``ask`` is true for a node whose CDP answer says more than its name (a value role, an invalid
        state, a name from ``title`` or placeholder, a node Chromium may ignore: not rendered, under
        ``aria-hidden`` or ``inert``, presentational, or beside an open modal dialog). ``None`` when the page
        has no such API (a browser launched without the flag), the array is gone, or the reads were slow (the
        tree was not held): ask over CDP (:func:`kept_keys`, :func:`fetch`).

    Raises:
        PageError: the page or browser closed.
    """
    try:
        if not held:
            await hold_tree(cdp, context_id)
        answer = await cdp.send("Runtime.callFunctionOn", {
            "objectId": array_id, "functionDeclaration": script("ax_computed"),
            "arguments": [{"value": limit}, {"value": sorted(VALUE_ROLES)}], "returnByValue": True})
    except PlaywrightError as exc:
        if session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None
    return computed_rows((answer.get("result") or {}).get("value"))


def computed_rows(value: object) -> tuple[int, list[tuple[int, str, str, bool]]] | None:
    """The answer of ``js/ax_computed.js`` (``[count, [[index, role, name, ask], …]]``, as
    :func:`computed_semantics` returns it), or ``None`` when it gave none."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    count, rows = value
    return int(count), [(int(i), str(role), str(name), bool(ask)) for i, role, name, ask in rows]


async def _kept_answers(cdp: CDPSession, token: str, limit: int | None, context_id: int | None = None,
                        held: bool = False, computed: tuple[int, list[tuple[int, str, str, bool]]] | None = None,
                        ) -> list[NodeSemantics | None] | None:
    """The answers of :func:`kept_semantics` from one session; ``None`` when ``cdp`` cannot reach the nodes.

    Names and roles come from ``computed`` (read by the walk itself), else from :func:`computed_semantics` when
    the page can give them (the kept array found while the tree is built, unless ``held``); the nodes marked
    ``ask``, and every node when the page cannot answer, are asked over CDP (:func:`fetch`; keys of the nodes
    asked only, :func:`_keys_of`).
    """
    array_id: str | None = None
    if computed is None:
        if held:
            array_id = await kept_array(cdp, token, context_id)
        else:
            array_id, _ = await asyncio.gather(kept_array(cdp, token, context_id), hold_tree(cdp, context_id))
        if array_id is None:
            return None
        computed = await computed_semantics(cdp, array_id, limit, context_id, held=True)
    if computed is not None:
        count, rows = computed
        answers: list[NodeSemantics | None] = [None] * count
        for i, role, name, _ in rows:
            answers[i] = NodeSemantics(role=role, name=name)
        wanted = [i for i, _, _, ask in rows if ask]
        if not wanted:
            return answers
        keys = await _keys_of(cdp, wanted, array_id=array_id, token=token, context_id=context_id)
        if keys is None:
            return answers
        reachable = [i for i, k in zip(wanted, keys, strict=True) if k]
        asked = [k for k in keys if k]
    else:
        all_keys = await kept_keys(cdp, array_id) if array_id is not None else None
        if all_keys is None:
            return None
        answers = [None] * len(all_keys)
        reachable = [i for i, k in enumerate(all_keys) if k]
        reachable = reachable[:limit] if limit is not None else reachable
        asked = [k for i in reachable if (k := all_keys[i])]
    for i, answer in zip(reachable, await fetch(cdp, asked), strict=True):
        answers[i] = answer
    return answers


#: Picks the items of a kept array at the given indexes (``null`` past its end), as a new array.
_PICK = "function (wanted) { return wanted.map((i) => (i < this.length ? this[i] : null)); }"


async def _keys_of(cdp: CDPSession, wanted: list[int], *, array_id: str | None, token: str,
                   context_id: int | None) -> list[str | None] | None:
    """objectId keys of the items ``wanted`` (indexes) of a kept array, in that order (``None`` for one that is
    not there), ``None`` when the array is gone: the pick of them from the array (``array_id``; without it, from
    the array the walk left on its registry under ``token``, ``js/ax_pick.js``) and one ``Runtime.getProperties``
    of the pick, so the answer is as long as the nodes asked, not as the walk's list.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        if array_id is not None:
            picked = await cdp.send("Runtime.callFunctionOn", {"objectId": array_id, "functionDeclaration": _PICK,
                                                               "arguments": [{"value": wanted}],
                                                               "objectGroup": OBJECT_GROUP})
        else:
            where = {"contextId": context_id} if context_id is not None else {}
            picked = await cdp.send("Runtime.evaluate", {"expression": invocation("ax_pick", token, wanted),
                                                         "objectGroup": OBJECT_GROUP, **where})
    except PlaywrightError as exc:
        if session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None
    pick_id = (picked.get("result") or {}).get("objectId")
    keys = await kept_keys(cdp, pick_id) if pick_id else None
    return None if keys is None else [keys[j] if j < len(keys) else None for j in range(len(wanted))]


async def hold_small_tree(sessions: FrameSessions, max_elements: int,
                          documents: dict[CDPSession, str] | None = None) -> bool:
    """Have Chromium build and keep the accessibility tree of the page's main document (as :func:`hold_tree`),
    when it has at most ``max_elements`` elements, before the walk whose nodes :func:`kept_semantics` asks about
    (``held``): the tree is built while the walk's listeners are found. ``documents``: session -> its main world's
    document object, found at most ``max_elements`` elements large (:attr:`.listeners.Kept.documents`): asked
    directly (one round trip fewer). Returns whether it is held.

    Raises:
        PageError: the page or browser closed.
    """
    cdp = await sessions.for_frame(None)
    if cdp is None:
        return False
    known = documents.get(cdp) if documents is not None else None
    if known is not None:
        try:
            await cdp.send("Accessibility.getPartialAXTree", {"objectId": known, "fetchRelatives": False})
            return True
        except PlaywrightError as exc:  # its document went: found again below
            if session_closed(exc):
                raise translate(exc, action="read the accessibility tree") from exc
    return await _build_tree(
        cdp, f"document.getElementsByTagName('*').length <= {max_elements} ? document.documentElement : null")


async def kept_semantics(sessions: FrameSessions, frame: Frame, token: str, limit: int | None = None,
                         world: tuple[bool, int] | None = None, held: bool = False,
                         computed: tuple[int, list[tuple[int, str, str, bool]]] | None = None,
                         ) -> list[NodeSemantics | None]:
    """Return the semantics of the nodes the walk of ``frame`` kept under ``token``, in the walk's order.

    Looks in the page's session first (the main frame and every in-process frame), then in ``frame``'s
    own session (an out-of-process iframe). The first ``limit`` nodes are asked about (all when ``None``); the
    others answer ``None``. Empty when the nodes cannot be reached (the frame navigated).
    ``world``: where the walk ran (:meth:`.worlds.Worlds.context_of`: out of process, context id); the
    nodes are asked for in that context of the frame's session only. ``held``: the frame's document tree is held
    already (:func:`hold_small_tree`); ``computed``: the roles and names the walk read itself then (as
    :func:`computed_rows` returns them), so only the nodes they mark ``ask`` are asked over CDP.

    Roles and names are read in the page (:func:`computed_semantics`, a few milliseconds for a hundred nodes)
    when the browser exposes them; the other fields then keep their defaults, except for the nodes whose
    value, invalid state or fallback name only CDP gives, which are asked over CDP (one
    ``getPartialAXTree`` each, as every node is when the page cannot answer).

    Raises:
        PageError: the page or browser closed.
    """
    page_session = await sessions.for_frame(None)
    if world is not None:
        cdp = await sessions.for_frame(frame) if world[0] else page_session
        found = await _kept_answers(cdp, token, limit, world[1], held, computed) if cdp is not None else None
        return found or []
    found = (await _kept_answers(page_session, token, limit, None, held, computed) if page_session is not None
             else None)
    if found is None and frame.parent_frame is not None:
        cdp = await sessions.for_frame(frame)
        found = await _kept_answers(cdp, token, limit) if cdp is not None else None
    return found or []


def _capped(text: str, max_chars: int) -> str:
    """``text`` without :data:`~browser_ctx.core.tree.INVISIBLE_CHARS`, whitespace collapsed, cut to ``max_chars``
    (ending in ``…``); ``""`` when empty."""
    text = _WHITESPACE.sub(" ", INVISIBLE_CHARS.sub("", text)).strip()
    if len(text) > max_chars:
        text = text[:max_chars - 1] + "\u2026"
    return text.replace("\0", "\ufffd")


def apply_semantics(marked: Sequence[tuple[int, Node]], answers: Sequence[NodeSemantics | None],
                    max_name_chars: int = MAX_NAME_CHARS, max_value_chars: int = MAX_VALUE_CHARS) -> None:
    """Put Chromium's semantics on the nodes of one walk that the walker marked, by their index in its kept list.

    Pure; changes the nodes' attributes in place. A node whose answer is one Chromium does not ignore gets:

    - ``data-name``: Chromium's accessible name (whitespace collapsed, at most ``max_name_chars``
      characters, ending in ``…`` when cut; removed when the name is empty). Chromium applies CSS
      ``text-transform`` to names ("PLACE ORDER"); when its name and the walker's differ only in case, the
      walker's casing (the page's text) is kept, so names match what action records and verify say;
    - ``aria-invalid="true"`` when Chromium says the node is invalid (``aria-invalid``, or a native
      field that failed validation), unless it has one;
    - ``data-value``: Chromium's value (at most ``max_value_chars`` characters) for the roles of
      :data:`VALUE_ROLES` when the walker gave no ``data-value``/``data-filled`` (a custom combobox showing
      "Spain", a slider's ``aria-valuetext``); not on a native ``select``, whose selected options the walk has.

    Otherwise (no answer, or an ignored node) the walker's name stays.
    """
    for index, node in marked:
        answer = answers[index] if index < len(answers) else None
        if answer is None or answer.ignored:
            continue
        attrs = node.attrs
        name = _capped(answer.name, max_name_chars)
        walker = attrs.get("data-name")
        if not name:
            attrs.pop("data-name", None)
        elif walker is None or walker.casefold() != name.casefold():
            attrs["data-name"] = name
        if answer.invalid and "aria-invalid" not in attrs:
            attrs["aria-invalid"] = "true"
        if answer.value and answer.role in VALUE_ROLES and "data-value" not in attrs and "data-filled" not in attrs \
                and node.tag != "select":  # a native select shows its selected options (the walk's)
            value = _capped(answer.value, max_value_chars)
            if value:
                attrs["data-value"] = value
