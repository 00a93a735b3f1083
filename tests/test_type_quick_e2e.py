"""``browser_type`` into a field that nothing moves ends at the first look and walks nothing after (issue 25),
and the records stay right: the typed value is the tab's last walk's, so the next action does not report it as
its own change; a field whose page reacts at once still gets the reaction in its record; one that reacts later
is reported by the record or by the next call. In process through the real pipeline and a real Chromium,
counting the tab's walks (as ``tests/test_walk_reuse_e2e.py``)."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_typing_that_moves_nothing_walks_nothing_after_and_keeps_the_records_right(site):
    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/walks/fields.html"})
        snap = await call("browser_snapshot", {})
        ref = {name: re.search(rf'{kind} "{name}" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
               for kind, name in (("textbox", "Plain"), ("textbox", "Watched"), ("textbox", "Echoed"),
                                  ("textbox", "Announced"), ("textbox", "Framed"), ("button", "Add one"))}
        tab = await session.current_tab()

        walks = tab.walks
        typed = await call("browser_type", {"target": ref["Plain"], "text": "hello"})
        assert 'It now shows: "hello"' in typed, typed
        assert tab.walks == walks, "nothing moved: the snapshot's walk is the before, and there is no after walk"

        walks = tab.walks
        clicked = await call("browser_click", {"target": ref["Add one"]})
        assert "Count: 1" in clicked, clicked
        assert "hello" not in clicked and "Plain" not in clicked, clicked  # the value is the type's, said there
        assert tab.walks - walks == 1, "the kept walk holds the typed value: it is still the click's before"
        assert re.search(r'textbox "Plain" \[e\d+\] = "hello"', await call("browser_snapshot", {}))

        walks = tab.walks
        typed = await call("browser_type", {"target": ref["Watched"], "text": "abc"})
        assert "Length: 3" in typed, typed  # the page reacted at once: the record waited and walked
        assert tab.walks - walks == 1

        # a reaction in the next animation frame is in the record (the quick settle's look after a frame); typed
        # once: an element changed by three actions within 2 s of each other counts as changing by itself
        typed = await call("browser_type", {"target": ref["Framed"], "text": "abc"})
        assert "Checked: abc" in typed and "Checking" not in typed, typed

        # a status shown at once: the journal's drain and the walk that run during the frame agree on it
        typed = await call("browser_type", {"target": ref["Announced"], "text": "hi"})
        assert "Said: hi" in typed, typed
        following = await call("browser_snapshot", {})
        assert "Appeared since the last call" not in following and "Said: hi" in following, following

        typed = await call("browser_type", {"target": ref["Echoed"], "text": "xyz"})
        await asyncio.sleep(0.3)
        following = await call("browser_click", {"target": ref["Add one"]})
        if "Echo: xyz" not in typed:  # the record was taken before the echo came: the next call says it came
            assert 'Appeared since the last call: status "Echo: xyz"' in following, (typed, following)
