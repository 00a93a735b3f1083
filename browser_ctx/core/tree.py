"""The one tree type every renderer in :mod:`browser_ctx.core` works on, and its text helpers.

A :class:`Node` is an element (``tag``, ``attrs``, ``children``) or a text node (``"#text"``, ``text``); a
:class:`Document` holds the root and body. Trees come from two places, never from anything else:

- the walk of a live page (``browser/js/walk.js``), sent as a compact JSON tree (a node is
  ``[tag, attrs | 0, ...children]``, a child a node or a string) and built here by :func:`from_wire`, which
  also returns the walk's markers (nodes awaiting Chromium's semantics, closed shadow roots, child frames)
  so the browser layer grafts them by identity (:func:`splice`);
- ordinary raw HTML, parsed by :func:`browser_ctx.core.dom.parse_html` (tests, saved pages).

Attributes follow ``docs/visible-html.md`` (``data-ref``, ``data-name``, ``data-value``, ``data-filled`` …).
All text lengths in this module are characters (Python ``str`` code points).
"""

from __future__ import annotations

import html as _html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "Node",
    "Document",
    "Walked",
    "from_wire",
    "document_of",
    "name_by_hints",
    "splice",
    "BLOCK_TAGS",
    "VOID_TAGS",
    "collapse_ws",
    "strip_invisible",
    "INVISIBLE_CHARS",
    "cut_text",
    "to_html",
    "table_rows",
    "KEEP_ATTRS",
]

_WS = re.compile(r"\s+")
#: An id usable as ``#id`` with no escaping (as ``js/walk.js`` keeps them).
_CSS_ID = re.compile(r"[A-Za-z][\w-]{0,63}")

#: Tags that start a new line of text (block-level in browsers' default style sheet, or
#: structural for our renderings). Everything else is inline: its text joins its neighbours'.
BLOCK_TAGS = frozenset(
    "html body main header footer nav aside section article form fieldset legend "
    "h1 h2 h3 h4 h5 h6 p ul ol menu li dl dt dd table caption thead tbody tfoot tr th td "
    "pre blockquote figure figcaption details summary dialog hr address div center hgroup "
    "search bc-frame iframe frame frameset video audio listing plaintext xmp dir".split()
)

VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())

#: Runs of base64-looking characters inside text this long (an inline data blob, never a value a person reads
#: whole) are cut, with their length: hashes, SSH keys, JWTs and slugs are far shorter and stay whole.
_BLOB = re.compile(r"[A-Za-z0-9+/=_-]{4000,}")
#: Characters removed from every text and attribute value: zero-width and format characters (U+200B-U+200D,
#: U+2060, U+FEFF, soft hyphen) and private-use code points (icon-font glyphs, which mean nothing as text).
INVISIBLE_CHARS = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff\ue000-\uf8ff\U000f0000-\U0010ffff]")


def strip_invisible(text: str) -> str:
    """Return ``text`` without :data:`INVISIBLE_CHARS` ("Pass\u200bword" -> "Password")."""
    return INVISIBLE_CHARS.sub("", text)


def _blob_cut(m: re.Match[str]) -> str:
    return f"{m.group(0)[:40]}… (+{len(m.group(0)) - 40:,} chars)"


def collapse_ws(text: str) -> str:
    """Return ``text`` with every whitespace run replaced by one space, stripped."""
    return _WS.sub(" ", text).strip()


def cut_text(text: str, limit: int) -> str:
    """Cut ``text`` to about ``limit`` characters at a sentence or word boundary.

    A cut text ends with ``"… (+N chars)"`` where N (thousands-separated) is the number of
    characters left out. Text of at most ``limit`` characters is returned unchanged.
    The kept part is at most ``limit`` characters; the marker comes on top.
    """
    if limit <= 0 or len(text) <= limit:
        return text
    window = text[: limit + 1]
    cut = -1
    for m in re.finditer(r"[.!?;:][\"')\]]?\s", window):
        if m.end() - 1 >= limit * 0.6:
            cut = m.end() - 1
    if cut < 0:
        sp = window.rfind(" ", int(limit * 0.5))
        cut = sp if sp > 0 else limit
    kept = text[:cut].rstrip()
    return f"{kept}… (+{len(text) - len(kept):,} chars)"

