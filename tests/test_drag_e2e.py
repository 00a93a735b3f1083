"""``--caps extra`` through the stdio client: ``browser_drag`` on two real drag libraries (SortableJS, native HTML5
and its pointer-event fallback; a jQuery UI sortable and droppable, mouse events), on HTML5 drag and drop whose
page keeps the browser from starting the drag (dispatched events with one DataTransfer), and
``browser_navigate_forward`` / ``browser_reload``. Fixtures: ``fixtures/drag/``."""

from __future__ import annotations

import re

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def call(s, tool: str, **args) -> str:
    result = await s.call_tool(tool, args)
    text = result_text(result)
    assert not result.is_error, f"{tool} {args}: {text}"
    return text


async def test_drag_reorders_sortablejs_native_and_fallback_lists(site: str):
    async with mcp_session("--caps", "default", "--caps", "extra") as s:
        await call(s, "browser_navigate", url=f"{site}/drag/sortable.html")
        # native HTML5 drag and drop (dataTransfer)
        rec = await call(s, "browser_drag", startTarget="#native li[data-id=alpha]",
                         endTarget="#native li[data-id=gamma]")
        assert re.match(r'Dragged \w+ "Alpha task" (\[e\d+\] )?onto \w+ "Gamma task"', rec), rec
        assert "dispatched" not in rec  # the browser's own drag did it
        native = (await call(s, "browser_text", target="#native-order", format="text")).split(": ")[1].split(", ")
        assert native[0] == "beta" and abs(native.index("alpha") - native.index("gamma")) == 1, native
        # forceFallback: pointer events, which need the mouse to move in steps
        rec = await call(s, "browser_drag", startTarget="#pointer li[data-id=one]",
                         endTarget="#pointer li[data-id=three]")
        done = (await call(s, "browser_text", target="#pointer-order", format="text")).split(": ")[1].split(", ")
        assert done[0] == "two" and done.index("one") == done.index("three") + 1, (done, rec)


async def test_drag_jquery_ui_sortable_and_droppable(site: str):
    async with mcp_session("--caps", "default", "--caps", "extra") as s:
        await call(s, "browser_navigate", url=f"{site}/drag/jquery-ui.html")
        snap = await call(s, "browser_snapshot")
        first = re.search(r'"First song" \[(e\d+)\]', snap) or re.search(r'First song.*?\[(e\d+)\]', snap)
        start = first.group(1) if first else "#song-1"
        rec = await call(s, "browser_drag", startTarget=start, endTarget="#song-3", startElement="the first song")
        assert rec.startswith("Dragged the first song ["), rec
        songs = (await call(s, "browser_text", target="#order", format="text")).split(": ")[1].split(", ")
        assert songs.index("song-1") == 2, songs  # where the third song was: the drag ends past its middle
        rec = await call(s, "browser_drag", startTarget="#song-4", endTarget="#bin")
        assert "Trashed: Fourth song" in await call(s, "browser_text", target="#trashed", format="text"), rec
        assert "song-4" not in await call(s, "browser_text", target="#order", format="text")


async def test_html5_drop_falls_back_to_dispatched_events(site: str):
    async with mcp_session("--caps", "default", "--caps", "extra") as s:
        await call(s, "browser_navigate", url=f"{site}/drag/html5.html")
        rec = await call(s, "browser_drag", startTarget="#report", endTarget="#archive")
        assert "dispatched" not in rec and "report.pdf" in rec, rec
        # the page cancels mousedown: the browser starts no drag; dispatched events with one DataTransfer do
        await call(s, "browser_navigate", url=f"{site}/drag/html5.html?guard=1")
        rec = await call(s, "browser_drag", startTarget="#photo", endTarget="#archive")
        assert "dispatched dragstart … dragend with one DataTransfer instead: the target accepted the drop" in rec
        assert "Archive holds: photo.jpg" in await call(s, "browser_text", target="#moved", format="text"), rec
        # nothing to drop onto: the target's dragover never accepts, so no drop is dispatched
        rec = await call(s, "browser_drag", startTarget="#report", endTarget="#moved")
        assert "the target refused it" in rec, rec
        assert "report.pdf" not in await call(s, "browser_text", target="#moved", format="text")


async def test_forward_and_reload_return_records(site: str):
    async with mcp_session("--caps", "default", "--caps", "extra") as s:
        await call(s, "browser_navigate", url=f"{site}/drag/html5.html")
        await call(s, "browser_navigate", url=f"{site}/drag/jquery-ui.html")
        assert "drag/html5.html" in await call(s, "browser_navigate_back")
        rec = await call(s, "browser_navigate_forward")
        assert rec.startswith("Went forward.") and "drag/jquery-ui.html" in rec, rec
        assert "no next page" in await call(s, "browser_navigate_forward")
        await call(s, "browser_drag", startTarget="#song-4", endTarget="#bin")
        rec = await call(s, "browser_reload")
        assert rec.startswith("Reloaded.") and "Page reloaded:" in rec, rec
        assert "Fourth song" in await call(s, "browser_text", target="#songs", format="text")  # the page as served
