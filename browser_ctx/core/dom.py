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
visible HTML (where ``extract.js`` already resolved names and values into
``data-name``/``data-value``) and for raw HTML (where they fall back to
``aria-label``, ``<label>``, ``title``, ``placeholder``, ``value`` …).

All text lengths in this module are characters (Python ``str`` code points).
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = [
    "Node",
    "Document",
    "parse_html",
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

#: Tags that start a new line of text (block-level in browsers' default style sheet, or
#: structural for our renderings). Everything else is inline: its text joins its neighbours'.
BLOCK_TAGS = frozenset(
    "html body main header footer nav aside section article form fieldset legend "
    "h1 h2 h3 h4 h5 h6 p ul ol menu li dl dt dd table caption thead tbody tfoot tr th td "
    "pre blockquote figure figcaption details summary dialog hr address div center hgroup "
    "search bc-frame iframe frame frameset video audio listing plaintext xmp dir".split()
)

VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())

#: Landmark roles counted and shown as containers.
LANDMARK_ROLES = ("banner", "navigation", "main", "complementary", "contentinfo", "search", "form", "region")

_WS = re.compile(r"\s+")
_STYLE_HIDDEN = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0(?:\.0*)?\s*(?:!important)?\s*(?:;|$))",
    re.I,
)
#: Runs of base64-looking characters inside text this long (an inline data blob, never a value a person reads
#: whole) are cut, with their length: hashes, SSH keys, JWTs and slugs are far shorter and stay whole.
_BLOB = re.compile(r"[A-Za-z0-9+/=_-]{4000,}")
#: Characters removed from every text and attribute value: zero-width and format characters (U+200B-U+200D,
#: U+2060, U+FEFF, soft hyphen) and private-use code points (icon-font glyphs, which mean nothing as text).
INVISIBLE_CHARS = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff\ue000-\uf8ff\U000f0000-\U0010ffff]")

_TEXT_INPUT_TYPES = frozenset("text email url tel search number password".split())
_ROLE_INTERACTIVE = frozenset(
    "button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox "
    "textbox searchbox slider spinbutton treeitem".split()
)


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


# --------------------------------------------------------------------------- roles

_INPUT_ROLES = {
    "": "textbox", "text": "textbox", "email": "textbox", "url": "textbox", "tel": "textbox",
    "search": "searchbox", "number": "spinbutton", "password": "password", "checkbox": "checkbox",
    "radio": "radio", "range": "slider", "submit": "button", "button": "button", "reset": "button",
    "image": "button", "file": "file", "color": "color", "date": "date", "datetime-local": "datetime",
    "month": "month", "week": "week", "time": "time",
}


def role_of(node: Node) -> str | None:
    """Return the role used in our renderings for an element, or ``None`` for plain containers.

    The explicit ``role`` attribute wins (its first token); otherwise the tag's implicit role:
    ``a[href]`` → ``link``; ``button`` → ``button``; ``input`` → by type (``textbox``,
    ``searchbox``, ``spinbutton``, ``password``, ``checkbox``, ``radio``, ``slider``,
    ``button``, ``file``, ``date`` …); ``select`` → ``select``; ``textarea`` and
    ``[contenteditable]`` → ``textbox``; ``summary`` → ``summary``; ``img`` → ``img``;
    headings → ``heading``; landmark tags → their landmark role (see :func:`landmark_of`).
    """
    if node.is_text:
        return None
    explicit = (node.attrs.get("role") or "").strip().lower()
    if explicit:
        explicit = explicit.split()[0]
        if explicit not in ("presentation", "none", "generic"):
            return explicit
    tag = node.tag
    if tag == "a":
        return "link" if "href" in node.attrs else None
    if tag == "button":
        return "button"
    if tag == "input":
        return _INPUT_ROLES.get((node.attrs.get("type") or "").strip().lower(), "textbox")
    if tag == "select":
        return "select"
    if tag == "textarea":
        return "textbox"
    if tag == "summary":
        return "summary"
    if tag == "img":
        return "img"
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return "heading"
    ce = node.attrs.get("contenteditable")
    if (ce is not None and ce.lower() not in ("false",)) or "data-value" in node.attrs:
        return "textbox"  # visible HTML marks a contenteditable only by its data-value
    return landmark_of(node)


