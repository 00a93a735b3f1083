"""An action compares the page before and after it: the "before" is the tab's last walk when the page has not
changed since (one small version check), so a click on an unchanged page walks it once, not twice. In-process
through the real pipeline and a real Chromium, counting the tab's walks."""

from __future__ import annotations

import asyncio
import re

import pytest

import tests.support.action_routes  # noqa: F401 - registers /actions/api/save
from browser_ctx.server.pipeline import call_tool
from tests.support.inprocess import in_process, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_a_click_on_an_unchanged_page_walks_it_once(site):
    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})
        snap = await call("browser_snapshot", {})
        assert 'button "Add one" [e1]' in snap, snap
        tab = await session.current_tab()

        walks = tab.walks
        record = await call("browser_click", {"target": "e1"})
        assert "Count: 1" in record, record  # the delta is still right
        assert tab.walks - walks == 1, "the snapshot's walk is the click's before"

        walks = tab.walks
        record = await call("browser_click", {"target": "e1"})
        assert "~ Count: 2 (was: 1)" in record, record
        assert tab.walks - walks == 1, "the first click's after is the second's before"

        walks = tab.walks
        record = await call("browser_click", {"target": "e2"})
        assert "No visible change" in record or "no visible change" in record, record
        assert tab.walks - walks == 1

        # The page changes between calls: the kept walk is stale, so the click walks before and after.
        await tab.page.evaluate("document.getElementById('count').textContent = 'Count: 40'")
        walks = tab.walks
        record = await call("browser_click", {"target": "e1"})
        assert "~ Count: 3 (was: 40)" in record, record  # the line changed in place: one line
        assert tab.walks - walks == 2


async def test_records_leave_out_values_that_change_by_themselves_and_name_a_form_that_went(site):
    async with in_process() as run:
        call = run.call
        await call("browser_navigate", {"url": f"{site}/walks/timer.html"})
        snap = await call("browser_snapshot", {})
        ref = re.search(r'button "Go" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        await asyncio.sleep(0.5)  # the countdown ticks between the agent's calls (every 150 ms)
        first = await call("browser_click", {"target": ref})
        # seen changing once between the snapshot and the click, and ticking again and again since the snapshot
        assert "Clicked 1" in first, first
        assert "Time left" not in first.replace('"Time left"', ""), first  # only the note names it
        assert '1 value changes by itself: "Time left"' in first, first
        await asyncio.sleep(0.5)
        tab = await run.session.current_tab()
        walks = tab.walks
        second = await call("browser_click", {"target": ref})
        assert "Clicked 2" in second and "Time left" not in second, second  # said once per page
        # only the countdown changed since the first click's after walk, ticking by itself since that click: that
        # walk is the second click's before
        assert tab.walks - walks == 1
        drop = re.search(r'button "Drop the order" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        gone = await call("browser_click", {"target": drop})
        assert re.search(r'- form "Order".*gone with its \d+ lines', gone), gone
        assert "Street" not in gone, gone  # the form's lines are not listed one by one


async def test_typing_says_what_it_replaced_and_can_append_or_insert(site):
    async with in_process() as run:
        session, settings, tools, call = run.session, run.settings, run.tools, run.call
        await call("browser_navigate", {"url": f"{site}/walks/typing.html"})
        snap = await call("browser_snapshot", {})
        notes = re.search(r'textbox "Notes" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        editor = re.search(r'textbox "Editor" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        assert "from t" in snap, snap
        replaced = await call("browser_type", {"target": notes, "text": "second"})
        assert "Replaced 10 characters" in replaced, replaced
        await call("browser_type", {"target": notes, "text": " and more", "mode": "append"})
        tab = await session.current_tab()
        assert await tab.page.input_value("#notes") == "second and more"
        await call("browser_type", {"target": editor, "text": "\nwhere id = 1", "mode": "append"})
        shown = await tab.page.inner_text("#editor")
        assert shown.startswith("select *") and shown.rstrip().endswith("where id = 1"), shown
        again = await call("browser_type", {"target": editor, "text": "select 1"})
        assert "Replaced" in again, again
        assert (await tab.page.inner_text("#editor")).strip() == "select 1"
        bad = await call_tool(tools["browser_type"], {"target": notes, "text": "x", "mode": "sideways"}, session,
                              settings)
        assert bad.is_error and "mode" in text_of(bad), text_of(bad)


async def test_a_snapshot_right_after_a_navigation_reads_the_cards_walk(site):
    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})
        tab = await session.current_tab()
        walks = tab.walks
        snap = await call("browser_snapshot", {})
        assert 'button "Add one" [e1]' in snap, snap
        assert tab.walks == walks, "the card's walk is the snapshot's"
        again = await call("browser_snapshot", {"force": True})
        assert tab.walks == walks + 1, "the card's walk is read once"
        assert again == snap

        # The page changes after the card: the snapshot walks and sees the change.
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})
        await tab.page.evaluate("document.getElementById('count').textContent = 'Count: 40'")
        walks = tab.walks
        snap = await call("browser_snapshot", {})
        assert "Count: 40" in snap, snap
        assert tab.walks == walks + 1

        # Another call between the card and the snapshot: the snapshot walks.
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})
        await call("browser_console_messages", {})
        walks = tab.walks
        await call("browser_snapshot", {})
        assert tab.walks == walks + 1


