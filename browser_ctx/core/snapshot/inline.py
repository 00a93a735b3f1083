"""Inline text: the text, links, images and controls of one block gathered into ``text:`` lines.

While the tree walk meets inline content it adds it to the renderer's accumulator (``r.acc``: ``(kind, value,
folds)`` with kind ``text`` (a string), ``ctl`` (a control node), ``img`` (its form: ``img "alt"``,
``img .ui-icon-disk``) or ``fold`` (a :class:`~.folding.Fold` whose marker goes there), and the folds whose hidden part
holds it). A block boundary calls :func:`flush`: runs of text, links and images become one ``text:`` line (links
inline as ``[name](ref)``), every other control a line of its own. A text line keeps its items (:class:`Item`), so
its body is made again (:func:`refresh`) when a fold of some of them, or its cut past ``max_text_chars``, is
applied."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from ..dom import BLOCK_TAGS, Node, collapse_ws, control_value, is_interactive, role_of
from ..roles import icon_form, name_token
from .folding import Fold
from .lines import Line, cut, cut_point, key_of
from .options import DIALOG_TEXT_CHARS, LONG_WORD_CHARS, WHOLE_WORD_CHARS

#: A control named by this many characters or fewer (a glyph: ``+``, ``×``, ``5``) may share a line with its like.
GLYPH_CHARS = 2

if TYPE_CHECKING:
    from .render import Renderer

__all__ = ["BLOCKISH", "Item", "stays_inline", "flush", "emit_control", "refresh", "inline_segments",
           "nested_controls", "text_outside_controls"]

_HAS_WORD = re.compile(r"\w")
_WS = re.compile(r"\s+")
_KEY_STRIP = re.compile(r"^[\s:*•·|–—-]+|[\s:*•·|–—-]+$")

#: Tags whose content is set apart from its neighbours' by a space in one-line renderings (cells).
BLOCKISH = frozenset(
    "html body main header footer nav aside section article form fieldset p div center hgroup address "
    "figure figcaption details blockquote tr thead tbody tfoot caption table search listing xmp plaintext "
    "video audio dialog summary".split()
)


#: Role words of operable elements that keep their place in running text (besides links): none (an element the
#: walker gave a ref for its click handler or cursor), ``clickable``, ``generic``.
_INLINE_ROLES = frozenset({"clickable", "generic"})


def stays_inline(node: Node) -> bool:
    """Whether a control met in running text keeps its place in the text line, as ``[name](ref)``: a link, or
    an operable element without a widget role (a ``span`` with a click handler) that is not a block and has
    words of its own (an icon-only one gets a line of its own, where its name's source is said)."""
    role = role_of(node)
    if role == "link":
        return True
    return (role is None or role in _INLINE_ROLES) and node.tag not in BLOCK_TAGS and bool(node.text_content())


class Item:
    """One inline item of a text line, rendered: ``text`` (its text), ``img`` (``img "alt"``), ``ctl`` (a link's
    ``[name](ref)``, ``more`` its nested controls' forms, ``size`` the characters its name counts for the cut)
    or ``fold`` (the marker of ``fold``: ``… N more similar items``); ``folds``: the folds hiding it."""

    __slots__ = ("kind", "text", "more", "size", "refs", "folds", "fold")

    def __init__(self, kind: str, text: str, folds: tuple[Fold, ...], *, more: tuple[str, ...] = (), size: int = 0,
                 refs: tuple[str, ...] = (), fold: Fold | None = None) -> None:
        self.kind = kind
        self.text = text
        self.more = more
        self.size = size
        self.refs = refs
        self.folds = folds
        self.fold = fold

    @property
    def shown(self) -> bool:
        """Whether the item is shown with the folds as applied now."""
        if any(f.applied for f in self.folds):
            return False
        return self.fold is None or self.fold.applied


def flush(r: Renderer, depth: int) -> None:
    """Turn the accumulated inline content into lines at ``depth``: runs of text, links and images become one
    ``text:`` line each; every other control gets a line of its own (its nested controls below it)."""
    if not r.acc:
        return
    segs = r.acc
    r.acc = []
    # Merge adjacent text segments (of the same folds).
    merged: list[tuple[str, object, tuple[Fold, ...]]] = []
    for kind, val, folds in segs:
        if kind == "text" and merged and merged[-1][0] == "text" and merged[-1][2] == folds:
            merged[-1] = ("text", cast(str, merged[-1][1]) + cast(str, val), folds)
        else:
            merged.append((kind, val, folds))
    # Collapse whitespace; drop label text that repeats a neighbouring control's name.
    items: list[tuple[str, object, tuple[Fold, ...]]] = []
    for i, (kind, val, folds) in enumerate(merged):
        if kind == "text":
            text = _WS.sub(" ", cast(str, val))
            if not text.strip():
                if text:
                    items.append(("text", " ", folds))
                continue
            key = key_of(text)
            if len(key) >= 2:
                dup = False
                for j in (i - 1, i + 1):
                    if 0 <= j < len(merged) and merged[j][0] == "ctl":
                        nkey = key_of(r.name(cast(Node, merged[j][1])))
                        if nkey and (key == nkey or (len(key) >= 3 and key in nkey)):
                            dup = True
                if dup:
                    continue
            items.append(("text", text, folds))
        else:
            items.append((kind, val, folds))
    # Split into units: runs of text/links/images stay together; other controls stand alone (a run of icons
    # named by their class with nothing between them shares one line).
    unit: list[tuple[str, object, tuple[Fold, ...]]] = []
    last: Line | None = None
    for kind, val, folds in items:
        if kind == "ctl" and not stays_inline(cast(Node, val)):
            node = cast(Node, val)
            if last is not None and all(k == "text" and not cast(str, v).strip() for k, v, _ in unit) \
                    and last.hidden_by == folds and _join_run(r, last, node):
                unit = []
                continue
            _emit_unit(r, unit, depth)
            unit = []
            last = emit_control(r, node, depth, folds)
        else:
            unit.append((kind, val, folds))
            if kind != "text" or cast(str, val).strip():
                last = None
    _emit_unit(r, unit, depth)


def _run_form(r: Renderer, node: Node) -> tuple[str, str] | None:
    """``(role, rest)`` of a control that may share a line with its like neighbours: one named by its class token
    or id (``clickable .like [e4]``) or by a glyph of at most :data:`GLYPH_CHARS` (``clickable "+" [e5]``),
    without controls inside, a value or a long form; else ``None``."""
    glyph = 0 < len(r.name(node)) <= GLYPH_CHARS
    if not (name_token(node) or glyph) or node.tag == "select" or "data-trigger" in node.attrs \
            or control_value(node) not in (None, "") or nested_controls(node):
        return None
    form = r.control_line(node)[0]
    role, _, rest = form.partition(" ")
    if not rest.startswith((".", "#", '"')) or form != r.control_line(node, whole=True)[0]:
        return None
    return role, rest


def _join_run(r: Renderer, line: Line, node: Node) -> bool:
    """Add ``node`` to ``line`` (a control line of a run of icons: ``clickable .reply [e2], .like [e3]``) when both
    may share a line (:func:`_run_form`) and have the same role; returns whether it did."""
    mine = _run_form(r, node)
    if mine is None or line.kind != "control" or line.short is not None or not line.body.startswith(mine[0] + " ") \
            or not line.body[len(mine[0]) + 1:].startswith((".", "#", '"')) or line.opens:
        return False
    line.body += ", " + mine[1]
    line.chars = len(line.body)
    line.key = ""
    ref = node.attrs.get("data-ref")
    if ref:
        line.refs.append(ref)
    return True


def emit_control(r: Renderer, node: Node, depth: int, folds: tuple[Fold, ...] | None = None) -> Line | None:
    """A control's own line, and its nested controls one level below (a select's options excepted); a run of
    icons named by their class with nothing between them shares one line (:func:`_join_run`). Returns the
    control's line when it may start such a run (no nested control lines follow it), else ``None``."""
    if _run_form(r, node) is None:
        _emit_control(r, node, depth, folds)
        return None
    return _emit_control(r, node, depth, folds)


def _emit_control(r: Renderer, node: Node, depth: int, folds: tuple[Fold, ...] | None) -> Line:
    text, key = r.control_line(node)
    full = r.control_line(node, whole=True)[0]
    ref = node.attrs.get("data-ref")
    line = r.emit(depth, full, "control", key, refs=[ref] if ref else [], hidden_by=folds)
    if full != text:  # a long value: shown whole unless the budget needs the room
        line.short, line.full = (text, 0), (full, 0)
        line.cut_fold = r.fold("cut")
        line.cut_fold.refresh.append(line)
        if line.cut_fold.applied:
            line.body = text
    if node.tag != "select":
        last: Line | None = None
        prev: Node | None = None
        for n in nested_controls(node):
            if last is not None and prev is not None and _adjacent(prev, n) and _join_run(r, last, n):
                prev = n
                continue
            last = emit_control(r, n, depth + 1, folds)
            prev = n
    return line


def _adjacent(a: Node, b: Node) -> bool:
    """Whether ``b`` follows sibling ``a`` with only white space between them."""
    if a.parent is not b.parent or a.parent is None:
        return False
    kids = a.parent.children
    i, j = kids.index(a), kids.index(b)
    return i < j and all(c.is_text and not c.text.strip() for c in kids[i + 1:j])


def _emit_unit(r: Renderer, unit: list[tuple[str, object, tuple[Fold, ...]]], depth: int) -> None:
    if not unit:
        return
    has_text = any(k == "text" and _HAS_WORD.search(cast(str, v)) for k, v, _ in unit)
    if not has_text:
        prev_icon = False
        run: Line | None = None  # the line a run of glyph or class-named controls may go on
        for kind, val, folds in unit:
            if kind == "text":
                if cast(str, val).strip():
                    prev_icon, run = False, None
                continue
            if kind == "ctl":
                node = cast(Node, val)
                if run is None or run.hidden_by != folds or not _join_run(r, run, node):
                    run = emit_control(r, node, depth, folds)
                prev_icon = False
                continue
            run = None
            if kind == "fold":
                fold = cast(Fold, val)
                r.emit(depth, r.fold_text(fold), "fold", hidden_by=folds, shown_by=fold)
            elif kind == "img":
                label = cast(str, val)
                last = r.lines[-1] if r.lines else None
                if last is not None and last.kind == "other" and last.depth == depth and last.body.startswith("img ") \
                        and last.hidden_by == folds and prev_icon:
                    last.body += ", " + label[4:]  # a run of images shares one line: img "vegan", "gluten-free"
                    last.chars = len(last.body)
                    continue
                r.emit(depth, label, "other", key_of(label), hidden_by=folds)
            prev_icon = kind == "img"
        return
    parts: list[Item] = []
    for kind, val, folds in unit:
        if kind == "ctl":
            node = cast(Node, val)
            nested = nested_controls(node)
            parts.append(Item("ctl", r.inline_control(node), folds, more=tuple(r.inline_control(n) for n in nested),
                              size=len(r.name(node)), refs=tuple(x for c in (node, *nested)
                                                                 if (x := c.attrs.get("data-ref")))))
        elif kind == "fold":
            fold = cast(Fold, val)
            parts.append(Item("fold", f" {r.fold_text(fold)} ", folds, fold=fold))
        else:
            parts.append(Item(kind, cast(str, val), folds))
    content = [p for p in parts if p.kind != "fold"]
    common = tuple(f for f in content[0].folds if all(f in p.folds for p in content[1:])) if content else ()
    line = r.emit(depth, "", "textref" if any(p.kind == "ctl" for p in parts) else "text", label="text",
                  hidden_by=common)
    line.unit = parts
    line.cut_at = max(r.o.max_text_chars, DIALOG_TEXT_CHARS) if r.in_dialog else r.o.max_text_chars
    swaps = list(dict.fromkeys(f for p in parts for f in (*p.folds, *((p.fold,) if p.fold else ()))
                               if f not in common))
    shown = [p for p in parts if p.shown]
    whole, short = _body(shown, 0), _body(shown, line.cut_at)
    state = tuple(f.applied for f in swaps)
    if short[0] != whole[0]:
        line.cut_fold = r.fold("cut")
        swaps.append(line.cut_fold)
        line.forms[(*state, True)] = short
        state = (*state, False)
    line.forms[state] = whole
    for fold in swaps:
        fold.refresh.append(line)
    line.swaps = tuple(swaps)
    refresh(line)


def refresh(line: Line) -> None:
    """Make a text line's body again from its items, with the folds as applied now (a code line: its cut or
    whole form)."""
    cutting = line.cut_fold is not None and line.cut_fold.applied
    if line.unit is None:
        if line.short is not None and line.full is not None:
            line.body, line.cut = line.short if cutting else (line.full[0], 0)
        return
    state = tuple(f.applied for f in line.swaps)
    form = line.forms.get(state)
    if form is None:
        form = line.forms[state] = _body([p for p in line.unit if p.shown], line.cut_at if cutting else 0)
    body, cut_chars, marks, refs = form
    line.body, line.cut, line.refs = body, cut_chars, refs
    line.chars = len(body) - marks + cut_chars
    line.key = key_of(body)


def _body(unit: list[Item], budget: int) -> tuple[str, int, int, list[str]]:
    """A text line's body from its shown items, its text cut past ``budget`` characters (0: whole) while links
    after the cut keep their refs; the characters cut, the ``…`` marks the cut put in the body, and the refs
    shown."""
    marks = 0
    used = 0
    cut_chars = 0
    out: list[str] = []
    refs: list[str] = []
    for item in unit:
        kind = item.kind
        if kind == "text":
            text = item.text
            if out and out[-1].endswith(")") and text[:1].isalnum():
                text = " " + text  # "[link](e1) word", but "[link](e1)." stays tight
            if budget and used >= budget:
                cut_chars += len(text)
                if _HAS_WORD.search(text) and (not out or out[-1] != " … "):
                    out.append(" … ")
                    marks += 1
                continue
            if budget and used + len(text) > budget:
                room = budget - used
                kept = text[:cut_point(text, room)].rstrip()
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
                marks += 1
                continue
            used += len(text)
            out.append(text)
        elif kind == "fold":
            out.append(item.text)
        elif kind == "img":
            label = item.text
            if budget and used >= budget:
                continue
            used += len(label)
            out.append(f" {label} ")
        else:
            if out and not out[-1].endswith((" ", "(", "[", "\"", "“", "'")):
                out.append(" ")
            out.append(item.text)
            refs.extend(item.refs)
            used += item.size
            out.extend(" " + form for form in item.more)
    return collapse_ws("".join(out)), cut_chars, marks, refs


def inline_segments(node: Node, out: list[tuple[str, str, str]], r: Renderer) -> None:
    """The one-line content of ``node`` (a table cell): ``("text", text, "")``, ``("ctl", form, ref)`` for a
    control (never cut; links in their inline form), ``img "alt"`` as text."""
    for c in node.children:
        if c.is_text:
            out.append(("text", c.text, ""))
        elif is_interactive(c):
            form = r.inline_control(c) if stays_inline(c) else r.control_line(c)[0]
            out.append(("ctl", form, c.attrs.get("data-ref") or ""))
        elif c.tag == "img":
            alt = collapse_ws(c.attrs.get("alt") or "")
            if alt:
                out.append(("text", f' img "{cut(alt, 40)}" ', ""))
            elif icon := icon_form(c):
                out.append(("text", f" img {icon} ", ""))
        else:
            if c.tag in BLOCKISH:
                out.append(("text", " ", ""))
            inline_segments(c, out, r)
            if c.tag in BLOCKISH:
                out.append(("text", " ", ""))


def nested_controls(node: Node) -> list[Node]:
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


def text_outside_controls(node: Node) -> str:
    """``node``'s text without that of its controls (image alts included), whitespace-collapsed."""
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