def landmark_of(node: Node) -> str | None:
    """Return the landmark role of an element (one of :data:`LANDMARK_ROLES`), or ``None``.

    ``header``/``footer`` are ``banner``/``contentinfo`` only when not inside ``article``,
    ``aside``, ``main``, ``nav`` or ``section`` (as in HTML-AAM); ``section`` is a ``region``
    only when named; ``form`` always counts as ``form``; ``search`` → ``search``.
    """
    explicit = (node.attrs.get("role") or "").strip().lower().split()
    if explicit:
        return explicit[0] if explicit[0] in LANDMARK_ROLES else None
    tag = node.tag
    if tag == "nav":
        return "navigation"
    if tag == "main":
        return "main"
    if tag == "aside":
        return "complementary"
    if tag == "form":
        return "form"
    if tag == "search":
        return "search"
    if tag in ("header", "footer"):
        for anc in node.ancestors():
            if anc.tag in ("article", "aside", "main", "nav", "section") or (anc.attrs.get("role") or "") in (
                "main", "article", "complementary", "navigation", "region"):
                return None
        return "banner" if tag == "header" else "contentinfo"
    if tag == "section" and (node.attrs.get("data-name") or node.attrs.get("aria-label")
                             or node.attrs.get("aria-labelledby")):
        return "region"
    return None


def heading_level(node: Node) -> int | None:
    """Return 1-6 for ``h1``-``h6`` or ``role=heading`` (``aria-level``, default 2), else ``None``."""
    tag = node.tag
    if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
        level = node.attrs.get("aria-level")
        if level and level.isdigit():
            return max(1, min(6, int(level)))
        return int(tag[1])
    if (node.attrs.get("role") or "").strip().lower() == "heading":
        level = node.attrs.get("aria-level") or "2"
        return max(1, min(6, int(level))) if level.isdigit() else 2
    return None


def is_interactive(node: Node) -> bool:
    """Whether an element is interactive per the visible-HTML contract.

    True for elements with ``data-ref``, ``a[href]``, ``button``, ``input`` (not hidden),
    ``select``, ``textarea``, ``summary``, ``[contenteditable]`` and elements whose role is
    one of button, link, checkbox, radio, switch, tab, menuitem(-checkbox/-radio), option,
    combobox, textbox, searchbox, slider, spinbutton, treeitem.
    """
    if node.is_text:
        return False
    attrs = node.attrs
    if "data-ref" in attrs:
        return True
    tag = node.tag
    if tag in ("button", "input", "select", "textarea", "summary"):
        return True
    if tag == "a" and "href" in attrs:
        return True
    ce = attrs.get("contenteditable")
    if ce is not None and ce.lower() != "false":
        return True
    role = attrs.get("role")
    if role:
        first = role.strip().lower().split()
        return bool(first) and first[0] in _ROLE_INTERACTIVE
    return False


def _label_text(label: Node) -> str:
    parts: list[str] = []
    stack = [label]
    while stack:
        n = stack.pop()
        if n.is_text:
            parts.append(n.text)
        elif n.tag in ("input", "select", "textarea", "button") and n is not label:
            continue
        elif n.tag == "img":
            parts.append(" " + (n.attrs.get("alt") or "") + " ")
        else:
            stack.extend(reversed(n.children))
    return collapse_ws("".join(parts))


def accessible_name(node: Node, doc: Document | None = None, limit: int = 0) -> str:
    """Return the accessible name of an element, whitespace-collapsed (cut to ``limit`` chars
    with a trailing ``…`` when ``limit`` > 0).

    Order: ``data-name`` (set by ``extract.js``), ``aria-label``, ``aria-labelledby`` (raw HTML,
    needs ``doc``), ``<label for>``/wrapping ``<label>`` for form fields, ``alt`` for images and
    ``input type=image``, ``value`` for ``input`` buttons (default ``Submit``/``Reset``), text
    content for links, buttons, summaries, headings, options and other roles named from
    content, then ``title``, then ``placeholder``. Returns ``""`` when nothing applies.
    """
    name = _name(node, doc)
    if limit and len(name) > limit:
        name = name[: max(1, limit - 1)].rstrip() + "…"
    return name


def _name(node: Node, doc: Document | None) -> str:
    attrs = node.attrs
    for key in ("data-name", "aria-label"):
        v = attrs.get(key)
        if v and v.strip():
            return collapse_ws(v)
    if doc is not None and attrs.get("aria-labelledby"):
        parts = [doc.by_id[i].text_content() for i in attrs["aria-labelledby"].split() if i in doc.by_id]
        text = collapse_ws(" ".join(parts))
        if text:
            return text
    tag = node.tag
    itype = (attrs.get("type") or "").strip().lower() if tag == "input" else ""
    ce = attrs.get("contenteditable")
    editable = "data-value" in attrs or (ce is not None and ce.lower() != "false")
    if tag in ("input", "select", "textarea", "meter", "progress", "output") or editable or (
        attrs.get("role") in ("checkbox", "radio", "switch", "textbox", "combobox", "searchbox")
    ):
        if tag == "input" and itype in ("submit", "reset", "button"):
            v = attrs.get("value")
            if v and v.strip():
                return collapse_ws(v)
            if itype != "button":
                return "Submit" if itype == "submit" else "Reset"
        if tag == "input" and itype == "image":
            v = attrs.get("alt") or attrs.get("value")
            if v and v.strip():
                return collapse_ws(v)
        label_nodes: list[Node] = []
        if doc is not None and attrs.get("id") in doc.label_for:
            label_nodes.extend(doc.label_for[attrs["id"]])
        for anc in node.ancestors():
            if anc.tag == "label":
                if not any(anc is lb for lb in label_nodes):
                    label_nodes.append(anc)
                break
            if anc.tag in ("form", "body", "p", "li", "td", "fieldset"):
                break
        text = collapse_ws(" ".join(_label_text(lb) for lb in label_nodes))
        if text:
            return text
    elif tag == "img":
        return collapse_ws(attrs.get("alt") or "")
    else:
        text = node.text_content()
        if text:
            return text
    for key in ("title", "placeholder"):
        v = attrs.get(key)
        if v and v.strip():
            return collapse_ws(v)
    return ""