class Node:
    """One element or text node of the cleaned tree.

    Attributes:
        tag: lower-case tag name, or ``"#text"`` for a text node.
        attrs: the element's attributes (values are ``str``; boolean attributes have ``""``).
        children: child nodes in document order.
        parent: the parent node (``None`` for the root).
        text: for text nodes, the raw text (whitespace not yet collapsed); ``""`` otherwise.
    """

    __slots__ = ("tag", "attrs", "children", "parent", "text", "_tc")

    def __init__(self, tag: str, attrs: dict[str, str] | None = None, parent: Node | None = None,
                 text: str = "") -> None:
        self.tag = tag
        self.attrs = attrs if attrs is not None else {}
        self.children: list[Node] = []
        self.parent = parent
        self.text = text
        self._tc: str | None = None

    def id_target(self) -> str:
        """``#id`` that selects this element (the walker's ``data-id`` copy, or a parsed page's ``id``), when the
        id needs no escaping; else ``""``."""
        ident = self.attrs.get("data-id") or self.attrs.get("id") or ""
        return "#" + ident if _CSS_ID.fullmatch(ident) else ""

    @property
    def is_text(self) -> bool:
        return self.tag == "#text"

    def get(self, name: str, default: str | None = None) -> str | None:
        """Return attribute ``name`` or ``default``."""
        return self.attrs.get(name, default)

    def iter(self) -> Iterator[Node]:
        """Yield this node and every descendant element and text node, in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children:
                stack.extend(reversed(node.children))

    def elements(self, *tags: str) -> Iterator[Node]:
        """Yield descendant elements (not this node), optionally only those with one of ``tags``."""
        wanted = frozenset(tags)
        for node in self.iter():
            if node is not self and not node.is_text and (not wanted or node.tag in wanted):
                yield node

    def raw_text(self) -> str:
        """All descendant text concatenated (``img`` alts included, form-control options excluded),
        whitespace not collapsed. Cached."""
        if self._tc is None:
            parts: list[str] = []
            _collect_text(self, parts)
            self._tc = "".join(parts)
        return self._tc

    def text_content(self) -> str:
        """Descendant text with whitespace collapsed (see :meth:`raw_text`)."""
        return collapse_ws(self.raw_text())

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        if self.is_text:
            return f"Node(#text {self.text[:30]!r})"
        return f"Node(<{self.tag}> {len(self.children)} children)"


def _collect_text(node: Node, parts: list[str]) -> None:
    stack: list[Node | str] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            parts.append(n)
            continue
        if n.is_text:
            parts.append(n.text)
            continue
        tag = n.tag
        if tag == "img":
            alt = n.attrs.get("alt") or ""
            if alt.strip():
                parts.append(f" {alt.strip()} ")
            continue
        if tag in ("select", "datalist", "input", "textarea") and n is not node:
            continue
        if tag == "br":
            parts.append("\n")
            continue
        if tag in BLOCK_TAGS or tag in ("td", "th", "option"):
            parts.append(" ")
            stack.append(" ")
        stack.extend(reversed(n.children))


class Document:
    """A parsed, cleaned page.

    Attributes:
        root: the ``<html>`` element (cleaned).
        body: the ``<body>`` element (cleaned; an empty one if the input had none).
        by_id: element ``id`` → node, for ``aria-labelledby`` and ``<label for>`` (raw HTML).
        label_for: ``id`` → the ``<label for=id>`` nodes naming it.
    """

    __slots__ = ("root", "body", "by_id", "label_for")

    def __init__(self, root: Node, body: Node, by_id: dict[str, Node], label_for: dict[str, list[Node]]) -> None:
        self.root = root
        self.body = body
        self.by_id = by_id
        self.label_for = label_for

#: Attributes kept when a cleaned tree is serialised back to HTML.
KEEP_ATTRS = frozenset(
    "class role href alt data-name data-ref type name placeholder checked disabled required readonly "
    "multiple data-value data-filled selected open aria-expanded aria-checked aria-selected aria-pressed "
    "aria-current aria-level aria-disabled aria-invalid aria-label aria-rowcount aria-rowindex aria-colcount "
    "colspan rowspan data-frame data-url id for title "
    "value contenteditable lang dir start".split()
)


def to_html(node: Node) -> str:
    """Serialise a cleaned node (and subtree) back to HTML, keeping only :data:`KEEP_ATTRS`
    (``class`` cut to its first 3 tokens). The result re-parses to the same cleaned tree."""
    out: list[str] = []
    _serialise(node, out)
    return "".join(out)


def _serialise(node: Node, out: list[str]) -> None:
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if item.is_text:
            out.append(_html.escape(item.text, quote=False))
            continue
        parts = [item.tag]
        for key, value in item.attrs.items():
            if key not in KEEP_ATTRS:
                continue
            if key == "class":
                value = " ".join(value.split()[:3])
            parts.append(f'{key}="{_html.escape(value)}"' if value else key)
        out.append("<" + " ".join(parts) + ">")
        if item.tag in VOID_TAGS:
            continue
        stack.append(f"</{item.tag}>")
        stack.extend(reversed(item.children))


def table_rows(table: Node) -> list[Node]:
    """The ``tr`` rows of ``table`` in document order, through thead/tbody/tfoot and wrappers,
    not descending into cells, captions or nested tables."""
    rows: list[Node] = []
    stack = list(reversed(table.children))
    while stack:
        n = stack.pop()
        if n.is_text:
            continue
        if n.tag == "tr":
            rows.append(n)
        elif n.tag not in ("table", "td", "th", "caption"):
            stack.extend(reversed(n.children))
    return rows


# --------------------------------------------------------------------------- the walk's wire form

#: Tags whose first text child loses one leading newline (as an HTML parser drops it after ``<pre>``).
_LEADING_NEWLINE_TAGS = frozenset(("pre", "listing"))


@dataclass
class Walked:
    """One walk (a frame's document, an element, a closed shadow root) built from its wire form.

    Attributes:
        root: the walked root (``#fragment`` when the walk gave several nodes); ``None`` when nothing is shown.
        semantic: ``(index, node)`` for each node the walk marked for Chromium's semantics (``data-ax``; the
            attribute is taken off), ``index`` being its place in the walk's kept list.
        shadows: ``(index, marker)`` for each ``bc-shadow`` marker (``data-host`` = index in the walk's hosts).
        frames: the ``bc-frame`` placeholders, in document order.
        hinted: controls the walker could name only by a hint (``data-hint``: class or id words, an icon's name),
            for :func:`name_by_hints` once Chromium's names are in.
        operable: the walker's controls without ARIA (``data-op``), for :func:`~browser_ctx.core.wrappers.unwrap`.
    """

    root: Node | None
    semantic: list[tuple[int, Node]] = field(default_factory=list)
    shadows: list[tuple[int, Node]] = field(default_factory=list)
    frames: list[Node] = field(default_factory=list)
    hinted: list[Node] = field(default_factory=list)
    operable: list[Node] = field(default_factory=list)


def _clean_text(text: str, invisible: bool) -> str:
    return INVISIBLE_CHARS.sub("", text) if invisible else text


def from_wire(wire: str) -> Walked:
    """Build the tree of one walk from the walker's JSON (``[tag, attrs | 0, ...children]``, children nodes or
    strings; ``''`` for nothing shown). Text and attribute values lose :data:`INVISIBLE_CHARS`; text runs of
    base64-looking characters of 4,000 or more are cut (outside ``pre``), as :func:`~browser_ctx.core.dom.parse_html`
    does. Iterative: any depth.

    Raises:
        ValueError: ``wire`` is not the walker's JSON.
    """
    walked = Walked(None)
    if not wire:
        return walked
    data = json.loads(wire)
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise ValueError("not a walked tree")
    invisible = INVISIBLE_CHARS.search(wire) is not None
    semantic, shadows, frames, hinted = walked.semantic, walked.shadows, walked.frames, walked.hinted

    def element(item: list, parent: Node | None) -> Node:
        tag = item[0]
        raw = item[1]
        attrs: dict[str, str] = {}
        if raw:
            for key, value in raw.items():
                attrs[key] = _clean_text(value, invisible) if invisible else value
        node = Node(tag, attrs, parent)
        ax = attrs.pop("data-ax", None)
        if ax is not None:
            semantic.append((int(ax), node))
        if "data-hint" in attrs:
            hinted.append(node)
        if "data-op" in attrs:
            walked.operable.append(node)
        if tag == "bc-shadow":
            shadows.append((int(attrs.get("data-host") or 0), node))
        elif tag == "bc-frame":
            frames.append(node)
        return node

    root = element(data, None)
    stack: list[tuple[list, int, Node]] = [(data, 2, root)]
    while stack:
        item, i, node = stack[-1]
        if i >= len(item):
            stack.pop()
            continue
        stack[-1] = (item, i + 1, node)
        child = item[i]
        if isinstance(child, str):
            text = _clean_text(child, invisible)
            if i == 2 and node.tag in _LEADING_NEWLINE_TAGS and text.startswith("\n"):
                text = text[1:]
            if not text:
                continue
            if len(text) >= 4000 and node.tag != "pre":
                text = _BLOB.sub(_blob_cut, text)
            last = node.children[-1] if node.children else None
            if last is not None and last.is_text:
                last.text += text
            else:
                node.children.append(Node("#text", None, node, text))
            continue
        kid = element(child, node)
        node.children.append(kid)
        stack.append((child, 2, kid))
    walked.root = root
    return walked


def name_by_hints(nodes: list[Node]) -> None:
    """Name the controls nothing else names by the walker's hint: ``data-hint`` becomes ``data-name``, with
    ``data-name-from`` saying where it came from (``class``, ``id``, ``icon``) and ``data-name-token`` the class
    token or id it came from (``ui-slider-handle``), when the walker gave it. A control that has a name
    (Chromium's or the walker's) just loses the hint."""
    for node in nodes:
        attrs = node.attrs
        hint = attrs.pop("data-hint", "")
        source = attrs.pop("data-hint-from", "")
        token = attrs.pop("data-hint-token", "")
        if hint and not attrs.get("data-name"):
            attrs["data-name"] = hint
            attrs["data-name-from"] = source or "class"
            if token:
                attrs["data-name-token"] = token


def document_of(root: Node | None) -> Document:
    """Return the :class:`Document` of a walked root: a ``body`` root is the body; an ``html`` root's body is
    its ``body`` child; any other root (an element, a ``#fragment``'s nodes) is put in an empty body."""
    html = Node("html", {})
    if root is not None and root.tag == "html":
        html = root
        body = next((c for c in root.children if c.tag == "body"), None)
        if body is None:
            body = Node("body", {}, html)
            body.children, html.children = html.children, [body]
            for c in body.children:
                c.parent = body
        return Document(html, body, {}, {})
    if root is not None and root.tag == "body":
        root.parent = html
        html.children.append(root)
        return Document(html, root, {}, {})
    body = Node("body", {}, html)
    html.children.append(body)
    if root is not None:
        splice(body, 0, [root], replace=False)
    return Document(html, body, {}, {})


def splice(parent: Node, index: int, nodes: list[Node], *, replace: bool = True) -> None:
    """Put ``nodes`` (a ``#fragment``'s children are taken instead of it) among ``parent``'s children at
    ``index``, replacing the child there (``replace``), re-parented; text nodes that end up side by side are
    merged, as they would be in a parsed document."""
    flat: list[Node] = []
    for n in nodes:
        flat.extend(n.children if n.tag == "#fragment" else [n])
    kids = parent.children
    kids[index:index + 1 if replace else index] = flat
    for n in flat:
        n.parent = parent
    lo, hi = max(0, index - 1), min(len(kids) - 1, index + len(flat))
    i = lo
    while i < hi and i + 1 < len(kids):
        a, b = kids[i], kids[i + 1]
        if a.is_text and b.is_text:
            a.text += b.text
            del kids[i + 1]
            hi -= 1
        else:
            i += 1
    node: Node | None = parent
    while node is not None:
        node._tc = None
        node = node.parent
