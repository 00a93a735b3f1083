"""A verification session on the todo app through the stdio client, with token figures.

Steps: open the app, add two items, complete one (by the ref the add record returned), verify the
counter, trigger the empty-input error and verify it. Beside each call's tokens it prints what the
same step costs when a full ``aria_snapshot(mode="ai")`` follows each action (what
``@playwright/mcp`` sends back), measured on the same page state in a second, direct Playwright browser.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import async_playwright

from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.core.tokens import count_tokens
from browser_ctx.settings import LaunchSettings
from tests.support.client import mcp_session, result_text, result_tokens

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_todo_verification_session_tokens(site: str, capsys: Any) -> None:
    url = f"{site}/actions/todo.html"
    launch = LaunchSettings(offline_external=True)
    rows: list[tuple[str, int, int]] = []
    async with async_playwright() as pw, mcp_session() as mcp:
        browser = await pw.chromium.launch(executable_path=find_executable(launch), args=chromium_args(launch))
        try:
            page = await browser.new_page()

            async def aria() -> int:
                return count_tokens(await page.locator("body").aria_snapshot(mode="ai"))

            async def step(label: str, tool: str, args: dict[str, Any], mirror: Any) -> str:
                result = await mcp.call_tool(tool, args)
                text = result_text(result)
                assert not result.is_error, f"{label}: {text}"
                tokens = result_tokens(result)
                assert tokens <= 2000
                if mirror is not None:
                    await mirror()
                rows.append((label, tokens, await aria()))
                return text

            card = await step("open the app", "browser_navigate", {"url": url}, lambda: page.goto(url))
            assert "Todos" in card
            rec = await step("add 'Buy milk'", "browser_type",
                             {"target": "role=textbox[name='New todo']", "text": "Buy milk", "submit": True},
                             lambda: page.get_by_role("textbox", name="New todo").fill("Buy milk"))
            await page.get_by_role("textbox", name="New todo").press("Enter")
            assert '+ - checkbox "Buy milk" [e' in rec and "~ 1 item (was: 0 items) left" in rec, rec
            rec = await step("add 'Walk the dog'", "browser_type",
                             {"target": "role=textbox[name='New todo']", "text": "Walk the dog", "submit": True},
                             lambda: page.get_by_role("textbox", name="New todo").fill("Walk the dog"))
            await page.get_by_role("textbox", name="New todo").press("Enter")
            assert "~ 2 items (was: 1 item) left" in rec, rec
            milk = re.search(r'checkbox "Buy milk" \[(e\d+)\]', rec)
            assert milk, rec
            rec = await step("complete 'Buy milk'", "browser_click", {"target": milk.group(1)},
                             lambda: page.get_by_role("checkbox", name="Buy milk").click())
            assert 'checkbox "Buy milk"' in rec and "checked" in rec and "~ 1 item (was: 2 items) left" in rec, rec
            out = await step("verify the counter", "browser_verify", {"target": "#count", "text": "1 item left"}, None)
            assert out == "PASS"
            rec = await step("add with empty input", "browser_click", {"target": "role=button[name='Add']"},
                             lambda: page.get_by_role("button", name="Add").click())
            assert "+ Please enter a task first." in rec
            out = await step("verify the error", "browser_verify", {"text": "Please enter a task first."}, None)
            assert out == "PASS"
        finally:
            await browser.close()
    ours = sum(r[1] for r in rows)
    theirs = sum(r[2] for r in rows)
    with capsys.disabled():
        print("\ntodo verification session: tokens per call (browser-ctx) vs full aria_snapshot(mode='ai') per step")
        for label, a, b in rows:
            print(f"  {label:<22} {a:>5} {b:>7}")
        print(f"  {'total':<22} {ours:>5} {theirs:>7}")
    # Records carry only the change, the aria baseline the whole page every time.
    action_rows = [r for r in rows[1:] if not r[0].startswith("verify")]
    assert sum(r[1] for r in action_rows) < sum(r[2] for r in action_rows)
