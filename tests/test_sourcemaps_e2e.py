"""Source-mapped console locations end to end (``fixtures/sourcemaps/``, see its README): a minified
bundle with an external map (webpack/Vite build style), one with an inline ``data:`` map (Vite dev style),
and one whose map is missing; ``browser_console_messages`` over stdio."""

from __future__ import annotations

import anyio
import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def _console(s, needle: str) -> str:
    text = ""
    for _ in range(30):
        text = result_text(await s.call_tool("browser_console_messages", {"level": "warning"}))
        if needle in text:
            return text
        await anyio.sleep(0.5)
    raise AssertionError(text)


async def test_uncaught_error_maps_to_source_and_collapses_framework_frames(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/sourcemaps/app.html"})
        text = await _console(s, "Order rejected")
        lines = text[text.index("Order rejected"):].splitlines()
        error = "\n".join([lines[0], *[ln for ln in lines[1:5] if ln.startswith("    ")]][:4])
        assert "(src/OrderForm.js:9:" in error.splitlines()[0], text
        assert "at submitOrder (src/OrderForm.js:9:" in error, text
        assert "library frames (node_modules, framework) collapsed" in error, text
        assert "tiny-framework" not in error and "dist/app.js" not in error, text
        assert "not source-mapped" not in error, text
        # console.warn's site has no column, and the bundle's one line mixes three sources: said so
        assert "column is unknown" in text, text


async def test_inline_data_map_is_read(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/sourcemaps/inline.html"})
        text = await _console(s, "Inline map check")
        line = next(ln for ln in text.splitlines() if "Inline map check" in ln)
        # a console call's site has no column: a line of one original source maps by its line
        assert line.endswith("(src/inline-entry.js:4)"), text
        assert "dist/inline.js" not in text and "not source-mapped" not in text, text


async def test_missing_map_is_said(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/sourcemaps/broken.html"})
        text = await _console(s, "Order rejected")
        assert "not source-mapped: source map HTTP 404 for /sourcemaps/dist/broken.js" in text, text
