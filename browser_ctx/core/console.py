"""Console entries: folding repeats on capture, filtering and rendering.

Everything here is pure. Entries are built from the browser's payloads by
:mod:`browser_ctx.core.console_payloads` (as :mod:`browser_ctx.browser.capture` receives them) and
folded into a :class:`ConsoleBuffer` here.

Levels, most severe first: ``error`` ⊂ ``warning`` ⊂ ``info`` ⊂ ``debug``; asking for a level
returns it and every more severe level (default ``info``).

Folding: two messages of the same section (page) with the same level, source and text once every
run of digits is replaced by ``#`` (:func:`fold_key`) are one entry with a ``count`` and first/last-seen times, so
``×20000`` is exact however small the buffer is. The buffer keeps at most ``max_entries``
distinct entries and evicts the least recently seen one that is not an error (else the least
recently seen), counting evictions.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .sections import Section
from .tokens import count_tokens
from .urls import clip_around, clip_end, clip_middle

__all__ = [
    "LEVELS",
    "ConsoleEntry",
    "ConsoleBuffer",
    "level_included",
    "fold_key",
    "select_entries",
    "order_entries",
    "render_entry",
    "KEEP_CHARS",
    "URL_CHARS",
    "clip_url",
    "STACK_FRAMES",
    "KEEP_FRAMES",
]

#: Levels, most severe first.
LEVELS = ("error", "warning", "info", "debug")
_RANK = {name: i for i, name in enumerate(LEVELS)}

#: Characters of a message's text kept in memory (the rest is only counted); what is *shown* is
#: ``EventSettings.message_chars`` (300 by default).
KEEP_CHARS = 4000
#: Stack frames shown per entry; the rest are counted ("… 192 more frames").
STACK_FRAMES = 8
#: Stack frames kept in memory per entry.
KEEP_FRAMES = 16

_DIGITS = re.compile(r"\d+")
def level_included(level: str, wanted: str) -> bool:
    """Whether an entry of ``level`` is returned when asking for ``wanted`` (more severe levels included)."""
    return _RANK.get(level, 2) <= _RANK.get(wanted, 2)


def fold_key(level: str, text: str, source: str | None) -> str:
    """The folding key: level, source, and the text with every run of digits replaced by ``#``."""
    return f"{level}\x00{source or ''}\x00{_DIGITS.sub('#', text)}"


@dataclass
class ConsoleEntry:
    """One distinct console message (all its repeats folded in).

    Attributes:
        level: one of :data:`LEVELS`.
        text: the message text, at most :data:`KEEP_CHARS` characters of it (latest occurrence).
        full_length: characters in the whole message (latest occurrence).
        source: ``url:line`` of the call site, or ``None``.
        kind: ``console`` (console API), ``exception`` (uncaught error), ``browser`` (the browser's
            own log: CORS, failed loads, interventions) or ``worker`` (a dedicated worker's console
            call, listed with "(worker)").
        stack: kept stack frames, as ``at fn (url:line:col)`` strings.
        stack_total: frames in the whole stack (``>= len(stack)``).
        count: occurrences folded into this entry.
        first_seq / last_seq: capture sequence numbers of the first and latest occurrence (cursors).
        first_time / last_time: wall-clock seconds since the epoch.
        section: id of the :class:`Section` of the first occurrence.
        route: client-side route in force at the first occurrence, if the section changed route.
        varies: the text of repeats differed in their numbers.
        raw_tokens: o200k tokens all its occurrences would cost as an unfolded, untruncated listing
            (one ``[level] text (source)`` line each, full stack included; estimated from the kept
            part for messages longer than :data:`KEEP_CHARS`, and for repeats from the first occurrence).
    """

    level: str
    text: str
    full_length: int
    source: str | None = None
    kind: str = "console"
    stack: tuple[str, ...] = ()
    stack_total: int = 0
    count: int = 1
    first_seq: int = 0
    last_seq: int = 0
    first_time: float = 0.0
    last_time: float = 0.0
    section: int = 1
    route: str | None = None
    varies: bool = False
    raw_tokens: int = 0


