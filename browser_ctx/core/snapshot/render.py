"""The tree walk of a snapshot: :class:`Renderer` turns a :class:`~browser_ctx.core.tree.Document` into
:class:`~browser_ctx.core.snapshot.lines.Line` objects (:mod:`.page` fits and joins them)."""

from __future__ import annotations

import re

from ..dom import (
    BLOCK_TAGS,
    Document,
    Node,
    collapse_ws,
    heading_level,
    is_interactive,
    landmark_of,
)
from ..roles import icon_form
from ..urls import shorten_url
from .folding import Fold, fold_hint, signature, similar
from .inline import BLOCKISH, flush, nested_controls, stays_inline, text_outside_controls
from .lines import Line, LineMaker, cut, cut_point, key_of
from .options import FOLD_LEAST, SnapshotOptions
from .tables import TABLE_ROLES, grid_rows, is_data_table, render_table

__all__ = ["Renderer"]

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
    """One rendering: walks the tree, gathers inline content (``acc``, see :mod:`.inline`) and emits lines.

    With ``plan``, everything is rendered, what a fold would hide included (its lines and inline items carry the
    fold), for :class:`~.fit.Fitter` to choose which folds to apply; without, every fold is applied as it is met
    and what it hides is never rendered.
    """

    def __init__(self, doc: Document, opts: SnapshotOptions, base: str, *, plan: bool = False) -> None:
        super().__init__(doc, opts, base)
        self.plan = plan
        self.lines: list[Line] = []
        self.acc: list[tuple[str, object, tuple[Fold, ...]]] = []  # (kind, value, folds hiding it): see .inline
        self.folds: list[Fold] = []
        self.hiding: tuple[Fold, ...] = ()  # the folds whose hidden part is being rendered
        self._sig_cache: dict[int, tuple] = {}
        self._field_cache: dict[int, bool] = {}
        self.scope: Node | None = None  # the element whose children are being rendered
        self.in_dialog = 0  # open dialogs around the walk: their text is shown whole (what the agent must read)

    # ------------------------------------------------------------------ helpers
    def emit(self, depth: int, body: str, kind: str = "other", key: str = "", *, label: str = "",
             refs: list[str] | None = None, chars: int | None = None, cut: int = 0, opens: bool = False,
             hidden_by: tuple[Fold, ...] | None = None, shown_by: Fold | None = None) -> Line:
        """Add a line (hidden by the folds being rendered, unless ``hidden_by`` says which) and return it."""
        line = Line(depth, body, kind, label=label, refs=refs, chars=chars, cut=cut, key=key, scope=self.scope,
                    opens=opens)
        line.whole = self.in_dialog > 0
        line.hidden_by = self.hiding if hidden_by is None else hidden_by
        line.shown_by = shown_by
        self.lines.append(line)
        return line

    def add(self, kind: str, value: object) -> None:
        """Add inline content (see :mod:`.inline`)."""
        self.acc.append((kind, value, self.hiding))

    def fold(self, kind: str) -> Fold:
        """A new fold of this rendering (applied at once when not planning)."""
        fold = Fold(kind)
        fold.applied = not self.plan
        self.folds.append(fold)
        return fold

    @staticmethod
    def fold_text(fold: Fold) -> str:
        return f"… {fold.count:,} more similar items{fold.hint}"

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
                self.add("text", child.text)
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
                if len(run) >= limit and len(run) - o.fold_show >= FOLD_LEAST \
                        and not any(self.has_field(children[k]) for k in run):
                    self._fold_run(node, run, depth)
                    i = run[-1] + 1
                    continue
            self.render_node(child, depth)
            i += 1

    def _fold_run(self, node: Node, run: list[int], depth: int) -> None:
        """Render a run of similar children (indexes ``run``), all but its first ``fold_show`` items under a fold
        (not rendered at all unless planning), then the fold's line (inline in the text when the items are)."""
        children = node.children
        fold = self.fold("run")
        fold.count = len(run) - self.o.fold_show
        fold.hint = fold_hint(node)
        inline = children[run[0]].tag not in _STRUCTURAL
        outer = self.hiding
        last = run[-1] if self.plan else run[self.o.fold_show - 1]
        for k in range(run[0], last + 1):
            if k == run[self.o.fold_show - 1] + 1:
                self.hiding = (*outer, fold)
            c = children[k]
            if c.is_text:
                self.add("text", c.text)
            else:
                self.render_node(c, depth)
                if not inline:
                    self.flush(depth)
        self.hiding = outer
        if inline:
            self.add("fold", fold)
        else:
            self.flush(depth)
            self.emit(depth, self.fold_text(fold), "fold", shown_by=fold)

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
            self.add("ctl", node)
            return
        if tag == "img":
            alt = collapse_ws(node.attrs.get("alt") or node.attrs.get("data-name") or "")
            if alt:
                if len(alt) > self.o.name_chars:
                    alt = alt[: self.o.name_chars - 1] + "…"
                self.add("img", f'img "{alt}"')
            elif icon := icon_form(node):
                self.add("img", f"img {icon}")
            return
        if tag == "br":
            self.add("text", " ")
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
                line = self.emit(depth, text, "text", key_of(text), label="code")
                at = cut_point(text, self.o.max_text_chars)
                if at < len(text):
                    kept = text[:at].rstrip()
                    line.short, line.full = (kept + "…", len(text) - len(kept)), (text, 0)
                    line.cut_fold = self.fold("cut")
                    line.cut_fold.refresh.append(line)
                    if line.cut_fold.applied:
                        line.body, line.cut = line.short
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
            self.add("text", " ")
            self.render_children(node, depth)
            self.add("text", " ")
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
            line += " " + " ".join(self.inline_control(c) if stays_inline(c) else self.control_line(c)[0]
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
            head = Line(depth, "- listitem", "container", opens=True, scope=self.scope)
            head.hidden_by = self.hiding
            self.lines.insert(start, head)
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
