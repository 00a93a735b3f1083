"""Console and network capture on real pages in real Chromium, through the server's tool pipeline.

Each test opens a :class:`BrowserSession` (the same object the MCP server uses), loads fixture
pages from ``fixtures/events/`` and calls the tools through :func:`pipeline.call_tool`, so results
are scrubbed and capped exactly as the client gets them. Every output is checked for ``SECRET_``.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from urllib.parse import quote

import pytest

import tests.support.event_routes  # noqa: F401 - registers the dynamic routes
from browser_ctx.browser.capture import EventCapture
from browser_ctx.core.redact import Redactor
from browser_ctx.core.tokens import count_tokens
from browser_ctx.settings import EventSettings
from tests.support.client import result_text
from tests.support.event_tools import SETTINGS
from tests.support.event_tools import tools as _tools

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_console_flood_folds_exactly_errors_first_and_cursor(site):
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/flood.html")
        out = await t.text("browser_console_messages")
        lines = out.splitlines()
        assert "[warning] ×20000 Slow frame: took" in out
        assert lines[1].startswith("[error] flood finished after 20000 warnings")
        assert lines.index(next(ln for ln in lines if ln.startswith("[info] flood starting"))) > 1
        assert count_tokens(out) < 300
        assert tab.events.load_summary()["consoleErrors"] >= 1
        # level=error keeps only errors; level=warning adds the warning but not the info.
        only_err = await t.text("browser_console_messages", level="error")
        assert "[warning]" not in only_err and "flood finished" in only_err
        warn = await t.text("browser_console_messages", level="warning")
        assert "×20000" in warn and "flood starting" not in warn
        # Cursor: nothing new since it; new messages (and new repeats) come back alone.
        first = await t.call("browser_console_messages")
        cursor = first.structured_content["cursor"]
        again = await t.text("browser_console_messages", since=cursor)
        assert "no messages" in again
        await tab.page.evaluate("console.log('fresh one'); console.warn('retry 1 failed')")
        await asyncio.sleep(0.3)
        new = await t.call("browser_console_messages", since=cursor)
        text = result_text(new)
        assert "[info] fresh one" in text and "[warning] retry 1 failed" in text
        assert "flood finished" not in text and "×20000" not in text
        # A repeat after the cursor brings its (folded) entry back, marked as seen before.
        await tab.page.evaluate("console.warn('retry 2 failed')")
        await asyncio.sleep(0.3)
        rep = await t.text("browser_console_messages", since=new.structured_content["cursor"])
        assert "[warning] ×2 retry 2 failed" in rep and "repeats since cursor" in rep and "fresh one" not in rep
        # pattern is a regex on the text; a bad one is a one-line error.
        pat = await t.text("browser_console_messages", pattern=r"fresh\s+one")
        assert "fresh one" in pat and "Slow frame" not in pat
        assert "regular expression" in await t.error("browser_console_messages", pattern="(")


async def test_console_big_string_cyclic_and_deep_stack(site):
    session, t = await _tools()
    async with session:
        await t.goto(f"{site}/events/big-console.html")
        out = await t.text("browser_console_messages")
        big = next(ln for ln in out.splitlines() if "BIG:" in ln)
        assert "[2,048,008 chars in all]" in big and len(big) < 450
        assert "after big" in out and count_tokens(out) < 400
        await t.goto(f"{site}/events/cyclic.html")
        out = await t.text("browser_console_messages")
        assert 'cyclic object: {name: "alpha", items: Array(3), self: {…}, child: {…}}' in out
        assert "array 3 items [10, 20, 30]" in out
        await t.goto(f"{site}/events/stack.html")
        await asyncio.sleep(0.3)
        out = await t.text("browser_console_messages")
        lines = out.splitlines()
        head = next(i for i, ln in enumerate(lines) if "Uncaught Error: deep failure at the bottom" in ln)
        frames = [ln for ln in lines[head + 1:] if ln.startswith("    at ")]
        assert len(frames) == 8 and all("recurse" in f for f in frames)
        assert "    … 192 more frames" in lines or "    … 193 more frames" in lines


async def test_sections_pushstate_keeps_full_navigation_starts_new(site):
    session, t = await _tools()
    async with session:
        await t.goto(f"{site}/events/pushstate.html")
        out = await t.text("browser_console_messages")
        assert "before route change" in out and "after route change (/events/pushstate.html:7) @/events/route-b" in out
        assert out.splitlines()[1].startswith("[error] error on route b")
        await t.goto(f"{site}/events/cyclic.html")
        current = await t.text("browser_console_messages")
        assert "before route change" not in current and "cyclic object" in current
        both = await t.text("browser_console_messages", all=True)
        assert "(earlier page)" in both and "(current page)" in both
        assert both.index("before route change") < both.index("cyclic object")


async def test_network_heavy_page(site):
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/network.html")
        listing = await t.call("browser_network_requests")
        out = result_text(listing)
        lines = out.splitlines()
        assert count_tokens(out) < 600
        poll = next(ln for ln in lines if "/events/api/poll" in ln)
        assert "×300" in poll and "→ 200" in poll
        assert any("/events/missing.json → 404" in ln for ln in lines)
        assert any("/events/api/fail → 500" in ln for ln in lines)
        assert any("/events/api/slow ✗ net::ERR_ABORTED (canceled)" in ln for ln in lines)
        cors = next(ln for ln in lines if "/events/api/data" in ln)
        assert cors.split()[2].startswith("http://localhost:") and "CORS MissingAllowOriginHeader" in cors
        redirect = next(ln for ln in lines if "redirect?n=3" in ln)
        assert "→302" in redirect and redirect.count("→302") == 3 and "redirect?n=0 → 200" in redirect
        big = next(ln for ln in lines if "big.json" in ln)
        assert "xhr" in big and " MB" in big
        assert "app.js" not in out and "static resource(s) hidden" in out
        assert "app.js" in await t.text("browser_network_requests", static=True)
        summary = tab.events.load_summary()
        assert summary["failedRequests"] >= 4
        # Filters.
        st4 = await t.text("browser_network_requests", status="4xx")
        assert "missing.json" in st4 and "api/fail" not in st4 and "poll" not in st4
        ge = await t.text("browser_network_requests", status=">=400")
        assert "missing.json" in ge and "api/fail" in ge
        rng = await t.text("browser_network_requests", status="500-599")
        assert "api/fail" in rng and "missing.json" not in rng
        failed = await t.text("browser_network_requests", failed=True)
        for word in ("missing.json", "api/fail", "ERR_ABORTED", "CORS"):
            assert word in failed
        assert "poll" not in failed
        assert "big.json" in await t.text("browser_network_requests", filter=r"big\.json$")
        xhr = await t.text("browser_network_requests", resourceTypes=["xhr"])
        assert "big.json" in xhr and "poll" not in xhr
        assert "no requests" in await t.text("browser_network_requests", method="DELETE")
        assert "status filter" in await t.error("browser_network_requests", status="4zz")
        assert "LOW <= HIGH" in await t.error("browser_network_requests", status="599-500")
        assert "regular expression" in await t.error("browser_network_requests", filter="[")
        assert "resourceTypes" in await t.error("browser_network_requests", resourceTypes=["nope"])
        # limit and cursor: a cut listing hands back a cursor that re-reads the rest.
        first = await t.call("browser_network_requests", limit=2)
        assert "more lines not shown (limit=2)" in result_text(first)
        rest = await t.text("browser_network_requests", since=first.structured_content["cursor"])
        assert "missing.json" in rest and "#1 GET /events/network.html" not in rest
        # One request: the big JSON body is shown as its shape, select fetches a part exactly.
        index = int(big.split()[0][1:])
        detail = await t.call("browser_network_request", index=index)
        text = result_text(detail)
        assert '"items": array[15000] of {' in text and '"price": number' in text and "select" in text
        body = await t.call("browser_network_request", index=index, part="response-body")
        assert detail.structured_content["fullBytes"] == body.structured_content["fullBytes"] > 3_000_000
        item = json.loads(await t.text("browser_network_request", index=index, select="$.items[7]"))
        assert item["id"] == 7 and item["name"] == "item number 7"
        ids = json.loads(await t.text("browser_network_request", index=index, select="$.items[0:5].id"))
        assert ids == [0, 1, 2, 3, 4]
        whole = await t.call("browser_network_request", index=index, part="response-body", select="$")
        meta = whole.structured_content
        assert meta["truncated"] is True and meta["fullLength"] > 3_000_000 and meta["nextOffset"] > 0
        nxt = await t.call("browser_network_request", index=index, part="response-body", select="$",
                           offset=meta["nextOffset"])
        assert nxt.structured_content["offset"] == meta["nextOffset"]
        assert "keys there: items, total, next" in await t.error("browser_network_request", index=index,
                                                                  select="$.nope")
        assert "Invalid select" in await t.error("browser_network_request", index=index, select="$..x")
        assert "No request #99999" in await t.error("browser_network_request", index=99999)
        # A binary body is described, not dumped; headers parts work.
        pixel = int(next(ln for ln in (await t.text("browser_network_requests", static=True)).splitlines()
                         if "pixel.png" in ln).split()[0][1:])
        assert "binary image/png" in await t.text("browser_network_request", index=pixel, part="response-body")
        assert "Content-Type: image/png" in await t.text("browser_network_request", index=pixel,
                                                         part="response-headers")
        # After navigating away the browser drops the body, and says so.
        await t.goto(f"{site}/events/cyclic.html")
        gone = await t.text("browser_network_request", index=index, part="response-body")
        assert "not available" in gone


async def test_service_worker_websocket_and_eventsource(site):
    session, t = await _tools()
    async with session:
        await t.goto(f"{site}/events/sw.html")
        out = await t.text("browser_network_requests")
        assert any("/events/sw-data → 200" in ln and "(service worker)" in ln for ln in out.splitlines())
        tab = await t.goto(f"{site}/events/ws.html", done="window.__sent >= 400 && window.__echoes >= 400")
        out = await t.text("browser_network_requests")
        ws = next(ln for ln in out.splitlines() if " WS " in ln)
        assert "open, ↑400 ↓400 frames" in ws and '↓"echo 400"' in ws
        index = int(ws.split()[0][1:])
        detail = await t.text("browser_network_request", index=index)
        assert "WebSocket: open; sent 400" in detail
        await tab.page.evaluate("window.__ws_closed = new Promise(r => { ws.onclose = r; ws.close(); })")
        await tab.page.wait_for_function("true")
        await asyncio.sleep(0.5)
        assert "closed, ↑400 ↓400 frames" in await t.text("browser_network_requests", resourceTypes=["websocket"])
        await t.goto(f"{site}/events/sse.html", done="window.__ticks >= 5")
        out = await t.text("browser_network_requests")
        es = next(ln for ln in out.splitlines() if "/events/api/stream" in ln)
        assert "eventsource open" in es and "messages" in es and 'last: ↓"tick' in es
        index = int(es.split()[0][1:])
        assert "No body is kept for a stream" in await t.text("browser_network_request", index=index,
                                                              part="response-body")


async def test_small_buffers_evict_and_say_so(site):
    settings = replace(SETTINGS, events=EventSettings(console_entries=3, network_entries=20))
    session, t = await _tools(settings)
    async with session:
        tab = await t.goto(f"{site}/events/cyclic.html")
        await tab.page.evaluate("for (let i = 0; i < 10; i++) console.log('distinct ' + 'abcdefghij'[i]);"
                                "for (let i = 0; i < 30; i++) fetch('/events/api/poll?n=' + i);")
        await asyncio.sleep(1.5)
        out = await t.text("browser_console_messages")
        assert "older entries" in out and "were evicted" in out
        assert len([ln for ln in out.splitlines() if ln.startswith("[")]) == 3
        net = await t.text("browser_network_requests")
        assert "older requests were evicted" in net
        assert "was evicted" in await t.error("browser_network_request", index=1)


async def test_listing_cut_by_max_tokens_returns_a_safe_cursor(site):
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/cyclic.html")
        await tab.page.evaluate("for (let i = 0; i < 200; i++) console.log('line ' + 'x'.repeat(i % 7) + "
                                "String.fromCharCode(65 + i % 26) + String.fromCharCode(97 + (i >> 3) % 26));")
        await asyncio.sleep(0.5)
        first = await t.call("browser_console_messages", maxTokens=400)
        text = result_text(first)
        assert not first.structured_content.get("truncated")  # the listing budgets itself
        assert "more entries not shown (maxTokens)" in text
        shown = {ln for ln in text.splitlines() if ln.startswith("[info]")}
        cursor = first.structured_content["cursor"]
        seen = set(shown)
        for _ in range(20):
            nxt = await t.call("browser_console_messages", maxTokens=400, since=cursor)
            lines = {ln for ln in result_text(nxt).splitlines() if ln.startswith("[info]")}
            seen |= lines
            if nxt.structured_content["cursor"] == cursor or "not shown" not in result_text(nxt):
                break
            cursor = nxt.structured_content["cursor"]
        everything = await t.text("browser_console_messages", maxTokens=8000)
        all_lines = {ln for ln in everything.splitlines() if ln.startswith("[info]")}
        assert all_lines and all_lines <= seen


async def test_console_hook_methods_frames_and_original_console(site):
    """The in-page hook renders the console API like DevTools, captures out-of-process iframes, and
    still hands every call to the original console (Playwright's own listener sees it)."""
    session, t = await _tools()
    async with session:
        tab = await session.current_tab()
        seen: list[str] = []
        tab.page.on("console", lambda m: seen.append(m.text))
        child = site.replace("127.0.0.1", "localhost") + "/events/console-child.html"
        tab = await t.goto(f"{site}/events/console-api.html?child={quote(child, safe='')}")
        for _ in range(100):  # the frame's batches wait for its session, attached when it commits (slow when busy)
            out = await t.text("browser_console_messages", level="debug")
            if "child frame warning" in out:
                break
            await asyncio.sleep(0.1)
        lines = out.splitlines()
        assert "[error] Assertion failed: math is broken (/events/console-api.html" in out
        assert "never shown" not in out
        assert "×3 clicks: 1" in out and "(numbers vary; latest shown)" in out
        assert "[info] styled text (" in out and "%c" not in out
        assert "[debug] debug detail" in out
        assert "logged through a saved reference" in out
        trace = next(i for i, ln in enumerate(lines) if "traced here" in ln)
        assert lines[trace + 1].startswith("    at inner (/events/console-api.html")
        assert lines[trace + 2].startswith("    at outer (/events/console-api.html")
        caught = next(i for i, ln in enumerate(lines) if "caught: TypeError: bad value" in ln)
        assert lines[caught].startswith("[error]") and lines[caught + 1].startswith("    at ")
        # The cross-site frame runs in its own renderer process (it has a CDP target of its own) ...
        frame = next(f for f in tab.page.frames if f.url.startswith("http://localhost"))
        oopif = await tab.page.context.new_cdp_session(frame)
        await oopif.detach()
        # ... and its 50 warnings are one entry, with the frame's own URL as source.
        assert re.search(r"\[warning\] ×50 child frame warning 49 \(http://localhost:\d+/events/console-child\.html:5\)",
                         out), out
        # Its network is captured through a session of its own target, bodies included.
        body = ""
        for _ in range(100):  # the frame polls; its session attaches when it commits (slow on a busy machine)
            net = await t.text("browser_network_requests", filter="from=child-frame", static=True)
            m = re.search(r"#(\d+) (?:×\d+ )?GET http://localhost:\d+/events/app\.js\?from=child-frame → 200", net)
            if m:  # a poll whose body is still coming has none yet: ask again, as a user would
                body = await t.text("browser_network_request", index=int(m.group(1)), part="response-body")
                if "window.__appLoaded = true" in body:
                    break
            await asyncio.sleep(0.1)
        assert m, net
        assert "window.__appLoaded = true" in body, body
        # Errors first, then time order: the assertion (first error logged) before the trace.
        assert out.index("Assertion failed") < out.index("caught: TypeError") < out.index("clicks: 1")
        # The original console still ran: Playwright's own console event saw the calls.
        assert "debug detail" in seen and "logged through a saved reference" in seen


async def test_console_flood_arrives_in_few_batches(site):
    """20,000 calls in one task cross the driver as a few dozen batches (the first 50 of a second go out
    at once, one call each; the rest wait for the task to end), and the count stays exact."""
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/flood.html?n=20000")
        out = await t.text("browser_console_messages", level="warning")
        assert "[warning] ×20000 Slow frame" in out
        assert 1 <= tab.events.hook_batches <= 60, tab.events.hook_batches


async def test_console_while_leaving_stays_with_its_page(site):
    """Messages logged just before a page navigates away are neither lost with the document nor
    filed under the next page, though they reach us after the next page's section began."""
    session, t = await _tools()
    async with session:
        for _ in range(3):  # the next page's messages must not land in the page that redirected at once
            await t.goto(f"{site}/events/leave.html?go=cyclic.html&now=1")
            current = await t.text("browser_console_messages")
            assert "cyclic object" in current and "leave page loaded" not in current, current
        await t.goto(f"{site}/events/leave.html?go=cyclic.html")
        both = await t.text("browser_console_messages", all=True)
        assert "(current page)" in both, both
        earlier, current = both.split("(current page)", 1)
        assert "leave page loaded" in earlier and "leaving the first page" in earlier, both
        assert "leaving" not in current and "cyclic object" in current


async def test_two_captures_on_one_tab_both_get_every_call(site):
    """Two browser-ctx sessions sharing a tab (--shared-context) each install a hook of their own."""
    session, t = await _tools()
    async with session:
        tab = await session.current_tab()
        second = EventCapture(tab.page, SETTINGS.events, Redactor(True))
        await second.start()
        try:
            await t.goto(f"{site}/events/flood.html?n=300")
            assert await second.sync(timeout=60)
            for capture in (tab.events, second):
                warn = [e for e in capture.console.entries() if e.level == "warning"]
                assert [e.count for e in warn] == [300]
        finally:
            await second.close()


async def test_hostile_page_cannot_break_capture_or_the_session(site):
    """A page that replaces JSON.stringify, adds toJSON to every object, sets Error.prepareStackTrace and
    logs from a Proxy trap still has its console captured, loads at once, and the session goes on."""
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/hostile.html", timeout=30_000)
        out = await t.text("browser_console_messages")
        assert "[error] still captured 42 (/events/hostile.html:15)" in out, out
        assert "watched: {}" in out
        assert await tab.page.evaluate("typeof __playwright__binding__") == "undefined"
        await t.goto(f"{site}/events/cyclic.html")
        assert "cyclic object" in await t.text("browser_console_messages")


async def test_paging_with_the_cursor_reaches_every_entry(site):
    """Errors first means a cut listing shows entries newer than the unshown 'start': passing the cursor
    back must go on to the next entries, not repeat the same page."""
    session, t = await _tools()
    async with session:
        await t.goto(f"{site}/events/many-errors.html")
        seen: list[str] = []
        since = None
        for _ in range(12):
            args: dict[str, int] = {} if since is None else {"since": since}
            result = await t.call("browser_console_messages", **args)
            text = result_text(result)
            names = re.findall(r"failure ([A-Z]{2}) ", text)
            assert not set(names) & set(seen), (names, seen)  # nothing repeated
            seen += names + (["start"] if "] start (" in text else [])
            since = result.structured_content["cursor"]
            if "not shown" not in text:
                break
        assert len(seen) == 41 and "start" in seen


async def test_popup_console_is_captured_from_its_first_script(site):
    """The hook is added to the whole browser context, so a popup's inline script, which runs before
    browser-ctx has adopted the new tab, is captured too."""
    session, t = await _tools()
    async with session:
        tab = await t.goto(f"{site}/events/cyclic.html")
        await tab.page.evaluate("window.open('/events/pushstate.html')")  # logs from its first inline script
        popup = None
        for _ in range(200):
            popup = next((x for x in session.tabs if x is not tab), None)
            if popup is not None:
                break
            await asyncio.sleep(0.05)
        assert popup is not None
        await popup.page.wait_for_function("window.__done === true", timeout=60_000)
        for _ in range(50):  # its binding arrives when the capture attaches; the hook retries until then
            await popup.events.sync(timeout=30)
            texts = [e.text for e in popup.events.console.entries()]
            if "before route change" in texts:
                break
            await asyncio.sleep(0.1)
        assert "before route change" in texts and "error on route b" in texts, texts
        assert "before route change" not in [e.text for e in tab.events.console.entries()]
