"""Console entries: formatting CDP payloads, folding repeats on capture, filtering and rendering.

Everything here is pure: it takes plain dicts and returns strings and records. Its inputs, as
:mod:`browser_ctx.browser.capture` feeds them: batches from the in-page console hook
(``browser/js/console_hook.js``, already folded there; :func:`entry_from_hook`), CDP
``Runtime.exceptionThrown`` payloads (uncaught errors; :func:`entry_from_exception`) and
``Log.entryAdded`` payloads (the browser's own messages; :func:`entry_from_log`). CDP
``Runtime.consoleAPICalled`` payloads are understood too (:func:`entry_from_console_api`; the
benchmarks' raw listings use its formatting).

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
from typing import Any

from .sections import Section, origin_of, relative_url
from .tokens import count_tokens
from .urls import clip_end, clip_middle

__all__ = [
    "LEVELS",
    "ConsoleEntry",
    "ConsoleBuffer",
    "level_of",
    "level_included",
    "fold_key",
    "format_args",
    "format_remote_object",
    "entry_from_console_api",
    "entry_from_exception",
    "entry_from_log",
    "entry_from_hook",
    "select_entries",
    "order_entries",
    "render_entry",
    "KEEP_CHARS",
    "URL_CHARS",
    "clip_url",
    "STACK_FRAMES",
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
_KEEP_FRAMES = 16
#: Characters of a string shown inside an object preview (``{name: "…"}``), as DevTools does.
PREVIEW_STRING_CHARS = 60
#: Characters of a function's source line shown when its name cannot be read.
FUNCTION_CHARS = 80

_DIGITS = re.compile(r"\d+")
_CONSOLE_LEVELS = {
    "error": "error", "assert": "error",
    "warning": "warning", "warn": "warning",
    "debug": "debug", "verbose": "debug", "profile": "debug", "profileEnd": "debug",
}


def level_of(kind: str) -> str:
    """Map a CDP console type (``log``, ``warning``, ``assert``, …) or log level to one of :data:`LEVELS`."""
    return _CONSOLE_LEVELS.get(kind, "info")


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
        kind: ``console`` (console API), ``exception`` (uncaught error) or ``browser`` (the browser's
            own log: CORS, failed loads, interventions).
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
            return held
        entry.count = count
        entry.varies = entry.varies or varies
        entry.raw_tokens = raw_tokens(entry) * count
        entry.first_seq = self.seq - count + 1
        entry.last_seq = self.seq
        entry.first_time, entry.last_time = first_time, time
        self._entries[key] = entry
        while len(self._entries) > self.max_entries:
            # The least recently seen entry that is not an error (errors are what a reader wants kept),
            # else the least recently seen.
            victim = next((k for k, e in self._entries.items() if e.level != "error"), None)
            old = self._entries.pop(victim) if victim is not None else self._entries.popitem(last=False)[1]
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


# -- formatting CDP payloads ---------------------------------------------------------------------

def _preview_value(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    value = prop.get("value")
    sub = prop.get("valuePreview")
    if sub is not None:
        return _render_preview(sub, depth=1)
    if kind == "string":
        return '"' + str(value or "")[:PREVIEW_STRING_CHARS] + '"'
    if kind == "function":
        return "ƒ"
    if kind == "object":
        if prop.get("subtype") == "null":
            return "null"
        return "{…}" if (value or "Object") == "Object" else str(value)
    if kind == "accessor":
        return "(…)"
    return str(value) if value is not None else kind or "?"


def _render_preview(preview: dict[str, Any], depth: int = 0) -> str:
    sub = preview.get("subtype")
    more = ", …" if preview.get("overflow") else ""
    if sub in ("map", "set", "weakmap", "weakset") or preview.get("entries"):
        parts = []
        for e in preview.get("entries") or []:
            val = _render_preview(e["value"], depth + 1) if "value" in e else "?"
            parts.append(f"{_render_preview(e['key'], depth + 1)} => {val}" if e.get("key") else val)
        return f"{preview.get('description', sub)} {{{', '.join(parts)}{more}}}"
    props = preview.get("properties") or []
    if preview.get("type") != "object":
        value = preview.get("description", "")
        return f'"{str(value)[:PREVIEW_STRING_CHARS]}"' if preview.get("type") == "string" else str(value)
    if sub == "array" or sub == "typedarray":
        items = [_preview_value(p) for p in props]
        return f"[{', '.join(items)}{more}]"
    if sub in ("date", "regexp", "node", "error", "promise", "proxy"):
        return str(preview.get("description", sub))
    inner = ", ".join(f"{p.get('name')}: {_preview_value(p)}" for p in props)
    desc = preview.get("description") or "Object"
    prefix = "" if desc == "Object" else desc + " "
    return f"{prefix}{{{inner}{more}}}"


def format_remote_object(obj: dict[str, Any]) -> str:
    """Render one CDP ``Runtime.RemoteObject`` as short text.

    Strings are returned as they are; numbers, booleans, ``undefined``, ``null`` by value; objects
    from their ``preview`` (one level, so cyclic objects are safe: ``{name: "a", self: {…}}``);
    functions as ``ƒ name(…)``; errors by their description (message and stack).
    """
    kind = obj.get("type")
    sub = obj.get("subtype")
    if kind == "string":
        return str(obj.get("value", ""))
    if kind == "undefined":
        return "undefined"
    if sub == "null":
        return "null"
    if "unserializableValue" in obj:
        return str(obj["unserializableValue"])
    if kind in ("number", "boolean"):
        return str(obj.get("value")).lower() if kind == "boolean" else _number(obj.get("value"))
    if kind == "function":
        first = (obj.get("description") or "function").split("\n", 1)[0]
        m = re.match(r"(?:async\s+)?function\*?\s*([\w$]*)\s*\(|class\s+([\w$]+)", first)
        name = (m.group(1) or m.group(2)) if m else ""
        return f"ƒ {name}()" if m else first[:FUNCTION_CHARS]
    if sub == "error":
        return str(obj.get("description") or obj.get("className") or "Error")
    preview = obj.get("preview")
    if preview is not None:
        return _render_preview(preview)
    return str(obj.get("description") or obj.get("className") or kind or "")


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


_FORMAT = re.compile(r"%[sdifoOc%]")


def format_args(args: list[dict[str, Any]]) -> str:
    """Join console arguments the way DevTools does: ``%s``/``%d``/``%i``/``%f``/``%o``/``%O``/``%c``
    substitutions in a leading format string, then the remaining arguments separated by spaces."""
    if not args:
        return ""
    rest = list(args)
    out = []
    first = rest[0]
    if first.get("type") == "string" and "%" in str(first.get("value", "")) and len(rest) > 1:
        fmt = str(rest.pop(0).get("value", ""))

        def sub(m: re.Match[str]) -> str:
            spec = m.group(0)
            if spec == "%%":
                return "%"
            if not rest:
                return spec
            arg = rest.pop(0)
            if spec == "%c":
                return ""
            text = format_remote_object(arg)
            if spec in ("%d", "%i"):
                try:
                    return str(int(float(text)))
                except ValueError:
                    return "NaN"
            return text
        out.append(_FORMAT.sub(sub, fmt))
    out.extend(format_remote_object(a) for a in rest)
    return " ".join(out)


def _frame(frame: dict[str, Any], base: str | None) -> str:
    name = frame.get("functionName") or "<anonymous>"
    url = relative_url(frame.get("url") or "", base)
    return f"at {name} ({url}:{int(frame.get('lineNumber', 0)) + 1}:{int(frame.get('columnNumber', 0)) + 1})"


def _source(frames: list[dict[str, Any]] | None, base: str | None, url: str | None = None,
            line: int | None = None) -> str | None:
    if frames:
        f = frames[0]
        if f.get("url"):
            return f"{relative_url(f['url'], base)}:{int(f.get('lineNumber', 0)) + 1}"
    if url:
        return f"{relative_url(url, base)}:{line + 1}" if line is not None else relative_url(url, base)
    return None


def _split_stack(description: str, base: str | None) -> tuple[str, list[str], int]:
    """Split an error description into (message, kept frames, total frames)."""
    lines = description.split("\n")
    idx = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("at ")), len(lines))
    message = "\n".join(lines[:idx])
    frames = [ln.strip() for ln in lines[idx:] if ln.strip().startswith("at ")]
    if base:
        origin_frames = []
        for fr in frames[:_KEEP_FRAMES]:
            origin_frames.append(_strip_origin(fr, base))
        kept = origin_frames
    else:
        kept = frames[:_KEEP_FRAMES]
    return message, kept, len(frames)


def _strip_origin(text: str, base: str) -> str:
    origin = origin_of(base)
    return text.replace(origin + "/", "/") if origin else text


def _stack_frames(stack: dict[str, Any] | None) -> list[dict[str, Any]]:
    return list((stack or {}).get("callFrames") or [])


def _kept(text: str) -> tuple[str, int]:
    return text[:KEEP_CHARS], len(text)


def entry_from_console_api(params: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an entry from a ``Runtime.consoleAPICalled`` payload.

    ``base`` is the page URL, used to show same-origin URLs as paths. ``console.trace`` keeps its
    frames; an error object logged with ``console.error(err)`` keeps the error's stack.
    """
    kind = params.get("type", "log")
    args = params.get("args") or []
    frames = _stack_frames(params.get("stackTrace"))
    text = format_args(args)
    stack: list[str] = []
    total = 0
    if kind == "assert" and not text.startswith("Assertion failed"):
        text = "Assertion failed" + (": " + text if text else "")
    if kind == "trace":
        stack = [_frame(f, base) for f in frames[:_KEEP_FRAMES]]
        total = len(frames)
    elif any(a.get("subtype") == "error" for a in args) and "\n    at " in text:
        text, stack, total = _split_stack(text, base)
    text, full = _kept(text)
    return ConsoleEntry(level=level_of(kind), text=text, full_length=full, source=_source(frames, base),
                        kind="console", stack=tuple(stack), stack_total=total)


