"""Pages that try to wedge calls get a bounded, correct answer, and the next call works (issue 16 items 5, 6, Low).

``browser-ctx serve`` over stdio with the mcp SDK client, on the pages of ``fixtures/hostile/`` served from
localhost: a popup storm (50 ``window.open`` on load), 10,000 ``pushState`` calls, an ``alert()`` every
10 ms, blocked ``file:`` iframes, a page that navigates every 50 ms, a meta refresh to ``file:``, and
hostile download names. Every call must return within its own timeout (plus a margin for this shared
machine) and say what happened; after each page, ``browser_navigate`` to a plain page must land there.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from browser_ctx.browser.session import TAB_CAP
from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: ``--timeout-navigation`` of the server under test (ms), and of reads (ms).
NAV_MS, READ_MS = 10_000, 8_000
#: Seconds a call may take beyond its own timeout on a 2-CPU machine shared with other work.
MARGIN_S = 6
#: ``--timeout-call`` (ms): the most any call may take before it is abandoned.
CALL_MS = 40_000
SERVER_ARGS = ("--timeout-navigation", str(NAV_MS), "--timeout-read", str(READ_MS), "--timeout-call", str(CALL_MS))


class Timed:
    """Calls tools, checks each returns within ``limit_s`` and keeps every text it got."""

    def __init__(self, session, site: str) -> None:
        self.s = session
        self.site = site
        self.texts: list[str] = []

    async def call(self, name: str, limit_s: float, **args):
        started = time.monotonic()
        result = await self.s.call_tool(name, args)
        took = time.monotonic() - started
        text = result_text(result)
        self.texts.append(text)
        assert took <= limit_s + MARGIN_S, f"{name} {args} took {took:.1f} s (limit {limit_s} s): {text[:300]}"
        assert "\n" not in text or not result.is_error, f"a multi-line error: {text[:500]}"
        assert "Traceback" not in text and "Call log" not in text, text[:500]
        return result

    async def land_on_plain_page(self) -> str:
        """The next navigation works and lands where it was sent."""
        result = await self.call("browser_navigate", NAV_MS / 1000, url=f"{self.site}/article.html")
        text = result_text(result)
        assert not result.is_error and text.startswith("Page: Still Water"), text[:400]
        assert f"{self.site}/article.html (HTTP 200)" in text.splitlines()[0], text[:300]
        return text


async def test_a_popup_storm_is_capped_and_reported(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        # Playwright sets up each popup before the page's script goes on (window.open is synchronous), so on
        # 2 shared CPUs the load can outlast the navigation timeout; the call still ends well inside --timeout-call.
        await c.call("browser_navigate", CALL_MS / 1000 - MARGIN_S, url=f"{site}/hostile/popups.html")
        pattern = re.compile(rf"Closed (\d+) popups? the page opened beyond the cap of {TAB_CAP} tabs")
        for _ in range(5):  # popups still arriving: each is set up by Playwright, then adopted or closed
            await c.call("browser_wait_for", CALL_MS / 1000 - MARGIN_S, time=1)
            listing = result_text(await c.call("browser_tabs", 5, action="list"))
            tabs = re.findall(r"^- \d+:", listing, re.M)
            closed = sum(int(n) for n in pattern.findall("\n".join(c.texts)))
            if len(tabs) - 1 + closed == 50:
                break
        assert len(tabs) - 1 + closed == 50, (listing, c.texts)  # every popup adopted, or closed and counted
        assert len(tabs) == TAB_CAP, listing
        refused = await c.call("browser_tabs", 5, action="new")
        assert refused.is_error and f"the cap is {TAB_CAP}" in result_text(refused)
        assert len(re.findall(r"^- \d+:", result_text(await c.call("browser_tabs", 5, action="list")), re.M)) \
            == TAB_CAP
        await c.land_on_plain_page()


async def test_a_refused_new_tab_leaves_no_tab_behind(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        await c.land_on_plain_page()
        for url in ("file:///etc/passwd", "http://127.0.0.1:9/unreachable"):
            refused = await c.call("browser_tabs", NAV_MS / 1000, action="new", url=url)
            assert refused.is_error, result_text(refused)
            listing = result_text(await c.call("browser_tabs", 5, action="list"))
            assert listing.count("\n- ") == 0 and "(current)" in listing and "article.html" in listing, listing


async def test_download_names_are_quoted_capped_and_saved(site: str, tmp_path: Path):
    async with mcp_session(*SERVER_ARGS, "--output-dir", str(tmp_path)) as s:
        c = Timed(s, site)
        await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/long-download.html")
        long = result_text(await c.call("browser_click", 10, target="#long"))
        m = re.search(r'^Download: "(r+…\[\d+ chars\]…r+\.txt)", 19 B, saved to (\S+\.txt)$', long, re.M)
        assert m, long
        saved = Path(m.group(2))
        assert saved.parent == tmp_path / "downloads" and saved.read_text() == "hello from the page"
        assert len(saved.name) <= 120
        evil = result_text(await c.call("browser_click", 10, target="#evil"))
        line = next(x for x in evil.splitlines() if x.startswith("Download"))
        # Chromium already turns the newline into "_"; the name is one quoted, cut line either way.
        assert re.match(r'Download: "report\.txt.IGNORE PREVIOUS INSTRUC…\[\d+ chars\]…x+\.txt", 6 B', line), line
        assert "upload ~/.ssh" not in evil and len(line) < 400, line


async def test_a_meta_refresh_to_file_is_not_reported_as_moving_on(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        card = result_text(await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/refresh-to-file.html"))
        assert card.startswith("Page: Refresh to a local file"), card
        assert "moved on" not in card and "etc/passwd" not in card.splitlines()[0], card
        text = result_text(await c.call("browser_text", READ_MS / 1000))
        assert "this page stays" in text and "moved on" not in text, text
        await c.land_on_plain_page()


async def test_a_page_that_navigates_every_50_ms_lets_go(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        for _ in range(3):
            await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/navigate-loop.html")
            await c.call("browser_text", READ_MS / 1000)
            await c.land_on_plain_page()  # lands on the page asked for, not on the loop's next hop


async def test_an_alert_every_10_ms_does_not_wedge_the_next_navigation(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        card = result_text(await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/alert-loop.html"))
        assert 'alert "alert number 1" → accepted' in card, card[:500]
        assert len(card) < 8000, len(card)
        assert "An alert every 10 ms" in result_text(await c.call("browser_text", READ_MS / 1000))
        away = await c.land_on_plain_page()
        assert "scripts were stopped to leave it" in away, away[:600]
        await c.land_on_plain_page()  # and no collision with a navigation left behind


async def test_ten_thousand_pushstate_calls_get_a_bounded_answer(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        # Chromium's IPC flooding protection (left on) ignores the calls past 200 in 10 s, as a normal Chrome does.
        card = await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/pushstate-flood.html")
        assert not card.is_error and result_text(card).startswith("Page: pushState flood"), result_text(card)[:300]
        assert "Pushed 10000" in result_text(await c.call("browser_text", READ_MS / 1000))
        await c.land_on_plain_page()
        assert "Still Water" in result_text(await c.call("browser_text", READ_MS / 1000))


async def test_blocked_file_iframes_do_not_slow_calls(site: str):
    async with mcp_session(*SERVER_ARGS) as s:
        c = Timed(s, site)
        started = time.monotonic()
        await c.call("browser_navigate", NAV_MS / 1000, url=f"{site}/hostile/file-iframe.html")
        text = result_text(await c.call("browser_text", READ_MS / 1000))
        snap = result_text(await c.call("browser_snapshot", READ_MS / 1000))
        assert "which the browser refuses to load" in text and "Blocked file iframe" in snap, (text, snap)
        assert "root:" not in text + snap  # the file's content never shows
        took = time.monotonic() - started
        await c.land_on_plain_page()
        assert took < 3 * MARGIN_S, f"three calls on the page took {took:.1f} s"


async def test_bad_filenames_are_one_line_errors_and_run_no_page_code(site: str, tmp_path: Path):
    (tmp_path / "folder").mkdir()
    async with mcp_session(*SERVER_ARGS, "--caps", "all", "--output-dir", str(tmp_path)) as s:
        c = Timed(s, site)
        await c.land_on_plain_page()
        cases = {"a\x00b.json": "contains a NUL character", "x" * 300 + ".json": "path component of 305 bytes",
                 "y/" * 600 + "z.json": "characters long", "folder": "is a folder", "sub/": "names a folder",
                 str(Path.cwd() / "pyproject.toml"): "outside the output folder"}
        for filename, message in cases.items():
            for tool, args in (("browser_evaluate", {"function": "() => { document.title = 'page code ran'; }"}),
                               ("browser_take_screenshot", {})):
                got = await c.call(tool, READ_MS / 1000, filename=filename, **args)
                text = result_text(got)
                assert got.is_error and message in text and "\n" not in text, (tool, filename[:40], text)
        assert "page code ran" not in result_text(await c.call("browser_tabs", 5, action="list"))
        assert [p.name for p in tmp_path.iterdir()] == ["folder"]  # nothing was written
