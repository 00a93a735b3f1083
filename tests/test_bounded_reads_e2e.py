"""Bounded reads: a read's cost follows the cap, not the page, and a partial read says so (issue 15).

Large pages come from :func:`bench.large_pages.large_page`, served from memory; a page whose image never
arrives stays short of ``load``. Times are not asserted (see ``python -m bench``); results are.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

import pytest

from bench.large_pages import FOOTER_TEXT, large_page
from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.site import ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: Seconds the stalled image of the loading page takes (longer than navigate's wait for ``load``).
STALL_S = 14


@lru_cache(maxsize=4)
def _page_bytes(elements: int) -> bytes:
    return large_page(elements).encode("utf-8")


def _large(handler: Any) -> None:
    """``/large/spans-<n>.html``: a generated page of about n elements (at most 200,000)."""
    name = handler.path.split("?")[0].rsplit("/", 1)[-1]
    n = min(200_000, int(name.removeprefix("spans-").removesuffix(".html")))
    body = _page_bytes(n)
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _loading(handler: Any) -> None:
    """``/large/loading.html``: content, then an image that takes :data:`STALL_S` s (no ``load`` until then)."""
    body = (b"<!doctype html><title>Still loading</title><main><h1>Arrived so far</h1><p>First part.</p>"
            b"<img src='/large/stall.png' alt='slow image' width=20 height=20></main>")
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _stall(handler: Any) -> None:
    deadline = time.monotonic() + STALL_S
    while time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        handler.send_response(404)
        handler.end_headers()
    except OSError:  # the browser gave up on the image (test over): nothing to answer
        return


for _n in (1_000, 200_000):
    ROUTES[f"/large/spans-{_n}.html"] = _large
ROUTES["/large/loading.html"] = _loading
ROUTES["/large/stall.png"] = _stall



def result_text_blocks(result) -> list[str]:
    """The text blocks of a result in order (notes come in a block before the result's own text)."""
    return [c.text for c in result.content if c.type == "text"]


async def test_huge_page_snapshot_and_text_are_bounded_and_labelled(site):
    async with mcp_session() as s:
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/large/spans-200000.html"})
        assert not nav.is_error, result_text(nav)
        for tool, args, cap in (("browser_snapshot", {}, 2000), ("browser_text", {}, 2000),
                                ("browser_text", {"maxTokens": 300}, 300)):
            got = await s.call_tool(tool, args)
            text = result_text(got)
            meta = got.structured_content
            assert not got.is_error, text
            assert result_tokens(got) <= cap, (tool, result_tokens(got))
            assert meta["truncated"] is True and meta["estimated"] is True, meta
            assert meta["partial"]["elementsLeft"] > 100_000, meta["partial"]
            if "nextOffset" not in meta:  # nothing to page through: the metadata says to read on with a target
                assert meta["readOn"] == "target" and meta["partial"]["target"], meta
            assert "notes" not in meta  # notes travel in the text only
            assert "more elements not read" in result_text_blocks(got)[0]
            assert "more elements not read" in text
            assert "further items of the list where it stopped" in text  # the rest of the rows, counted
            assert FOOTER_TEXT not in text  # the end of the page was never walked
            # the estimate scales what was rendered from the part read up to the whole page
            assert meta["fullTokens"] > result_tokens(got) or meta["fullLength"] > len(text), meta
        snap = await s.call_tool("browser_snapshot", {"force": True})
        assert "Item 0" in result_text(snap)
        # past 50,000 elements names come from the markup, and the snapshot says so
        assert "Chromium's accessibility tree is not asked" in result_text_blocks(snap)[0]


async def test_names_come_from_chromium_below_the_size_limit(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/large/spans-1000.html"})
        snap = await s.call_tool("browser_snapshot", {})
        assert not any("accessibility tree is not asked" in n for n in snap.structured_content.get("notes", []))


async def test_small_page_is_read_whole(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/large/spans-1000.html"})
        got = await s.call_tool("browser_snapshot", {"maxTokens": 8000})
        meta = got.structured_content
        assert "partial" not in meta and "estimated" not in meta, meta
        assert FOOTER_TEXT in result_text(got)


async def test_page_still_loading_says_so(site):
    async with mcp_session() as s:
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/large/loading.html"})
        assert "page still loading" in result_text(nav), result_text(nav)
        for tool in ("browser_snapshot", "browser_text"):
            got = await s.call_tool(tool, {})
            text = result_text(got)
            meta = got.structured_content
            assert "page still loading" in text, text
            assert meta["partial"]["loading"] is True and meta["truncated"] is True, meta
            assert "Arrived so far" in text
