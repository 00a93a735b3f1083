"""How a DOM delta says a change in few tokens (used by :mod:`browser_ctx.core.delta`).

Pure, on rendered lines (refs as :data:`REF_RE` recognises them):

- :func:`changed_line`: a line of the same element (same ref) before and after, as its head (role, name, ref)
  and what changed: ``tab "Section #1" [e4]: collapsed → selected expanded``, ``clickable "like" [e21]: active
  (by class) added``, ``textbox "Name" [e3]: = "Ada"`` (a value, new or changed: the old one has been read);
- :func:`pairs`: lines without a ref that went and came in one place and are the same line changed
  (``Time left: 3599 / 3600sec`` → ``3598``, ``Last reward: -`` → ``1.00``), rendered by :func:`paired_line`:
  ``Time left: 3598 (was: 3599) / 3600sec``;
- :func:`count_gone`: a run of more than :data:`GONE_LISTED` lines that went is one line, counted, not listed
  (``12 lines gone, from heading 2 "Primary"``), and a line that went is quoted up to
  :data:`GONE_QUOTE` characters: what came matters more than what went, which the agent has read;
- :func:`without_value`: the ``~`` line of an element whose new value the record says already (``It now shows``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

__all__ = ["changed_line", "paired_line", "pairs", "count_gone", "without_value", "tokens", "segments", "GONE_LISTED",
           "GONE_QUOTE", "PAIR_RATIO"]

#: Lines of one run that went listed one by one; a longer run is one counted line.
GONE_LISTED = 3
#: Characters of a line that went quoted (of a counted run: its first line).
GONE_QUOTE = 40
#: Two lines without refs in one place are the same line changed when at least this similar (difflib ratio), or
#: when their label (the words before the first ``": "``) or their shape (digits masked) is the same.
PAIR_RATIO = 0.75
#: The most words a line's head (role and name) may have for the short ``~`` form.
_HEAD_WORDS = 4

_REF = re.compile(r"\[(?:ref=)?(?:f\d+)?e\d+\]|\bref=(?:f\d+)?e\d+\b|(?<=\])\((?:f\d+)?e\d+\)")
#: Words of a rendered line: a quoted string (with its "… (+N chars)" tail), a parenthesised group, or a word.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"(?:… \(\+[\d,]+ chars\))?|\((?:[^()]|\([^()]*\))*\)|\S+')
_DIGITS = re.compile(r"\d+")
#: A quoted string (kept as it is) or a run of whitespace outside one (one space).
_SPACES = re.compile(r'"(?:[^"\\]|\\.)*"|\s+')
_GONE_WITH = re.compile(r"\((?:gone|came) with its (\d+) lines\)$")
_FOLDED = re.compile(r"^… (\d+) more\b")


def _strip(line: str) -> str:
    """``line`` without refs, its words one space apart; a quoted value keeps its whitespace exactly."""
    return _SPACES.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else " ", _REF.sub("", line)).strip()


def tokens(line: str) -> list[str]:
    """The words of ``line`` (refs left in): quoted strings and parenthesised groups are one word each."""
    return _TOKEN.findall(line)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def segments(line: str) -> list[str]:
    """``line`` cut at each ``", "`` outside quotes (a line of sibling controls: ``clickable .reply [e2], .like
    [e3]``)."""
    out, start, quoted = [], 0, False
    for k, ch in enumerate(line):
        if ch == '"' and (k == 0 or line[k - 1] != "\\"):
            quoted = not quoted
        elif not quoted and line.startswith(", ", k):
            out.append(line[start:k])
            start = k + 2
    return [*out, line[start:]]


def changed_line(before: str, after: str, was_chars: int = 120) -> str:
    """The ``~`` line (without the sign) of one element whose line changed from ``before`` to ``after``: its head
    (the after line up to its first ref) and the words that changed, when that is shorter than the whole
    ``<after> (was: <before>)`` form (which it falls back to). A line of several sibling controls (one ref each,
    ``", "`` between them) says the change of each control that changed, one line each (joined by ``\n~ ``)."""
    whole = f"{after} (was: {_clip(_strip(before), was_chars)})"
    many = _REF.findall(after)
    if len(many) > 1:
        segs, olds = segments(after), segments(_strip(before))
        if len(segs) != len(many) or len(olds) != len(segs) or any(len(_REF.findall(x)) != 1 for x in segs):
            return whole
        role = after.split(" ", 1)[0]
        out = [_changed_one(olds[k] if k == 0 else f"{role} {olds[k]}", seg if k == 0 else f"{role} {seg}", was_chars)
               for k, seg in enumerate(segs) if _strip(seg) != olds[k].strip()]
        return "\n~ ".join(out) if out and sum(map(len, out)) < len(whole) else whole
    return _changed_one(before, after, was_chars)


def _changed_one(before: str, after: str, was_chars: int) -> str:
    old, new = tokens(_strip(before)), tokens(_strip(after))
    whole = f"{after} (was: {_clip(_strip(before), was_chars)})"
    m = _REF.search(after)
    if m is None:
        return whole
    head = after[:m.end()].strip()
    if len(tokens(_strip(head))) > _HEAD_WORDS or not m.group(0).startswith("["):
        return whole
    pieces = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        gone, came = " ".join(old[i1:i2]), " ".join(new[j1:j2])
        if tag == "replace" and i1 and j1 and old[i1 - 1] == new[j1 - 1] == "=":
            pieces.append(f"= {came}")  # a new value: the agent has read the old one
        elif tag == "replace":
            pieces.append(f"{gone} → {came}")
        elif tag == "insert":
            pieces.append(came if new[j1] == "=" else f"{came} added")
        elif tag == "delete":
            pieces.append(f"value cleared (was {old[i2 - 1]})" if old[i1] == "=" else f"{gone} removed")
    short = f"{head}: {'; '.join(pieces)}"
    return short if pieces and len(short) < len(whole) else whole


def _label(line: str) -> str:
    body = line[6:] if line.startswith("text: ") else line
    return body.split(": ", 1)[0] + ":" if ": " in body else ""


def _body(line: str) -> str:
    return line[6:] if line.startswith("text: ") else line


def _same_line(a: str, b: str) -> bool:
    if a.startswith(("row: ", "row [")) or b.startswith(("row: ", "row [")):
        return False  # rows that went and came are the rows now visible (delta._rows_replaced)
    if _label(a) and _label(a) == _label(_strip(b)) == _label(_strip(a)):
        return True  # "Phone: [165-742-1254](e390)" and "Phone: [351-490-2129](e396)"
    if _REF.search(a) or _REF.search(b):
        return False  # other elements, whatever their likeness (two "Delete" buttons)
    if _DIGITS.sub("#", a) == _DIGITS.sub("#", b):
        return True
    a, b = _body(a), _body(b)
    return min(len(a), len(b)) >= 8 and difflib.SequenceMatcher(a=a, b=b, autojunk=False).ratio() >= PAIR_RATIO


def pairs(gone: Sequence[str], came: Sequence[str]) -> list[tuple[int, int]]:
    """Indices ``(i, j)`` of lines that went (``gone[i]``) and came (``came[j]``) in one place and are the same line
    changed, in order (a pair never crosses another): lines without refs of the same label (``Time left:``), the
    same shape with digits masked, or at least :data:`PAIR_RATIO` similar; lines with refs only by their label
    (``Phone: [165-742-1254](e390)``, other refs: other elements in the same place)."""
    out: list[tuple[int, int]] = []
    j0 = 0
    for i, a in enumerate(gone):
        for j in range(j0, len(came)):
            if _same_line(a, came[j]):
                out.append((i, j))
                j0 = j + 1
                break
    return out


def paired_line(before: str, after: str, was_chars: int = 120) -> str:
    """The after line with what it said before written where it changed: the words both lines start and end
    with are kept once, and ``(was: <the before words between>)`` follows the after words between:
    ``Time left: 3598 (was: 3599) / 3600sec``, ``Last reward: 1.00 (was: -)``. The whole before line (refs left
    out) follows the whole after line when they share no word at either end, or the cut would split a quoted
    name or a parenthesised group (``Saved (2 click)``)."""
    a, b = _strip(before).split(" "), after.split(" ")
    bs = _strip(after).split(" ")
    if len(bs) != len(b):  # refs stand alone between words: compare without them
        return f"{after} (was: {_clip(_strip(before), was_chars)})"
    k = 0
    while k < min(len(a), len(b)) and a[k] == bs[k]:
        k += 1
    e = 0
    while e < min(len(a), len(b)) - k and a[-1 - e] == bs[-1 - e]:
        e += 1
    was = " ".join(a[k:len(a) - e])
    now = " ".join(b[k:len(b) - e])
    if (not was or not now or was.count('"') % 2 or now.count('"') % 2 or (k == 0 and e == 0)
            or was.count("(") != was.count(")") or now.count("(") != now.count(")")):
        return f"{after} (was: {_clip(_strip(before), was_chars)})"
    return " ".join([*b[:k], f"{now} (was: {_clip(was, was_chars)})", *b[len(b) - e:]])


def _weight(line: str) -> int:
    """How many rendered lines one op stands for: a container that went with its N lines is N + 1."""
    m = _GONE_WITH.search(line)
    return int(m.group(1)) + 1 if m else 1


def count_gone(ops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``ops`` with every run of more than :data:`GONE_LISTED` consecutive ``-`` ops made one counted op,
    ``12 lines gone, from <first>``, and the lines of shorter runs quoted up to :data:`GONE_QUOTE` characters."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(ops):
        j = i
        while j < len(ops) and ops[j][0] == "-":
            j += 1
        if j == i:
            out.append(ops[i])
            i += 1
            continue
        run = [line for _, line in ops[i:j]]
        if len(run) > GONE_LISTED:
            n = sum(_weight(line) for line in run)
            shown = [line for line in run if not _FOLDED.match(line)] or run
            out.append(("-", f"{n} lines gone, from {_clip(shown[0], GONE_QUOTE)}"))
        else:
            out.extend(("-", _clip(line, GONE_QUOTE) if not _GONE_WITH.search(line) else line) for line in run)
        i = j
    return out


def without_value(before: str, after: str) -> bool:
    """Whether the only change between ``before`` and ``after`` (lines of one element) is its shown value
    (``= "…"``), which the record already says."""
    def rest(line: str) -> list[str]:
        words = tokens(_strip(line))
        out, skip = [], False
        for w in words:
            if w == "=":
                skip = True
                continue
            if skip and w.startswith('"'):
                skip = False
                continue
            skip = False
            out.append(w)
        return out
    return rest(before) == rest(after)
