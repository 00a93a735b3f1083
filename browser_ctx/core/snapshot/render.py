"""The tree walk of a snapshot: :class:`Renderer` turns a :class:`~browser_ctx.core.tree.Document` into
:class:`~browser_ctx.core.snapshot.lines.Line` objects, and :func:`render_snapshot` joins them into text."""

from __future__ import annotations

import re

from ..dom import (
    BLOCK_TAGS,
    Document,
    Node,
    as_document,
    collapse_ws,
    heading_level,
    is_interactive,
    landmark_of,
    role_of,
)
from ..urls import shorten_url, strip_tracking
from .folding import fold_hint, fold_prose, signature, similar
from .inline import BLOCKISH, flush, nested_controls, text_outside_controls
from .lines import Line, LineMaker, cut, cut_point, dedupe_labels, key_of
from .options import DEFAULTS, SnapshotOptions
from .tables import TABLE_ROLES, grid_rows, is_data_table, render_table

__all__ = ["Renderer", "render_lines", "render_snapshot"]

_URL_IN_TEXT = re.compile(r"https?://[^\s)\]\"'<>]+\?[^\s)\]\"'<>]+")
_HAS_WORD = re.compile(r"\w")

_NO_FOLD = frozenset("p h1 h2 h3 h4 h5 h6 pre blockquote hr br dt dd caption legend summary details bc-frame iframe "
                     "frame html body main header footer nav aside form fieldset table thead tbody tfoot".split())
_FIELD_TAGS = frozenset(("input", "select", "textarea"))
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