class ConsoleBuffer:
    """Bounded, folding store of :class:`ConsoleEntry` for one tab.

    Args:
        max_entries: distinct entries kept (``EventSettings.console_entries``, default 1,000).

    Attributes:
        seq: sequence number of the latest message added (0 before any).
        total: messages added in all (repeats included).
        evicted_entries / evicted_messages: distinct entries dropped to make room, and the messages
            they held.
    """

    def __init__(self, max_entries: int = 1000) -> None:
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[str, ConsoleEntry] = OrderedDict()
        self._others: OrderedDict[str, None] = OrderedDict()  # keys of the entries that are not errors, as above
        self.seq = 0
        self.total = 0
        self.evicted_entries = 0
        self.evicted_messages = 0
        self.evicted_raw_tokens = 0

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, entry: ConsoleEntry, time: float, *, count: int = 1, first_time: float | None = None,
            varies: bool = False) -> ConsoleEntry:
        """Add ``count`` occurrences (already folded elsewhere, e.g. in the page); fold them into an
        existing entry when :func:`fold_key` matches.

        ``time`` is the latest occurrence and ``first_time`` the first (seconds since the epoch;
        default ``time``); ``varies`` says the occurrences differed in their numbers. ``entry.count``
        is ignored. Each occurrence takes a sequence number, so cursors stay exact. Returns the entry
        now holding them.
        """
        count = max(1, count)
        first_time = time if first_time is None else first_time
        self.seq += count
        self.total += count
        # Per section: an error that comes back on the next page is listed there too.
        key = f"{entry.section}\x00{fold_key(entry.level, entry.text, entry.source)}"
        held = self._entries.get(key)
        if held is not None:
            # Repeats differ at most in their numbers: each costs about what the first did.
            held.raw_tokens += held.raw_tokens // held.count * count
            held.count += count
            held.last_seq = self.seq
            held.last_time = time
            if entry.text != held.text or varies:
                held.varies = True
                held.text, held.full_length = entry.text, entry.full_length
            self._entries.move_to_end(key)
            if key in self._others:
                self._others.move_to_end(key)
            return held
        entry.count = count
        entry.varies = entry.varies or varies
        entry.raw_tokens = raw_tokens(entry) * count
        entry.first_seq = self.seq - count + 1
        entry.last_seq = self.seq
        entry.first_time, entry.last_time = first_time, time
        self._entries[key] = entry
        if entry.level != "error":
            self._others[key] = None
        while len(self._entries) > self.max_entries:
            # The least recently seen entry that is not an error (errors are what a reader wants kept),
            # else the least recently seen.
            if self._others:
                old = self._entries.pop(self._others.popitem(last=False)[0])
            else:
                old = self._entries.popitem(last=False)[1]
            self.evicted_entries += 1
            self.evicted_messages += old.count
            self.evicted_raw_tokens += old.raw_tokens
        return entry

    def entries(self) -> list[ConsoleEntry]:
        """Held entries, in order of first occurrence."""
        return sorted(self._entries.values(), key=lambda e: e.first_seq)

    def clear(self) -> None:
        """Drop every entry (counters are kept)."""
        self._entries.clear()
        self._others.clear()


def raw_tokens(entry: ConsoleEntry) -> int:
    """o200k tokens of one occurrence of ``entry`` as an unfolded, untruncated listing line
    (``[level] text (source)`` plus its whole stack); parts not kept in memory are estimated pro rata."""
    line = f"[{entry.level}] {entry.text} ({entry.source or ''})"
    tokens = count_tokens(line)
    if entry.full_length > len(entry.text) and entry.text:
        tokens += int(count_tokens(entry.text) * (entry.full_length - len(entry.text)) / len(entry.text))
    if entry.stack:
        frames = count_tokens("\n".join(entry.stack))
        tokens += int(frames * max(entry.stack_total, len(entry.stack)) / len(entry.stack))
    return tokens


# -- selecting and rendering -------------------------------------------------------------------

