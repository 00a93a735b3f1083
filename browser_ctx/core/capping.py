"""Cut a rendered result to a token budget, at a clean boundary, and say what was left out.

Every tool result passes through :func:`cap`. Units, always:

- ``max_tokens`` and ``full_tokens`` are o200k_base tokens (:mod:`.tokens`);
- ``max_chars``, ``offset``, ``full_length`` and ``next_offset`` are characters,
  i.e. Unicode code points of the whole rendered result (Python ``str`` indices).

A cut lands, in order of preference, just after a line break (our renderings put
one element per line, so this is an element boundary), else after the last
whitespace, else between two characters. Python strings are code-point sequences,
so a cut never splits a character.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .tokens import count_tokens, encoding

__all__ = ["Capped", "cap", "truncation_marker", "BOUNDARY_WINDOW", "PARTIAL_KEY", "partial_fields", "partial_note",
           "COLLECT_MARGIN", "CHARS_PER_TOKEN", "MIN_COLLECT_CHARS", "collect_chars"]

#: A boundary is searched for in at most the last this-many characters of the
#: part that fits; past that the cut falls back to the next kind of boundary.
BOUNDARY_WINDOW = 2000


#: Structured field of a result rendered from part of the page: ``{"elementsRead": int, "elementsLeft": int,
#: "loading": bool}`` (see :func:`partial_fields`). :func:`cap` then sends ``truncated: true``, and
#: ``fullLength``/``fullTokens`` scaled up by elements (estimates, flagged ``estimated: true``).
PARTIAL_KEY = "partial"


#: A bounded read's walk collects this many characters of visible HTML per character of text the call may
#: return: room for tags and attributes (visible HTML is several times its text), the runs of similar items the
#: condensers fold, and the marker.
COLLECT_MARGIN = 25
#: Characters of text per o200k token assumed when sizing the walk (English prose is about 4).
CHARS_PER_TOKEN = 4
#: The least a bounded walk collects (characters of visible HTML), so a small ``maxTokens`` still sees enough of
#: the page to find its main content.
MIN_COLLECT_CHARS = 100_000


def collect_chars(budget_tokens: int, budget_chars: int) -> int:
    """Return the characters of visible HTML a bounded read collects before it stops walking, for a call that may
    return ``budget_tokens`` o200k tokens and ``budget_chars`` characters (``Budget.tokens``, ``Budget.chars``):
    ``min(budget_chars, budget_tokens × CHARS_PER_TOKEN) × COLLECT_MARGIN``, at least :data:`MIN_COLLECT_CHARS`.
    The default 2,000-token call collects 200,000 characters (about 9,000 simple elements), the 8,000-token
    ceiling 800,000; an ordinary article page is read whole."""
    return max(MIN_COLLECT_CHARS, min(budget_chars, budget_tokens * CHARS_PER_TOKEN) * COLLECT_MARGIN)


def partial_fields(elements_read: int, elements_left: int, loading: bool, target: str = "") -> dict[str, Any] | None:
    """Return the :data:`PARTIAL_KEY` value of a read that walked ``elements_read`` elements and left about
    ``elements_left`` (counted, not read), of a page that was still ``loading`` or not, with the ``target`` that
    reads on where it stopped (when one is known); ``None`` when the read is whole (nothing left, page loaded).
    A read that stopped and was not cut by the cap says ``readOn: "target"`` instead of a ``nextOffset``."""
    if elements_left <= 0 and not loading:
        return None
    out: dict[str, Any] = {"elementsRead": elements_read, "elementsLeft": max(0, elements_left), "loading": loading}
    if target and elements_left > 0:
        out["target"] = target
    return out


def partial_note(elements_left: int, elements: int, loading: bool, siblings_left: int = 0) -> str:
    """Return the note for a result rendered from part of the page ('' for a whole read): how many
    elements were left unread (an estimate), how many of them are the rest of the list or run the read stopped
    in (``siblings_left``), and whether the page was still loading (one line, no brackets)."""
    parts = []
    if loading:
        parts.append(f"page still loading: {elements:,} elements so far; read again once it has loaded")
    if elements_left > 0:
        where = (f", {siblings_left:,} of them further items of the list where it stopped" if siblings_left > 1
                 else "")
        parts.append(f"… about {elements_left:,} more elements not read{where} (the read stops once it has enough "
                     "for maxTokens); read a part with target")
    return "; ".join(parts)


def _estimate(full_length: int, full_tokens: int, partial: Any) -> tuple[int, int]:
    """Scale a partial result's length and tokens by elements read versus elements in all."""
    try:
        read, left = int(partial["elementsRead"]), int(partial["elementsLeft"])
    except (KeyError, TypeError, ValueError):
        return full_length, full_tokens
    if left <= 0 or read <= 0:
        return full_length, full_tokens
    scale = (read + left) / read
    return int(full_length * scale), int(full_tokens * scale)


