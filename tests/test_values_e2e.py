"""Exact values, end to end (real MCP stdio client, real Chromium, ``fixtures/values/fields.html``): a field's
value is shown as the field holds it (JSON-quoted, spaces kept, ``\\n`` and ``\\t``), ``browser_text`` on a field
returns its value, and ``browser_verify`` names the character where two values differ only in whitespace."""

from __future__ import annotations

import pytest

from tests.support.client import call_text, mcp_session, ref_on

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

SOURCE = "Lorem ipsum dolor sit amet, cursus eu "


async def test_snapshot_shows_values_exactly(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/values/fields.html")
        snap = await call_text(s, "browser_snapshot")
        assert f'textbox "Text to copy" [{ref_on(snap, "Text to copy")}] = "{SOURCE}"' in snap, snap  # trailing space
        assert '= "  A-17  "' in snap, snap
        assert '= "first line\\n\\tindented second line"' in snap, snap
        assert '= "' + "word " * 30 + '"' in snap, snap  # the page fits: a 150-character value is shown whole


async def test_text_of_a_field_is_its_value(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/values/fields.html")
        assert await call_text(s, "browser_text", target="#source") == SOURCE
        assert await call_text(s, "browser_text", target="#code", format="text") == "  A-17  "


async def test_verify_names_the_character_that_differs(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/values/fields.html")
        assert await call_text(s, "browser_verify", target="#source", value=SOURCE) == "PASS"
        got = await call_text(s, "browser_verify", target="#copy", value=SOURCE, timeout=200)
        assert got == (f'FAIL: expected #copy value to be "{SOURCE}", got "{SOURCE.rstrip()}"; differs at character '
                       f'{len(SOURCE)}: expected " " (space), got end of text'), got
        got = await call_text(s, "browser_verify", target="#notes", value="first line\n indented second line",
                              timeout=200)
        assert 'differs at character 12: expected " " (space), got "\\t" (tab)' in got, got
