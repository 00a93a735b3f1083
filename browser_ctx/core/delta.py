"""The DOM delta of an action: what appeared and disappeared between two condensed renderings.

Pure: takes two strings (condensed snapshots as :func:`browser_ctx.core.snapshot.render_snapshot`
renders them, one element or text run per line, or any line-based rendering) and returns a short
text. Lines are compared with their leading indentation and refs stripped, so a list that was
re-rendered from scratch with identical content is reported as "re-rendered with new refs", not as
everything appearing and disappearing.

Output shape (each changed line keeps the "after" rendering's indentation-free text)::

    + <line that appeared>
    - <line that disappeared>
    ~ 12 lines re-rendered with new refs (old refs are stale), e.g. <line>

Runs of more than :data:`FOLD_AFTER` similar consecutive lines (same shape once digits, quoted
text and refs are masked) show their first :data:`FOLD_SHOW` lines and
``… N more similar lines``. The whole delta is capped at ``max_tokens`` o200k tokens
(default :data:`DEFAULT_MAX_TOKENS`) by cutting at a line boundary and ending with
``… N more changed lines not shown (browser_snapshot shows the whole page)``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from .tokens import count_tokens

__all__ = ["Delta", "diff_renderings", "render_delta", "NO_CHANGE", "DEFAULT_MAX_TOKENS", "FOLD_AFTER",
           "FOLD_SHOW", "REF_RE"]

#: What an action that changed nothing visible says.
NO_CHANGE = "no visible change"
#: Default token budget (o200k) of one rendered delta.
DEFAULT_MAX_TOKENS = 1200
#: A run of similar changed lines longer than this is folded.
FOLD_AFTER = 4
#: How many lines of a folded run are shown.
FOLD_SHOW = 3

#: A ref as condensed renderings print it: ``[e12]``, ``[ref=f2e7]``, ``ref=e3``, or the ``(e4)`` of an
#: inline link ``[text](e4)``. Only these forms are recognised, so ordinary words never match.
REF_RE = re.compile(r"\[(?:ref=)?(?:f\d+)?e\d+\]|\bref=(?:f\d+)?e\d+\b|(?<=\])\((?:f\d+)?e\d+\)")
_MASK_RE = re.compile(r'"[^"]*"|\d+')


@dataclass
class Delta:
    """The difference between two renderings.

    Attributes:
        appeared: lines present only after (stripped of indentation), in order.
        disappeared: lines present only before, in order.
        rerendered: lines (after rendering) whose content is unchanged but whose ref changed.
        ops: the interleaved changes in document order, as ``(sign, line)`` with sign ``+`` or ``-``.
    """

    appeared: list[str] = field(default_factory=list)
    disappeared: list[str] = field(default_factory=list)
    rerendered: list[str] = field(default_factory=list)
    ops: list[tuple[str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether nothing appeared, disappeared or was re-rendered."""
        return not (self.appeared or self.disappeared or self.rerendered)


def _strip_refs(line: str) -> str:
    return " ".join(REF_RE.sub("", line).split())


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def diff_renderings(before: str, after: str) -> Delta:
    """Compare two line-based renderings.

    Args:
        before: the rendering before the action.
        after: the rendering after it.

    Returns:
        A :class:`Delta`. Lines are compared without indentation and refs; equal content with a
        different ref counts as re-rendered. Lines that only moved (same content, other place) are
        matched by :mod:`difflib` as far as it can and otherwise reported as appeared+disappeared.
    """
    a_raw, b_raw = _lines(before), _lines(after)
    a = [_strip_refs(x) for x in a_raw]
    b = [_strip_refs(x) for x in b_raw]
    delta = Delta()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):  # equal runs have equal lengths
                if a_raw[i] != b_raw[j] and REF_RE.search(b_raw[j]):
                    delta.rerendered.append(b_raw[j])
            continue
        for i in range(i1, i2):
            delta.disappeared.append(a_raw[i])
            delta.ops.append(("-", a_raw[i]))
        for j in range(j1, j2):
            delta.appeared.append(b_raw[j])
            delta.ops.append(("+", b_raw[j]))
    return delta


def _shape(line: str) -> str:
    return _MASK_RE.sub("#", _strip_refs(line))[:40]


def _fold(ops: list[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(ops):
        sign, line = ops[i]
        j = i + 1
        while j < len(ops) and ops[j][0] == sign and _shape(ops[j][1]) == _shape(line):
            j += 1
        run = ops[i:j]
        if len(run) > FOLD_AFTER:
            out.extend(f"{s} {ln}" for s, ln in run[:FOLD_SHOW])
            out.append(f"{sign} … {len(run) - FOLD_SHOW} more similar lines")
        else:
            out.extend(f"{s} {ln}" for s, ln in run)
        i = j
    return out


def render_delta(delta: Delta, *, max_tokens: int = DEFAULT_MAX_TOKENS) -> str:
    """Render ``delta`` as ``+``/``-`` lines, folded and capped.

    Args:
        delta: from :func:`diff_renderings`.
        max_tokens: o200k token budget for the whole returned text (default 1,200; at least the
            first changed line is always kept, cut to 300 characters).

    Returns:
        :data:`NO_CHANGE` when ``delta.empty``; otherwise one change per line, the re-rendered summary
        last, and a closing ``… N more changed lines not shown`` line when the budget ran out.
    """
    if delta.empty:
        return NO_CHANGE
    lines = _fold(delta.ops)
    if delta.rerendered:
        n = len(delta.rerendered)
        example = delta.rerendered[0]
        lines.append(f"~ {n} line{'s' if n != 1 else ''} re-rendered with new refs (old refs are stale), "
                     f"e.g. {example}")
    kept: list[str] = []
    used = 0
    for k, line in enumerate(lines):
        cost = count_tokens(line) + 1
        if kept and used + cost > max_tokens - 25:
            rest = len(lines) - k
            kept.append(f"… {rest} more changed line{'s' if rest != 1 else ''} not shown "
                        "(browser_snapshot shows the whole page)")
            break
        if not kept and cost > max_tokens - 25:
            line = line[:300] + "…"
            cost = count_tokens(line) + 1
        kept.append(line)
        used += cost
    return "\n".join(kept)
