"""One owner of CDP per tab (:class:`browser_ctx.browser.page_cdp.PageCDP`): a navigate, a snapshot, a click in an
out-of-process iframe and a console read open one CDP session per target (the page's, the cross-site iframe's) and
the capture's worker hold, and nothing more. In-process through the real pipeline and a real Chromium; every
session is counted where Playwright opens it (``BrowserContext.new_cdp_session``)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from playwright.async_api import BrowserContext, Frame

from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_one_cdp_session_per_frame_across_navigate_snapshot_click_and_console(site, monkeypatch):
    opened: Counter[str] = Counter()
    new_cdp_session = BrowserContext.new_cdp_session

    async def counted(self: BrowserContext, page):  # every session anyone in the process opens
        cdp = await new_cdp_session(self, page)
        opened["frame" if isinstance(page, Frame) else "page"] += 1
        return cdp

    monkeypatch.setattr(BrowserContext, "new_cdp_session", counted)
    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/iframe.html"})  # a same-origin and a cross-site iframe
        snap = await call("browser_snapshot", {})
        assert "FRAME_ORIGIN_localhost" in snap and "FRAME_ORIGIN_127.0.0.1" in snap, snap
        tab = await session.current_tab()
        cross = next(f for f in tab.page.frames if f.url.startswith("http://localhost"))
        refs = re.findall(r'button "Frame button" \[(f\d+e\d+)\]', snap)
        assert len(refs) == 2, snap
        cross_ref = next(r for r in refs if tab.frame_ids.id_for(cross) == r.split("e")[0])
        await call("browser_click", {"target": cross_ref})  # acts in the out-of-process frame's world
        await call("browser_console_messages", {})
        await call("browser_snapshot", {})
        await call("browser_navigate", {"url": f"{site}/walks/counter.html"})  # the page's session lives on
        await call("browser_click", {"target": "e1"})

        # The page's shared session, the worker hold (an auto-attach setting of its own), the cross-site frame's.
        assert opened == Counter(page=2, frame=1), opened
        assert Counter(tab.cdp.opened) == Counter(page=1, own=1, frame=1), tab.cdp.opened
        page_session = await tab.cdp.session()
        assert tab.events.cdp is page_session  # the capture listens on it

        await session.close_tab(tab)
        assert not tab.cdp.is_open(page_session)  # closed with the tab
