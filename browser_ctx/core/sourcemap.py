"""Source-mapped console locations: stack frames and call sites of compiled code mapped to original sources.

Pure: takes script text, map bytes and frame strings, returns strings. The maps are read with Sentry's
``symbolic`` (:class:`symbolic.sourcemap.SourceMapView`, a maintained Rust source-map reader); fetching
scripts and maps from the page's server is :mod:`browser_ctx.browser.sourcemaps`'s job.

- :func:`map_url_of` finds a script's ``//# sourceMappingURL=`` (the last one; ``data:`` URLs too) and
  :func:`decode_data_url` reads an inline map.
- :class:`LoadedMap` looks up one generated position (0-based line and column) and resolves the original
  function name from the minified source.
- :func:`map_entry` returns a copy of a :class:`~browser_ctx.core.console.ConsoleEntry` whose source and
  stack point at original files: frames of ``node_modules`` and framework chunks are collapsed into one
  counted line, and a location that could not be mapped says why (once per entry).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import unquote_to_bytes

from symbolic.sourcemap import SourceMapView, SourceView

from .console import ConsoleEntry

__all__ = ["LoadedMap", "MapFailure", "Mapped", "map_url_of", "decode_data_url", "parse_frame", "is_library",
           "original_path", "map_entry", "MapLookup", "location_url"]

# "at fn (url:line:col)", "at url:line:col", "at async fn (url:line:col)"
_FRAME = re.compile(r"^at (?:(?P<fn>.*?) \()?(?P<url>\S+?):(?P<line>\d+):(?P<col>\d+)\)?$")
_SOURCE = re.compile(r"^(?P<url>\S+?):(?P<line>\d+)(?::(?P<col>\d+))?$")
_MAP_COMMENT = re.compile(r"[#@]\s*sourceMappingURL\s*=\s*(\S+)\s*(?:\*/)?\s*$")

#: Generated URLs and original paths that belong to libraries and framework runtime, not the app.
_LIBRARY = re.compile(
    r"(?:^|/)node_modules/|/\.vite/deps/|/@vite/|/@react-refresh|/@id/|^webpack/(?:bootstrap|runtime)"
    r"|/_next/static/chunks/(?:framework|main|webpack|polyfills)|/vendors?[~.-]|/chunk-vendors|/react-dom[.-]"
)


def map_url_of(script: str) -> str | None:
    """Return the ``sourceMappingURL`` of ``script`` (the last such comment in its last 20 lines), or ``None``."""
    for line in reversed(script[-20_000:].splitlines()[-20:]):
        m = _MAP_COMMENT.search(line.strip())
        if m:
            return m.group(1)
    return None


def decode_data_url(url: str) -> bytes | None:
    """Return the bytes of a ``data:`` URL (base64 or percent-encoded), or ``None`` if it is not one."""
    if not url.startswith("data:") or "," not in url:
        return None
    head, _, body = url.partition(",")
    try:
        return base64.b64decode(body) if head.endswith(";base64") else unquote_to_bytes(body)
    except ValueError:
        return None


def parse_frame(frame: str) -> tuple[str, str, int, int] | None:
    """Split ``at fn (url:line:col)`` into ``(fn, url, line, col)`` (1-based, as shown), or ``None``."""
    m = _FRAME.match(frame.strip())
    if not m:
        return None
    return (m.group("fn") or "", m.group("url"), int(m.group("line")), int(m.group("col")))


def location_url(source: str | None) -> str | None:
    """The URL of a ``url:line`` or ``url:line:col`` location, or ``None``."""
    m = _SOURCE.match(source or "")
    return m.group("url") if m else None


def is_library(path: str) -> bool:
    """Whether ``path`` (a generated URL or an original source path) is library or framework code."""
    return bool(_LIBRARY.search(path))


def original_path(source: str) -> str:
    """A map's source name as a short path: ``webpack://app/./src/a.js``, ``../src/a.js`` and
    ``/@fs/home/u/app/src/a.js`` all become ``src/a.js`` where the ``src/`` can be found."""
    path = re.sub(r"^[a-z-]+://[^/]*/", "", source)
    path = re.sub(r"^(?:\./|\.\./)+", "", path)
    m = re.search(r"(?:^|/)(src/.*)$", path)
    return m.group(1) if m and "node_modules/" not in path else path


@dataclass(frozen=True)
class Mapped:
    """One position mapped to its original source: ``path`` (short, see :func:`original_path`), 1-based
    ``line`` and ``col``, and the original function name (``""`` when unknown)."""

    path: str
    line: int
    col: int
    function: str = ""


class LoadedMap:
    """A parsed source map with the script it belongs to (for original function names)."""

    def __init__(self, map_bytes: bytes, script: str) -> None:
        """Parse ``map_bytes`` (source map v3 JSON).

        Raises:
            ValueError: the bytes are not a source map symbolic can read.
        """
        try:
            self._view = SourceMapView.from_json_bytes(map_bytes)
        except Exception as exc:  # noqa: BLE001 - symbolic raises its own error types for a bad map
            raise ValueError(f"not a readable source map ({type(exc).__name__})") from exc
        self._script = SourceView.from_bytes(script.encode("utf-8"))
        self._text = script
        self._line_starts: dict[int, int] = {}
        self._line_sources: dict[int, set[int | None]] = {}
        for token in self._view:
            if token.src is not None:
                first = self._line_starts.get(token.dst_line)
                if first is None or token.dst_col < first:
                    self._line_starts[token.dst_line] = token.dst_col
                self._line_sources.setdefault(token.dst_line, set()).add(token.src_id)

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based generated line and column of the script's character at 0-based ``offset`` (a long animation
        frame's ``sourceCharPosition``)."""
        before = self._text[:max(0, offset)]
        return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1

    def line_single_source(self, line: int) -> bool:
        """Whether every mapped token of the 1-based generated ``line`` comes from one original source."""
        return len(self._line_sources.get(line - 1, ())) == 1

    def lookup(self, line: int, col: int | None, function: str = "") -> Mapped | None:
        """Map the 1-based generated ``line``/``col``; ``function`` is the minified function name, resolved
        to the original one where the map allows. ``col`` ``None`` (a console call's site, which carries
        no column) maps the line's first token, only when the whole line comes from one original source
        (else ``None``: a minified bundle's line mixes many files)."""
        zline = line - 1
        if col is None and not self.line_single_source(line):
            return None
        zcol = col - 1 if col is not None else self._line_starts.get(zline)
        if zcol is None or zline < 0 or zcol < 0:
            return None
        token = self._view.lookup(zline, zcol, function or None, self._script if function else None)
        if token is None or token.src is None:
            return None
        return Mapped(original_path(token.src), token.src_line + 1, token.src_col + 1,
                      token.function_name or "")


