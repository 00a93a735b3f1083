"""Playwright's locator machinery is set up for each new document in the background (``targets.prime_locators``):
after a navigation, and after an action that led to another document, before the first action needs it."""

from __future__ import annotations

import re

import pytest

from browser_ctx.browser.refs import page_version
from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def _document(tab) -> str:
    version = await page_version(tab.page, worlds=tab.worlds)
    assert version is not None
    return version.split(":", 1)[0]


async def test_each_new_document_is_primed_once_in_the_background(site: str) -> None:
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/actions/latency/navigation.html"})
        tab = await app.session.current_tab()
        assert tab.priming is not None
        await tab.priming
        first = await _document(tab)
        assert tab.primed_document == first

        snap = await app.call("browser_snapshot", {})  # the same document: nothing new to prime
        await tab.priming
        assert tab.primed_document == first

        ref = re.search(r'link "Next page" \[(e\d+)\]', snap)
        assert ref is not None, snap
        await app.call("browser_click", {"target": ref.group(1)})  # a link: the record is the new page's card
        await tab.priming
        second = await _document(tab)
        assert second != first and tab.primed_document == second
