"""The DOM delta of an action or a ``since`` read: what appeared, disappeared and changed between two
condensed renderings.

Pure: takes two strings (condensed snapshots as :func:`browser_ctx.core.snapshot.render_snapshot`
renders them, one element or text run per line, or any line-based rendering), or the snapshot's own lines
(:func:`browser_ctx.core.snapshot.render_lines`, whose refs are fields), and returns a short text. Lines
are matched by **element identity** first: a line holding a ref (``[e12]``) is the same element before
and after when the ref is the same, whatever its text, so among three identical ``button "Delete"`` lines
the one whose element went is the one reported; a line whose element stayed but whose text or state
changed is reported as changed. Lines without refs are matched by their text (indentation ignored). A
line re-rendered with identical content but a new ref is counted as
"re-rendered with new refs", not as appearing and disappearing.

When a modal dialog or popup opens and the page behind it becomes hidden from assistive
technology (``aria-hidden`` / ``inert`` on everything else, as Radix and MUI do), most of the page
vanishes from the rendering; that is reported as one line, ``dialog "Terms of service" opened; page
behind it hidden from assistive technology``, followed by the dialog's own lines, and closing it as
``dialog "…" closed; page behind it shown again``.

Output shape::

    dialog "Terms of service" opened; page behind it hidden from assistive technology
    + <line that appeared>
    - <line that disappeared>
    ~ <line after> (was: <line before, ref stripped>)
    ~ 12 lines re-rendered with new refs (old refs are stale), e.g. <line>

Runs of more than :data:`FOLD_AFTER` similar consecutive lines (same shape once digits, quoted
text and refs are masked) show their first :data:`FOLD_SHOW` lines and ``… N more similar lines``, with
``(browser_snapshot shows them)`` for added or changed ones. The whole delta is capped at ``max_tokens`` o200k
tokens (default :data:`DEFAULT_MAX_TOKENS`) by cutting at a line boundary and ending with
``… N more changed lines not shown (browser_snapshot shows the whole page)``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .delta_lines import GONE_QUOTE, changed_line, count_gone, paired_line, pairs
from .tokens import count_tokens

__all__ = ["Delta", "ShownLine", "diff_renderings", "render_delta", "drifted", "drift_shape", "CONTAINER_LINES",
           "DRIFT_MAX", "ticking", "NO_CHANGE", "DEFAULT_MAX_TOKENS", "FOLD_AFTER",
           "FOLD_SHOW", "REF_RE", "ROWS_MIN", "HIDDEN_PAGE_SHARE", "HIDDEN_PAGE_MIN_LINES", "WAS_CHARS"]

#: What an action that changed nothing visible says.
NO_CHANGE = "no visible change"
#: Default token budget (o200k) of one rendered delta.
DEFAULT_MAX_TOKENS = 1200
#: A run of similar changed lines longer than this is folded.
FOLD_AFTER = 4
#: How many lines of a folded run are shown.
FOLD_SHOW = 3
#: A popup that appears while at least this share of the earlier lines disappears (and at least
#: :data:`HIDDEN_PAGE_MIN_LINES` of them) is taken to hide the page behind it.
HIDDEN_PAGE_SHARE = 0.6
HIDDEN_PAGE_MIN_LINES = 5
#: A run of at least this many lines of one shape replaced by as many of that shape is reported as the rows
#: now visible (a virtualised list scrolled, a table paged).
ROWS_MIN = 5
#: Table rows replaced by at least this many table rows (a calendar paged, a table sorted) are one line.
TABLE_ROWS_MIN = 3
#: Characters of the first and last row quoted when rows are replaced.
ROWS_QUOTE = 60
#: A container that went with at least this many lines inside is one line of the delta.
CONTAINER_LINES = 3
#: ... and one that came, with at least this many (a menu or a list that opened is listed: its items are what
#: the agent picks from next).
CONTAINER_CAME_LINES = 25
#: More changed lines than this between two reads nobody acted between is the page moving on, not a ticking value.
DRIFT_MAX = 5
#: Characters of the earlier form quoted in a changed line's ``(was: …)``.
WAS_CHARS = 120

#: A ref as condensed renderings print it: ``[e12]``, ``[ref=f2e7]``, ``ref=e3``, or the ``(e4)`` of an
#: inline link ``[text](e4)``. Only these forms are recognised, so ordinary words never match.
REF_RE = re.compile(r"\[(?:ref=)?(?:f\d+)?e\d+\]|\bref=(?:f\d+)?e\d+\b|(?<=\])\((?:f\d+)?e\d+\)")
_REF_ID_RE = re.compile(r"(?:f\d+)?e\d+")
_MASK_RE = re.compile(r'"[^"]*"|\d+')
_DIGITS = re.compile(r"\d+")
#: What a changed line said before (``~ Time left: 3598 (was: 3599) / 3600sec``), for its shape.
_WAS_RE = re.compile(r" \(was: .*?\)(?= |$)")
#: The first line of a popup that can hide the page behind it: its role and its name.
_POPUP_RE = re.compile(r'^(dialog|alertdialog|listbox|menu)\b(?:\s+"([^"]*)")?')
#: A heading line, for the name of a popup rendered without one (``heading 2 "Terms of service"``).
_HEADING_RE = re.compile(r'^heading(?:\s+\d+)?\s+"([^"]*)"')
#: Lines after an unnamed popup's own line searched for its heading.
_HEADING_LOOKAHEAD = 3
#: Cost (o200k tokens) kept back for the closing "… N more changed lines" line.
_CLOSING_TOKENS = 25
#: Characters of a single changed line kept when even it does not fit the budget.
_FIRST_LINE_CHARS = 300


@dataclass
class Delta:
    """The difference between two renderings.

    Attributes:
        appeared: lines present only after (stripped of indentation), in order.
        disappeared: lines present only before, in order.
        changed: ``(before, after)`` lines of the same element (same ref) whose text or state changed.
        rerendered: lines (after rendering) whose content is unchanged but whose ref changed.
        ops: the interleaved changes in document order, as ``(sign, line)`` with sign ``+``, ``-`` or
            ``~`` (changed; the line is the after form followed by ``(was: …)``).
        summary: one-line statements shown before the lines (a popup hid or showed the page behind it).
    """

    appeared: list[str] = field(default_factory=list)
    disappeared: list[str] = field(default_factory=list)
    changed: list[tuple[str, str]] = field(default_factory=list)
    rerendered: list[str] = field(default_factory=list)
    ops: list[tuple[str, str]] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether nothing appeared, disappeared, changed or was re-rendered."""
        return not (self.appeared or self.disappeared or self.changed or self.rerendered or self.summary)