def select_entries(entries: Iterable[ConsoleEntry], *, level: str = "info", pattern: re.Pattern[str] | None = None,
                   since: int | None = None, scrub: Callable[[str], str] | None = None) -> list[ConsoleEntry]:
    """Keep entries at ``level`` or more severe, whose text matches ``pattern`` (searched, on the
    scrubbed text) and that occurred after cursor ``since`` (``last_seq > since``)."""
    out = []
    for e in entries:
        if not level_included(e.level, level):
            continue
        if since is not None and e.last_seq <= since:
            continue
        if pattern is not None:
            text = scrub(e.text) if scrub else e.text
            hay = text + ("\n" + "\n".join(e.stack) if e.stack else "") + (f" ({e.source})" if e.source else "")
            if not pattern.search(hay):
                continue
        out.append(e)
    return out


def order_entries(entries: Iterable[ConsoleEntry]) -> list[ConsoleEntry]:
    """Order for display: by section, and within a section errors first, then the rest, each in
    time order of first occurrence (``first_time``; capture order breaks ties). Time, not capture
    order, because console calls arrive in batches a little after the browser's own messages."""
    return sorted(entries, key=lambda e: (e.section, e.level != "error", e.first_time, e.first_seq))


#: Characters of a URL (source, route, page) shown in a console listing; longer ones keep both ends.
URL_CHARS = 200


def clip_url(url: str, limit: int = URL_CHARS) -> str:
    """:func:`~browser_ctx.core.urls.clip_middle` at :data:`URL_CHARS` characters by default."""
    return clip_middle(url, limit)


#: The browser's wording of a failed load, shortened in listings to "Failed to load resource: 404 (…)".
_LOAD_FAILED_BOILERPLATE = "Failed to load resource: the server responded with a status of "


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", " ↵ ")


def render_entry(e: ConsoleEntry, *, message_chars: int = 300, scrub: Callable[[str], str] | None = None,
                 since: int | None = None, frames: int = STACK_FRAMES, focus: re.Pattern[str] | None = None) -> str:
    """Render one entry: ``[level] ×count text (source)`` plus indented stack lines.

    The text is scrubbed (``scrub``) *before* it is cut at ``message_chars`` characters, so a secret
    never survives half-cut; a cut message says its full length in characters. When ``focus`` (the
    listing's ``pattern``) matches past the cut, the window around the match is shown instead of the
    rest of the start (:func:`~browser_ctx.core.urls.clip_around`). Stacks show ``frames`` frames and
    say how many were dropped.
    """
    text = scrub(e.text) if scrub else e.text
    full = e.full_length + (len(text) - len(e.text))
    match = focus.search(text) if focus is not None else None
    if match is not None and match.end() > message_chars:
        text = clip_around(text, match.start(), match.end(), message_chars, total=full)
    else:
        text = clip_end(text, message_chars, total=full)
    parts = [f"[{e.level}]"]
    if e.count > 1:
        parts.append(f"×{e.count}")
    parts.append(_one_line(text.replace(_LOAD_FAILED_BOILERPLATE, "Failed to load resource: ", 1)))
    if e.source:
        src = scrub(e.source) if scrub else e.source
        parts.append(f"({clip_url(src)})")
    if e.kind == "worker":
        parts.append("(worker)")
    if e.route:
        parts.append(f"@{clip_url(scrub(e.route) if scrub else e.route)}")
    if e.varies:
        parts.append("(numbers vary; latest shown)")
    if e.count > 1 and since is not None and e.first_seq <= since:
        parts.append("(repeats since cursor)")
    lines = [" ".join(parts)]
    for fr in e.stack[:frames]:
        lines.append("    " + (scrub(fr) if scrub else fr))
    dropped = e.stack_total - min(len(e.stack), frames)
    if dropped > 0:
        lines.append(f"    … {dropped} more frames")
    return "\n".join(lines)


def section_header(section: Section | None, section_id: int, current: int) -> str:
    """The line that opens a section's entries in a listing with several sections."""
    url = clip_url(section.url) if section else "?"
    label = "current page" if section_id == current else "earlier page"
    return f"— page {section_id} ({label}): {url} —"
