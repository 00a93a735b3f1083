"""A ref's element is read where the walker registered it: typing into a ref reads the field's state beside the
target's resolution and reads it back after, each in one call in the isolated world, with no Playwright pin
(``waitForSelector``) before or after the fill; a ref whose element is gone is refused as stale."""

from __future__ import annotations

import re

import pytest

from browser_ctx.server.pipeline import call_tool
from tests.support.inprocess import in_process, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_typing_into_a_ref_pins_nothing(site: str, sent: list) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/latency/navigation.html"})
        snap = await app.call("browser_snapshot", {})
        ref = re.search(r'textbox "Query" \[(e\d+)\]', snap)
        assert ref is not None, snap
        del sent[:]
        out = await app.call("browser_type", {"target": ref.group(1), "text": "Ada"})
        assert 'It now shows: "Ada"' in out, out
        assert "waitForSelector" not in [method for method, _, _ in sent], sent


async def test_a_ref_whose_element_is_gone_is_refused_as_stale(site: str) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/latency/navigation.html"})
        snap = await app.call("browser_snapshot", {})
        ref = re.search(r'textbox "Query" \[(e\d+)\]', snap)
        assert ref is not None, snap
        tab = await app.session.current_tab()
        await tab.page.evaluate("document.getElementById('name').remove()")
        result = await call_tool(app.tools["browser_type"], {"target": ref.group(1), "text": "Ada"}, app.session,
                                 app.settings)
        assert result.is_error and "Ref " + ref.group(1) + " is stale" in text_of(result), text_of(result)
        assert await app.call("browser_snapshot", {})  # the session goes on
