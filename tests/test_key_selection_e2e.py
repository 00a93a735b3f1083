"""A key press that selects (Shift+arrows, select-all) says what is selected, through the real stdio client:
in a textarea, in a contenteditable editor, and never a password's characters. Pages: ``fixtures/``."""

from __future__ import annotations

import pytest

from tests.support.client import call_text, mcp_session, ref_on

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_a_selecting_key_says_what_is_selected(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/agent-widgets/textarea-space.html")
        source = ref_on(await call_text(s, "browser_snapshot"), r'textbox "Source"')
        await call_text(s, "browser_click", target=source)
        await call_text(s, "browser_press_key", key="End")
        for _ in range(2):
            out = await call_text(s, "browser_press_key", key="Control+Shift+ArrowLeft")
        assert 'Selected: "cursus eu "' in out, out  # exactly, its trailing space kept
        assert "No visible change" not in out, out  # the selection is what changed
        everything = await call_text(s, "browser_press_key", key="Control+a")
        assert 'Selected: "Lorem ipsum cursus eu "' in everything, everything
        plain = await call_text(s, "browser_press_key", key="ArrowLeft")
        assert "Selected" not in plain, plain  # a key that does not select says nothing of it


async def test_a_password_selection_is_never_quoted(site: str) -> None:
    async with mcp_session() as s:
        await call_text(s, "browser_navigate", url=f"{site}/login.html")
        field = ref_on(await call_text(s, "browser_snapshot"), r'(?:password|textbox) "Password"')
        await call_text(s, "browser_type", target=field, text="hunter2secret")
        out = await call_text(s, "browser_press_key", key="Control+a")
        assert "hunter2" not in out and "Selected:" not in out, out