def entry_from_exception(params: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an ``error`` entry from a ``Runtime.exceptionThrown`` payload (uncaught error or rejection)."""
    details = params.get("exceptionDetails") or {}
    exc = details.get("exception") or {}
    frames = _stack_frames(details.get("stackTrace"))
    prefix = details.get("text") or "Uncaught"
    if exc.get("subtype") == "error" or (exc.get("description") and "\n    at " in exc.get("description", "")):
        message, stack, total = _split_stack(str(exc.get("description") or ""), base)
        if not stack and frames:
            stack = [_frame(f, base) for f in frames[:_KEEP_FRAMES]]
            total = len(frames)
        text = f"{prefix} {message}".strip() if not message.startswith(prefix) else message
    else:
        value = format_remote_object(exc) if exc else ""
        text = f"{prefix} {value}".strip()
        stack = [_frame(f, base) for f in frames[:_KEEP_FRAMES]]
        total = len(frames)
    text, full = _kept(text)
    return ConsoleEntry(level="error", text=text, full_length=full,
                        source=_source(frames, base, details.get("url"), details.get("lineNumber")),
                        kind="exception", stack=tuple(stack), stack_total=total)


def entry_from_log(params: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an entry from a ``Log.entryAdded`` payload (the browser's own messages: CORS, failed
    loads, interventions, deprecations); ``verbose`` maps to ``debug``."""
    e = params.get("entry") or {}
    frames = _stack_frames(e.get("stackTrace"))
    text, full = _kept(str(e.get("text") or ""))
    url = e.get("url")
    source = _source(frames, base, url, e.get("lineNumber")) if (frames or url) else None
    return ConsoleEntry(level=level_of(str(e.get("level", "info"))), text=text, full_length=full,
                        source=source, kind="browser")


def entry_from_hook(item: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an entry from one item of a ``console_hook.js`` batch (see the header of that file for its
    keys): level ``l``, text ``t`` (kept part) of full length ``n``, caller ``u``:``ln``, trace frames
    ``st`` of ``sc`` in all, ``e`` when an Error argument's stack is in the text.

    The count and times (``c``, ``f``, ``z``, ``v``) are not applied here: pass them to
    :meth:`ConsoleBuffer.add`. ``base`` is the page URL (same-origin URLs are shown as paths).
    """
    # The page can call the binding itself: every field is clamped, never trusted.
    level = str(item.get("l") or "info")
    if level not in _RANK:
        level = "info"
    raw = str(item.get("t") or "")
    text = raw[:KEEP_CHARS]
    full = max(int(item.get("n") or 0), len(raw))
    url = str(item.get("u") or "")[:2000]
    source = f"{relative_url(url, base)}:{int(item.get('ln') or 0)}" if url else None
    stack: list[str] = []
    total = 0
    if isinstance(item.get("st"), list) and item["st"]:
        frames = [str(f)[:500] for f in item["st"][:_KEEP_FRAMES]]
        stack = [_strip_origin(f, base) for f in frames[:_KEEP_FRAMES]] if base else frames[:_KEEP_FRAMES]
        total = max(int(item.get("sc") or 0), len(item["st"]))
    elif item.get("e") and "\n    at " in text:
        cut = full > len(text)
        text, stack, total = _split_stack(text, base)
        full = len(text) if not cut else full
    return ConsoleEntry(level=level, text=text, full_length=full, source=source, kind="console",
                        stack=tuple(stack), stack_total=total)


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


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", " ↵ ")


def render_entry(e: ConsoleEntry, *, message_chars: int = 300, scrub: Callable[[str], str] | None = None,
                 since: int | None = None, frames: int = STACK_FRAMES) -> str:
    """Render one entry: ``[level] ×count text (source)`` plus indented stack lines.

    The text is scrubbed (``scrub``) *before* it is cut at ``message_chars`` characters, so a secret
    never survives half-cut; a cut message says its full length in characters. Stacks show
    ``frames`` frames and say how many were dropped.
    """
    text = scrub(e.text) if scrub else e.text
    full = e.full_length + (len(text) - len(e.text))
    text = clip_end(text, message_chars, total=full)
    parts = [f"[{e.level}]"]
    if e.count > 1:
        parts.append(f"×{e.count}")
    parts.append(_one_line(text))
    if e.source:
        src = scrub(e.source) if scrub else e.source
        parts.append(f"({clip_url(src)})")
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
