"""Parse visible HTML (or ordinary raw HTML) into a small, cleaned node tree.

Every renderer in :mod:`browser_ctx.core` works on the tree built here, never on
selectolax nodes directly: :func:`parse_html` parses with selectolax's Lexbor
backend once, walks the result once, and keeps only what a reader could see.

Dropped while building (element and whole subtree), per the "Core robustness"
section of ``docs/visible-html.md``:

- the tags in :data:`DROP_TAGS` (``script``, ``style``, ``template``, ``head``, …);
- comments, doctypes and processing instructions;
- elements with the ``hidden`` attribute, ``aria-hidden="true"``, ``inert``, an
  inline ``style`` with ``display:none``, ``visibility:hidden|collapse`` or
  ``opacity:0``, ``input type=hidden``, and the common screen-reader-only classes
  (:data:`SR_ONLY_CLASSES`; visible HTML never has those, raw HTML often does);
- the content of a closed ``<details>`` (its ``<summary>`` stays);
- ``svg``/``canvas`` without a name (a named one becomes ``<img alt="name">``);
- ``iframe`` fallback content (the element stays as a frame placeholder).

Rewritten while building: ``href`` values ``data:…`` become ``"data:"`` and
``javascript:…`` become ``"javascript:"``; other attribute values that are
``data:`` URIs are dropped; the ``value`` of a password field is removed (its
filled state is kept as ``data-filled="yes"|"no"``).

The helpers :func:`role_of`, :func:`is_interactive`, :func:`accessible_name`,
:func:`control_state` and :func:`control_value` answer the same questions for
a walk's tree (where ``js/walk.js`` already resolved names and values into
``data-name``/``data-value``) and for raw HTML (where they fall back to
``aria-label``, ``<label>``, ``title``, ``placeholder``, ``value`` …).

All text lengths in this module are characters (Python ``str`` code points).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .roles import (
    LANDMARK_ROLES,
    accessible_name,
    control_state,
    control_value,
    heading_level,
    is_interactive,
    landmark_of,
    role_of,
)
from .tree import (
    _BLOB,
    BLOCK_TAGS,
    INVISIBLE_CHARS,
    Document,
    Node,
    _blob_cut,
    collapse_ws,
    cut_text,
    strip_invisible,
    table_rows,
    to_html,
)

__all__ = [
    "Node",
    "Document",
    "parse_html",
    "as_document",
    "DROP_TAGS",
    "BLOCK_TAGS",
    "LANDMARK_ROLES",
    "collapse_ws",
    "strip_invisible",
    "INVISIBLE_CHARS",
    "cut_text",
    "role_of",
    "landmark_of",
    "is_interactive",
    "accessible_name",
    "control_state",
    "control_value",
    "heading_level",
    "to_html",
    "table_rows",
]

#: Tags dropped with their whole subtree.
DROP_TAGS = frozenset(
    "script style template noscript head meta link base title object embed param source track "
    "datalist col colgroup "
    "#comment !doctype -comment -doctype".split()
)

#: Classes that mark "visually hidden, screen readers only" content in raw HTML.
SR_ONLY_CLASSES = frozenset(
    "sr-only visually-hidden visuallyhidden screen-reader-text screenreader-only sr-text "
    "screen-reader-only a11y-hidden u-visually-hidden element-invisible".split()
)

#: Classes that mark "visually hidden, screen readers only" content in raw HTML.
SR_ONLY_CLASSES = frozenset(
    "sr-only visually-hidden visuallyhidden screen-reader-text screenreader-only sr-text "
    "screen-reader-only a11y-hidden u-visually-hidden element-invisible".split()
)

_STYLE_HIDDEN = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0(?:\.0*)?\s*(?:!important)?\s*(?:;|$))",
    re.I,
)


def _hidden(tag: str, attrs: dict[str, str | None]) -> bool:
    if "hidden" in attrs:
        return True
    if "inert" in attrs:
        return True
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = attrs.get("style")
    if style and _STYLE_HIDDEN.search(style.replace("\n", " ")):
        return True
    if tag == "input" and (attrs.get("type") or "").strip().lower() == "hidden":
        return True
    cls = attrs.get("class")
    if cls and not SR_ONLY_CLASSES.isdisjoint(cls.lower().split()):
        return True
    return False


def _svg_name(lx) -> str:
    """Name of a raw ``<svg>``: aria-label, else its ``<title>`` child."""
    attrs = lx.attributes
    name = attrs.get("data-name") or attrs.get("aria-label") or ""
    if not name.strip():
        t = lx.css_first("title")
        if t is not None:
            name = t.text(deep=True) or ""
    return collapse_ws(name)


def _clean_attrs(tag: str, attrs: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in attrs.items():
        if value is None:
            value = ""
        if key.startswith("on") or key == "style" or key == "srcset":
            continue
        low = value[:11].lower().lstrip()
        if low.startswith("javascript:"):
            if key == "href":
                out[key] = "javascript:"
            continue
        if low.startswith("data:"):
            if key == "href":
                out[key] = "data:"
            continue
        out[key] = value
    if tag == "input" and ((out.get("type") or "").lower() == "password" or _sensitive_field(out)):
        value = out.pop("value", None) or out.pop("data-value", None)
        out.pop("data-value", None)
        if "data-filled" not in out:
            out["data-filled"] = "yes" if value else "no"
    return out


def as_document(source: str | Document) -> Document:
    """Return ``source`` itself when it is a :class:`Document` (a walked tree), else :func:`parse_html` of it."""
    return source if isinstance(source, Document) else parse_html(source)


def parse_html(html: str) -> Document:
    """Parse ``html`` (visible HTML or ordinary HTML) into a cleaned :class:`Document`.

    Never raises on malformed input: the HTML5 parser repairs it. An empty string gives a
    document with an empty body.
    """
    tree = LexborHTMLParser(INVISIBLE_CHARS.sub("", html or ""))
    lx_root = tree.root
    by_id: dict[str, Node] = {}
    label_for: dict[str, list[Node]] = {}
    root = Node("html", {})
    body: Node | None = None
    if lx_root is None:
        body = Node("body", {}, root)
        root.children.append(body)
        return Document(root, body, by_id, label_for)
    root.attrs = _clean_attrs("html", lx_root.attributes)
    # Iterative walk: stack of (lexbor node, parent Node).
    stack: list[tuple[LexborNode, Node]] = []
    child = lx_root.last_child
    while child is not None:
        stack.append((child, root))
        child = child.prev
    while stack:
        lx, parent = stack.pop()
        tag = lx.tag
        if tag == "-text":
            text = lx.text_content
            if text and "&" in html:  # a character reference (&#8203;) is decoded only now
                text = INVISIBLE_CHARS.sub("", text)
            if text:
                if len(text) >= 4000 and parent.tag != "pre":
                    text = _BLOB.sub(_blob_cut, text)
                parent.children.append(Node("#text", None, parent, text))
            continue
        if not tag or tag[0] in "-#!" or tag in DROP_TAGS:
            continue
        attrs = lx.attributes
        if _hidden(tag, attrs):
            continue
        if parent.tag == "details" and "open" not in parent.attrs and tag != "summary":
            continue
        if tag in ("svg", "canvas", "math"):
            if tag == "canvas":
                name = collapse_ws(attrs.get("data-name") or attrs.get("aria-label") or "")
            else:
                name = _svg_name(lx)
            if tag == "math":
                name = name or collapse_ws(attrs.get("alttext") or "")
            if name:
                parent.children.append(Node("img", {"alt": name}, parent))
            continue
        node = Node(tag, _clean_attrs(tag, attrs), parent)
        parent.children.append(node)
        ident = node.attrs.get("id")
        if ident and ident not in by_id:
            by_id[ident] = node
        if tag == "label":
            target = node.attrs.get("for")
            if target:
                label_for.setdefault(target, []).append(node)
        elif tag == "body" and body is None:
            body = node
        if tag in ("iframe", "frame"):
            continue  # fallback content of a raw iframe is not rendered
        child = lx.last_child
        while child is not None:
            stack.append((child, node))
            child = child.prev
    if body is None:
        body = Node("body", {}, root)
        root.children.append(body)
    return Document(root, body, by_id, label_for)


_SENSITIVE_AUTOCOMPLETE = re.compile(r"\b(cc-number|cc-csc|one-time-code)\b", re.I)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _sensitive_field(attrs: dict[str, str]) -> bool:
    """Whether an input's value is shown only as filled/empty, like a password: a card number or code or a
    one-time code (by ``autocomplete``), or a Luhn-valid run of 13-19 digits (the same rule as ``js/forms.js``)."""
    if _SENSITIVE_AUTOCOMPLETE.search(attrs.get("autocomplete") or ""):
        return True
    digits = re.sub(r"[\s-]", "", attrs.get("value") or attrs.get("data-value") or "")
    return 13 <= len(digits) <= 19 and digits.isdigit() and _luhn(digits)