class ShownLine(Protocol):
    """A rendered line as the snapshot keeps it (:class:`browser_ctx.core.snapshot.Line`): its text and the
    refs it shows."""

    @property
    def text(self) -> str: ...

    refs: list[str]


def _strip_refs(line: str) -> str:
    return " ".join(REF_RE.sub("", line).split())


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def _identity(line: str) -> str:
    """A line's identity: its refs when it has any (the element), else its text without refs."""
    refs = [_REF_ID_RE.search(m.group(0)) for m in REF_RE.finditer(line)]
    ids = [r.group(0) for r in refs if r is not None]
    return "@" + ",".join(ids) if ids else "=" + _strip_refs(line)


def _whole(lines: list[str], depths: list[int], flags: list[bool], sign: str, targets: list[str] | None = None,
           summarise: bool = False) -> list[tuple[str, str]]:
    """The ops of the lines flagged in one block, a container whose every line is flagged (it went, or came, with
    all it holds) as one line: ``form "New order" (gone with its 12 lines)``. ``summarise`` (a delta over its
    budget): every container that came with :data:`CONTAINER_LINES` lines or more is one line too, naming the
    read that shows it (``targets``: the read target of each line, ``""`` when none)."""
    ops: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        if not flags[i]:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and depths[j] > depths[i]:
            j += 1
        inner = j - i - 1
        least = CONTAINER_LINES if sign == "-" or summarise else CONTAINER_CAME_LINES  # what came is acted on next
        if (lines[i].endswith(":") or summarise) and inner >= least and all(flags[i:j]):
            head = lines[i][:-1] if lines[i].endswith(":") else lines[i]
            if sign == "-":
                ops.append((sign, f"{head} (gone with its {inner} lines)"))
            else:
                target = (targets[i] if targets else "") or ""
                read = f"browser_snapshot target='{target}'" if target else "browser_snapshot shows them"
                head = head if len(head) <= GONE_QUOTE else head[:GONE_QUOTE - 1] + "…"
                ops.append((sign, f"{head} (came with its {inner} lines; {read})"))
            i = j
            continue
        ops.append((sign, lines[i]))
        i += 1
    return ops


