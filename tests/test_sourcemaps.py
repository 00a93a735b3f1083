"""Pure source-map mapping (:mod:`browser_ctx.core.sourcemap`) on the committed fixture bundle."""

from __future__ import annotations

import base64
from pathlib import Path

from browser_ctx.core.console import ConsoleEntry
from browser_ctx.core.sourcemap import (
    LoadedMap,
    MapFailure,
    decode_data_url,
    is_library,
    map_entry,
    map_url_of,
    original_path,
    parse_frame,
)

DIST = Path(__file__).resolve().parent.parent / "fixtures" / "sourcemaps" / "dist"
SCRIPT = (DIST / "app.js").read_text(encoding="utf-8")
MAP = LoadedMap((DIST / "app.js.map").read_bytes(), SCRIPT)


def _col(needle: str) -> int:
    return SCRIPT.index(needle) + 1


def test_map_url_and_data_urls() -> None:
    assert map_url_of(SCRIPT) == "app.js.map"
    inline = (DIST / "inline.js").read_text(encoding="utf-8")
    url = map_url_of(inline)
    assert url is not None and url.startswith("data:application/json")
    data = decode_data_url(url)
    assert data is not None and b'"sources"' in data
    assert decode_data_url("data:application/json," + "%7B%7D") == b"{}"
    assert decode_data_url("/app.js.map") is None
    assert map_url_of("console.log(1)") is None
    encoded = "data:application/json;base64," + base64.b64encode(b'{"version":3}').decode()
    assert decode_data_url(encoded) == b'{"version":3}'


def test_lookup_resolves_original_file_line_and_function() -> None:
    hit = MAP.lookup(1, _col("Error(`Order"), "a")
    assert hit is not None and (hit.path, hit.line, hit.function) == ("src/OrderForm.js", 9, "submitOrder")
    assert MAP.lookup(1, None) is None  # a minified line mixes sources: no column, no answer
    assert not MAP.line_single_source(1)


def test_paths_frames_and_libraries() -> None:
    assert original_path("webpack://shop/./src/a.jsx") == "src/a.jsx"
    assert original_path("../src/node_modules/x/index.js") == "src/node_modules/x/index.js"
    assert parse_frame("at async go (http://h/a.js:3:14)") == ("async go", "http://h/a.js", 3, 14)
    assert parse_frame("at http://h/a.js:3:14") == ("", "http://h/a.js", 3, 14)
    assert parse_frame("not a frame") is None
    for lib in ("/node_modules/.vite/deps/react-dom.js", "src/node_modules/tiny/index.js", "webpack/bootstrap"):
        assert is_library(lib), lib
    assert not is_library("src/OrderForm.js")


def test_map_entry_collapses_library_frames_and_says_what_failed() -> None:
    frames = (f"at a (/dist/app.js:1:{_col('Error(`Order')})", f"at e (/dist/app.js:1:{_col('return e(t)')})",
              f"at t (/dist/app.js:1:{_col('return e(t,')})", "at <anonymous> (/other.js:5:1)")
    entry = ConsoleEntry(level="error", text="Uncaught Error: Order rejected", full_length=30,
                         source="/dist/app.js:1", kind="exception", stack=frames, stack_total=6)
    out = map_entry(entry, lambda url: MAP if url == "/dist/app.js" else None)
    assert out.source is not None and out.source.startswith("src/OrderForm.js:9:")
    assert out.stack[0].startswith("at submitOrder (src/OrderForm.js:9:")
    assert out.stack[1] == "at <anonymous> (/other.js:5:1)"
    assert out.stack[2] == "… 2 library frames (node_modules, framework) collapsed"
    assert out.stack_total == 3 + 2  # the two frames never kept in memory still counted
    broken = map_entry(entry, lambda url: MapFailure("source map HTTP 404"))
    assert broken.stack[-1] == ("(not source-mapped: source map HTTP 404 for /dist/app.js; "
                                "source map HTTP 404 for /other.js)")
    plain = ConsoleEntry(level="info", text="hi", full_length=2, source="/x.js:1")
    assert map_entry(plain, lambda url: None) is plain
