"""What action records say, through the real MCP stdio client (issue 25, items 2-4):

- the element acted on whose class words or state changed gets one ``~`` line, even when no text changed
  (``~ button "B" [e4]: class ql-active added``);
- a region replaced by another is counted, not listed line by line; what came is listed;
- a value the record names already (``It now shows``) is not repeated as a ``~`` line.

Pages: ``fixtures/actions/records/`` (``feed.html``: ten posts alike, icon spans whose state is a class).
"""

from __future__ import annotations

import re

import pytest

from tests.support.client import call_text, mcp_session, ref_on

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_a_state_change_of_the_element_acted_on_shows_even_when_no_text_changed(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/actions/records/state.html")
        snap = await call_text(s, "browser_snapshot")
        tool, like = ref_on(snap, r'button "B"'), ref_on(snap, r"clickable \S*like")
        mute = ref_on(snap, r'button "Mute"')
        # a toolbar button whose state is a class word no list of states knows (Quill's ql-active)
        on = await call_text(s, "browser_click", target=tool)
        assert re.search(rf"^~ button [^\n]*\[{tool}\]: class ql-active added$", on, re.M), on
        off = await call_text(s, "browser_click", target=tool)
        assert re.search(rf"^~ button [^\n]*\[{tool}\]: class ql-active removed$", off, re.M), off
        # an icon whose class says a state (active): the state word, added, on one short line
        liked = await call_text(s, "browser_click", target=like)
        assert re.search(rf"^~ clickable [^\n]*\[{like}\]: active \(by class\) added$", liked, re.M), liked
        pressed = await call_text(s, "browser_click", target=mute)
        assert re.search(rf"^~ button \"Mute\" \[{mute}\]: pressed added$", pressed, re.M), pressed
        for record in (on, off, liked, pressed):
            assert len(record.splitlines()) == 2, record  # the action and its one ~ line


async def test_a_replaced_region_is_counted_and_what_came_is_listed(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/actions/records/views.html")
        snap = await call_text(s, "browser_snapshot")
        opened = await call_text(s, "browser_click", target=ref_on(snap, r'button "Open message 3 from Cy"'))
        assert re.search(r"^- \d+ lines gone, from ", opened, re.M), opened
        assert "Open message 5" not in opened and "Open message 9" not in opened, opened
        assert "+ Lunch on Friday?" in opened and re.search(r'^\+ button "Back to the list" \[e\d+\]$', opened, re.M)
        assert '~ heading 2 "Message from Cy" (was: "Messages")' in opened, opened


async def test_a_typed_value_is_said_once(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/actions/records/state.html")
        snap = await call_text(s, "browser_snapshot")
        field = ref_on(snap, r"textbox")
        typed = await call_text(s, "browser_type", target=field, text="Bob")
        assert 'It now shows: "Bob"' in typed, typed
        assert f"[{field}]" not in typed.split("\n", 1)[1], typed  # no ~ line of the field repeating the value
        assert "No visible change" not in typed, typed


async def test_a_state_change_shows_for_an_item_the_record_view_would_fold(site: str) -> None:
    """Ten posts alike: the record compares the page as the snapshot showed it (whole, when it fits), not
    folded after three similar items, so the tenth post's icon still gets its ``~`` line."""
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/actions/records/feed.html")
        snap = await call_text(s, "browser_snapshot")
        replies = re.findall(r"\.reply \[(e\d+)\]", snap)
        assert len(replies) == 10, snap
        for ref in (replies[4], replies[9]):
            rec = await call_text(s, "browser_click", target=ref)
            assert re.search(rf"^~ clickable [^\n]*\[{ref}\]: active \(by class\) added$", rec, re.M), rec
