"""``browser_fill_form`` sliders through the real stdio client: an ARIA slider is stepped by its keys to a
number, a jQuery UI handle (no value of its own) is dragged to a percentage of its track, and a number for
that handle, or one its steps miss, is a one-line error. Pages: ``fixtures/agent-widgets/``."""

from __future__ import annotations

import re

import pytest

from tests.support.client import call_text, mcp_session

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _slider(snapshot: str, n: int = 0) -> str:
    refs = re.findall(r"^\s*(?:- )?slider\b[^\n]*?\[(e\d+)\]", snapshot, re.M)
    assert len(refs) > n, snapshot
    return refs[n]


async def test_an_aria_slider_is_stepped_to_a_number(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/agent-widgets/aria-slider.html")
        ref = _slider(await call_text(s, "browser_snapshot"))
        field = {"target": ref, "name": "Brightness", "type": "slider"}
        await call_text(s, "browser_fill_form", fields=[{**field, "value": "14"}])
        assert (await call_text(s, "browser_text", target="#status")).strip() == "Brightness: 14"
        await call_text(s, "browser_fill_form", fields=[{**field, "value": "0"}])
        assert (await call_text(s, "browser_text", target="#status")).strip() == "Brightness: 0"
        odd = await call_text(s, "browser_fill_form", ok=False, fields=[{**field, "value": "7"}])
        assert "steps do not land" in odd and len(odd.splitlines()) == 1, odd
        out = await call_text(s, "browser_fill_form", ok=False, fields=[{**field, "value": "30"}])
        assert "takes 0 to 20" in out, out


async def test_a_jquery_ui_handle_is_dragged_to_a_percentage(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/agent-widgets/slider.html")
        ref = _slider(await call_text(s, "browser_snapshot"))
        field = {"target": ref, "name": "Volume", "type": "slider"}
        await call_text(s, "browser_fill_form", fields=[{**field, "value": "80%"}])
        status = (await call_text(s, "browser_text", target="#status")).strip()
        m = re.search(r"Volume: (\d+)", status)
        assert m and 78 <= int(m.group(1)) <= 82, status
        out = await call_text(s, "browser_fill_form", ok=False, fields=[{**field, "value": "abc"}])
        assert "must be a number" in out, out
