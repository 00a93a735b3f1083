"""Debug output of failing pages: what a developer debugging them needs to see, in real Chromium.

Each test loads a small page from ``fixtures/events/`` reproducing a public report and reads it back
through the console and network tools (the server pipeline, so results are scrubbed and capped as
the client gets them).
"""

from __future__ import annotations

import asyncio
import re

import pytest

import tests.support.event_routes  # noqa: F401 - registers the dynamic routes
from tests.support.event_routes import ECHO_PATHS
from tests.support.event_tools import tools

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_a_workers_failing_fetch_is_listed_and_counted(site):
    """A dedicated worker's fetch that answers 500 is listed with "(worker)" and counted as a failed
    request; the worker's own script request finishes; its console calls are labelled too."""
    session, t = await tools()
    async with session:
        tab = await t.goto(f"{site}/events/worker.html")
        out = await t.text("browser_network_requests", static=True)
        lines = out.splitlines()
        fail = next(ln for ln in lines if "/events/api/fail" in ln)
        assert "→ 500" in fail and fail.endswith("(worker)"), out
        script = next(ln for ln in lines if "/events/worker.js" in ln)
        assert "→ 200" in script and "pending" not in script, out
        assert tab.events.load_summary()["failedRequests"] >= 1
        index = int(fail.split()[0][1:])
        assert '"error"' in await t.text("browser_network_request", index=index, part="response-body")
        console = await t.text("browser_console_messages")
        assert "[error] worker fetch failed with 500 (/events/worker.js:5) (worker)" in console, console
        assert "[info] worker started (/events/worker.js:2) (worker)" in console


async def test_requests_cut_by_navigation_are_closed_with_their_duration(site):
    """A fetch and an event stream still in flight when the page navigates away are closed as
    "cancelled by navigation" with how long they ran, never left pending."""
    session, t = await tools()
    async with session:
        await t.goto(f"{site}/events/cut-by-navigation.html", done=None)
        tab = await session.current_tab()
        await tab.page.wait_for_url("**/events/cyclic.html", timeout=60_000)
        await tab.page.wait_for_function("window.__done === true", timeout=60_000)
        out = await t.text("browser_network_requests", all=True)
        assert "pending" not in out, out
        slow = next(ln for ln in out.splitlines() if "/events/api/slow?s=20" in ln)
        assert re.search(r"✗ cancelled by navigation fetch \d+ms$", slow), slow
        stream = next(ln for ln in out.splitlines() if "/events/api/stream" in ln)
        assert "✗ cancelled by navigation eventsource closed" in stream and re.search(r"\d+ms$", stream), stream
        index = int(slow.split()[0][1:])
        body = await t.text("browser_network_request", index=index, part="response-body")
        assert "cut off by the page's navigation" in body, body


async def test_bodies_the_browser_did_not_keep_are_named_honestly(site):
    """Error responses the page never read (401, 413) and a body read as a blob are "not kept", never
    "not finished loading" or a size of 0; a safe method comes with a way to fetch it again."""
    session, t = await tools()
    async with session:
        await t.goto(f"{site}/events/unread-body.html")
        out = await t.text("browser_network_requests")
        index = {name: int(ln.split()[0][1:]) for ln in out.splitlines() for name in
                 ("unauthorized?kb=300", "unauthorized →", "too-large", "big.json") if name in ln}
        for name in ("unauthorized?kb=300", "unauthorized →"):
            body = await t.text("browser_network_request", index=index[name], part="response-body")
            assert "not kept by the browser (the page never read it)" in body, body
            assert "A GET is safe to repeat" in body and "fetch('/events/api/unauthorized" in body, body
            assert "call again" not in body
        post = await t.text("browser_network_request", index=index["too-large"], part="response-body")
        assert "the page never read it" in post and "not offered" in post and "POST" in post, post
        blob = await t.text("browser_network_request", index=index["big.json"], part="response-body")
        assert "not kept by the browser (the page read it as a blob or stream)" in blob, blob
        assert "0 B" not in blob and "empty" not in blob


