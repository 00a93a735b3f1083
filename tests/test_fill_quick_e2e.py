"""Typing into a ref's text field on a page of one frame: what Playwright's fill does (its text selected, the focus
in it, ``Input.insertText``) in two round trips; a field not ready now (hidden) is left to Playwright's fill, which
waits for it."""

from __future__ import annotations

import re

import pytest

from browser_ctx.server.pipeline import call_tool
from tests.support.inprocess import in_process, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _ref(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'{role} "{name}" \[(e\d+)\]', snapshot)
    assert found is not None, snapshot
    return found.group(1)


async def test_a_ready_field_is_typed_over_by_one_insert(site: str, sent: list) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/fill.html"})
        snap = await app.call("browser_snapshot", {})
        del sent[:]
        out = await app.call("browser_type", {"target": _ref(snap, "textbox", "Name"), "text": "Ada"})
        assert "Replaced 5 characters." in out and 'It now shows: "Ada"' in out, out
        methods = [cdp or method for method, cdp, _ in sent]
        assert methods.count("Input.insertText") == 1 and "fill" not in methods, methods
        tab = await app.session.current_tab()
        assert await tab.page.input_value("#name") == "Ada"
        assert await tab.page.evaluate("document.activeElement.id") == "name"
        assert (await tab.page.text_content("#log") or "").split() == ["name:insertText:true"]


async def test_a_textarea_is_typed_over_whole(site: str) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/fill.html"})
        snap = await app.call("browser_snapshot", {})
        out = await app.call("browser_type", {"target": _ref(snap, "textbox", "Notes"), "text": "one\ntwo"})
        assert "Replaced 22 characters." in out, out
        tab = await app.session.current_tab()
        assert await tab.page.input_value("#notes") == "one\ntwo"


async def test_one_character_replaced_is_one_character(site: str) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/fill.html"})
        snap = await app.call("browser_snapshot", {})
        name = _ref(snap, "textbox", "Name")
        await app.call("browser_type", {"target": name, "text": "A"})
        out = await app.call("browser_type", {"target": name, "text": "Bo"})
        assert "Replaced 1 character." in out, out


async def test_a_field_hidden_now_is_waited_for_by_playwright(site: str, sent: list) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/fill.html"})
        snap = await app.call("browser_snapshot", {})
        later = _ref(snap, "textbox", "Later")
        tab = await app.session.current_tab()
        await tab.page.click("#hide")
        del sent[:]
        out = await app.call("browser_type", {"target": later, "text": "Ada"})
        assert 'It now shows: "Ada"' in out, out
        assert "fill" in [method for method, _, _ in sent], sent
        assert await tab.page.input_value("#later") == "Ada"
        assert await tab.page.evaluate("document.activeElement.id") == "later"
        await tab.page.click("#hide")
        out = await app.call("browser_type", {"target": later, "text": "Bo", "slowly": True})  # waited for too
        assert await tab.page.input_value("#later") in ("BoAda", "AdaBo"), out


async def test_what_a_type_says_of_the_value(site: str) -> None:
    """With submit there is no read-back, so the field's new value is the delta's; slowly keeps what the field
    held and says so; a number field refuses text that is not a number, saying what it takes."""
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/fill.html"})
        snap = await app.call("browser_snapshot", {})
        name = _ref(snap, "textbox", "Name")
        out = await app.call("browser_type", {"target": name, "text": "Ada", "submit": True})
        assert "No visible change" not in out and '"Ada"' in out, out
        out = await app.call("browser_type", {"target": name, "text": "X", "slowly": True})
        assert out.startswith("Typed 1 character into"), out
        assert "the 3 characters it held stay" in out, out
        qty = _ref(snap, "spinbutton", "Quantity")
        result = await call_tool(app.tools["browser_type"], {"target": qty, "text": "2,5"}, app.session, app.settings)
        assert result.is_error and "takes a number; '2,5' is not one" in text_of(result), text_of(result)
        out = await app.call("browser_type", {"target": qty, "text": "2.5"})
        assert 'It now shows: "2.5"' in out, out


async def test_an_editor_s_lines_are_read_back_as_lines(site: str) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/agent-widgets/quill.html"})
        await app.call("browser_snapshot", {})
        text = "Hello all,\nPlease review.\n\nThanks"
        out = await app.call("browser_type", {"target": ".ql-editor", "text": text})
        assert 'It now shows: "Hello all,\\nPlease review.\\nThanks"' in out and "Warning" not in out, out
        verdict = await app.call("browser_verify", {"target": ".ql-editor", "value": text})
        assert verdict.startswith("PASS"), verdict