class MapFailure(str):
    """Why a script's locations could not be mapped (``"source map HTTP 404"``): a ``str``."""


#: How :func:`map_entry` finds a script's map: generated URL (as shown in the entry) -> the map, a
#: :class:`MapFailure`, or ``None`` when the script declares no map (its locations are the original ones).
MapLookup = Callable[[str], "LoadedMap | MapFailure | None"]


def _map_frame(frame: str, maps: MapLookup) -> tuple[str, bool, str | None]:
    """``(frame as shown, is library code, why it is unmapped or None)``."""
    parsed = parse_frame(frame)
    if parsed is None:
        return frame, False, None
    fn, url, line, col = parsed
    loaded = maps(url)
    if isinstance(loaded, LoadedMap):
        hit = loaded.lookup(line, col, fn)
        if hit is None:
            return frame, is_library(url), f"{url}:{line}:{col} has no mapping"
        name = hit.function or fn or "<anonymous>"
        return f"at {name} ({hit.path}:{hit.line}:{hit.col})", is_library(hit.path), None
    if isinstance(loaded, MapFailure):
        return frame, is_library(url), f"{loaded} for {url}"
    return frame, is_library(url), None


def map_entry(entry: ConsoleEntry, maps: MapLookup) -> ConsoleEntry:
    """Return ``entry`` with its source and stack mapped to original sources through ``maps``.

    - each frame ``at fn (url:line:col)`` becomes ``at originalFn (src/File.jsx:15:7)``;
    - frames in library or framework code (``node_modules``, Vite's ``.vite/deps``, webpack's runtime,
      vendor and framework chunks) are dropped and counted in one line, ``… 4 library frames
      (node_modules, framework) collapsed``, unless every frame is one;
    - ``source`` (``url:line``) is mapped too: from the first app frame when there is a stack, else by
      the first mapped token of that line (console calls carry no column);
    - a location whose script declares a map that could not be loaded or has no mapping there is kept
      as it was, and one line says why: ``(not source-mapped: source map HTTP 404 for /dist/app.js)``.

    The entry is returned unchanged (the same object) when nothing in it has a map.
    """
    frames: list[str] = []
    library = 0
    reasons: list[str] = []
    changed = False
    first_app: str | None = None
    for frame in entry.stack:
        shown, lib, why = _map_frame(frame, maps)
        changed = changed or shown != frame or lib
        if why and why not in reasons:
            reasons.append(why)
        if lib:
            library += 1
            continue
        frames.append(shown)
        if first_app is None and parse_frame(shown) is not None:
            first_app = shown
    if library and not frames:  # all library code: show it as it is rather than nothing
        frames, library = list(entry.stack), 0
    source = entry.source
    m = _SOURCE.match(entry.source or "")
    if m:
        url, line = m.group("url"), int(m.group("line"))
        top = parse_frame(entry.stack[0]) if entry.stack else None
        loaded = maps(url)
        why = None
        if top is not None and top[1] == url and top[2] == line:  # the call site is the stack's top
            if first_app is not None and isinstance(loaded, LoadedMap):
                _fn, path, fline, fcol = parse_frame(first_app) or ("", url, line, 0)
                source = f"{path}:{fline}:{fcol}"
        elif isinstance(loaded, LoadedMap):
            col = int(m.group("col")) if m.group("col") else None
            hit = loaded.lookup(line, col)
            if hit is not None:
                source = f"{hit.path}:{hit.line}" + (f":{hit.col}" if col is not None else "")
            else:
                why = f"{url}:{line} has no mapping" if col is not None or loaded.line_single_source(line) \
                    else f"{url}:{line} mixes several sources and the call's column is unknown"
        elif isinstance(loaded, MapFailure):
            why = f"{loaded} for {url}"
        if why and why not in reasons:
            reasons.append(why)
    if not changed and source == entry.source and not reasons:
        return entry
    if library:
        frames.append(f"… {library} library frame{'s' if library != 1 else ''} (node_modules, framework) collapsed")
    if reasons:
        frames.append(f"(not source-mapped: {'; '.join(reasons[:2])})")
    hidden = max(0, entry.stack_total - len(entry.stack))
    return replace(entry, source=source, stack=tuple(frames), stack_total=len(frames) + hidden)
