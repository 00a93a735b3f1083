"""Chromium's accessibility tree over CDP, node by node (the per-node path of :mod:`.semantics`).

Chromium computes roles, accessible names (W3C accname, CSS generated content included), descriptions,
values and states for every node, and sees inside closed shadow roots, SVG ``<text>`` and canvas
fallback content. This module asks it about given nodes, never for the whole tree of a page
(``Accessibility.getFullAXTree`` takes over a minute on a page of 200,000 elements):

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
sessions come from the tab's :class:`.page_cdp.PageCDP` (the page's, or an out-of-process iframe's, whose
nodes live in that session only; :class:`.semantics.FrameSessions` takes them for a read). Every public
name here is importable from :mod:`.semantics` too.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import CDPSession, ElementHandle, Frame, JSHandle, Page
from playwright.async_api import Error as PlaywrightError

from .._errors import translate

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
    "session_closed",
]

#: A node to ask about: a Runtime ``objectId`` (str, valid in the CDP session it came from) or a DOM
#: ``backendNodeId`` (int, stable for the life of the document, valid in the session of its frame).
NodeKey = int | str

#: Object group of every remote object this module and :mod:`.semantics` create; :func:`release` frees them in one call.
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


def session_closed(exc: PlaywrightError) -> bool:
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
        if session_closed(exc):
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
        if session_closed(exc):
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
    """Free every remote object of :data:`OBJECT_GROUP` in ``cdp`` (this module's and :mod:`.semantics`'s)."""
    try:
        await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})
    except PlaywrightError:
        pass  # the page navigated or closed: its objects are gone already, nothing left to free

