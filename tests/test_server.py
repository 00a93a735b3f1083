"""End-to-end tests of the server shell through the real MCP stdio client: schemas, caps, read-on, errors."""

from __future__ import annotations

import socket

import pytest

from browser_ctx import InvalidArgument, SchemeRefused
from browser_ctx.browser.navigation import normalise_url
from tests.support.client import mcp_session, result_text, result_tokens

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def closed_port() -> int:
    """A localhost port with nothing listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_normalise_url():
    assert normalise_url("example.com/a") == "https://example.com/a"
    assert normalise_url("localhost:8000/x") == "http://localhost:8000/x"
    assert normalise_url("127.0.0.1:9/") == "http://127.0.0.1:9/"
    assert normalise_url("http://a.test/") == "http://a.test/"
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"):
        with pytest.raises(SchemeRefused):
            normalise_url(bad)
    assert normalise_url("file:///tmp/x.html", ("file",)) == "file:///tmp/x.html"
    with pytest.raises(InvalidArgument):
        normalise_url("  ")
    for bad in ("not a url", "search for shoes", "/path/only"):
        with pytest.raises(InvalidArgument, match="is not a URL"):
            normalise_url(bad)
    assert normalise_url("example.com/a b") == "https://example.com/a b"  # the browser encodes a path's spaces
    for bad in ("http://", "https:///path", "http://:80/"):
        with pytest.raises(InvalidArgument, match="has no host"):
            normalise_url(bad)
    with pytest.raises(InvalidArgument, match=r"has no colon after http; pass http://bad url\."):
        normalise_url("http//bad url")
    with pytest.raises(InvalidArgument, match="has no colon after https"):
        normalise_url("HTTPS//example.com/")


def one_line_error(result) -> str:
    assert result.is_error, result_text(result)
    text = result_text(result)
    assert "\n" not in text and "Traceback" not in text and "Call log" not in text
    return text


async def test_tools_list_names_and_camelcase_params():
    async with mcp_session() as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        for name in ("browser_navigate", "browser_snapshot", "browser_text"):
            assert name in tools
            assert "maxTokens" in tools[name].input_schema["properties"]
        assert "offset" in tools["browser_snapshot"].input_schema["properties"]
        assert tools["browser_navigate"].input_schema["required"] == ["url"]


async def test_failed_loads_in_a_row_keep_the_page(site):
    """Each failed load commits Chromium's error page and goes back: those documents are ours, so a quick
    run of failed loads must not look like a page navigating by itself (which would be left for about:blank)."""
    async with mcp_session() as s:
        assert not (await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})).is_error
        for _ in range(4):
            err = one_line_error(await s.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{closed_port()}/"}))
            assert "net::ERR_CONNECTION_REFUSED" in err
        still = result_text(await s.call_tool("browser_snapshot", {"maxTokens": 300}))
        assert "Still Water" in still and "about:blank" not in still, still


async def test_navigate_card_read_on_and_errors(site):
    async with mcp_session() as s:
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        assert not nav.is_error, result_text(nav)
        card = result_text(nav)
        assert "200" in card and nav.structured_content["status"] == 200
        assert nav.structured_content["url"].endswith("/article.html")
        assert result_tokens(nav) <= 2000

        # A long article read in pages of 500 tokens: each page within its cap, pages join up exactly.
        first = await s.call_tool("browser_text", {"maxTokens": 500})
        meta = first.structured_content
        assert not first.is_error and meta["truncated"] is True and result_tokens(first) <= 500
        assert "offset=" in result_text(first).splitlines()[-1]
        full_length, next_offset = meta["fullLength"], meta["nextOffset"]
        body = result_text(first)[: next_offset]
        second = await s.call_tool("browser_text", {"maxTokens": 500, "offset": next_offset})
        assert not second.is_error and result_tokens(second) <= 500
        assert second.structured_content["fullLength"] == full_length
        assert second.structured_content.get("offset") == next_offset
        whole = await s.call_tool("browser_text", {"maxTokens": 8000})
        whole_text = result_text(whole)
        assert whole_text.startswith(body + result_text(second)[:200])

        # Bad input: one-line errors, and the page is still there afterwards.
        err = one_line_error(await s.call_tool("browser_navigate", {"url": "javascript:alert(1)"}))
        assert "javascript" in err and "--allow-scheme" in err
        err = one_line_error(await s.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{closed_port()}/"}))
        assert "net::ERR_CONNECTION_REFUSED" in err
        err = one_line_error(await s.call_tool("browser_navigate", {"url": "http://no-such-host.invalid/"}))
        assert "net::ERR_NAME_NOT_RESOLVED" in err
        assert "The tab went back to" in err and "its state and refs are new" in err, err  # a reload: said
        still = await s.call_tool("browser_snapshot", {"maxTokens": 300})
        assert "Still Water" in result_text(still)  # the article is still the page
        part = result_text(await s.call_tool("browser_snapshot", {"target": "h1"}))
        assert part.count("Page:") == 1 and part.startswith("Page: Still Water"), part
        err = one_line_error(await s.call_tool("browser_snapshot", {"target": "div[[["}))
        assert "div[[[" in err
        err = one_line_error(await s.call_tool("browser_snapshot", {"target": "#no-such-element"}))
        assert "#no-such-element" in err and "No element" in err
        err = one_line_error(await s.call_tool("browser_text", {"maxTokens": "lots"}))
        assert "maxTokens" in err
        err = one_line_error(await s.call_tool("browser_text", {"format": "pdf"}))
        assert "format" in err
        err = one_line_error(await s.call_tool("browser_text", {"bogus": 1}))
        assert "bogus" in err
        err = one_line_error(await s.call_tool("no_such_tool", {}))
        assert "no_such_tool" in err

        # Same call on an unchanged page: a few tokens; force re-sends it.
        again = await s.call_tool("browser_text", {"maxTokens": 500})
        assert not again.is_error and again.structured_content["unchanged"] is True
        assert again.structured_content["fingerprint"] == meta["fingerprint"]
        assert "truncated" not in again.structured_content  # nothing was cut: no cut fields
        assert result_tokens(again) < 60
        forced = await s.call_tool("browser_text", {"maxTokens": 500, "force": True})
        assert result_text(forced)[:300] == result_text(first)[:300]


async def test_target_matches_are_numbered(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        res = await s.call_tool("browser_text", {"target": "h2", "format": "text"})
        assert not res.is_error, result_text(res)
        n = res.structured_content["matches"]
        assert n >= 2
        assert f"match 1 of {n}" in result_text(res) and f"match {n} of {n}" in result_text(res)


async def test_target_with_thousands_of_matches_reads_the_first_fifty(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/listing.html"})
        res = await s.call_tool("browser_text", {"target": "h3", "format": "text", "maxTokens": 8000})
        assert not res.is_error, result_text(res)
        assert res.structured_content["matches"] == 3000
        text = result_text(res)
        assert "LISTING_TOP_SENTINEL" in text and "match 50 of 3000" in text and "match 51 of" not in text
        assert "2950 more matches not read" in text


async def test_navigate_follows_a_page_that_moves_on_by_itself(site):
    """A meta refresh right after load used to fail the read ("the page navigated"); the card now
    describes where it went and lists the page it left, with its status and how it was left."""
    async with mcp_session() as s:
        res = await s.call_tool("browser_navigate", {"url": f"{site}/refresh.html"})
        text = result_text(res)
        assert not res.is_error, text
        assert f"{site}/article.html" in text.splitlines()[0]
        assert f"Redirects: {site}/refresh.html (HTTP 200, meta refresh) → final page" in text, text
        assert res.structured_content["url"] == f"{site}/article.html"