async def test_a_long_message_can_be_read_whole_or_around_its_match(site):
    """A 1,900-character validation error whose cause is at its end: the listing cuts it, a pattern that
    matches only it shows it whole, and a pattern matching several entries shows the window around
    the match."""
    session, t = await tools()
    async with session:
        await t.goto(f"{site}/events/long-message.html")
        listing = await t.text("browser_console_messages")
        assert "Cause" not in listing and "chars in all]" in listing
        whole = await t.text("browser_console_messages", pattern="Cause")
        assert 'Cause: property "email" must match format "email" (got "ann@")' in whole, whole
        assert "field_20:" in whole and "chars in all" not in whole
        window = await t.text("browser_console_messages", pattern="Cause|unrelated")
        line = next(ln for ln in window.splitlines() if "ValidationError" in ln)
        assert "around the match]" in line and 'must match format "email"' in line and len(line) < 420, line


async def test_console_table_dir_and_group_keep_their_data(site):
    """console.table as a small table, console.dir three levels deep, console.group children indented."""
    session, t = await tools()
    async with session:
        await t.goto(f"{site}/events/structured-console.html")
        out = await t.text("browser_console_messages")
        assert ('[info] table: 3 rows × 3 columns ↵ (index) | name | age | role ↵ 0 | "Ann" | 31 | "admin" ↵ '
                '1 | "Bob" | 25 | "dev" ↵ 2 | "Cy" | 40 | "ops"') in out, out
        assert ('[info] {user: {name: "Ann", roles: ["admin", "dev"], address: {city: "Oslo", zip: "0150"}}, '
                'count: 2}') in out, out
        lines = out.splitlines()
        assert any(ln.startswith("[info] checkout (") for ln in lines)
        assert any(ln.startswith("[info]   cart loaded (") for ln in lines)
        assert any(ln.startswith("[warning]     card declined (") for ln in lines)
        assert any(ln.startswith("[info]   back in checkout (") for ln in lines)
        assert any(ln.startswith("[info] outside any group (") for ln in lines)


async def test_favicon_noise_is_listed_not_counted_and_a_404_chunk_says_404(site):
    """A missing favicon is listed once, marked, and left out of the load counts and the header's
    failure count; a module chunk that 404s is labelled 404, not "(canceled)"."""
    session, t = await tools()
    async with session:
        tab = await t.goto(f"{site}/events/missing-chunk.html")
        for _ in range(50):  # the browser fetches the favicon on its own, after the load
            if any(r.url.endswith("/favicon.ico") and r.status for r in tab.events.records()):
                break
            await asyncio.sleep(0.1)
        out = await t.text("browser_network_requests")
        lines = out.splitlines()
        assert "3 requests (1 failed)" in lines[0], out
        fav = next(ln for ln in lines if "/favicon.ico" in ln)
        assert fav.endswith("→ 404 (browser's own favicon fetch; not counted)"), fav
        chunk = next(ln for ln in lines if "/events/chunks/settings-3f9a.js" in ln)
        assert "→ 404 File not found script" in chunk and "canceled" not in chunk, chunk
        assert tab.events.load_summary() == {"consoleErrors": 2, "failedRequests": 1}
        console = await t.text("browser_console_messages")  # listed; said once, on the request's line
        assert "[error] Failed to load resource: 404 (File not found) (/favicon.ico)\n" in console + "\n", console


async def test_beacons_on_pagehide_are_a_documented_gap(site):
    """A beacon and a keepalive fetch sent on pagehide reach the server, but no CDP session of the page
    reports them (nor does the browser's, which has no Network domain): the README lists them as not
    captured. If Chromium starts reporting them, this fails: capture them and update the README."""
    session, t = await tools()
    async with session:
        ECHO_PATHS.clear()
        await t.goto(f"{site}/events/beacon.html")
        await t.goto(f"{site}/events/cyclic.html")
        for _ in range(100):
            if len(ECHO_PATHS) >= 2:
                break
            await asyncio.sleep(0.1)
        assert sorted(ECHO_PATHS) == ["/events/api/echo?beacon=pagehide", "/events/api/echo?keepalive=pagehide"]
        tab = await session.current_tab()
        assert await tab.events.sync(timeout=30)
        out = await t.text("browser_network_requests", all=True, static=True)
        assert "beacon.html" in out and "echo" not in out, out
