"""Roles, accessible names, values and states of tree nodes, as the renderings show them.

For walked trees these read what the walk (and Chromium's accessibility tree) resolved: ``data-name``,
``data-value``, ``data-filled``, ``data-ref`` and the ARIA state attributes it keeps. For raw HTML
(:func:`browser_ctx.core.dom.parse_html`; tests, saved pages) they fall back to ``aria-label``, ``<label>``,
``title``, ``placeholder``, ``value`` ….
"""

from __future__ import annotations

import re

from .tree import Document, Node, collapse_ws

__all__ = [
    "LANDMARK_ROLES",
    "role_of",
    "landmark_of",
    "is_interactive",
    "accessible_name",
    "control_state",
    "icon_form",
    "control_value",
    "heading_level",
    "name_token",
]

#: Landmark roles counted and shown as containers.
LANDMARK_ROLES = ("banner", "navigation", "main", "complementary", "contentinfo", "search", "form", "region")

#: A class token or id that a CSS selector names as it is (``.like``, ``#open-search``: no escaping needed).
_CSS_TOKEN = re.compile(r"-?[_A-Za-z][\w-]{0,63}", re.ASCII)
#: What a CSS string in double quotes cannot hold as it is.
_CSS_UNSAFE = re.compile(r'["\\\n\r\f]')

_TEXT_INPUT_TYPES = frozenset("text email url tel search number password".split())
_ROLE_INTERACTIVE = frozenset(
    "button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox "
    "textbox searchbox slider spinbutton treeitem".split()
)


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
    explicit = (node.attrs.get("role") or node.attrs.get("data-role") or "").strip().lower()
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

    Order: ``data-name`` (set by the walk, ``js/walk.js``), ``aria-label``, ``aria-labelledby`` (raw HTML,
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


def name_token(node: Node) -> str:
    """The name of a control that only its class or id names, written as CSS writes that class token or id
    (``.like``, ``.ui-slider-handle``, ``#open-search``), when the walker gave the token and it needs no
    escaping, or by its naming data attribute as CSS selects it (``[data-value="#e60000"]``); else ``""`` (the
    name is shown quoted, with ``(named by …)``)."""
    attrs = node.attrs
    token = attrs.get("data-name-token")
    if not token or not _CSS_TOKEN.fullmatch(token):
        return ""
    source = attrs.get("data-name-from")
    if source == "attr":
        value = attrs.get("data-name") or ""
        return f'[{token}="{value}"]' if value and not _CSS_UNSAFE.search(value) else ""
    return "." + token if source == "class" else "#" + token if source == "id" else ""


def icon_form(node: Node) -> str:
    """A sprite icon's form (the walker's ``img data-icon``: a text-less box painting a background image), its
    class token as CSS writes it (``.ui-icon-disk``), quoted when CSS cannot write it as it is; else ``""``."""
    token = node.attrs.get("data-icon") or ""
    if not token:
        return ""
    return "." + token if _CSS_TOKEN.fullmatch(token) else f'"{token}" (class)'


def control_state(node: Node) -> list[str]:
    """Return the state words shown after a control, in a fixed order.

    Possible words: ``invalid`` (``aria-invalid``; in visible HTML from Chromium's accessibility
    tree), ``checked``/``mixed`` (``checked`` attribute, ``aria-checked``),
    ``selected``, ``pressed``, ``expanded``/``collapsed`` (``aria-expanded``; ``summary`` from
    its ``details``' ``open``), ``current``, ``disabled``, ``required``, ``readonly``; then, for widgets
    built without ARIA, the state words of their class (``data-class-states``: ``collapsed folder
    (by class)``), where their name came from when nothing else names them and it is not written as a class
    token or id (:func:`name_token`; ``(named by icon)``) and a slider handle's ``(value from position)``.
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
    inferred = [w for w in (attrs.get("data-class-states") or "").split() if w not in out]
    if inferred:  # the widget's own class words, where the accessibility tree has no state
        out.extend(inferred)
        out.append("(by class)")
    source = attrs.get("data-name-from")
    if source and not name_token(node):  # no accessible name: the words of its class, id or icon name it
        out.append(f"(named by {attrs.get('data-name-token') if source == 'attr' else source})")
    if attrs.get("data-value-from"):  # a slider handle without ARIA: its place on the track
        out.append(f"(value from {attrs['data-value-from']})")
    trigger = attrs.get("data-trigger")
    if trigger:  # a native select a custom trigger stands for (Selectric, Select2 …): its options, and the trigger
        options = [o for o in (attrs.get("data-options") or "").split("\x1f") if o]
        out.append(f"(options: {', '.join(options)}; shown by [{trigger}])" if options else f"(shown by [{trigger}])")
    return out
