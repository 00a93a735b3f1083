"""Several-match answers an agent can act on, end to end (real MCP stdio client, real Chromium,
``fixtures/matches/several.html``): the matches are listed visible first, each with a ref, tag, id and classes, and
the hidden ones are counted; an element without text is called so in a targeted snapshot."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def call(session: Any, name: str, ok: bool = True, **args: Any) -> str:
    result = await session.call_tool(name, args)
    text = result_text(result)
    assert bool(result.is_error) is (not ok), f"{name} {args}: {text}"
    return text


async def test_several_matches_are_listed_with_refs(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/matches/several.html")
        err = await call(s, "browser_click", ok=False, target="text=Ashli")
        assert "matches 2 elements" in err, err
        span = re.search(r'"Ashli" \[(e\d+)\] \(span\.owner\.first\)', err)
        div = re.search(r'"Ashli" \[(e\d+)\] \(div#row-2\.person\)', err)
        assert span and div, err
        rec = await call(s, "browser_click", target=div.group(1))  # a listed ref can be acted on
        assert rec.startswith("Clicked"), rec


async def test_the_visible_match_comes_first_and_hidden_ones_are_counted(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/matches/several.html")
        err = await call(s, "browser_click", ok=False, target=".star")
        assert "matches 4 elements" in err, err
        first = re.search(r"exactly one: ([^;]*)", err)
        assert first and "(span#rate.star)" in first.group(1), err
        visible = re.search(r"\[(e\d+)\] \(span#rate\.star\)", err)
        assert visible and "3 more hidden (span.star" in err, err
        rec = await call(s, "browser_click", target=visible.group(1))
        assert "rated" in rec or await call(s, "browser_verify", target="#rated", text="rated") == "PASS", rec


async def test_an_element_without_text_is_not_an_empty_page(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/matches/several.html")
        snap = await call(s, "browser_snapshot", target=".empty-box")
        assert "(empty page)" not in snap and snap.count("an element without text") == 2, snap
