"""Semantics from Chromium's accessibility tree, for a bounded set of nodes (stage 2 of the reading pipeline).

Chromium computes roles, accessible names (W3C accname, CSS generated content included), descriptions,
values and states for every node, and sees inside closed shadow roots, SVG ``<text>`` and canvas
fallback content. This module asks it for exactly the nodes a walk kept, never for the whole tree of a
page (``Accessibility.getFullAXTree`` takes over a minute on a page of 200,000 elements):

- :func:`kept_semantics` answers for a walk's kept nodes. It reads their roles and names in the page
  (:func:`computed_semantics`: ``Element.computedRole``/``computedName``, the same tree's answers, in one
  ``Runtime.evaluate`` once :func:`hold_tree` has had the tree built), and asks over CDP only about the
  nodes whose answer says more than a name (a value role, an invalid state, a name from ``title`` or a
  placeholder, a node Chromium may ignore: not rendered, under ``aria-hidden``/``inert``). A browser without the
  feature flag (one we attached to) has every node asked over CDP.
- :func:`fetch` takes node keys (a Runtime ``objectId`` string or a ``backendNodeId`` int) and answers
  one :class:`NodeSemantics` per key, from ``Accessibility.getPartialAXTree {fetchRelatives: false}``
  calls sent together (``asyncio.gather``), so the cost is one round trip plus a per-node cost.
- :func:`object_ids` and :func:`handoff` turn what a page-side walker kept (an array of nodes) into
  ``objectId`` keys in two CDP calls (``Runtime.evaluate`` / ``Runtime.callFunctionOn``, then
  ``Runtime.getProperties``), whatever the array's length.
- :func:`subtree` answers ``Accessibility.queryAXTree`` for one node: its own node and every descendant
  matching a role and/or name, for the text Chromium sees under an element (generated content, SVG
  text, canvas fallback) and the controls inside a closed shadow root.

Chromium's tree does not carry ``aria-rowcount``/``aria-rowindex``/``aria-colcount``/``aria-colindex``;
:func:`fetch` reads those attributes (``DOM.describeNode``) for table-like roles only.

Results are plain frozen dataclasses the pure core can join to its own tree by ``backend_node_id``
(or by the position of the key); nothing here returns a Page or keeps state between calls. CDP
sessions come from ``page.context.new_cdp_session(page)`` (or ``(frame)`` for an out-of-process
iframe, whose nodes live in that session only); the caller owns and detaches them.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import CDPSession, ElementHandle, Frame, JSHandle, Page
from playwright.async_api import Error as PlaywrightError

from .._errors import translate
from ..core.tree import INVISIBLE_CHARS, Node
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
    "hold_tree",
    "apply_semantics",
    "MAX_NAME_CHARS",
    "MAX_VALUE_CHARS",
    "VALUE_ROLES",
]

#: A node to ask about: a Runtime ``objectId`` (str, valid in the CDP session it came from) or a DOM
#: ``backendNodeId`` (int, stable for the life of the document, valid in the session of its frame).
NodeKey = int | str

#: Object group of every remote object this module creates; :func:`release` frees them in one call.
OBJECT_GROUP = "browser-ctx-semantics"

#: Roles whose row/column counts and indexes are read from ``aria-*`` attributes (Chromium's CDP
#: tree does not expose them).
TABLE_ROLES = frozenset({"table", "grid", "treegrid", "row", "cell", "gridcell", "columnheader", "rowheader"})

#: Attribute -> field of :class:`NodeSemantics`, for the counts Chromium does not expose.
_COUNT_ATTRIBUTES = {"aria-rowcount": "row_count", "aria-rowindex": "row_index",
                     "aria-colcount": "col_count", "aria-colindex": "col_index"}

#: Boolean AX properties -> field of :class:`NodeSemantics`.
_BOOLEAN_PROPERTIES = {"required": "required", "disabled": "disabled", "readonly": "readonly", "modal": "modal",
                       "focusable": "focusable", "focused": "focused", "multiselectable": "multiselectable",
                       "multiline": "multiline", "busy": "busy", "expanded": "expanded", "selected": "selected"}

#: Page-side function (``this`` = an array of nodes, the argument = a global name) that stores the
#: array under that name in its world, so a CDP session can evaluate it.
_STORE_UNDER = "(nodes, key) => { globalThis[key] = nodes; }"


@dataclass(frozen=True)
class NodeSemantics:
    """What Chromium's accessibility tree says about one DOM node. Plain data, no page.

    ``role`` is Chromium's: an ARIA role (``button``, ``gridcell``, ``generic``, ``none``) or an
    internal one (``StaticText``, ``LabelText``, ``RootWebArea``). ``name``, ``description`` and
    ``value`` are strings as Chromium computed them (raw: no whitespace or format-character
    cleaning, which is the core's job). Tri-state properties keep Chromium's token: ``checked`` and
    ``pressed`` are ``"true"``, ``"false"`` or ``"mixed"``; ``invalid`` is ``"true"``, ``"grammar"`` or
    ``"spelling"`` (``None`` when the node is valid). ``expanded``/``selected`` are ``None`` when the
    node does not support them. Counts and indexes (1-based) come from the ``aria-*`` attributes, for
    :data:`TABLE_ROLES` only; ``None`` when absent or not a number.
    """

    role: str
    name: str = ""
    description: str = ""
    value: str | None = None
    ignored: bool = False
    backend_node_id: int | None = None
    level: int | None = None
    checked: str | None = None
    pressed: str | None = None
    invalid: str | None = None
    has_popup: str | None = None
    expanded: bool | None = None
    selected: bool | None = None
    required: bool = False
    disabled: bool = False
    readonly: bool = False
    modal: bool = False
    focusable: bool = False
    focused: bool = False
    multiselectable: bool = False
    multiline: bool = False
    busy: bool = False
    row_count: int | None = None
    row_index: int | None = None
    col_count: int | None = None
    col_index: int | None = None

    @property
    def states(self) -> tuple[str, ...]:
        """The states a snapshot shows, as words in a fixed order: ``("invalid", "required", "checked")``.

        ``checked``/``pressed`` ``"mixed"`` read ``"checked=mixed"``/``"pressed=mixed"``; ``expanded``
        reads ``"expanded"`` or ``"collapsed"``; ``focusable`` and ``focused`` are not shown.
        """
        words: list[str] = []
        if self.invalid:
            words.append("invalid")
        for flag in ("required", "disabled", "readonly", "modal", "multiselectable", "busy"):
            if getattr(self, flag):
                words.append(flag)
        for tri in ("checked", "pressed"):
            token = getattr(self, tri)
            if token == "true":
                words.append(tri)
            elif token == "mixed":
                words.append(f"{tri}=mixed")
        if self.expanded is not None:
            words.append("expanded" if self.expanded else "collapsed")
        if self.selected:
            words.append("selected")
        return tuple(words)


def _scalar(field: Mapping[str, Any] | None) -> Any:
    """Return the ``value`` of an ``AXValue`` (``None`` when absent)."""
    return field.get("value") if field else None


def _int_or_none(text: Any) -> int | None:
    """Return ``text`` as an int, or ``None`` when it is not a whole number."""
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


def _name(field: Mapping[str, Any] | None) -> str:
    """Return the accessible name of an AXNode's ``name`` field.

    Chromium stops at an empty ``<label for>`` (``<label for="q"></label><input id="q" placeholder="Search">``
    is named ""), where accname and Playwright go on to ``title`` and ``placeholder``; its list of name
    sources still holds them, so an empty name falls back to the first non-empty ``title`` or placeholder
    source.
    """
    name = str(_scalar(field) or "")
    if name.strip() or not field:
        return name
    for source in field.get("sources") or ():
        if source.get("type") == "placeholder" or source.get("attribute") == "title":
            text = str(_scalar(source.get("value")) or _scalar(source.get("attributeValue")) or "")
            if text.strip():
                return text
    return name


def parse_node(node: Mapping[str, Any], attributes: Mapping[str, str] | None = None) -> NodeSemantics:
    """Return the :class:`NodeSemantics` of one CDP ``Accessibility.AXNode`` (a dict as CDP sends it).

    ``attributes`` (name -> value) supplies the ``aria-*`` counts Chromium does not carry.
    """
    fields: dict[str, Any] = {}
    for prop in node.get("properties") or ():
        name, value = prop.get("name"), _scalar(prop.get("value"))
        if name in _BOOLEAN_PROPERTIES:
            fields[_BOOLEAN_PROPERTIES[name]] = bool(value)
        elif name in ("checked", "pressed"):
            fields[name] = str(value).lower()
        elif name == "invalid":
            fields["invalid"] = None if str(value) == "false" else str(value)
        elif name == "hasPopup":
            fields["has_popup"] = None if str(value) == "false" else str(value)
        elif name == "level":
            fields["level"] = _int_or_none(value)
    for attribute, field in _COUNT_ATTRIBUTES.items():
        if attributes and attribute in attributes:
            fields[field] = _int_or_none(attributes[attribute])
    value = _scalar(node.get("value"))
    backend = node.get("backendDOMNodeId")
    return NodeSemantics(
        role=str(_scalar(node.get("role")) or ""),
        name=_name(node.get("name")),
        description=str(_scalar(node.get("description")) or ""),
        value=None if value is None or value == "" else str(value),
        ignored=bool(node.get("ignored")),
        backend_node_id=int(backend) if backend is not None else None,
        **fields,
    )


def _session_closed(exc: PlaywrightError) -> bool:
    """Whether ``exc`` says the page, browser or CDP session closed (as opposed to one node being gone)."""
    return "closed" in str(exc).lower()


def _key_params(key: NodeKey) -> dict[str, Any]:
    """Return the CDP parameters naming ``key``: ``{"objectId": …}`` or ``{"backendNodeId": …}``."""
    return {"objectId": key} if isinstance(key, str) else {"backendNodeId": key}


async def _partial(cdp: CDPSession, key: NodeKey) -> Mapping[str, Any] | None:
    """Return the AXNode of ``key`` alone, or ``None`` when the node is gone or has no AX object."""
    try:
        answer = await cdp.send("Accessibility.getPartialAXTree", {**_key_params(key), "fetchRelatives": False})
    except PlaywrightError as exc:
        if _session_closed(exc):
            raise
        return None  # the node was removed, or its document navigated: no semantics, not an error
    nodes = answer.get("nodes") or []
    return nodes[0] if nodes else None


async def _attributes(cdp: CDPSession, key: NodeKey) -> dict[str, str]:
    """Return the DOM attributes of ``key`` (name -> value); empty when the node is gone."""
    try:
        answer = await cdp.send("DOM.describeNode", {**_key_params(key), "depth": 0})
    except PlaywrightError:
        return {}  # the node went between the two calls; it simply has no counts
    flat = answer.get("node", {}).get("attributes") or []
    return dict(zip(flat[::2], flat[1::2], strict=False))


async def fetch(cdp: CDPSession, keys: Sequence[NodeKey]) -> list[NodeSemantics | None]:
    """Return the semantics of each node in ``keys``, in order (``None`` for a node that is gone).

    One ``Accessibility.getPartialAXTree {fetchRelatives: false}`` per key, all sent at once, then one
    ``DOM.describeNode`` per node whose role is in :data:`TABLE_ROLES` (for the ``aria-*`` counts).
    ``keys`` are ``objectId`` strings or ``backendNodeId`` ints valid in ``cdp``'s target. Cost grows
    with ``len(keys)``, not with the page (see ``bench/ax_cost.py``).

    Raises:
        PageError: the page or browser closed (a removed node is not an error: it answers ``None``).
    """
    if not keys:
        return []
    try:
        nodes = await asyncio.gather(*(_partial(cdp, key) for key in keys))
    except PlaywrightError as exc:
        raise translate(exc, action="read the accessibility tree") from exc
    table_like = [i for i, node in enumerate(nodes) if node and _scalar(node.get("role")) in TABLE_ROLES]
    attributes = dict(zip(table_like, await asyncio.gather(*(_attributes(cdp, keys[i]) for i in table_like)),
                          strict=True))
    return [parse_node(node, attributes.get(i)) if node else None for i, node in enumerate(nodes)]


async def subtree(cdp: CDPSession, key: NodeKey, *, role: str | None = None,
                  name: str | None = None) -> list[NodeSemantics]:
    """Return the accessibility nodes of ``key``'s subtree (itself first, in tree order) matching ``role``/``name``.

    ``Accessibility.queryAXTree``: with neither filter, every node (ignored ones too); ``role="StaticText"``
    gives the text Chromium shows under the node (CSS generated content, SVG ``<text>``, canvas fallback,
    closed shadow roots); ``role="button"`` finds buttons inside a closed shadow root from its host.
    ``InlineTextBox`` nodes (layout fragments of StaticText) are left out. The cost grows with the
    subtree's size: call it on small subtrees only. An empty list when the node is gone.

    Raises:
        PageError: the page or browser closed.
    """
    params: dict[str, Any] = _key_params(key)
    if role:
        params["role"] = role
    if name is not None:
        params["accessibleName"] = name
    try:
        answer = await cdp.send("Accessibility.queryAXTree", params)
    except PlaywrightError as exc:
        if _session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return []  # the node was removed: it has no subtree
    return [parse_node(node) for node in answer.get("nodes") or ()
            if _scalar(node.get("role")) != "InlineTextBox"]


async def object_ids(cdp: CDPSession, array_object_id: str) -> list[str | None]:
    """Return the ``objectId`` of each item of a remote array (``None`` for an item that is not an object).

    One ``Runtime.getProperties`` call, whatever the array's length. The ids belong to
    :data:`OBJECT_GROUP` only if the array did; free them with :func:`release`.
    """
    answer = await cdp.send("Runtime.getProperties", {"objectId": array_object_id, "ownProperties": True})
    items: dict[int, str | None] = {}
    for prop in answer.get("result") or ():
        if prop.get("name", "").isdigit():
            items[int(prop["name"])] = (prop.get("value") or {}).get("objectId")
    return [items.get(i) for i in range(len(items))]


async def handoff(target: Page | Frame, nodes: JSHandle | ElementHandle, cdp: CDPSession) -> list[str | None]:
    """Return ``objectId`` keys in ``cdp`` for the nodes of a page-side array ``nodes`` (a Playwright handle).

    Playwright's handles live in its own CDP session, so the array is stored under a random global
    name in its world (the frame's main world, where ``frame.evaluate_handle`` runs), read back through
    ``cdp`` with ``Runtime.evaluate`` in the same world, and the name deleted: three calls plus one
    ``Runtime.getProperties``, whatever the number of nodes. ``target`` must be the main frame of
    ``cdp``'s target (the page, or an out-of-process iframe with its own session). Free the ids with
    :func:`release`.

    Raises:
        PageError: the page navigated or closed meanwhile.
    """
    key = f"__browserCtxAx{secrets.token_hex(8)}"
    try:
        await nodes.evaluate(_STORE_UNDER, key)
        answer = await cdp.send("Runtime.evaluate", {"expression": f"globalThis.{key}", "objectGroup": OBJECT_GROUP})
        frame = target.main_frame if isinstance(target, Page) else target
        await frame.evaluate("(key) => { delete globalThis[key]; }", key)
    except PlaywrightError as exc:
        raise translate(exc, action="read the accessibility tree") from exc
    array_id = (answer.get("result") or {}).get("objectId")
    return await object_ids(cdp, array_id) if array_id else []


async def resolve(cdp: CDPSession, backend_node_id: int) -> str | None:
    """Return an ``objectId`` (main world, :data:`OBJECT_GROUP`) for a backend node id, or ``None`` if it is gone.

    For nodes found only through the accessibility tree (a control inside a closed shadow root, from
    :func:`subtree`), so they can be registered under a ref and acted on like any other element.
    """
    try:
        answer = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_node_id, "objectGroup": OBJECT_GROUP})
    except PlaywrightError:
        return None  # the node was removed or its document navigated
    return (answer.get("object") or {}).get("objectId")


async def release(cdp: CDPSession) -> None:
    """Free every remote object this module created in ``cdp`` (:data:`OBJECT_GROUP`)."""
    try:
        await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})
    except PlaywrightError:
        pass  # the page navigated or closed: its objects are gone already, nothing left to free


# --- the walk's kept nodes -------------------------------------------------------------------------------------

#: Characters of an accessible name kept in ``data-name`` (longer ones end in ``…``), as the walker does.
MAX_NAME_CHARS = 200
#: Characters of a value kept in ``data-value`` (longer ones end in ``…``), as the walker does.
MAX_VALUE_CHARS = 200
#: Roles whose value Chromium reports is shown as ``data-value`` when the walker found none (a custom
#: combobox's current option, a slider's or spinbutton's ``aria-valuetext``/``aria-valuenow``).
VALUE_ROLES = frozenset({"combobox", "slider", "spinbutton", "progressbar", "meter", "scrollbar"})

_WHITESPACE = re.compile(r"[ \t\n\r\f]+")


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
        if _session_closed(exc):
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
        if _session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None


class FrameSessions:
    """The CDP sessions of one page read: the page's own, and one per out-of-process iframe asked about.

    Opened lazily, detached together by :meth:`close` (use ``async with``). Lives for one read only; it
    keeps no state between reads.
    """

    def __init__(self, page: Page) -> None:
        self._page = page
        self._sessions: dict[Frame | None, CDPSession | None] = {}

    async def for_frame(self, frame: Frame | None = None) -> CDPSession | None:
        """Return the session of the page (``frame=None``) or of an out-of-process ``frame``.

        ``None`` when ``frame`` shares its parent's process (it has no session of its own) or is gone.
        """
        if frame not in self._sessions:
            try:
                self._sessions[frame] = await self._page.context.new_cdp_session(frame or self._page)
            except PlaywrightError:
                self._sessions[frame] = None  # an in-process frame (or a closed page): no session of its own
        return self._sessions[frame]

    async def close(self) -> None:
        """Detach every session opened (which frees their remote objects).

        Never asks the page anything (a page stuck in a script would not answer): detaching is done by
        the browser process.
        """
        sessions = [s for s in self._sessions.values() if s is not None]
        self._sessions.clear()
        for cdp in sessions:
            try:
                await cdp.detach()
            except PlaywrightError:
                pass  # the page or frame closed: the session is gone with it

    async def __aenter__(self) -> FrameSessions:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


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
    where = {"contextId": context_id} if context_id is not None else {}
    try:
        root = await cdp.send("Runtime.evaluate", {"expression": "document.documentElement",
                                                   "objectGroup": OBJECT_GROUP, **where})
        object_id = (root.get("result") or {}).get("objectId")
        if object_id:
            await cdp.send("Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False})
    except PlaywrightError as exc:
        if _session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc


async def computed_semantics(cdp: CDPSession, array_id: str, limit: int | None = None,
                             context_id: int | None = None) -> tuple[int, list[tuple[int, str, str, bool]]] | None:
    """Read Chromium's role and accessible name of the nodes of a kept array (:func:`kept_array`) in the page.

    ``js/ax_computed.js`` reads ``Element.computedRole``/``computedName`` (Chromium exposes them with
    ``--enable-blink-features=ComputedAccessibilityInfo``, which :func:`.launcher.chromium_args` passes): the
    values ``Accessibility.getPartialAXTree`` gives, from the same tree, in one ``Runtime.callFunctionOn``
    instead of one CDP message per node. The walks of 126 of the 130 corpus pages are the same either way; 3
    others differ only by random numbers in their markup, and on the last a submit button inside an empty
    ``<label>`` is named by its value here and unnamed in the CDP answer.
    :func:`hold_tree` runs first (in ``context_id``, where the array lives). ``limit`` as for
    :func:`kept_semantics`.

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
        await hold_tree(cdp, context_id)
        answer = await cdp.send("Runtime.callFunctionOn", {
            "objectId": array_id, "functionDeclaration": script("ax_computed"),
            "arguments": [{"value": limit}, {"value": sorted(VALUE_ROLES)}], "returnByValue": True})
    except PlaywrightError as exc:
        if _session_closed(exc):
            raise translate(exc, action="read the accessibility tree") from exc
        return None
    value = (answer.get("result") or {}).get("value")
    if not isinstance(value, list) or len(value) != 2:
        return None
    count, rows = value
    return int(count), [(int(i), str(role), str(name), bool(ask)) for i, role, name, ask in rows]


async def _kept_answers(cdp: CDPSession, token: str, limit: int | None,
                        context_id: int | None = None) -> list[NodeSemantics | None] | None:
    """The answers of :func:`kept_semantics` from one session; ``None`` when ``cdp`` cannot reach the nodes.

    Names and roles come from :func:`computed_semantics` when the page can give them; the nodes it marks
    ``ask``, and every node when it cannot, are asked over CDP (:func:`kept_keys`, :func:`fetch`).
    """
    array_id = await kept_array(cdp, token, context_id)
    if array_id is None:
        return None
    computed = await computed_semantics(cdp, array_id, limit, context_id)
    if computed is not None:
        count, rows = computed
        answers: list[NodeSemantics | None] = [None] * count
        for i, role, name, _ in rows:
            answers[i] = NodeSemantics(role=role, name=name)
        wanted = [i for i, _, _, ask in rows if ask]
        if not wanted:
            return answers
    keys = await kept_keys(cdp, array_id)
    if keys is None:
        return None if computed is None else answers
    if computed is None:
        answers = [None] * len(keys)
        wanted = [i for i, k in enumerate(keys) if k]
        wanted = wanted[:limit] if limit is not None else wanted
    reachable = [i for i in wanted if i < len(keys) and keys[i]]
    for i, answer in zip(reachable, await fetch(cdp, [k for i in reachable if (k := keys[i])]), strict=True):
        answers[i] = answer
    return answers


async def kept_semantics(sessions: FrameSessions, frame: Frame, token: str, limit: int | None = None,
                         world: tuple[bool, int] | None = None) -> list[NodeSemantics | None]:
    """Return the semantics of the nodes the walk of ``frame`` kept under ``token``, in the walk's order.

    Looks in the page's session first (the main frame and every in-process frame), then in ``frame``'s
    own session (an out-of-process iframe). The first ``limit`` nodes are asked about (all when ``None``); the
    others answer ``None``. Empty when the nodes cannot be reached (the frame navigated).
    ``world``: where the walk ran (:meth:`.worlds.Worlds.context_of`: out of process, context id); the
    nodes are asked for in that context of the frame's session only.

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
        found = await _kept_answers(cdp, token, limit, world[1]) if cdp is not None else None
        return found or []
    found = await _kept_answers(page_session, token, limit) if page_session is not None else None
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
      "Spain", a slider's ``aria-valuetext``).

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
        if answer.value and answer.role in VALUE_ROLES and "data-value" not in attrs and "data-filled" not in attrs:
            value = _capped(answer.value, max_value_chars)
            if value:
                attrs["data-value"] = value
