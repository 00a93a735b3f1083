"""Scrolling an element into view is not a change (issue 25, item 3), through the real MCP stdio client.

A click far down a long page scrolls it under a fixed header, and a click at the end of a scrolling feed scrolls
the feed under an opaque bar above it (as MiniWoB++'s task area scrolls under its query): text that only moved
is neither gone nor come in the record, and the snapshot after still reads it. Page:
``fixtures/actions/records/scroll.html``.
"""

from __future__ import annotations

import pytest

from tests.support.client import call_text, mcp_session, ref_on

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_scrolling_into_view_is_not_a_change(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/actions/records/scroll.html")
        snap = await call_text(s, "browser_snapshot")
        assert "Post 1 by user1" in snap and "Paragraph 60 of the article." in snap, snap
        more, far = ref_on(snap, r'button "Load nothing"'), ref_on(snap, r'button "Mark as read"')
        # inside a scrolling feed under an opaque bar: the feed scrolls, the posts above go under the bar
        inner = await call_text(s, "browser_click", target=more)
        assert inner.splitlines()[1:] == [] or inner.endswith("No visible change."), inner
        assert "Post" not in inner, inner
        # far down the page under a fixed header: the page scrolls; only the button's class changes
        outer = await call_text(s, "browser_click", target=far)
        lines = outer.splitlines()[1:]
        assert lines == [f'~ button "Mark as read" [{far}]: class done added'], outer
        again = await call_text(s, "browser_snapshot", force=True)
        assert "Post 1 by user1" in again and "Paragraph 1 of the article." in again, again
