"""Inline text: the text, links, images and controls of one block gathered into ``text:`` lines.

While the tree walk meets inline content it adds it to the renderer's accumulator (``r.acc``: ``("text", str)``,
``("ctl", Node)``, ``("img", alt)``, ``("fold", (count, hint))``); a block boundary calls :func:`flush`, which
merges it into one ``text:`` line (links inline as ``[name](ref)``, cut past ``max_text_chars``), and gives every
other control a line of its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from ..dom import Node, collapse_ws, is_interactive, role_of
from .lines import cut, cut_point, key_of
from .options import DIALOG_TEXT_CHARS, LONG_WORD_CHARS, WHOLE_WORD_CHARS

if TYPE_CHECKING:
    from .render import Renderer

__all__ = ["BLOCKISH", "flush", "emit_control", "inline_segments", "nested_controls", "text_outside_controls"]

_HAS_WORD = re.compile(r"\w")
_WS = re.compile(r"\s+")
_KEY_STRIP = re.compile(r"^[\s:*•·|–—-]+|[\s:*•·|–—-]+$")

#: Tags whose content is set apart from its neighbours' by a space in one-line renderings (cells).
BLOCKISH = frozenset(
    "html body main header footer nav aside section article form fieldset p div center hgroup address "
    "figure figcaption details blockquote tr thead tbody tfoot caption table search listing xmp plaintext "
    "video audio dialog summary".split()
)


def flush(r: Renderer, depth: int) -> None:
    """Turn the accumulated inline content into lines at ``depth``: runs of text, links and images become one
    ``text:`` line each; every other control gets a line of its own (its nested controls below it)."""
    if not r.acc:
        return
    segs = r.acc
    r.acc = []
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
            items.append(("text", text))
        else:
            items.append((kind, val))
    # Split into units: runs of text/links/images stay together; other controls stand alone.
    unit: list[tuple[str, object]] = []
    for kind, val in items:
        if kind == "ctl" and role_of(cast(Node, val)) != "link":
            _emit_unit(r, unit, depth)
            unit = []
            emit_control(r, cast(Node, val), depth)
        else:
            unit.append((kind, val))
    _emit_unit(r, unit, depth)


def emit_control(r: Renderer, node: Node, depth: int) -> None:
    """A control's own line, and its nested controls one level below (a select's options excepted)."""
    text, key = r.control_line(node)
    ref = node.attrs.get("data-ref")
    r.emit(depth, text, "control", key, refs=[ref] if ref else [])
    if node.tag != "select":
        for n in nested_controls(node):
            emit_control(r, n, depth + 1)


def _emit_unit(r: Renderer, unit: list[tuple[str, object]], depth: int) -> None:
    if not unit:
        return
    has_text = any(k == "text" and _HAS_WORD.search(cast(str, v)) for k, v in unit)
    if not has_text:
        for kind, val in unit:
            if kind == "ctl":
                emit_control(r, cast(Node, val), depth)
            elif kind == "fold":
                count, hint = cast(tuple[int, str], val)
                r.emit(depth, f"… {count:,} more similar items{hint}", "fold")
            elif kind == "img":
                r.emit(depth, f'img "{val}"', "other", key_of(cast(str, val)))
        return
    budget = max(r.o.max_text_chars, DIALOG_TEXT_CHARS) if r.in_dialog else r.o.max_text_chars
    body, cut_chars, marks, refs = _unit_body(r, unit, budget)
    kind = "textref" if any(k == "ctl" for k, _ in unit) else "text"
    r.emit(depth, body, kind, key_of(body), label="text", refs=refs, chars=len(body) - marks + cut_chars,
           cut=cut_chars)


def _unit_body(r: Renderer, unit: list[tuple[str, object]], budget: int) -> tuple[str, int, int, list[str]]:
    """One unit's line body, its text cut past ``budget`` characters (0: whole) while links after the cut keep
    their refs; the characters cut, the ``…`` marks the cut put in the body, and the refs shown."""
    marks = 0
    used = 0
    cut_chars = 0
    out: list[str] = []
    refs: list[str] = []
    for kind, val in unit:
        if kind == "text":
            text = cast(str, val)
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
            count, hint = cast(tuple[int, str], val)
            out.append(f" … {count:,} more similar items{hint} ")
        elif kind == "img":
            label = f'img "{val}"'
            if budget and used >= budget:
                continue
            used += len(label)
            out.append(f" {label} ")
        else:
            node = cast(Node, val)
            if out and not out[-1].endswith((" ", "(", "[", "\"", "“", "'")):
                out.append(" ")
            out.append(r.inline_control(node))
            refs.extend(_refs(node))
            used += len(r.name(node))
            for n in nested_controls(node):
                out.append(" " + r.inline_control(n))
                refs.extend(_refs(n))
    return collapse_ws("".join(out)), cut_chars, marks, refs


def _refs(node: Node) -> list[str]:
    ref = node.attrs.get("data-ref")
    return [ref] if ref else []


def inline_segments(node: Node, out: list[tuple[str, str, str]], r: Renderer) -> None:
    """The one-line content of ``node`` (a table cell): ``("text", text, "")``, ``("ctl", form, ref)`` for a
    control (never cut; links in their inline form), ``img "alt"`` as text."""
    for c in node.children:
        if c.is_text:
            out.append(("text", c.text, ""))
        elif is_interactive(c):
            form = r.inline_control(c) if role_of(c) == "link" else r.control_line(c)[0]
            out.append(("ctl", form, c.attrs.get("data-ref") or ""))
        elif c.tag == "img":
            alt = collapse_ws(c.attrs.get("alt") or "")
            if alt:
                out.append(("text", f' img "{cut(alt, 40)}" ', ""))
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
