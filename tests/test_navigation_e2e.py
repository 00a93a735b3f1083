"""``browser_navigate`` ends where the page ends: client-side redirect chains and dialogs during load.

Served from ``fixtures/navigation/`` on localhost, driven through ``browser-ctx serve`` over stdio:

- ``chain-start.html`` inserts a ``<meta http-equiv=refresh content=0>`` from a script; the page it
  leads to (``chain-middle.html``) calls ``location.replace`` after 300 ms; the card must describe the
  final page (``chain-end.html``) with its HTTP status, and list both hops and how each was left;
- ``alert-on-load.html`` calls ``alert()`` in an inline script: the card names it and its answer;
- ``replace-state.html`` changes its URL with ``history.replaceState``: the same document, so no hop;
- ``late-redirect.html`` sets ``location.href`` 1.5 s after load: still followed (its inline script
  mentions ``location``, so it is watched for 2 s);
- ``mobile-redirect.html`` sets ``location`` only as it is parsed (a mobile redirect): not watched for 2 s;
- ``timer-redirect.html`` has no inline script; its external ``timer-redirect.js`` sets ``location.href`` 900 ms
  after load: followed too (a small external script that sets ``location`` on a timer is read).
"""

from __future__ import annotations

import pytest

from browser_ctx.browser.redirects import BUSY, document_facts
from tests.support.client import mcp_session, result_text
from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_client_redirect_chain_is_followed_to_the_final_page(site: str) -> None:
    async with mcp_session() as s:
        result = await s.call_tool("browser_navigate", {"url": f"{site}/navigation/chain-start.html"})
        text = result_text(result)
        assert not result.is_error, text
        first = text.splitlines()[0]
        assert first.startswith("Page: Dashboard — ") and "chain-end.html?from=middle" in first, text
        assert first.endswith("(HTTP 200)"), text
        assert "HTTP status unknown" not in text
        redirects = next(line for line in text.splitlines() if line.startswith("Redirects: "))
        assert "chain-start.html (HTTP 200, meta refresh) → " in redirects, redirects
        assert "chain-middle.html (HTTP 200, script) → final page" in redirects, redirects
        meta = result.structured_content or {}
        assert meta["status"] == 200 and meta["url"].endswith("/navigation/chain-end.html?from=middle")
        assert [h["how"] for h in meta["redirects"]] == ["meta refresh", "script"]
        assert "h1 Dashboard" in text


async def test_server_redirect_is_listed_and_a_plain_page_has_no_chain(site: str) -> None:
    async with mcp_session() as s:
        # The fixtures server answers a folder without its slash with a 301 to the slash.
        result = await s.call_tool("browser_navigate", {"url": f"{site}/navigation"})
        text = result_text(result)
        assert not result.is_error, text
        assert "(HTTP 301) → final page" in text, text
        plain = result_text(await s.call_tool("browser_navigate", {"url": f"{site}/navigation/replace-state.html"}))
        assert "Redirects:" not in plain and "(HTTP 200)" in plain.splitlines()[0], plain


async def test_a_script_redirect_after_1_5_s_is_followed(site: str) -> None:
    async with mcp_session() as s:
        result = await s.call_tool("browser_navigate", {"url": f"{site}/navigation/late-redirect.html"})
        text = result_text(result)
        assert not result.is_error, text
        assert "chain-end.html?from=late (HTTP 200)" in text.splitlines()[0], text
        assert "late-redirect.html (HTTP 200, script) → final page" in text, text


async def test_an_external_script_redirect_900_ms_after_load_is_followed(site: str) -> None:
    async with mcp_session() as s:
        # warm up: a first navigation (the browser starting) can take longer than the page's 900 ms by itself
        await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        result = await s.call_tool("browser_navigate", {"url": f"{site}/navigation/timer-redirect.html"})
        text = result_text(result)
        assert not result.is_error, text
        first = text.splitlines()[0]
        assert first.startswith("Page: Dashboard — ") and "chain-end.html?from=timer (HTTP 200)" in first, text
        assert "timer-redirect.html (HTTP 200, script) → final page" in text, text
        assert "h1 Dashboard" in text, text
        meta = result.structured_content or {}
        assert meta["url"].endswith("/navigation/chain-end.html?from=timer"), meta
        # the card and the tab agree: a read right after it is of the same page
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        assert "chain-end.html?from=timer" in snap.splitlines()[0] and "Dashboard" in snap, snap


async def test_alert_during_load_appears_in_the_card(site: str) -> None:
    async with mcp_session() as s:
        result = await s.call_tool("browser_navigate", {"url": f"{site}/navigation/alert-on-load.html"})
        text = result_text(result)
        assert not result.is_error, text
        assert 'Dialog during load: alert "Your trial ends in 3 days" → accepted (default policy)' in text, text
        assert (result.structured_content or {})["dialogs"] == [
            {"type": "alert", "message": "Your trial ends in 3 days", "accepted": True}]
        again = result_text(await s.call_tool("browser_navigate", {"url": f"{site}/navigation/chain-end.html"}))
        assert "Dialog during load" not in again, again


async def test_a_finished_chain_or_two_load_alerts_are_not_a_page_gone_wild(site: str) -> None:
    """The documents of a redirect chain we followed, or two alerts answered during a load, must not make the next
    navigation (sent at once) treat the page as navigating or opening dialogs non-stop."""
    async with mcp_session() as s:
        for first in ("chain-start.html", "two-alerts.html"):
            card = result_text(await s.call_tool("browser_navigate", {"url": f"{site}/navigation/{first}"}))
            assert "non-stop" not in card, card
            nxt = await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
            text = result_text(nxt)
            assert not nxt.is_error and text.startswith("Page: Still Water"), text
            assert "non-stop" not in text and "scripts were stopped" not in text, (first, text)


async def test_only_an_inline_script_that_sets_location_later_makes_a_navigation_watch_long(site: str) -> None:
    """A script that sets ``location`` as it runs (a mobile redirect) has moved the page by its load or never
    will: it is not watched for 2 s; one that sets it from a timer is."""
    async with in_process() as app:
        await app.call("browser_navigate", {"url": f"{site}/navigation/mobile-redirect.html"})
        tab = await app.session.current_tab()
        facts = await document_facts(tab, 5)
        assert facts is not None and facts is not BUSY and facts.url.endswith("mobile-redirect.html")
        assert not facts.scripted
        await tab.page.goto(f"{site}/navigation/late-redirect.html")
        facts = await document_facts(tab, 5)
        assert facts is not None and facts.url.endswith("late-redirect.html") and facts.scripted
