"""The record's DOM delta around the element acted on (issue 25 item 4).

Pure: :func:`record_delta` takes the condensed lines before and after an action, the two walked documents (for
the class words of the element acted on), the record's action line (which ends with the element's ref) and what
the record already says, and returns the rendered delta:

- the element acted on whose class words changed while its line did not gets one line,
  ``~ clickable "Bold" [e3]: class on added`` (a state its class words say, ``active``, already shows in its line:
  ``~ clickable "like" [e21]: active (by class) added``);
- the line of an element typed into (or selected in) whose only change is the value the record names already
  (``It now shows: "Ada"``) is left out.

The walk keeps an element's first three class words (``js/walk.js``): a word added after three others, or one
removed when three remain, is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .delta import Delta, ShownLine, diff_renderings, render_delta
from .delta_lines import segments, without_value
from .tree import Document, Node

__all__ = ["record_delta", "acted_ref", "class_words", "CLASS_WORDS_KEPT"]

#: Class words the walk keeps per element (``js/walk.js``).
CLASS_WORDS_KEPT = 3
_ACTED = re.compile(r"\[((?:f\d+)?e\d+)\]\s*\.?\s*$")
#: The closing line of a delta cut at its budget (:func:`browser_ctx.core.delta.render_delta`).
_CUT = re.compile(r"(?m)^… \d+ more changed lines? not shown")


def acted_ref(action: str) -> str | None:
    """The ref an action line ends with (``Clicked button "Add" [e5]``), else ``None``."""
    m = _ACTED.search(action)
    return m.group(1) if m else None


def class_words(doc: Document | None, ref: str) -> list[str] | None:
    """The class words the walk kept of the element ``ref`` in ``doc``; ``None`` when it is not there."""
    if doc is None:
        return None
    root: Node | None = getattr(doc, "root", None)
    for node in root.iter() if root is not None else ():
        if not node.is_text and node.attrs.get("data-ref") == ref:
            return (node.attrs.get("class") or "").split()
    return None


def _class_change(before: list[str], after: list[str]) -> str:
    """``class on added; class off removed`` for the words one list has and the other not, leaving out what the
    walk's cut at :data:`CLASS_WORDS_KEPT` words could hide."""
    added = [w for w in after if w not in before] if len(before) < CLASS_WORDS_KEPT else []
    removed = [w for w in before if w not in after] if len(after) < CLASS_WORDS_KEPT else []
    pieces = []
    if added:
        pieces.append(f"class {' '.join(added)} added")
    if removed:
        pieces.append(f"class {' '.join(removed)} removed")
    return "; ".join(pieces)


def _head(lines: Sequence[ShownLine], ref: str) -> str | None:
    """The line showing ``ref`` up to the ref (``clickable "Bold" [e3]``; of a line of sibling controls, its role
    and that control's part: ``clickable .like [e4]``), else ``None``."""
    mark = f"[{ref}]"
    for line in lines:
        if ref in line.refs:
            text = line.text.strip()
            parts = segments(text) if len(line.refs) > 1 else [text]
            for k, part in enumerate(parts):
                at = part.find(mark)
                if at >= 0:
                    head = part[:at + len(mark)]
                    return head if k == 0 else f"{text.split(' ', 1)[0]} {head}"
    return None


def record_delta(before: Sequence[ShownLine], after: Sequence[ShownLine], *, action: str,
                 before_doc: Document | None = None, after_doc: Document | None = None, value_said: bool = False,
                 drifting: frozenset[str] | set[str] = frozenset(), max_tokens: int) -> str:
    """The rendered delta of an action (see the module docstring).

    Args:
        before / after: the condensed lines before and after (:func:`browser_ctx.core.snapshot.render_lines`).
        action: the record's first line; the element acted on is the ref it ends with.
        before_doc / after_doc: the walked documents of those lines (class words), when known.
        value_said: the record already says the element's value (``It now shows``, ``Now shows``).
        drifting: shapes of values that change by themselves (:func:`browser_ctx.core.delta.drifted`).
        max_tokens: the delta's budget (o200k tokens).
    """
    ref = acted_ref(action)

    def build(summarise: bool) -> str:
        delta = diff_renderings(before, after, drifting=drifting, summarise=summarise)
        if ref is not None:
            _around(delta, ref, before, after, before_doc, after_doc, value_said)
        return render_delta(delta, max_tokens=max_tokens)

    out = build(False)
    if _CUT.search(out):  # over its budget: what came is summarised by structure, each part naming its read
        out = build(True)
    return out


def _around(delta: Delta, ref: str, before: Sequence[ShownLine], after: Sequence[ShownLine],
            before_doc: Document | None, after_doc: Document | None, value_said: bool) -> None:
    """Say the acted element's change once (see the module docstring): its value said already, its class words."""
    own = next(((b, a) for b, a in delta.changed if f"[{ref}]" in a), None)
    if own is not None:
        if value_said and without_value(*own):
            delta.changed.remove(own)
            mine = _head(after, ref) or "\0"
            delta.ops = [op for op in delta.ops if not (op[0] == "~" and op[1].startswith(mine))]
        return
    old, new = class_words(before_doc, ref), class_words(after_doc, ref)
    head = _head(after, ref)
    change = _class_change(old, new) if old is not None and new is not None else ""
    if change and head:
        delta.changed.insert(0, (head, head))
        delta.ops.insert(0, ("~", f"{head}: {change}"))