async def test_the_before_reads_the_page_version_with_the_settle_probe(site, sent):
    """The version that tells the kept walk is current comes with the settle probe's look: no call of its own."""
    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})
        await call("browser_snapshot", {})
        tab = await session.current_tab()
        del sent[:]
        walks = tab.walks
        record = await call("browser_click", {"target": "e2"})
        assert "no visible change" in record.lower(), record
        assert tab.walks - walks == 1, "the snapshot's walk is the click's before"
        scripts = _declarations(sent)
        assert not [s for s in scripts if "M.registry(window, document).version" in s], "a page_version call"
        assert [s for s in scripts if "__bcSettle" in s], "no settle probe seen"


def _declarations(sent: list) -> list[str]:
    """The declaration of every ``Runtime.callFunctionOn`` in ``sent`` (the ``sent`` fixture), in order."""
    return [str(p.get("functionDeclaration", "")) for _, cdp, p in sent if cdp == "Runtime.callFunctionOn"]


async def test_the_record_walk_begins_beside_the_settle_s_last_look(site, sent):
    """A click whose effect comes through a request: the after walk starts beside a look that may end the settle
    (not after it), and is the record's because nothing that counts moved between them."""
    async with in_process() as run:
        await run.call("browser_navigate", {"url": f"{site}/actions/latency/toast.html"})
        snap = await run.call("browser_snapshot", {})
        save = re.search(r'button "Save" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        tab = await run.session.current_tab()
        del sent[:]
        walks = tab.walks
        record = await run.call("browser_click", {"target": save})
        assert "Settings saved" in record, record
        assert tab.walks - walks == 1, "one after walk, kept"
        scripts = _declarations(sent)
        probes = [i for i, s in enumerate(scripts) if "__bcSettle" in s]
        walked = [i for i, s in enumerate(scripts) if "__browserCtxScripts" in s]  # the walk, kept in the world
        assert walked and probes and walked[-1] < probes[-1], "the walk came after the settle's last look"


async def test_a_record_walk_the_page_moved_on_from_is_made_again(site):
    async with in_process() as run:
        for _ in range(3):  # whichever look the walk began beside, the record is the settled page
            await run.call("browser_navigate", {"url": f"{site}/walks/stepwise.html"})
            snap = await run.call("browser_snapshot", {})
            load = re.search(r'button "Load" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
            record = await run.call("browser_click", {"target": load})
            assert "Step one" in record and "Step two" in record, record