def _block(delta: Delta, a_raw: list[str], b_raw: list[str], a_depth: list[int] | None = None,
           b_depth: list[int] | None = None, b_targets: list[str] | None = None, summarise: bool = False) -> None:
    """Add one unmatched block (``a_raw`` before, ``b_raw`` after) to ``delta``: lines with equal text on both
    sides are the same content (a ref-less line moved, or an element re-rendered with a new ref). A container
    that went or came whole is one op (:func:`_whole`); the lists keep every line."""
    a = [_strip_refs(x) for x in a_raw]
    b = [_strip_refs(x) for x in b_raw]
    gone = [True] * len(a)
    new = [True] * len(b)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            gone[i] = new[j] = False
            if a_raw[i] != b_raw[j] and REF_RE.search(b_raw[j]):
                delta.rerendered.append(b_raw[j])
    delta.disappeared.extend(line for i, line in enumerate(a_raw) if gone[i])
    delta.appeared.extend(line for j, line in enumerate(b_raw) if new[j])
    went = [i for i in range(len(a)) if gone[i] and not _RANGE_HEAD.match(a_raw[i])]  # a grid's range: _range_moved
    came = [j for j in range(len(b)) if new[j] and not _RANGE_HEAD.match(b_raw[j])]
    for x, y in pairs([a_raw[i] for i in went], [b_raw[j] for j in came]):  # the same text line, changed
        i, j = went[x], came[y]
        gone[i] = new[j] = False
        delta.ops.append(("~", paired_line(a_raw[i], b_raw[j], WAS_CHARS)))
    delta.ops.extend(_whole(a_raw, a_depth or [0] * len(a_raw), gone, "-"))
    delta.ops.extend(_whole(b_raw, b_depth or [0] * len(b_raw), new, "+", b_targets, summarise))


def _popup(lines: list[str]) -> tuple[str, str] | None:
    """The first popup among ``lines``: its role and name (an unnamed one takes the heading just inside it)."""
    for k, line in enumerate(lines):
        m = _POPUP_RE.match(_strip_refs(line))
        if m:
            name = m.group(2) or ""
            for inner in lines[k + 1:k + 1 + _HEADING_LOOKAHEAD] if not name else []:
                h = _HEADING_RE.match(_strip_refs(inner))
                if h:
                    name = h.group(1)
                    break
            return m.group(1), name
    return None


def _hidden_page(delta: Delta, before_count: int, after_count: int) -> None:
    """Replace "the whole page disappeared" by one line when a popup that hides it appeared (and back)."""
    opened = _popup(delta.appeared)
    if (opened and len(delta.disappeared) >= max(HIDDEN_PAGE_MIN_LINES, HIDDEN_PAGE_SHARE * before_count)
            and _popup(delta.disappeared) is None):
        role, name = opened
        label = f'{role} "{name}"' if name else role
        delta.summary.append(f"{label} opened; page behind it hidden from assistive technology")
        delta.ops = [op for op in delta.ops if op[0] != "-"]
        delta.disappeared = []
        return
    closed = _popup(delta.disappeared)
    if (closed and len(delta.appeared) >= max(HIDDEN_PAGE_MIN_LINES, HIDDEN_PAGE_SHARE * after_count)
            and _popup(delta.appeared) is None):
        role, name = closed
        label = f'{role} "{name}"' if name else role
        delta.summary.append(f"{label} closed; page behind it shown again")
        delta.ops = []
        delta.appeared, delta.disappeared = [], []


#: A table or grid's head line with the range of rows it renders ("grid "Events" 2 cols, rows 18-37 of 1,000:").
_RANGE_HEAD = re.compile(r'^((?:grid|treegrid|table)(?: "[^"]*")?) \d+ cols?, '
                         r'rows ([\d,]+-[\d,]+) of ([\d,]+|unknown):?')


def _range_moved(delta: Delta) -> None:
    """A grid that states its row range (``aria-rowcount``) and scrolled or paged: its head line went and came
    with another range. One line says which rows are now visible; the rows that went and came are not listed."""
    heads = {sign: (line, m) for sign, line in delta.ops if sign in "+-" and (m := _RANGE_HEAD.match(line.strip()))}
    if set(heads) != {"+", "-"} or heads["+"][1].group(1) != heads["-"][1].group(1):
        return
    new, old = heads["+"][1], heads["-"][1]
    delta.summary.append(f"{new.group(1)}: rows {new.group(2)} of {new.group(3)} now visible "
                         f"(were rows {old.group(2)})")
    delta.ops = [op for op in delta.ops if not (op[0] in "+-" and (op[1] in (heads["+"][0], heads["-"][0]) or
                                                                    op[1].lstrip().startswith(("row: ", "row [")))) ]


