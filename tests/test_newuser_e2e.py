"""What a new user met through the real MCP client (``fixtures/newuser/``, served by ``site``, over stdio).

- ``todos.html``: its delete icons are ``<span class=del>`` with click listeners only. The first read after a
  navigation the agent did not cause (a script's ``location.href``) lists them, and the navigate card counts
  them as a click's record does. Its settings dialog has a ``<select>`` "Theme" (Light, Dark, Solarized).
- ``order.html``: a ``<select>`` "Size" inside its ``<label>``. Options are matched exactly, then
  case-insensitively (select and fill_form alike); a wrong one fails listing the real ones, nothing chosen; a
  select addressed by CSS is named by its label, not its options; the record says what it shows, once.
- a server that accepts and never answers: the load times out and is stopped, so the tab still shows (and
  reads) the page it was on, instead of every read timing out behind the pending load.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

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


async def test_select_matches_case_insensitively_and_a_wrong_option_lists_the_real_ones(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/newuser/todos.html"})
        await s.call_tool("browser_click", {"target": "#open"})
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        theme = next(line for line in snap.splitlines() if 'select "Theme"' in line)
        ref = theme.split("[", 1)[1].split("]", 1)[0]
        picked = await s.call_tool("browser_select_option", {"target": ref, "values": ["dark"]})
        text = result_text(picked)
        assert not picked.is_error, text
        assert 'Now shows: "Dark"' in text and "No visible change" not in text, text
        wrong = await s.call_tool("browser_select_option", {"target": ref, "values": ["purple"]})
        text = result_text(wrong)
        assert wrong.is_error and 'No option "purple"' in text, text
        assert '"Light", "Dark", "Solarized"' in text and "Nothing was chosen" in text, text
        value = await s.call_tool("browser_evaluate", {"function": "() => document.getElementById('theme').value"})
        assert result_text(value).strip().strip('"') == "Dark", result_text(value)


async def test_fill_form_matches_a_select_case_insensitively_and_css_names_it_by_its_label(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/newuser/order.html"})
        filled = await s.call_tool("browser_fill_form", {"fields": [
            {"target": "#size", "name": "Size", "type": "combobox", "value": "large"}]})
        assert not filled.is_error, result_text(filled)
        value = await s.call_tool("browser_evaluate", {"function": "() => document.getElementById('size').value"})
        assert result_text(value).strip().strip('"') == "l", result_text(value)
        picked = result_text(await s.call_tool("browser_select_option", {"target": "#size", "values": ["medium"]}))
        assert 'combobox "Size" [' in picked and "Small" not in picked, picked


@contextlib.contextmanager
def _silent_server() -> Iterator[str]:
    """``http://127.0.0.1:PORT/`` of a server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(server.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    finally:
        server.close()
        for conn in held:
            conn.close()


async def test_a_load_whose_server_never_answers_is_stopped_and_the_page_still_reads(site: str) -> None:
    with _silent_server() as silent:
        async with mcp_session("--timeout-navigation", "2000", "--timeout-read", "5000") as s:
            await s.call_tool("browser_navigate", {"url": f"{site}/newuser/start.html"})
            nav = await s.call_tool("browser_navigate", {"url": silent})
            text = result_text(nav)
            assert nav.is_error and "Timed out" in text and "newuser/start.html" in text, text
            snap = await s.call_tool("browser_snapshot", {})
            assert not snap.is_error and "Plain page." in result_text(snap), result_text(snap)
            tabs = result_text(await s.call_tool("browser_tabs", {"action": "list"}))
            assert '"Start"' in tabs and "Loading" not in tabs, tabs