@dataclass(frozen=True)
class Capped:
    """One page of a rendered result.

    Attributes:
        text: the page of the result, with the truncation marker line appended when
            ``truncated`` (the marker is part of ``text``).
        truncated: whether anything after this page was left out.
        full_length: characters in the whole rendered result.
        full_tokens: o200k tokens in the whole rendered result.
        offset: character offset where this page starts.
        next_offset: character offset to pass as ``offset`` to read on, or ``None``
            when this page reaches the end.
        meta: the camelCase metadata sent to the client as structured content.
    """

    text: str
    truncated: bool
    full_length: int
    full_tokens: int
    offset: int
    next_offset: int | None
    meta: dict[str, Any] = field(default_factory=dict)


def truncation_marker(start: int, end: int, full_length: int, full_tokens: int, estimated: bool = False) -> str:
    """Return the one-line marker appended to a cut page (starts with a newline); ``estimated``: the
    whole is an estimate (a partial read), said as "about"."""
    about = "about " if estimated else ""
    return (
        f"\n… truncated: showed characters {start}-{end} of {about}{full_length} "
        f"({about}{full_tokens} tokens in all); call again with offset={end} to read on."
    )


def _meta(truncated: bool, full_length: int, full_tokens: int, offset: int, next_offset: int | None,
          extra: dict[str, Any] | None) -> dict[str, Any]:
    meta: dict[str, Any] = dict(extra or {})
    partial = meta.get(PARTIAL_KEY)
    if partial:
        full_length, full_tokens = _estimate(full_length, full_tokens, partial)
        meta["estimated"] = True
    meta.update({"truncated": truncated or bool(partial), "fullLength": full_length, "fullTokens": full_tokens})
    if offset:
        meta["offset"] = offset
    if truncated:
        meta["nextOffset"] = next_offset
    elif partial and int(partial.get("elementsLeft") or 0) > 0:
        meta["readOn"] = "target"  # no offset reads on: the walk stopped; a read with partial["target"] shows more
    return meta


def _clean_cut(text: str, start: int, end: int) -> int:
    """Move ``end`` back to the best boundary in ``text[start:end]``; never returns ``start``
    unless nothing at all fits."""
    if end >= len(text):
        return len(text)
    lo = max(start, end - BOUNDARY_WINDOW)
    nl = text.rfind("\n", lo, end)
    if nl > start:
        return nl + 1
    for i in range(end - 1, lo - 1, -1):
        if text[i].isspace() and i > start:
            return i + 1
    return end


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _token_ends(window: str) -> list[int]:
    """Encode ``window`` once and return, for each token, the character offset where it ends (a token that ends
    inside a multi-byte character counts up to the last whole character before it)."""
    enc = encoding()
    byte_ends = list(itertools.accumulate(map(len, enc.decode_tokens_bytes(enc.encode(window, disallowed_special=())))))
    if window.isascii():
        return byte_ends
    # between two non-ASCII characters a token ends as many characters in as bytes, less the extra bytes of the
    # non-ASCII characters before it (``shift``); one that ends inside a character ends before that character
    ends: list[int] = []
    shift = done = 0
    for m in _NON_ASCII.finditer(window):
        start = m.start() + shift
        size = len(m.group().encode("utf-8", "surrogatepass"))
        before = bisect.bisect_right(byte_ends, start, done)
        ends.extend([b - shift for b in byte_ends[done:before]])
        done = bisect.bisect_left(byte_ends, start + size, before)
        ends.extend([m.start()] * (done - before))
        shift += size - 1
    ends.extend([b - shift for b in byte_ends[done:]])
    return ends


#: Characters of text per token a cut first encodes (:func:`_prefix_ends`): o200k averages about 4 on our
#: renderings, so this covers the tokens allowed with room to spare; more is encoded only when it does not.
PREFIX_CHARS_PER_TOKEN = 6


def _piece_start(window: str, at: int) -> int:
    """The first offset ``>= at`` where o200k's pre-tokeniser starts a new piece whatever ``window`` holds after it:
    just after a line break that the white space after it does not carry on to another break, and that is not
    followed by a ``/`` (a punctuation piece may take breaks and slashes after it); ``len(window)`` when none."""
    while True:
        nl = window.find("\n", at)
        if nl < 0:
            return len(window)
        i = j = nl + 1
        while j < len(window) and window[j].isspace() and window[j] not in "\r\n":
            j += 1
        if j < len(window) and window[j] not in "\r\n" and (j > i or window[j] != "/"):
            return i
        at = i