class Renderer(LineMaker):
    """One rendering: walks the tree, gathers inline content (``acc``, see :mod:`.inline`) and emits lines."""

    def __init__(self, doc: Document, opts: SnapshotOptions, base: str) -> None:
        super().__init__(doc, opts, base)
        self.lines: list[Line] = []
        self.acc: list[tuple[str, object]] = []  # ("text", str) | ("ctl", Node) | ("img", str) | ("fold", …)
        self._sig_cache: dict[int, tuple] = {}
        self._field_cache: dict[int, bool] = {}
        self.scope: Node | None = None  # the element whose children are being rendered
        self.in_dialog = 0  # open dialogs around the walk: their text is shown whole (what the agent must read)

    # ------------------------------------------------------------------ helpers
    def emit(self, depth: int, body: str, kind: str = "other", key: str = "", *, label: str = "",
             refs: list[str] | None = None, chars: int | None = None, cut: int = 0, opens: bool = False) -> None:
        line = Line(depth, body, kind, label=label, refs=refs, chars=chars, cut=cut, key=key, scope=self.scope,
                    opens=opens)
        line.whole = self.in_dialog > 0
        self.lines.append(line)

    def flush(self, depth: int) -> None:
        flush(self, depth)

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
            sig = self._sig_cache[k] = signature(node)
        return sig

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
                    if not similar(self.signature(c), sig):
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
        self.emit(depth, header, "container", opens=True)
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
            fname = cut(collapse_ws(node.attrs.get("data-name") or ""), self.o.name_chars)
            head = ("frame" + (f" {ident}" if ident else "") + (f' "{fname}"' if fname else "")
                    + (f" ({shorten_url(url, limit=self.o.url_limit)})" if url else ""))
            start = len(self.lines)
            self.emit(depth, head, "container", opens=True)
            self.render_children(node, depth + 1)
            self.flush(depth + 1)
            if len(self.lines) == start + 1:
                self.lines[-1].opens = False  # an unread frame: no content follows
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
            self.emit(depth, "frame" + (f' "{name}"' if name else "") + where, "other")
            return
        roles = (node.attrs.get("role") or "").strip().lower().split()
        role = roles[0] if roles else ""
        if role == "list" or (tag in _LIST_TAGS and role in ("", "presentation", "none", "directory")):
            self.list_(node, depth)
            return
        if tag == "li" or role == "listitem" or tag in ("dt", "dd"):
            self.list_item(node, depth)
            return
        if tag == "table" and role not in ("presentation", "none") and is_data_table(node):
            self.flush(depth)
            render_table(self, node, depth)
            return
        if role in TABLE_ROLES and tag != "table" and grid_rows(node):
            self.flush(depth)
            render_table(self, node, depth)
            return
        if tag == "pre":
            self.flush(depth)
            text = collapse_ws(node.raw_text())
            if text:
                at = cut_point(text, self.o.max_text_chars)
                if at < len(text):
                    kept = text[:at].rstrip()
                    self.emit(depth, kept + "…", "text", key_of(text), label="code", chars=len(text),
                              cut=len(text) - len(kept))
                else:
                    self.emit(depth, text, "text", key_of(text), label="code")
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
        if tag in BLOCKISH:
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
                return cut(collapse_ws(v), self.o.name_chars)
        if attrs.get("aria-labelledby"):
            parts = [self.doc.by_id[i].text_content() for i in attrs["aria-labelledby"].split() if i in self.doc.by_id]
            if parts:
                return cut(collapse_ws(" ".join(parts)), self.o.name_chars)
        if node.tag == "fieldset":
            for c in node.children:
                if c.tag == "legend":
                    return cut(c.text_content(), self.o.name_chars)
        return ""

    def heading(self, node: Node, level: int, depth: int) -> None:
        controls = nested_controls(node)
        full = node.text_content()
        refs = [ref for c in controls if (ref := c.attrs.get("data-ref"))]
        if len(controls) == 1 and (key_of(self.name(controls[0])) == key_of(full) or not text_outside_controls(node)):
            # the heading is its one control: the control's name is the heading's text, said once
            text = self.name(controls[0]) or cut(full, self.o.name_chars)
            ctl = self.control_line(controls[0], named=False)[0]
            head = f'heading {level} "{text}"' if text else f"heading {level}"
            self.emit(depth, f"{head} {ctl}", "heading", key_of(text), refs=refs)
            return
        text = cut(text_outside_controls(node), self.o.name_chars) if controls else cut(full, self.o.name_chars)
        line = f'heading {level} "{text}"' if text else f"heading {level}"
        if controls:
            line += " " + " ".join(self.inline_control(c) if role_of(c) == "link" else self.control_line(c)[0]
                                   for c in controls)
        if text or controls:
            self.emit(depth, line, "heading", key_of(text), refs=refs)

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
            self.lines.insert(start, Line(depth, "- listitem", "container", opens=True))
            return
        first.item = True
        first.depth = depth
        if first.kind in ("text", "textref"):
            first.kind = "item"


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


def render_lines(html: str | Document, *, url: str = "", options: SnapshotOptions = DEFAULTS) -> list[Line]:
    """The lines of a snapshot (labels deduped, paragraphs folded), before they are joined into text."""
    r = Renderer(as_document(html), options, url)
    r.render_children(r.doc.body, 0)
    r.flush(0)
    lines = fold_prose(dedupe_labels(r.lines), options.prose_show)
    for line in lines:  # URLs quoted in visible text (a link named by its own URL, say) lose their trackers too
        if "?" in line.body:
            line.body = _URL_IN_TEXT.sub(lambda m: strip_tracking(m.group(0)), line.body)
    return lines


def render_snapshot(html: str | Document, *, title: str = "", url: str = "",
                    options: SnapshotOptions = DEFAULTS, page_line: bool = True) -> str:
    """Return the condensed summary of a page (format in :mod:`browser_ctx.core.snapshot`).

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
    lines = render_lines(html, url=url, options=options)
    out: list[str] = []
    if page_line and (title or url):
        head = "Page: " + (collapse_ws(title) or "(untitled)")
        if url:
            head += " — " + shorten_url(url, limit=200)
        out.append(head)
    if not lines:
        out.append("(empty page)")
    out.extend("  " * line.depth + line.text for line in lines)
    return "\n".join(out)