def control_value(node: Node) -> str | None:
    """Return the current value of a form control for display, or ``None``.

    ``data-value`` (visible HTML) wins; raw HTML falls back to the ``value`` attribute of
    text-like inputs and the text of a ``textarea``. For ``select``: the text of the selected
    options (``selected`` attribute; else the first option of a single select), joined with
    ``", "``. Never returns anything for password fields.
    """
    tag = node.tag
    attrs = node.attrs
    if tag == "input" and (attrs.get("type") or "").lower() == "password":
        return None
    if "data-value" in attrs:
        return attrs["data-value"]
    if tag == "input":
        itype = (attrs.get("type") or "text").lower()
        if itype in _TEXT_INPUT_TYPES or itype in ("date", "time", "datetime-local", "month", "week", "color", "range"):
            v = attrs.get("value")
            return v if v else None
        return None
    if tag == "textarea":
        text = node.raw_text().strip()
        return text or None
    ce = attrs.get("contenteditable")
    if ce is not None and ce.lower() != "false":
        return node.text_content() or None
    if tag == "select":
        options = list(node.elements("option"))
        chosen = [o for o in options if "selected" in o.attrs]
        if not chosen and options and "multiple" not in attrs:
            chosen = options[:1]
        return ", ".join(o.text_content() for o in chosen) or None
    return None


def control_state(node: Node) -> list[str]:
    """Return the state words shown after a control, in a fixed order.

    Possible words: ``invalid`` (``aria-invalid``; in visible HTML from Chromium's accessibility
    tree), ``checked``/``mixed`` (``checked`` attribute, ``aria-checked``),
    ``selected``, ``pressed``, ``expanded``/``collapsed`` (``aria-expanded``; ``summary`` from
    its ``details``' ``open``), ``current``, ``disabled``, ``required``, ``readonly``.
    """
    attrs = node.attrs
    out: list[str] = []
    if (attrs.get("aria-invalid") or "false").lower() != "false":
        out.append("invalid")
    ac = (attrs.get("aria-checked") or "").lower()
    if "checked" in attrs or ac == "true":
        out.append("checked")
    elif ac == "mixed":
        out.append("mixed")
    if (attrs.get("aria-selected") or "").lower() == "true" or (node.tag == "option" and "selected" in attrs):
        out.append("selected")
    ap = (attrs.get("aria-pressed") or "").lower()
    if ap == "true":
        out.append("pressed")
    ae = (attrs.get("aria-expanded") or "").lower()
    if node.tag == "summary" and not ae and node.parent is not None and node.parent.tag == "details":
        ae = "true" if "open" in node.parent.attrs else "false"
    if ae == "true":
        out.append("expanded")
    elif ae == "false":
        out.append("collapsed")
    cur = (attrs.get("aria-current") or "").lower()
    if cur and cur != "false":
        out.append("current")
    if "disabled" in attrs or (attrs.get("aria-disabled") or "").lower() == "true":
        out.append("disabled")
    if "required" in attrs:
        out.append("required")
    if "readonly" in attrs:
        out.append("readonly")
    return out


# --------------------------------------------------------------------------- serialising

_SENSITIVE_AUTOCOMPLETE = re.compile(r"\b(cc-number|cc-csc|one-time-code)\b", re.I)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _sensitive_field(attrs: dict[str, str]) -> bool:
    """Whether an input's value is shown only as filled/empty, like a password: a card number or code or a
    one-time code (by ``autocomplete``), or a Luhn-valid run of 13-19 digits (the same rule as ``extract.js``)."""
    if _SENSITIVE_AUTOCOMPLETE.search(attrs.get("autocomplete") or ""):
        return True
    digits = re.sub(r"[\s-]", "", attrs.get("value") or attrs.get("data-value") or "")
    return 13 <= len(digits) <= 19 and digits.isdigit() and _luhn(digits)


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
