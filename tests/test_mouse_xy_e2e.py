"""The coordinate tools (``--caps vision``) through the stdio client on ``fixtures/mouse/board.html`` (elements at
fixed CSS-px positions): each record names the element at the point, with a ref that works for later calls."""

from __future__ import annotations

import re

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def call(s, tool: str, ok: bool = True, **args) -> str:
    result = await s.call_tool(tool, args)
    text = result_text(result)
    assert result.is_error != ok, f"{tool} {args}: {text}"
    return text


async def test_click_move_drag_and_wheel_at_coordinates(site: str):
    async with mcp_session("--caps", "default", "--caps", "vision") as s:
        await call(s, "browser_navigate", url=f"{site}/mouse/board.html")
        rec = await call(s, "browser_mouse_click_xy", x=160, y=120)
        m = re.match(r'Clicked at \(160, 120\) on button "Save" \[(e\d+)\]\.', rec)
        assert m and "Saved (1 click)" in rec, rec
        assert (await call(s, "browser_verify", target=m.group(1), visible=True)).startswith("PASS")  # its ref works
        rec = await call(s, "browser_mouse_click_xy", x=160, y=120, clickCount=2)
        assert rec.startswith('Double-clicked at (160, 120) on button "Save"') and "Saved (2 click)" in rec, rec
        rec = await call(s, "browser_mouse_move_xy", x=350, y=115)
        assert rec.startswith('Moved the mouse to (350, 115) over div "Help"') and "Press Save to keep" in rec, rec
        rec = await call(s, "browser_mouse_drag_xy", startX=115, startY=260, endX=300, endY=260)
        assert rec.startswith('Dragged from (115, 260) on slider "Volume"'), rec
        found = re.search(r"volume (\d+)", await call(s, "browser_text", target="#status", format="text"))
        assert found is not None
        volume = int(found[1])
        assert 40 <= volume <= 60, volume  # let go about half way along the 400 px track
        rec = await call(s, "browser_mouse_wheel", deltaY=500, x=600, y=600)
        assert rec.startswith("Turned the wheel by (0, 500) over "), rec
        assert "The page scrolled from (0, 0) to (0, 500)" in rec, rec
        rec = await call(s, "browser_mouse_click_xy", x=5000, y=5000)
        assert rec.startswith("Clicked at (5000, 5000) on nothing (outside the page)"), rec
        assert "clickCount must be 1 to 3" in await call(s, "browser_mouse_click_xy", ok=False, x=1, y=1, clickCount=7)
        assert "Give both x and y" in await call(s, "browser_mouse_wheel", ok=False, deltaY=10, x=3)
