"""Console payloads into :class:`~browser_ctx.core.console.ConsoleEntry` objects (pure).

Inputs, as :mod:`browser_ctx.browser.capture` receives them: batches from the in-page console hook
(``browser/js/console_hook.js``, already folded there; :func:`entry_from_hook`), CDP
``Runtime.exceptionThrown`` payloads (uncaught errors; :func:`entry_from_exception`),
``Log.entryAdded`` payloads (the browser's own messages; :func:`entry_from_log`) and
``Runtime.consoleAPICalled`` payloads (workers' console calls, which run no hook;
:func:`entry_from_console_api`; the benchmarks' raw listings use its formatting too).

Texts keep at most :data:`~browser_ctx.core.console.KEEP_CHARS` characters (the full length is
counted); stacks keep :data:`~browser_ctx.core.console.KEEP_FRAMES` frames (the total is counted).
"""

from __future__ import annotations

import re
from typing import Any

from .console import KEEP_CHARS, KEEP_FRAMES, LEVELS, ConsoleEntry
from .sections import origin_of, relative_url

__all__ = [
    "level_of",
    "format_args",
    "format_remote_object",
    "entry_from_console_api",
    "entry_from_exception",
    "entry_from_log",
    "entry_from_hook",
    "PREVIEW_STRING_CHARS",
    "FUNCTION_CHARS",
]

#: Characters of a string shown inside an object preview (``{name: "…"}``), as DevTools does.
PREVIEW_STRING_CHARS = 60
#: Characters of a function's source line shown when its name cannot be read.
FUNCTION_CHARS = 80

_CONSOLE_LEVELS = {
    "error": "error", "assert": "error",
    "warning": "warning", "warn": "warning",
    "debug": "debug", "verbose": "debug", "profile": "debug", "profileEnd": "debug",
}


def level_of(kind: str) -> str:
    """Map a CDP console type (``log``, ``warning``, ``assert``, …) or log level to one of :data:`LEVELS`."""
    return _CONSOLE_LEVELS.get(kind, "info")


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
        for fr in frames[:KEEP_FRAMES]:
            origin_frames.append(_strip_origin(fr, base))
        kept = origin_frames
    else:
        kept = frames[:KEEP_FRAMES]
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
        stack = [_frame(f, base) for f in frames[:KEEP_FRAMES]]
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
            stack = [_frame(f, base) for f in frames[:KEEP_FRAMES]]
            total = len(frames)
        text = f"{prefix} {message}".strip() if not message.startswith(prefix) else message
    else:
        value = format_remote_object(exc) if exc else ""
        text = f"{prefix} {value}".strip()
        stack = [_frame(f, base) for f in frames[:KEEP_FRAMES]]
        total = len(frames)
    text, full = _kept(text)
    return ConsoleEntry(level="error", text=text, full_length=full,
                        source=_source(frames, base, details.get("url"), details.get("lineNumber")),
                        kind="exception", stack=tuple(stack), stack_total=total)


def entry_from_log(params: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an entry from a ``Log.entryAdded`` payload (the browser's own messages: CORS, failed
    loads, interventions, deprecations); ``verbose`` maps to ``debug``. Dedicated workers' console
    calls arrive here too (source ``worker``): they become ``kind="worker"`` entries."""
    e = params.get("entry") or {}
    frames = _stack_frames(e.get("stackTrace"))
    text, full = _kept(str(e.get("text") or ""))
    url = e.get("url")
    source = _source(frames, base, url, e.get("lineNumber")) if (frames or url) else None
    return ConsoleEntry(level=level_of(str(e.get("level", "info"))), text=text, full_length=full,
                        source=source, kind="worker" if e.get("source") == "worker" else "browser")


def entry_from_hook(item: dict[str, Any], base: str | None = None) -> ConsoleEntry:
    """Build an entry from one item of a ``console_hook.js`` batch (see the header of that file for its
    keys): level ``l``, text ``t`` (kept part) of full length ``n``, caller ``u``:``ln``, trace frames
    ``st`` of ``sc`` in all, ``e`` when an Error argument's stack is in the text.

    The count and times (``c``, ``f``, ``z``, ``v``) are not applied here: pass them to
    :meth:`ConsoleBuffer.add`. ``base`` is the page URL (same-origin URLs are shown as paths).
    """
    # The page can call the binding itself: every field is clamped, never trusted.
    level = str(item.get("l") or "info")
    if level not in LEVELS:
        level = "info"
    raw = str(item.get("t") or "")
    text = raw[:KEEP_CHARS]
    full = max(int(item.get("n") or 0), len(raw))
    url = str(item.get("u") or "")[:2000]
    source = f"{relative_url(url, base)}:{int(item.get('ln') or 0)}" if url else None
    stack: list[str] = []
    total = 0
    if isinstance(item.get("st"), list) and item["st"]:
        frames = [str(f)[:500] for f in item["st"][:KEEP_FRAMES]]
        stack = [_strip_origin(f, base) for f in frames[:KEEP_FRAMES]] if base else frames[:KEEP_FRAMES]
        total = max(int(item.get("sc") or 0), len(item["st"]))
    elif item.get("e") and "\n    at " in text:
        cut = full > len(text)
        text, stack, total = _split_stack(text, base)
        full = len(text) if not cut else full
    return ConsoleEntry(level=level, text=text, full_length=full, source=source, kind="console",
                        stack=tuple(stack), stack_total=total)
