"""``since`` after a reload (issue 13, found by the verify-loop measure): new refs alone are "Unchanged … in
content", and a change inside what the read folds or cuts is said, not hidden behind the new-refs line."""

from __future__ import annotations

import pytest

from browser_ctx.core.budget import Budget
from browser_ctx.core.fingerprint import page_fingerprint, result_fingerprint
from browser_ctx.server.pipeline import _changes_since
from browser_ctx.settings import CapSettings
from tests.support.client import mcp_session, result_text

BEFORE = 'grid "Orders":\n  row: 1001 | Ada [e4]\n  … 22 more rows\nbutton "Close" [e5]'
AFTER = 'grid "Orders":\n  row: 1001 | Ada [e14]\n  … 22 more rows\nbutton "Close" [e15]'


def _answer(page_then: str, page_now: str) -> str:
    since = result_fingerprint(BEFORE, page_fingerprint([page_then]))
    now = result_fingerprint(AFTER, page_fingerprint([page_now]))
    budget = Budget.from_request(None, CapSettings())
    return _changes_since("browser_snapshot", since, now, BEFORE, AFTER, budget, page_fingerprint([page_now]))


def test_new_refs_on_the_same_page_are_unchanged_in_content() -> None:
    text = _answer("<li>Greta Okafor</li>", "<li>Greta Okafor</li>")
    assert text.startswith("Unchanged since ") and "refs" in text and "re-rendered with new refs" in text


def test_a_change_in_a_folded_run_is_said_when_only_refs_show() -> None:
    text = _answer("<li>Greta Okafor</li>", "<li>Zora Hurston</li>")
    assert not text.startswith("Unchanged") and "the page changed inside what it walked" in text, text


@pytest.mark.e2e
@pytest.mark.anyio
async def test_since_across_a_reload(site: str) -> None:
    url = f"{site}/verify/page.html"
    args = {"maxTokens": 300}
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": url})
        fp = (await s.call_tool("browser_snapshot", args)).structured_content["fingerprint"]
        await s.call_tool("browser_navigate", {"url": url})  # same page, new refs
        same = await s.call_tool("browser_snapshot", {**args, "since": fp})
        text = result_text(same)
        assert text.startswith(f"Unchanged since {fp} in content"), text
        fp = same.structured_content["fingerprint"]

        await s.call_tool("browser_navigate", {"url": url})
        changed = await s.call_tool("browser_evaluate", {"function": "() => { document.querySelector("
                                    "'#items li:nth-child(40)').textContent = 'Item 40 renamed'; return true; }"})
        assert not changed.is_error, result_text(changed)
        diff = await s.call_tool("browser_snapshot", {**args, "since": fp})
        text = result_text(diff)
        assert "Item 40" not in text  # inside the folded run
        assert not text.startswith("Unchanged") and "the page changed inside what it walked" in text, text
        assert not diff.structured_content.get("unchanged")
