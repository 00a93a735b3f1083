"""What a new user met through the real MCP client (``fixtures/newuser/``, served by ``site``, over stdio).

- ``todos.html``: its delete icons are ``<span class=del>`` with click listeners only. The first read after a
  navigation the agent did not cause (a script's ``location.href``) lists them, and the navigate card counts
  them as a click's record does.
"""

from __future__ import annotations

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_first_snapshot_after_a_script_navigation_keeps_listened_controls(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/newuser/start.html"})
        assert "Plain page." in result_text(await s.call_tool("browser_snapshot", {}))
        moved = await s.call_tool("browser_evaluate", {"function": "() => { location.href = '/newuser/todos.html' }"})
        assert not moved.is_error, result_text(moved)
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        assert "todos.html (whole document)" in snap.splitlines()[0], snap
        assert snap.count("clickable .del [e") == 3, snap


async def test_the_navigate_card_counts_listened_controls(site: str) -> None:
    async with mcp_session() as s:
        card = result_text(await s.call_tool("browser_navigate", {"url": f"{site}/newuser/todos.html"}))
        assert "Interactive: 2 buttons, 1 textbox, 3 other controls" in card, card