def _rows_replaced(delta: Delta) -> None:
    """A virtualised (or paged) list that scrolled: at least :data:`ROWS_MIN` lines of one shape went and as
    many of that shape came. Say which rows are now visible in one line instead of listing both runs."""
    _range_moved(delta)
    gone: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for sign, line in delta.ops:
        if sign in "+-":
            (came if sign == "+" else gone).setdefault(_row_shape(line), []).append(line)
    for shape, new in came.items():
        old = gone.get(shape, [])
        least = TABLE_ROWS_MIN if shape == "row" else ROWS_MIN
        if len(new) < least or len(old) < least:
            continue
        first, last = (line if len(line) <= ROWS_QUOTE else line[:ROWS_QUOTE - 1] + "…" for line in (new[0], new[-1]))
        delta.summary.append(f"rows now visible ({len(new)}, {len(old)} no longer shown): {first} … {last}")
        drop = set(new) | set(old)
        delta.ops = [op for op in delta.ops if not (op[0] in "+-" and op[1] in drop and _row_shape(op[1]) == shape)]


def _row_shape(line: str) -> str:
    """The shape rows are grouped by when they are replaced: every table row (``row: …``, ``row [e12]: …``) is one
    shape, whatever its cells (a calendar's first week starts with empty cells); other lines by :func:`_shape`."""
    return "row" if line.startswith(("row: ", "row [")) else _shape(line)


#: Ancestors of a line's node searched for an id to name it as a read target.
_TARGET_UP = 4


def _target(line: ShownLine) -> str:
    """What ``browser_snapshot target=…`` reads a line's part of the page with: ``#id`` of its node or a near
    ancestor, else its first ref, else ``""``."""
    node = getattr(line, "scope", None)
    for _ in range(_TARGET_UP):
        if node is None or getattr(node, "tag", "") in ("body", "html"):
            break
        found: str = node.id_target()
        if found:
            return found
        node = getattr(node, "parent", None)
    return line.refs[0] if line.refs else ""


def _prepared(rendering: str | Sequence[ShownLine]) -> tuple[list[str], list[str], list[int], list[str]]:
    """The lines of a rendering (indentation stripped), their identities (the refs a line shows: read from its
    text for a string rendering, taken from the line for snapshot lines; else its text without refs), their
    depths (nesting levels) and their read targets (:func:`_target`; ``""`` for a string rendering)."""
    if isinstance(rendering, str):
        rows = [ln for ln in rendering.splitlines() if ln.strip()]
        raw = [ln.strip() for ln in rows]
        return (raw, [_identity(x) for x in raw], [(len(ln) - len(ln.lstrip(" "))) // 2 for ln in rows],
                [""] * len(raw))
    shown = [(line.text.strip(), line.refs, getattr(line, "depth", 0), line) for line in rendering]
    shown = [row for row in shown if row[0]]
    return ([text for text, _, _, _ in shown],
            ["@" + ",".join(refs) if refs else "=" + _strip_refs(text) for text, refs, _, _ in shown],
            [depth for _, _, depth, _ in shown], [_target(line) for _, _, _, line in shown])


def drift_shape(line: str) -> str:
    """The shape of a line that changes by itself (a clock, a countdown, "23s ago"): its text without refs, digits
    masked (``text: Time left: # / #sec``), indentation and a ``~ … (was: …)`` form ignored."""
    text = _WAS_RE.sub("", line.strip())
    return _DIGITS.sub("#", _strip_refs(text))


def ticking(shape: str, texts: tuple[str, ...] | list[str]) -> bool:
    """Whether the text of an element seen changing by itself again and again (``texts``, as the page holds them)
    is in line shape ``shape`` (:func:`drift_shape`): a text with digits, masked alike, found in it."""
    for text in texts:
        masked = _DIGITS.sub("#", " ".join(text.split()))
        if "#" in masked and masked in shape:
            return True
    return False


def drifted(before: str | Sequence[ShownLine], after: str | Sequence[ShownLine]) -> list[str]:
    """The shapes (:func:`drift_shape`) of the lines that changed between two renderings of a page nobody acted
    on: each changed line, and each line that went whose shape came back. Empty when more than
    :data:`DRIFT_MAX` lines changed (the page moved on; that is not a ticking value)."""
    delta = diff_renderings(before, after)
    shapes = [drift_shape(b) for _, b in delta.changed]
    came = {drift_shape(x) for x in delta.appeared}
    shapes += [s for s in (drift_shape(x) for x in delta.disappeared) if s in came]
    if len(shapes) > DRIFT_MAX or len(delta.appeared) + len(delta.disappeared) > 2 * DRIFT_MAX:
        return []
    return list(dict.fromkeys(s for s in shapes if "#" in s))


def diff_renderings(before: str | Sequence[ShownLine], after: str | Sequence[ShownLine], *,
                    drifting: frozenset[str] | set[str] = frozenset(), summarise: bool = False) -> Delta:
    """Compare two line-based renderings, matching lines by element identity (ref) before text.

    Args:
        before: the rendering before the action (or the earlier capture): text, or the snapshot's lines
            (:func:`browser_ctx.core.snapshot.render_lines`), whose refs are read from the lines themselves.
        after: the rendering after it, in either form.

    Returns:
        A :class:`Delta`. Lines with refs are matched by ref (same ref, other text: changed);
        lines without refs by text, indentation ignored; equal content under a new ref counts as
        re-rendered. A popup (dialog, listbox, menu) that appears while most of the page disappears
        becomes one summary line instead (see the module docstring), and so do rows of a list or table
        replaced by as many rows of the same shape (a virtualised list scrolled): the rows now visible.
        A container that went or came with all its lines is one line (one that came: only from
        :data:`CONTAINER_CAME_LINES` lines, or with ``summarise``, for a delta over its budget, from
        :data:`CONTAINER_LINES`). Changes of the lines whose shape is in ``drifting`` (values that change by
        themselves, :func:`drifted`) are left out.
    """
    a_raw, a, a_depth, _ = _prepared(before)
    b_raw, b, b_depth, b_targets = _prepared(after)
    delta = Delta()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):  # equal runs have equal lengths
                if _strip_refs(a_raw[i]) != _strip_refs(b_raw[j]):
                    delta.changed.append((a_raw[i], b_raw[j]))
                    delta.ops.append(("~", changed_line(a_raw[i], b_raw[j], WAS_CHARS)))
            continue
        _block(delta, a_raw[i1:i2], b_raw[j1:j2], a_depth[i1:i2], b_depth[j1:j2], b_targets[j1:j2], summarise)
    if drifting:
        delta.ops = [op for op in delta.ops if drift_shape(op[1]) not in drifting]
        delta.changed = [(x, y) for x, y in delta.changed if drift_shape(y) not in drifting]
        delta.appeared = [x for x in delta.appeared if drift_shape(x) not in drifting]
        delta.disappeared = [x for x in delta.disappeared if drift_shape(x) not in drifting]
    _hidden_page(delta, len(a_raw), len(b_raw))
    _rows_replaced(delta)
    delta.ops = count_gone(delta.ops)
    return delta


