"""Hidden text and password values never come back, whichever tool asks (real browser, stdio client)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_verify_and_wait_do_not_reveal_hidden_text_or_passwords(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/hidden.html"})
        outputs = []
        calls: list[tuple[str, dict[str, Any]]] = [
            ("browser_verify", {"text": "HIDDEN_DISPLAY_NONE", "timeout": 300}),
            ("browser_verify", {"text": "HIDDEN_OPACITY", "timeout": 300}),
            ("browser_verify", {"text": "HIDDEN_", "timeout": 300}),
            ("browser_wait_for", {"text": "HIDDEN_OPACITY", "time": 1}),
            ("browser_click", {"target": "text=HIDDEN_DISPLAY_NONE"}),
        ]
        for name, args in calls:
            res = await s.call_tool(name, args)
            outputs.append((name, args, result_text(res)))
        for name, args, text in outputs[:3]:
            assert text.startswith("FAIL"), (name, args, text)
        assert outputs[3][2] and "appeared" not in outputs[3][2]
        for name, args, text in outputs:
            leaked = [w for w in text.replace('"', " ").replace("'", " ").split() if w.startswith("HIDDEN_")
                      and w.rstrip(".,;:") not in (args.get("text"), "HIDDEN_")
                      and not (args.get("target") or "").endswith(w.rstrip(".,;:"))]
            assert not leaked, (name, args, text)

        await s.call_tool("browser_navigate", {"url": f"{site}/login.html"})
        res = await s.call_tool("browser_verify", {"target": "input[type=password]", "value": "wrong"})
        assert res.is_error and "password" in result_text(res)
        assert "PASSWORD_SENTINEL_123" not in result_text(res)


async def test_endless_evaluate_is_stopped_and_the_page_stays_usable(site):
    async with mcp_session("--timeout-read", "3000") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        res = await s.call_tool("browser_evaluate", {"function": "() => { while (true) {} }"})
        assert res.is_error and "stopped" in result_text(res), result_text(res)
        title = await s.call_tool("browser_evaluate", {"function": "() => document.title"})
        assert not title.is_error and "Still Water" in result_text(title)
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/login.html"})
        assert not nav.is_error, result_text(nav)


async def test_first_page_of_a_session_is_captured(site):
    async with mcp_session() as s:
        nav = await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        assert not nav.is_error, result_text(nav)
        listing = result_text(await s.call_tool("browser_network_requests", {"static": True}))
        assert "article.html" in listing and "about:blank" not in listing, listing