def _prefix_ends(window: str, tokens: int) -> tuple[str, list[int]]:
    """The token ends (:func:`_token_ends`) of a prefix of ``window`` that holds more than ``tokens`` tokens, and
    that prefix; exactly the first token ends of the whole ``window``, without encoding all of it. The prefix ends
    where the pre-tokeniser starts a piece (:func:`_piece_start`), so its tokens are the window's; it grows until
    it holds enough (else it is the whole window)."""
    size = max(1, tokens) * PREFIX_CHARS_PER_TOKEN
    while True:
        cut = _piece_start(window, size) if size < len(window) else len(window)
        prefix = window[:cut]
        ends = _token_ends(prefix)
        if cut >= len(window) or (len(ends) > tokens and ends[-1] > ends[max(0, tokens - 1)]):
            return prefix, ends
        size = cut + size


def _tokens_json(meta: dict[str, Any]) -> int:
    return count_tokens(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))


def cap(
    text: str,
    *,
    max_tokens: int,
    max_chars: int,
    offset: int = 0,
    extra_meta: dict[str, Any] | None = None,
    full_tokens: int | None = None,
) -> Capped:
    """Return the page of ``text`` starting at ``offset`` that fits the budget.

    The budget covers everything the client receives for the call: the page text,
    the truncation marker and the structured metadata (``extra_meta`` plus the
    truncation fields, serialised as compact JSON).

    Args:
        text: the whole rendered result.
        max_tokens: o200k tokens allowed for the page, marker and metadata together.
        max_chars: characters allowed for the page text and marker.
        offset: character offset to start at; clamped to ``[0, len(text)]``.
        extra_meta: other structured fields to send (counted against the budget).
        full_tokens: the token count of ``text`` if the caller already knows it.

    Returns:
        A :class:`Capped`. When even the metadata does not fit, the page is empty but
        still ``truncated`` with a ``next_offset`` equal to ``offset``.
    """
    full_length = len(text)
    offset = min(max(0, offset), full_length)
    if full_tokens is None:
        full_tokens = count_tokens(text)
    rest = text[offset:]
    partial = (extra_meta or {}).get(PARTIAL_KEY)
    shown_length, shown_tokens = _estimate(full_length, full_tokens, partial) if partial else (full_length, full_tokens)

    def marker(end: int) -> str:
        return truncation_marker(offset, end, shown_length, shown_tokens, estimated=bool(partial))

    # Fast path: the remainder fits as it is.
    meta = _meta(False, full_length, full_tokens, offset, None, extra_meta)
    if len(rest) <= max_chars and (
        (full_tokens if offset == 0 else count_tokens(rest)) + _tokens_json(meta) <= max_tokens
    ):
        return Capped(rest, False, full_length, full_tokens, offset, None, meta)

    # Reserve room for the marker and metadata at their widest (next_offset <= full_length).
    widest_meta = _meta(True, full_length, full_tokens, offset, full_length, extra_meta)
    marker_w = marker(full_length)
    overhead = _tokens_json(widest_meta) + count_tokens(marker_w)
    body_tokens = max(0, max_tokens - overhead)
    body_chars = max(0, max_chars - len(marker_w))

    # the tokens allowed and one more are all a cut reads: the ends of a prefix holding them, not of the window
    window, ends = _prefix_ends(rest[: body_chars], body_tokens + 1)

    def covered(n_tokens: int) -> int:
        """Characters of ``window`` covered by its first ``n_tokens`` tokens (whole characters only)."""
        if n_tokens >= len(ends):
            return len(window)
        return ends[n_tokens - 1] if n_tokens > 0 else 0

    allowed = body_tokens
    end = _clean_cut(text, offset, offset + covered(allowed))
    # Token merges across the cut and the marker can shift counts by a few: take the overflow off the tokens
    # allowed (counted on the window's one encoding, never re-encoding it) and cut again until it fits.
    while True:
        page = text[offset:end]
        truncated = end < full_length
        next_offset = end if truncated else None
        meta = _meta(truncated, full_length, full_tokens, offset, next_offset, extra_meta)
        body = page + (marker(end) if truncated else "")
        used = count_tokens(body) + _tokens_json(meta)
        if end <= offset or used <= max_tokens:
            break
        allowed = min(allowed, bisect.bisect_right(ends, end - offset)) - (used - max_tokens)
        shorter = _clean_cut(text, offset, offset + covered(allowed))
        if shorter >= end:  # no boundary before the last cut within the tokens allowed: shrink by characters
            shorter = _clean_cut(text, offset, offset + max(0, int((end - offset) * 0.9)))
        end = shorter
    return Capped(body, truncated, full_length, full_tokens, offset, next_offset, meta)