def _shape(line: str) -> str:
    return _MASK_RE.sub("#", _strip_refs(line))[:40]


def _fold(ops: list[tuple[str, str]], whole: str) -> list[str]:
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
            shows = f" ({whole} shows them)" if sign != "-" else ""  # what is gone cannot be read
            out.append(f"{sign} … {len(run) - FOLD_SHOW} more similar lines{shows}")
        else:
            out.extend(f"{s} {ln}" for s, ln in run)
        i = j
    return out


def render_delta(delta: Delta, *, max_tokens: int = DEFAULT_MAX_TOKENS, whole: str = "browser_snapshot") -> str:
    """Render ``delta`` as summary, ``+``/``-``/``~`` lines, folded and capped.

    Args:
        delta: from :func:`diff_renderings`.
        max_tokens: o200k token budget for the whole returned text (default 1,200; at least the
            first changed line is always kept, cut to 300 characters).
        whole: the tool named in the closing line as the way to see everything.

    Returns:
        :data:`NO_CHANGE` when ``delta.empty``; otherwise one change per line, the re-rendered summary
        last, and a closing ``… N more changed lines not shown`` line when the budget ran out.
    """
    if delta.empty:
        return NO_CHANGE
    lines = list(delta.summary) + _fold(delta.ops, whole)
    if delta.rerendered:
        n = len(delta.rerendered)
        example = delta.rerendered[0]
        lines.append(f"~ {n} line{'s' if n != 1 else ''} re-rendered with new refs (old refs are stale), "
                     f"e.g. {example}")
    kept: list[str] = []
    used = 0
    for k, line in enumerate(lines):
        cost = count_tokens(line) + 1
        if kept and used + cost > max_tokens - _CLOSING_TOKENS:
            rest = len(lines) - k
            kept.append(f"… {rest} more changed line{'s' if rest != 1 else ''} not shown "
                        f"({whole} shows the whole page)")
            break
        if not kept and cost > max_tokens - _CLOSING_TOKENS:
            line = line[:_FIRST_LINE_CHARS] + "…"
            cost = count_tokens(line) + 1
        kept.append(line)
        used += cost
    return "\n".join(kept)
