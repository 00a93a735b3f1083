"""A key press that selects (Shift+arrows, select-all) says what is selected, through the real stdio client:
in a textarea, in a contenteditable editor, and never a password's characters. Pages: ``fixtures/``."""

from __future__ import annotations

import re

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def _call(s, tool: str, **args) -> str:  # noqa: ANN001 - a ClientSession
    result = await s.call_tool(tool, args)
    text = result_text(result)
    assert not result.is_error, f"{tool} {args}: {text}"
    return text


def _ref(snapshot: str, pattern: str) -> str:
    m = re.search(pattern + r"[^\n]*?\[(e\d+)\]", snapshot)
    assert m, (pattern, snapshot)
    return m.group(1)


async def test_a_selecting_key_says_what_is_selected(site: str) -> None:
    async with mcp_session() as s:
        await _call(s, "browser_navigate", url=f"{site}/agent-widgets/textarea-space.html")
        source = _ref(await _call(s, "browser_snapshot"), r'textbox "Source"')
        await _call(s, "browser_click", target=source)
        await _call(s, "browser_press_key", key="End")
        for _ in range(2):
            out = await _call(s, "browser_press_key", key="Control+Shift+ArrowLeft")
        assert 'Selected: "cursus eu "' in out, out  # exactly, its trailing space kept
        everything = await _call(s, "browser_press_key", key="Control+a")
        assert 'Selected: "Lorem ipsum cursus eu "' in everything, everything
        plain = await _call(s, "browser_press_key", key="ArrowLeft")
        assert "Selected" not in plain, plain  # a key that does not select says nothing of it


async def test_a_password_selection_is_never_quoted(site: str) -> None:
    async with mcp_session() as s:
        await _call(s, "browser_navigate", url=f"{site}/login.html")
        field = _ref(await _call(s, "browser_snapshot"), r'(?:password|textbox) "Password"')
        await _call(s, "browser_type", target=field, text="hunter2secret")
        out = await _call(s, "browser_press_key", key="Control+a")
        assert "hunter2" not in out and "Selected:" not in out, out
