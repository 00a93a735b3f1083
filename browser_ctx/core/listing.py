"""Cut listings (console entries, requests): lines within a budget, and cursors that never skip.

A listing renders whole entries until its budget is nearly used, so the cursor it hands back (pass it
as ``since``) covers exactly what was shown: :func:`cursor_after` is the largest sequence number below
which every matched entry was shown. Because errors come first, a cut console listing can show entries
newer than an unshown one; the cursor then stays below the unshown one, and :class:`ShownMemory`
remembers what was shown at that cursor, so the next call with ``since=cursor`` goes on instead of
repeating the same page. One :class:`ShownMemory` per tab and listing kind lives on the tab's capture.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from .._errors import InvalidArgument
from .tokens import count_tokens

__all__ = ["LineBudget", "ShownMemory", "cursor_after", "compile_pattern", "CURSORS_KEPT"]

#: Cursors remembered per :class:`ShownMemory` (older ones are forgotten: paging from them repeats).
CURSORS_KEPT = 32


def compile_pattern(value: str | None, name: str) -> re.Pattern[str] | None:
    """Compile the regular expression ``value`` of parameter ``name`` (``None`` when not given).

    Raises:
        InvalidArgument: not a valid regular expression (the message shows the error and an example).
    """
    if not value:
        return None
    try:
        return re.compile(value)
    except re.error as exc:
        raise InvalidArgument(f"Invalid regular expression for {name} {value!r}: {exc}. "
                              "Use Python/JS-style regex syntax, e.g. \"/api/.*user\".") from exc


def cursor_after(matched_seqs: list[int], shown: set[int], latest: int) -> int:
    """The largest cursor c such that every matched item with sequence number <= c was shown
    (``latest``, the newest sequence number, when all were)."""
    unshown = [s for s in matched_seqs if s not in shown]
    return (min(unshown) - 1) if unshown else latest


class ShownMemory:
    """What cut listings of one tab already showed, per cursor they handed back.

    ``skip(since)`` maps item id -> sequence number at the time it was shown: an item with that id is
    left out of a listing ``since`` that cursor unless it changed after (a higher sequence number).
    """

    def __init__(self, keep: int = CURSORS_KEPT) -> None:
        self._keep = keep
        self._by_cursor: OrderedDict[int, dict[int, int]] = OrderedDict()

    def skip(self, since: int | None) -> dict[int, int]:
        """Items shown by the listing that handed back cursor ``since`` (empty if none or forgotten)."""
        return self._by_cursor.get(since, {}) if since is not None else {}

    def remember(self, cursor: int, since: int | None, shown: dict[int, int]) -> None:
        """Record items shown by a listing that handed back ``cursor`` (those at or below the cursor
        need no memory: ``since`` already excludes them)."""
        kept = {k: v for k, v in (self.skip(since) | shown).items() if v > cursor}
        if kept:
            self._by_cursor[cursor] = kept
            self._by_cursor.move_to_end(cursor)
            while len(self._by_cursor) > self._keep:
                self._by_cursor.popitem(last=False)


class LineBudget:
    """Lines accumulated while they fit in ``tokens`` o200k tokens and ``chars`` characters (each line
    also costs its newline: one token, one character).

    Attributes:
        lines: the lines added so far.
    """

    def __init__(self, tokens: int, chars: int) -> None:
        self.tokens = tokens
        self.chars = chars
        self.lines: list[str] = []

    def add(self, block: str, force: bool = False) -> bool:
        """Add ``block`` if it fits (or anyway with ``force``); return whether it was added."""
        t = count_tokens(block) + 1
        if not force and (t > self.tokens or len(block) + 1 > self.chars):
            return False
        self.lines.append(block)
        self.tokens -= t
        self.chars -= len(block) + 1
        return True
