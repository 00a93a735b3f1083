"""Debug output of failing pages: what a developer debugging them needs to see, in real Chromium.

Each test loads a small page from ``fixtures/events/`` reproducing a public report and reads it back
through the console and network tools (the server pipeline, so results are scrubbed and capped as
the client gets them).
"""

from __future__ import annotations

import re

import pytest

import tests.support.event_routes  # noqa: F401 - registers the dynamic routes
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
