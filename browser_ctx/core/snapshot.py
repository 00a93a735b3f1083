"""The condensed page summary returned by ``browser_snapshot``.

:func:`render_snapshot` turns visible HTML (or raw HTML) into a compact outline, one
element per line, indented two spaces per level of *meaningful* structure only
(landmarks, forms, fieldsets, dialogs, lists, tables, articles, frames, ARIA widget
containers; plain ``div``/``span``/``section`` wrappers add no level). Real output for
a page with a header, a login form, a 120-row table, a 3,000-item list and a frame::

    Page: Shop — http://localhost:8000/
    banner:
      link "Home" [e1] → /
      navigation "Main":
        list 2 items:
          - link "Docs" [e2] → /docs
          - link "Blog" [e3] → /blog
    main:
      heading 1 "Welcome"
      text: First paragraph, whitespace-collapsed, with a [guide](e4) inline. It goes on until it is cut… (+67 chars)
      form "Login":
        textbox "Email" [e5] = "a@b.c"
        password "Password" [e6] (filled)
        checkbox "Remember me" [e7] checked
        button "Sign in" [e8]
      table "Prices" 3 cols × 120 rows: Name | Age | City
        row: Person 0 | 20 | Oslo
        row: Person 1 | 21 | Oslo
        row: Person 2 | 22 | Oslo
        … 117 more rows
      list 3,000 items:
        - Card 1 [Open](e10)
        - Card 2 [Open](e11)
        - Card 3 [Open](e12)
        … 2,997 more similar items
    frame f1 (http://localhost:8000/frame-child.html):
      heading 1 "Child"
      button "Inside" [f1e1]

Line kinds:

- ``role "name" [ref] states = "value" → url``: an interactive element (see
  :func:`browser_ctx.core.dom.is_interactive`). The ref appears when the element has
  ``data-ref``; states are words like ``checked``, ``disabled``, ``expanded``; a password
  shows only ``(filled)``/``(empty)``, never its value; links end with ``→`` and their URL
  shortened by :func:`browser_ctx.core.urls.shorten_url` against the page URL.
- ``text: …``: the inline content of one block (paragraph, list item, cell…), merged into
  one line. Links inside running text appear as ``[text](ref)``; text beyond
  ``max_text_chars`` is replaced by ``…`` while links after it keep their refs, and the line
  ends with ``(+N chars)``. Other controls inside text get their own line.
- ``heading N "text"``; ``img "alt"``; ``code: …`` for ``pre``.
- ``- …``: a list item (its first line; further content nested below it).
- ``kind "name":`` a container (``banner``, ``navigation``, ``main``, ``complementary``,
  ``contentinfo``, ``search``, ``region``, ``form``, ``group`` (fieldset), ``dialog``,
  ``article``, ``list N items``, ``tablist``, ``menu``, ``alert`` …) with its content nested.
- ``table "name" C cols × R rows: header | cells``, the first ``table_rows`` rows as
  ``row: a | b``, then ``… N more rows``.
- ``… N more similar items``: the rest of a run of similar siblings (same tag, role and
  child-tag structure; class lists equal or sharing a token or a stem such as
  ``nav-news``/``nav-sport``), folded after the first ``fold_show`` when the run has at least
  ``fold_min`` items. N is exact. Items containing form fields never fold. A run of inline
  siblings (links separated by commas, say) folds inside its text line.
- ``… N more paragraphs (M chars)``: plain text lines past the first ``prose_show`` of a run.
- ``frame ID "name" (url):`` a child frame (``bc-frame``) with its content nested (the
  name and URL parts appear when known; an unread frame has no colon and no content).
- ``video "name"`` / ``audio "name"``; a raw-HTML ``iframe`` (not spliced) as
  ``frame "name" (src)``.

Never shown: scripts, styles, templates, comments, hidden content, SVG data, ``data:``
payloads, image ``src``, tracking query parameters, password values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from .dom import (
    BLOCK_TAGS,
    Document,
    Node,
    accessible_name,
    as_document,
    collapse_ws,
    control_state,
    control_value,
    cut_text,
    heading_level,
    is_interactive,
    landmark_of,
    role_of,
    table_rows,
)
from .grids import (
    TABLE_ROLES,
    fold_hint,
    grid_rows,
    header_labels,
    is_header_cell,
    once_per_row,
    place,
    row_cells,
    row_range,
)
from .urls import shorten_url, strip_tracking

_URL_IN_TEXT = re.compile(r"https?://[^\s)\]\"'<>]+\?[^\s)\]\"'<>]+")

__all__ = ["SnapshotOptions", "UNFOLDED", "render_snapshot"]


@dataclass(frozen=True)
class SnapshotOptions:
    """Knobs of :func:`render_snapshot`. All lengths are characters, not tokens.

    Attributes:
        max_text_chars: text characters kept per ``text:`` line (and per ``code:`` line)
            before the rest is cut with ``… (+N chars)``. Default 120.
        name_chars: characters kept of an accessible name or heading text (``…`` marks a
            cut). Default 80.
        value_chars: characters kept of a form field's current value. Default 60.
        table_rows: body rows shown per table of more than ``table_rows_whole`` rows (the rest is counted,
            on a fold line naming the target that shows them all). Default 3.
        table_rows_whole: a table of at most this many body rows is shown whole. Default 20.
        grid_rows_whole: the same for an ARIA grid (``role=grid|treegrid``), whose rows an agent acts on and
            which renders one page or one viewport of its rows (a DataGrid page of 25). Default 50.
        table_cols: columns shown per table row (more become ``| …``). Default 8.
        cell_chars: characters kept per table cell. Default 40.
        fold_min: a run of at least this many similar siblings is folded. Default 6.
        fold_show: items shown at the start of a folded run. Default 3.
        choice_fold_min: a run of choices an agent picks from (ARIA roles option, menuitem, tab, radio,
            treeitem, gridcell) folds only from this many items (default 21): a list of 20 or fewer
            is shown whole, so no option it offers is hidden.
        url_limit: maximum length of a shown URL (see ``shorten_url``). Default 60.
        inline_link_urls: also show URLs of links inside running text
            (``[text](e4 → /url)``). Default ``False`` (they show only their ref).
        prose_show: in a run of consecutive plain ``text:`` lines (no links or controls) at
            the same level, lines after the first ``prose_show`` are replaced by one
            ``… N more paragraphs (M chars)`` line; ``0`` keeps them all. Lines holding refs
            are never folded. Default 3.
        link_urls: end link lines with ``→ url``. ``False`` shows URLs only for links
            without a name (about a quarter fewer tokens on typical pages). Default ``True``.
    """

    max_text_chars: int = 120
    name_chars: int = 80
    value_chars: int = 60
    table_rows: int = 3
    table_rows_whole: int = 20
    grid_rows_whole: int = 50
    table_cols: int = 8
    cell_chars: int = 40
    fold_min: int = 6
    choice_fold_min: int = 21
    fold_show: int = 3
    url_limit: int = 60
    inline_link_urls: bool = False
    prose_show: int = 3
    link_urls: bool = True


_FORMATTING = frozenset("b i em strong small sup sub abbr br wbr mark u s q cite font tt big del ins dfn var kbd "
                        "samp".split())
_NO_FOLD = frozenset("p h1 h2 h3 h4 h5 h6 pre blockquote hr br dt dd caption legend summary details bc-frame iframe "
                     "frame html body main header footer nav aside form fieldset table thead tbody tfoot".split())
_FIELD_TAGS = frozenset(("input", "select", "textarea"))
#: Controls shown per table cell; further ones are counted as "(+N more)".
_CELL_CONTROLS = 3
#: ARIA roles of the items an agent chooses among; their runs fold later (``choice_fold_min``).
_CHOICE_ROLES = frozenset({"option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "radio", "treeitem",
                           "gridcell"})

#: Tags that never take part in inline text (folded runs of them become their own line).
_STRUCTURAL = BLOCK_TAGS | {"img"}
_CONTAINER_ROLES = {
    "dialog": "dialog", "alertdialog": "dialog", "tablist": "tablist", "menu": "menu", "menubar": "menubar",
    "toolbar": "toolbar", "tree": "tree", "listbox": "listbox", "radiogroup": "radiogroup", "grid": "grid",
    "treegrid": "grid", "alert": "alert", "status": "status", "tabpanel": "tabpanel", "group": "group",
    "feed": "feed", "log": "log", "article": "article", "figure": None, "table": None,
}
_LIST_TAGS = frozenset(("ul", "ol", "menu", "dl", "dir"))
_KEY_STRIP = re.compile(r"^[\s:*•·|–—-]+|[\s:*•·|–—-]+$")
_HAS_WORD = re.compile(r"\w")
_WS = re.compile(r"\s+")


def _key(text: str) -> str:
    return _KEY_STRIP.sub("", text).casefold()


class _Line:
    __slots__ = ("depth", "text", "kind", "key", "scope", "whole")

    def __init__(self, depth: int, text: str, kind: str, key: str = "", scope: Node | None = None) -> None:
        self.depth = depth
        self.text = text
        self.kind = kind  # text | control | heading | container | fold | other
        self.key = key
        self.scope = scope  # an element holding what the line shows (names a fold's one-call target)
        self.whole = False  # text in an open dialog: never folded away


class _Renderer:
    def __init__(self, doc: Document, opts: SnapshotOptions, base: str) -> None:
        self.doc = doc
        self.o = opts
        self.base = base or None
        self.lines: list[_Line] = []
        self.acc: list[tuple[str, object]] = []  # ("text", str) | ("ctl", Node) | ("img", str)
        self._sig_cache: dict[int, tuple] = {}
        self._field_cache: dict[int, bool] = {}
        self._names: dict[int, str] = {}
        self.scope: Node | None = None  # the element whose children are being rendered
        self.in_dialog = 0  # open dialogs around the walk: their text is shown whole (what the agent must read)

    # ------------------------------------------------------------------ helpers
    def emit(self, depth: int, text: str, kind: str = "other", key: str = "") -> None:
        line = _Line(depth, text, kind, key, self.scope)
        line.whole = self.in_dialog > 0
        self.lines.append(line)

    def name(self, node: Node) -> str:
        k = id(node)
        name = self._names.get(k)
        if name is None:
            name = self._names[k] = accessible_name(node, self.doc, self.o.name_chars)
        return name

    def url(self, href: str) -> str:
        return shorten_url(href, base=self.base, limit=self.o.url_limit)

    def control_line(self, node: Node) -> tuple[str, str]:
        """Full form of a control, and its dedup key (its name)."""
        role = role_of(node) or ("clickable" if "data-ref" in node.attrs else node.tag)
        name = self.name(node)
        parts = ["file input" if role == "file" else role]
        if name:
            parts.append(f'"{name}"')
        elif node.attrs.get("name") and node.tag in ("input", "select", "textarea"):
            parts.append(f"(name={_cut(node.attrs['name'], 40)})")
        if node.attrs.get("data-via") == "label":  # hidden, reached through its label (extract.js)
            parts.append("(via label)")
        ref = node.attrs.get("data-ref")
        if ref:
            parts.append(f"[{ref}]")
        parts.extend(control_state(node))
        if role == "password" or (node.tag == "input" and ((node.attrs.get("type") or "").lower() == "password"
                                                          or "data-filled" in node.attrs)):
            filled = (node.attrs.get("data-filled") or "").lower()
            parts.append("(filled)" if filled in ("yes", "true", "1") else "(empty)")
        else:
            value = control_value(node)
            if value is not None and value != "" and value != name:
                value = collapse_ws(value)
                if len(value) > self.o.value_chars:
                    value = value[: self.o.value_chars - 1] + "…"
                parts.append(f'= "{value}"')
            if node.tag == "select":
                n = sum(1 for _ in node.elements("option"))
                parts.append(f"({n} options)")
        href = node.attrs.get("href")
        if href is not None and role == "link" and (self.o.link_urls or not name):
            parts.append("→ " + self.url(href))
        return " ".join(parts), _key(name)

    def inline_control(self, node: Node) -> str:
        """Short form of a link inside running text: ``[text](ref)``."""
        name = self.name(node)
        if not name:
            href = node.attrs.get("href")
            name = f"→ {self.url(href)}" if href is not None else (role_of(node) or "link")
        ref = node.attrs.get("data-ref") or ""
        if self.o.inline_link_urls and node.attrs.get("href") is not None:
            target = f"{ref} → {self.url(node.attrs['href'])}".strip()
            return f"[{name}]({target})"
        if ref:
            return f"[{name}]({ref})"
        href = node.attrs.get("href")
        return f"[{name}]({self.url(href)})" if href is not None else f"[{name}]"

    def has_field(self, node: Node) -> bool:
        k = id(node)
        hit = self._field_cache.get(k)
        if hit is None:
            hit = node.tag in _FIELD_TAGS or any(n.tag in _FIELD_TAGS for n in node.elements())
            self._field_cache[k] = hit
        return hit

    def signature(self, node: Node) -> tuple:
        k = id(node)
        sig = self._sig_cache.get(k)
        if sig is None:
            shape: list[str] = []
            for c in node.children:
                if c.is_text or c.tag in _FORMATTING:
                    continue
                if not shape or shape[-1] != c.tag:
                    shape.append(c.tag)
            classes = (node.attrs.get("class") or "").split()[:3]
            sig = (node.tag, frozenset(classes), frozenset(_class_stem(c) for c in classes),
                   node.attrs.get("role") or "", tuple(shape), is_interactive(node))
            self._sig_cache[k] = sig
        return sig

    # ------------------------------------------------------------------ inline accumulation
    def flush(self, depth: int) -> None:
        if not self.acc:
            return
        segs = self.acc
        self.acc = []
        # Merge adjacent text segments.
        merged: list[tuple[str, object]] = []
        for kind, val in segs:
            if kind == "text" and merged and merged[-1][0] == "text":
                merged[-1] = ("text", merged[-1][1] + val)  # type: ignore[operator]
            else:
                merged.append((kind, val))
        # Collapse whitespace; drop label text that repeats a neighbouring control's name.
        items: list[tuple[str, object]] = []
        for i, (kind, val) in enumerate(merged):
            if kind == "text":
                text = _WS.sub(" ", cast(str, val))
                if not text.strip():
                    if text:
                        items.append(("text", " "))
                    continue
                key = _key(text)
                if len(key) >= 2:
                    dup = False
                    for j in (i - 1, i + 1):
                        if 0 <= j < len(merged) and merged[j][0] == "ctl":
                            nkey = _key(self.name(merged[j][1]))  # type: ignore[arg-type]
                            if nkey and (key == nkey or (len(key) >= 3 and key in nkey)):
                                dup = True
                    if dup:
                        continue
                items.append(("text", text))
            else:
                items.append((kind, val))
        # Split into units: runs of text/links/images stay together; other controls stand alone.
        unit: list[tuple[str, object]] = []
        for kind, val in items:
            if kind == "ctl" and (role_of(val) != "link"):  # type: ignore[arg-type]
                self._emit_unit(unit, depth)
                unit = []
                self._emit_control(val, depth)  # type: ignore[arg-type]
            else:
                unit.append((kind, val))
        self._emit_unit(unit, depth)

    def _emit_control(self, node: Node, depth: int) -> None:
        text, key = self.control_line(node)
        self.emit(depth, text, "control", key)
        if node.tag != "select":
            for n in _nested_controls(node):
                self._emit_control(n, depth + 1)

    def _emit_unit(self, unit: list[tuple[str, object]], depth: int) -> None:
        if not unit:
            return
        has_text = any(k == "text" and _HAS_WORD.search(cast(str, v)) for k, v in unit)
        if not has_text:
            for kind, val in unit:
                if kind == "ctl":
                    self._emit_control(val, depth)  # type: ignore[arg-type]
                elif kind == "fold":
                    count, hint = cast(tuple[int, str], val)
                    self.emit(depth, f"… {count:,} more similar items{hint}", "fold")
                elif kind == "img":
                    self.emit(depth, f'img "{val}"', "other", _key(val))  # type: ignore[arg-type]
            return
        budget = max(self.o.max_text_chars, DIALOG_TEXT_CHARS) if self.in_dialog else self.o.max_text_chars
        used = 0
        cut_chars = 0
        out: list[str] = []
        for kind, val in unit:
            if kind == "text":
                text: str = val  # type: ignore[assignment]
                if out and out[-1].endswith(")") and text[:1].isalnum():
                    text = " " + text  # "[link](e1) word", but "[link](e1)." stays tight
                if used >= budget:
                    cut_chars += len(text)
                    if _HAS_WORD.search(text) and (not out or out[-1] != " … "):
                        out.append(" … ")
                    continue
                if used + len(text) > budget:
                    room = budget - used
                    part = cut_text(text, room)
                    i = part.rfind("… (+")
                    kept = part[:i] if i >= 0 else part
                    start = text.rfind(" ", 0, room) + 1
                    end = text.find(" ", room)
                    end = len(text) if end < 0 else end
                    if LONG_WORD_CHARS <= end - start <= WHOLE_WORD_CHARS:
                        kept = text[:end]  # a long value (a hash, a key, a URL) across the cut is kept whole
                        if end == len(text):
                            used = budget
                            out.append(text)
                            continue
                    cut_chars += len(text) - len(kept)
                    used = budget
                    out.append(kept.rstrip() + "… " if kept.strip() else " … ")
                    continue
                used += len(text)
                out.append(text)
            elif kind == "fold":
                count, hint = cast(tuple[int, str], val)
                out.append(f" … {count:,} more similar items{hint} ")
            elif kind == "img":
                label = f'img "{val}"'
                if used >= budget:
                    continue
                used += len(label)
                out.append(f" {label} ")
            else:
                node: Node = val  # type: ignore[assignment]
                if out and not out[-1].endswith((" ", "(", "[", "\"", "“", "'")):
                    out.append(" ")
                out.append(self.inline_control(node))
                used += len(self.name(node))
                for n in _nested_controls(node):
                    out.append(" " + self.inline_control(n))
        line = collapse_ws("".join(out))
        if cut_chars:
            line += f" (+{cut_chars:,} chars)"
        first_key = _key(line)
        kind = "textref" if any(k == "ctl" for k, _ in unit) else "text"
        self.emit(depth, "text: " + line, kind, first_key)

    # ------------------------------------------------------------------ tree walk
    def render_children(self, node: Node, depth: int) -> None:
        outer, self.scope = self.scope, node
        try:
            self._render_children(node, depth)
        finally:
            self.scope = outer

    def _render_children(self, node: Node, depth: int) -> None:
        children = node.children
        n = len(children)
        i = 0
        o = self.o
        while i < n:
            child = children[i]
            if child.is_text:
                self.acc.append(("text", child.text))
                i += 1
                continue
            # Detect a run of similar element siblings starting here.
            if child.tag not in _NO_FOLD and o.fold_min > 0:
                sig = self.signature(child)
                run = [i]
                j = i + 1
                while j < n:
                    c = children[j]
                    if c.is_text:
                        t = c.text.strip()
                        if t and (len(t) > 3 or _HAS_WORD.search(t)):
                            break
                        j += 1
                        continue
                    if not _similar(self.signature(c), sig):
                        break
                    run.append(j)
                    j += 1
                limit = o.choice_fold_min if sig[3] in _CHOICE_ROLES else o.fold_min
                if len(run) >= limit and not any(self.has_field(children[k]) for k in run):
                    hidden = len(run) - o.fold_show
                    inline = child.tag not in _STRUCTURAL
                    for k in range(i, run[o.fold_show - 1] + 1):
                        c = children[k]
                        if c.is_text:
                            self.acc.append(("text", c.text))
                        else:
                            self.render_node(c, depth)
                            if not inline:
                                self.flush(depth)
                    if inline:
                        self.acc.append(("fold", (hidden, fold_hint(node))))
                    else:
                        self.flush(depth)
                        self.emit(depth, f"… {hidden:,} more similar items{fold_hint(node)}", "fold")
                    i = run[-1] + 1
                    continue
            self.render_node(child, depth)
            i += 1

    def container(self, node: Node, depth: int, header: str) -> None:
        self.flush(depth)
        start = len(self.lines)
        self.emit(depth, header + ":", "container")
        self.render_children(node, depth + 1)
        self.flush(depth + 1)
        if len(self.lines) == start + 1:
            self.lines.pop()

    def render_node(self, node: Node, depth: int) -> None:
        tag = node.tag
        if is_interactive(node):
            self.acc.append(("ctl", node))
            return
        if tag == "img":
            alt = collapse_ws(node.attrs.get("alt") or node.attrs.get("data-name") or "")
            if alt:
                if len(alt) > self.o.name_chars:
                    alt = alt[: self.o.name_chars - 1] + "…"
                self.acc.append(("img", alt))
            return
        if tag == "br":
            self.acc.append(("text", " "))
            return
        level = heading_level(node)
        if level is not None:
            self.flush(depth)
            self.heading(node, level, depth)
            return
        if tag == "bc-frame":
            self.flush(depth)
            ident = node.attrs.get("data-frame") or ""
            url = node.attrs.get("data-url") or ""
            fname = _cut(collapse_ws(node.attrs.get("data-name") or ""), self.o.name_chars)
            head = ("frame" + (f" {ident}" if ident else "") + (f' "{fname}"' if fname else "")
                    + (f" ({shorten_url(url, limit=self.o.url_limit)})" if url else ""))
            start = len(self.lines)
            self.emit(depth, head + ":", "container")
            self.render_children(node, depth + 1)
            self.flush(depth + 1)
            if len(self.lines) == start + 1:
                self.lines[-1].text = head
            return
        if tag in ("video", "audio"):
            self.flush(depth)
            name = self.name_of_container(node)
            self.emit(depth, tag + (f' "{name}"' if name else ""), "other")
            return
        if tag in ("iframe", "frame"):
            self.flush(depth)
            name = self.name(node)
            src = node.attrs.get("src") or ""
            where = f" ({shorten_url(src, limit=self.o.url_limit)})" if src else ""
            text = "frame" + (f' "{name}"' if name else "") + where
            self.emit(depth, text, "other")
            return
        roles = (node.attrs.get("role") or "").strip().lower().split()
        role = roles[0] if roles else ""
        if role == "list" or (tag in _LIST_TAGS and role in ("", "presentation", "none", "directory")):
            self.list_(node, depth)
            return
        if tag == "li" or role == "listitem" or tag in ("dt", "dd"):
            self.list_item(node, depth)
            return
        if tag == "table" and role not in ("presentation", "none"):
            if self.is_data_table(node):
                self.flush(depth)
                self.table(node, depth)
                return
        if role in TABLE_ROLES and tag != "table" and grid_rows(node):
            self.flush(depth)
            self.table(node, depth)
            return
        if tag == "pre":
            self.flush(depth)
            text = collapse_ws(node.raw_text())
            if text:
                self.emit(depth, "code: " + cut_text(text, self.o.max_text_chars), "text", _key(text))
            return
        if tag == "hr":
            self.flush(depth)
            return
        lm = landmark_of(node)
        if lm is not None:
            name = self.name_of_container(node)
            self.container(node, depth, lm + (f' "{name}"' if name else ""))
            return
        if tag == "fieldset":
            name = self.name_of_container(node)
            self.container(node, depth, "group" + (f' "{name}"' if name else ""))
            return
        if tag == "legend":
            self.flush(depth)
            return  # its text names the fieldset
        if tag == "dialog" or role in _CONTAINER_ROLES and _CONTAINER_ROLES[role]:
            kind = "dialog" if tag == "dialog" else _CONTAINER_ROLES[role]
            name = self.name_of_container(node)
            self.in_dialog += kind == "dialog"
            try:
                self.container(node, depth, kind + (f' "{name}"' if name else ""))  # type: ignore[operator]
            finally:
                self.in_dialog -= kind == "dialog"
            return
        if tag == "article":
            name = self.name_of_container(node)
            self.container(node, depth, "article" + (f' "{name}"' if name else ""))
            return
        if tag in ("td", "th"):
            # Cell of a layout table: inline content separated from its neighbours.
            self.acc.append(("text", " "))
            self.render_children(node, depth)
            self.acc.append(("text", " "))
            return
        if tag in _BLOCKISH:
            self.flush(depth)
            self.render_children(node, depth)
            self.flush(depth)
            return
        # Inline element (span, label, em, unknown custom elements …): transparent.
        self.render_children(node, depth)

    def name_of_container(self, node: Node) -> str:
        attrs = node.attrs
        for key in ("data-name", "aria-label"):
            v = attrs.get(key)
            if v and v.strip():
                return _cut(collapse_ws(v), self.o.name_chars)
        if attrs.get("aria-labelledby"):
            parts = [self.doc.by_id[i].text_content() for i in attrs["aria-labelledby"].split() if i in self.doc.by_id]
            if parts:
                return _cut(collapse_ws(" ".join(parts)), self.o.name_chars)
        if node.tag == "fieldset":
            for c in node.children:
                if c.tag == "legend":
                    return _cut(c.text_content(), self.o.name_chars)
        return ""

    def heading(self, node: Node, level: int, depth: int) -> None:
        controls = _nested_controls(node)
        full = node.text_content()
        if len(controls) == 1 and (_key(self.name(controls[0])) == _key(full) or not _text_outside_controls(node)):
            text = self.name(controls[0]) or _cut(full, self.o.name_chars)
            ctl = self.control_line(controls[0])[0].replace(f' "{self.name(controls[0])}"', "", 1)
            head = f'heading {level} "{text}"' if text else f"heading {level}"
            self.emit(depth, f"{head} {ctl}", "heading", _key(text))
            return
        text = _cut(_text_outside_controls(node), self.o.name_chars) if controls else _cut(full, self.o.name_chars)
        line = f'heading {level} "{text}"' if text else f"heading {level}"
        if controls:
            line += " " + " ".join(self.inline_control(c) if role_of(c) == "link" else self.control_line(c)[0]
                                   for c in controls)
        if text or controls:
            self.emit(depth, line, "heading", _key(text))

    def list_(self, node: Node, depth: int) -> None:
        self.flush(depth)
        items = _list_items(node)
        name = self.name_of_container(node)
        head = "list" + (f' "{name}"' if name else "") + f" {items:,} item" + ("" if items == 1 else "s")
        self.container(node, depth, head)

    def list_item(self, node: Node, depth: int) -> None:
        self.flush(depth)
        start = len(self.lines)
        self.render_children(node, depth + 1)
        self.flush(depth + 1)
        if len(self.lines) == start:
            return
        first = self.lines[start]
        if first.depth != depth + 1:
            self.lines.insert(start, _Line(depth, "- listitem:", "container"))
            return
        text = first.text[6:] if first.text.startswith("text: ") else first.text
        first.text = "- " + text
        first.depth = depth
        if first.kind in ("text", "textref"):
            first.kind = "item"

    # ------------------------------------------------------------------ tables
    def is_data_table(self, table: Node) -> bool:
        attrs = table.attrs
        if any(True for _ in table.elements("table")):
            return False
        role = (attrs.get("role") or "").lower()
        if role in ("table", "grid", "treegrid") or attrs.get("data-name") or attrs.get("aria-label"):
            return True
        if any(c.tag in ("caption", "thead") for c in table.children):
            return True
        rows = table_rows(table)
        if not rows:
            return False
        if any(c.tag == "th" for r in rows[:3] for c in r.children):
            return True
        if len(rows) >= 2:
            widths = {sum(1 for c in r.children if c.tag in ("td", "th")) for r in rows}
            return len(widths) == 1 and min(widths) >= 2
        return False

    def cell_text(self, cell: Node) -> str:
        """One table cell on one line: text cut to ``cell_chars``, at most ``_CELL_CONTROLS``
        controls (the rest counted), ``|`` replaced by ``/``. A cell that is itself a control (a date
        picker's day, a selectable grid cell) is its control line."""
        if is_interactive(cell):
            ref = cell.attrs.get("data-ref")
            if ref and role_of(cell) in ("gridcell", "cell"):
                # A data grid's cell: its content and its ref ("Ada Lovelace [e14]"), unless its name says more
                # than its text (a date picker's "Choose Tuesday, December 15th" for "15").
                inner = self._cell_content(cell)
                name = collapse_ws(cell.attrs.get("data-name") or "")
                if not name or _key(name) == _key(_text_outside_controls(cell)) or _nested_controls(cell):
                    states = " ".join(control_state(cell))
                    return (f"{inner} [{ref}]" if inner else f"[{ref}]") + (f" {states}" if states else "")
            return self.control_line(cell)[0].replace("|", "/")
        return self._cell_content(cell)

    def _cell_content(self, cell: Node) -> str:
        segs: list[str] = []
        _inline_segments(cell, segs, self)
        out: list[str] = []
        used = controls = dropped = 0
        cut = False
        for seg in segs:
            if seg.startswith("\x01"):
                if controls < _CELL_CONTROLS:
                    out.append(" " + seg[1:] + " ")
                    controls += 1
                else:
                    dropped += 1
                continue
            text = _WS.sub(" ", seg)
            if used + len(text) > self.o.cell_chars:
                room = max(0, self.o.cell_chars - used)
                if not cut:
                    out.append(text[:room].rstrip() + "…")
                cut = True
                used = self.o.cell_chars
                continue
            used += len(text)
            out.append(text)
        text = collapse_ws("".join(out))
        if dropped:
            text += f" (+{dropped} more)"
        return text.replace("|", "/")

    @staticmethod
    def _row_head(row: Node, word: str) -> str:
        """``row: `` or, for a data grid's row that has a ref, ``row [e12]: `` (states after the ref)."""
        ref = row.attrs.get("data-ref")
        if not ref:
            return word + ": "
        states = " ".join(s for s in control_state(row) if s != "unselected")
        return f"{word} [{ref}]" + (f" {states}" if states else "") + ": "

    def row_cells(self, row: Node) -> list[str]:
        """Cell texts of a row (a spanning cell appears once)."""
        return [self.cell_text(c) for c in row_cells(row)]

    def table(self, node: Node, depth: int) -> None:
        """A ``<table>`` or an ARIA grid (``role=grid|table|treegrid``: rows and cells found by role, through
        wrappers): ``table|grid "name" C cols × R rows: header``, or ``… C cols, rows 1-25 of 200: header``
        when the grid has ``aria-rowcount``; then its rows, all of them up to ``table_rows_whole``, else the
        first ``table_rows`` and a fold line naming the target whose snapshot shows them all."""
        o = self.o
        rows = table_rows(node) if node.tag == "table" else grid_rows(node)
        # Header rows: the leading rows in <thead> or made of header cells only ("Region | Q1 | Q2" over
        # "Units | Revenue | …"); every row laid out on the column grid, spans placed (grids.place).
        nhead = 0
        while nhead < len(rows):
            row = rows[nhead]
            cells = row_cells(row)
            in_thead = row.parent is not None and row.parent.tag == "thead"
            if not cells or not (in_thead or all(is_header_cell(c) for c in cells)):
                break
            nhead += 1
        if nhead == len(rows) and nhead > 1:
            nhead = 1  # a table of header cells only: its first row heads the rest
        header_rows, body = rows[:nhead], rows[nhead:]
        placed = place(rows)
        texts: dict[int, str] = {}

        def texts_of(index: int) -> list[str]:
            out = []
            for cell in placed[index] if index < nhead else once_per_row(placed[index]):
                if cell is None:
                    out.append("")
                    continue
                if id(cell) not in texts:
                    texts[id(cell)] = self.cell_text(cell)
                out.append(texts[id(cell)])
            return out

        header = header_labels([texts_of(i) for i in range(nhead)]) if nhead > 1 else \
            [self.cell_text(c) if c is not None else "" for c in once_per_row(placed[0])] if nhead else []
        ncols = max([len(r) for r in placed] or [0])
        name = self.name_of_container(node)
        if not name:
            for c in node.children:
                if c.tag == "caption":
                    name = _cut(c.text_content(), o.name_chars)
        role = (node.attrs.get("role") or "").strip().lower().split()
        kind = role[0] if node.tag != "table" and role and role[0] in TABLE_ROLES else "table"
        span = row_range(node, header_rows, body)
        if span:
            size = f"{ncols} col{'s' if ncols != 1 else ''}, {span}"
        else:
            size = f"{ncols} col{'s' if ncols != 1 else ''} × {len(body):,} row{'s' if len(body) != 1 else ''}"
        head = kind + (f' "{name}"' if name else "") + f" {size}"
        if not any(h.strip() for h in header):
            header = []  # header cells whose text is hidden from the accessibility tree (a calendar's "Su Mo …")
        header_ref = header_rows[0].attrs.get("data-ref") if header_rows else None
        if header and not header_ref:
            head += ": " + _cells_line(header, o.table_cols)
        self.emit(depth, head + (":" if header_ref else ""), "container")
        if header_ref:
            self.emit(depth + 1, self._row_head(header_rows[0], "header") + _cells_line(header, o.table_cols), "other")
        whole = o.grid_rows_whole if kind in ("grid", "treegrid") else o.table_rows_whole
        shown = len(body) if len(body) <= max(whole, o.table_rows + 1) else o.table_rows
        for i, r in enumerate(body[:shown]):
            self.emit(depth + 1, self._row_head(r, "row") + _cells_line(texts_of(nhead + i), o.table_cols), "other")
        if len(body) > shown:
            self.emit(depth + 1, f"… {len(body) - shown:,} more rows{fold_hint(node)}", "fold")


def _is_item(node: Node) -> bool:
    return not node.is_text and (node.tag in ("li", "dt", "dd") or node.attrs.get("role") == "listitem")


def _list_items(node: Node) -> int:
    """The items of a list: its item children, or, when it has none, the items under wrappers that are not
    lists themselves (a virtualised list puts its rows inside a spacer ``div``)."""
    direct = sum(1 for c in node.children if _is_item(c))
    if direct:
        return direct
    count, stack = 0, [c for c in node.children if not c.is_text]
    while stack:
        n = stack.pop()
        if _is_item(n):
            count += 1
        elif n.tag not in _LIST_TAGS and n.attrs.get("role") != "list":
            stack.extend(c for c in n.children if not c.is_text)
    return count


def _class_stem(token: str) -> str:
    """``nav-item-news`` → ``nav-item``; ``card3`` → ``card``: per-item variations of one class."""
    stem = token.rstrip("0123456789")
    for sep in ("--", "-", "_"):
        if sep in stem[1:]:
            return stem.rsplit(sep, 1)[0]
    return stem


def _similar(a: tuple, b: tuple) -> bool:
    """Sibling similarity for folding: same tag, role, child-tag shape and interactivity, and
    class lists that are equal, share a token, or share a stem (``orb-nav-news``/``orb-nav-sport``)."""
    if a[0] != b[0] or a[3:] != b[3:]:
        return False
    if a[1] == b[1]:
        return True
    if not a[1] or not b[1]:
        return False
    return bool(a[1] & b[1]) or bool(a[2] & b[2])


def _span(cell: Node) -> int:
    """A cell's colspan, 1-50."""
    span = (cell.attrs.get("colspan") or "").strip()
    return max(1, min(50, int(span))) if span.isdigit() else 1


def _cells_line(cells: list[str], max_cols: int) -> str:
    shown = cells[:max_cols]
    line = " | ".join(shown)
    if len(cells) > max_cols:
        line += " | …"
    return line


def _inline_segments(node: Node, out: list[str], r: _Renderer) -> None:
    for c in node.children:
        if c.is_text:
            out.append(c.text)
        elif is_interactive(c):
            # \x01 marks a control (never cut, counted by the caller).
            out.append("\x01" + (r.inline_control(c) if role_of(c) == "link" else r.control_line(c)[0]))
        elif c.tag == "img":
            alt = collapse_ws(c.attrs.get("alt") or "")
            if alt:
                out.append(f' img "{_cut(alt, 40)}" ')
        else:
            if c.tag in _BLOCKISH:
                out.append(" ")
            _inline_segments(c, out, r)
            if c.tag in _BLOCKISH:
                out.append(" ")


_BLOCKISH = frozenset(
    "html body main header footer nav aside section article form fieldset p div center hgroup address "
    "figure figcaption details blockquote tr thead tbody tfoot caption table search listing xmp plaintext "
    "video audio dialog summary".split()
)


def _nested_controls(node: Node) -> list[Node]:
    """Interactive descendants of ``node`` not inside another interactive descendant."""
    found: list[Node] = []
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.is_text:
            continue
        if is_interactive(n):
            found.append(n)
            continue
        stack.extend(reversed(n.children))
    return found


def _text_outside_controls(node: Node) -> str:
    parts: list[str] = []
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.is_text:
            parts.append(n.text)
        elif n.tag == "img":
            parts.append(" " + (n.attrs.get("alt") or "") + " ")
        elif not is_interactive(n):
            stack.extend(reversed(n.children))
    text = collapse_ws("".join(parts))
    return _KEY_STRIP.sub("", text.replace("[]", "")).strip() if text.endswith(("[]", "[ ]")) else text


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def _join(parts: list[str]) -> str:
    return collapse_ws(" ".join(p for p in parts if p))


def _dedupe_labels(lines: list[_Line]) -> list[_Line]:
    """Drop a ``text:`` line that only repeats the name of the control right before/after it."""
    out: list[_Line] = []
    n = len(lines)
    for i, line in enumerate(lines):
        if line.kind == "text" and line.key and len(line.key) <= 80:
            dup = False
            for j in (i - 1, i + 1):
                if 0 <= j < n and lines[j].kind == "control" and lines[j].depth == line.depth and lines[j].key:
                    k = lines[j].key
                    if line.key == k or (len(line.key) >= 3 and line.key in k):
                        dup = True
            if dup:
                continue
        out.append(line)
    return out


def _fold_prose(lines: list[_Line], show: int) -> list[_Line]:
    """Replace plain text lines past the first ``show`` of a same-depth run with a count."""
    if show <= 0:
        return lines
    out: list[_Line] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.kind != "text" or line.whole:
            out.append(line)
            i += 1
            continue
        j = i
        while j < n and lines[j].kind == "text" and lines[j].depth == line.depth and not lines[j].whole:
            j += 1
        run = lines[i:j]
        if len(run) > show + 1:
            out.extend(run[:show])
            rest = run[show:]
            chars = sum(_line_chars(x.text) for x in rest)
            hint = fold_hint(_common_ancestor([x.scope for x in rest]))
            out.append(_Line(line.depth, f"… {len(rest):,} more paragraphs ({chars:,} chars){hint}", "fold"))
        else:
            out.extend(run)
        i = j
    return out


def _common_ancestor(nodes: list[Node | None]) -> Node | None:
    """The nearest element holding every node of ``nodes`` (``None`` when one is unknown)."""
    if not nodes or any(n is None for n in nodes):
        return None
    chain: list[Node] = []
    up = nodes[0]
    while up is not None:
        chain.append(up)
        up = up.parent
    depth_of = {id(n): i for i, n in enumerate(chain)}
    best = 0
    for node in nodes[1:]:
        up = node
        while up is not None and id(up) not in depth_of:
            up = up.parent
        if up is None:
            return None
        best = max(best, depth_of[id(up)])
    return chain[best]


_PLUS = re.compile(r"… \(\+([\d,]+) chars\)$")


def _line_chars(text: str) -> int:
    body = text[6:] if text.startswith(("text: ", "code: ")) else text
    m = _PLUS.search(body)
    if m:
        return len(body) - len(m.group(0)) + int(m.group(1).replace(",", ""))
    return len(body)


#: A single word (no space) of at most this many characters that would be cut at the end of a text line is kept
#: whole instead (a SHA-512 hash, a key, a long slug): a cut value is useless to an agent.
WHOLE_WORD_CHARS = 256
#: ... when it has at least this many characters (shorter words are cut at a word boundary as prose is).
LONG_WORD_CHARS = 40

#: Characters kept per text line in an open dialog and in a targeted snapshot (else ``max_text_chars``).
DIALOG_TEXT_CHARS = 2000

#: Options of a targeted snapshot: nothing inside the elements asked for is folded (runs of similar items,
#: table rows, paragraphs), so the target a fold line names shows what it folded in one call (the cap and
#: ``offset`` still apply).
UNFOLDED = SnapshotOptions(fold_min=0, table_rows_whole=1 << 30, grid_rows_whole=1 << 30, prose_show=0,
                           max_text_chars=DIALOG_TEXT_CHARS)


def render_snapshot(html: str | Document, *, title: str = "", url: str = "",
                    options: SnapshotOptions = SnapshotOptions(), page_line: bool = True) -> str:
    """Return the condensed summary of a page (format in the module docstring).

    Args:
        html: a walked tree (:class:`~browser_ctx.core.tree.Document`), or raw HTML (hidden content and
            noise are dropped as in :func:`browser_ctx.core.dom.parse_html`). Child frames are
            ``bc-frame`` elements (``data-frame=ID data-url=URL``) with their content inside.
        title: page title for the first line (``Page: title — url``); the line is left
            out when both ``title`` and ``url`` are empty.
        url: page URL; links on the same origin are shown relative to it.
        options: :class:`SnapshotOptions`.
        page_line: start with the ``Page: title — url`` line (default ``True``); ``False`` for a part of a
            page whose caller prints that line once (a targeted snapshot).

    Returns:
        Lines joined with ``\\n`` (no trailing newline); deterministic for the same input.
        ``"(empty page)"`` follows the title line when nothing visible remains.
    """
    doc = as_document(html)
    r = _Renderer(doc, options, url)
    r.render_children(doc.body, 0)
    r.flush(0)
    lines = _fold_prose(_dedupe_labels(r.lines), options.prose_show)
    out: list[str] = []
    if page_line and (title or url):
        head = "Page: " + (collapse_ws(title) or "(untitled)")
        if url:
            head += " — " + shorten_url(url, limit=200)
        out.append(head)
    if not lines:
        out.append("(empty page)")
    out.extend("  " * line.depth + line.text for line in lines)
    text = "\n".join(out)
    # URLs quoted in visible text (a link named by its own URL, say) lose their trackers too.
    return _URL_IN_TEXT.sub(lambda m: strip_tracking(m.group(0)), text) if "?" in text else text
