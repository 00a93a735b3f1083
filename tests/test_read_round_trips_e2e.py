"""A whole-page snapshot waits on few CDP round trips (issue 23's speed target): the walk reads Chromium's names of
its kept nodes itself once the document's accessibility tree is held, only the nodes whose CDP answer says more
are asked over CDP (their keys picked, not the whole kept list), and a document without click listeners sends no
empty keep. In-process through the real pipeline and a real Chromium, every CDP command counted as it is sent."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import CDPSession

from browser_ctx.browser import listeners, semantics
from browser_ctx.browser.scripts import bundle, script
from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict, dict]]:
    """Every CDP command anyone in the process sends: (method, params, answer)."""
    log: list[tuple[str, dict, dict]] = []
    send = CDPSession.send

    async def counted(self: CDPSession, method: str, params: dict | None = None) -> dict:
        answer = await send(self, method, params)
        log.append((method, params or {}, answer))
        return answer

    monkeypatch.setattr(CDPSession, "send", counted)
    return log


async def test_the_walk_reads_chromiums_names_and_cdp_is_asked_only_about_the_nodes_that_need_it(site, sent,
                                                                                                monkeypatch):
    async with in_process() as run:
        call = run.call
        await call("browser_navigate", {"url": f"{site}/semantics/states.html"})
        await call("browser_snapshot", {})  # reads the card's walk: the next snapshot walks
        del sent[:]
        snap = await call("browser_snapshot", {"force": True})
        # what only Chromium's accessibility tree says: an invalid field, a custom combobox's value, a name
        # from a placeholder
        assert re.search(r'textbox "Full name" \[e\d+\].*invalid', snap), snap
        assert re.search(r'combobox "Country of residence".*Spain', snap), snap
        assert 'textbox "Search orders"' in snap, snap
        methods = [m for m, _, _ in sent]
        assert not any(p.get("functionDeclaration") == script("ax_computed") for _, p, _ in sent), \
            "the walk read the names itself: no ax_computed call over CDP"
        assert not any(str(p.get("expression", "")).startswith(f"({script('ax_kept')})") for _, p, _ in sent)
        asked = [a for m, _, a in sent if m == "Runtime.getProperties"]
        assert asked, methods  # some nodes need CDP's answer (invalid, value roles, placeholder names)
        picked = max(sum(1 for p in a.get("result", []) if p.get("name", "").isdigit()) for a in asked)
        fetched = methods.count("Accessibility.getPartialAXTree") - 1  # less the one that held the tree
        assert picked <= fetched, (picked, fetched, "keys of the nodes asked only, not of every kept node")

        # The same snapshot through the CDP path (the tree not held before the walk) reads the same.
        async def not_held(*_args, **_kwargs) -> bool:
            return False

        monkeypatch.setattr(semantics, "hold_small_tree", not_held)
        again = await call("browser_snapshot", {"force": True})
        assert again == snap


async def test_a_document_without_click_listeners_sends_no_empty_keep_and_forgets_the_old_ones(site, sent):
    keep = bundle("listened")

    def keeps() -> int:
        return sum(1 for _, p, _ in sent if p.get("functionDeclaration") == keep)

    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/article.html"})
        del sent[:]
        snap = await call("browser_snapshot", {})
        assert "Like this" not in snap
        assert keeps() == 0, "no listeners: nothing to keep, no call"

        tab = await session.current_tab()
        await tab.page.evaluate("""() => {
            window.__like = () => {};
            const s = document.createElement('span');
            s.textContent = 'Like this';
            s.addEventListener('click', window.__like);
            document.body.prepend(s);
        }""")
        snap = await call("browser_snapshot", {})
        assert re.search(r'clickable "Like this" \[e\d+\]', snap), snap
        assert keeps() == 1

        await tab.page.evaluate("() => document.body.firstElementChild.removeEventListener('click', window.__like)")
        snap = await call("browser_snapshot", {"force": True})
        assert "Like this" in snap and not re.search(r'clickable "Like this"', snap), snap
        assert keeps() == 1, "the listener went: the walk forgets the kept set without a call"


async def test_a_new_documents_first_read_neither_fails_on_the_old_world_nor_asks_for_the_new_one(site, sent,
                                                                                             monkeypatch):
    """The page session's context events keep the isolated world's context current across documents."""
    failed: list[str] = []
    send = CDPSession.send  # the fixture's counting wrapper

    async def noted(self: CDPSession, method: str, params: dict | None = None) -> dict:
        try:
            return await send(self, method, params)
        except Exception as exc:
            failed.append(f"{method}: {exc}")
            raise

    monkeypatch.setattr(CDPSession, "send", noted)
    async with in_process() as run:
        call = run.call
        await call("browser_navigate", {"url": f"{site}/article.html"})
        await call("browser_snapshot", {})
        for page, heading in (("semantics/states.html", "h1 Profile"), ("article.html", "Headings")):
            del sent[:], failed[:]
            card = await call("browser_navigate", {"url": f"{site}/{page}"})
            assert heading in card, card
            methods = [m for m, _, _ in sent]
            assert "Page.createIsolatedWorld" not in methods, methods
            assert not [f for f in failed if f.startswith("Runtime.callFunctionOn")], failed


async def test_the_walk_is_sent_once_per_document_and_a_listened_set_once_per_change(site, sent):
    """The walk's 100 kB script is kept in the world of each document it ran in (later walks call it by number;
    one the world lost is sent again), and the same listened-to elements are not handed over again unless the
    world lost them."""
    walk, keep = bundle("walk"), bundle("listened")

    def whole() -> int:
        return sum(1 for _, p, _ in sent if walk in str(p.get("functionDeclaration", "")))

    def calls() -> int:
        return sum(1 for m, _, _ in sent if m == "Runtime.callFunctionOn")

    def keeps() -> int:
        return sum(1 for _, p, _ in sent if p.get("functionDeclaration") == keep)

    def finds() -> int:
        return sum(1 for _, p, _ in sent if p.get("objectGroup") == listeners.DOCUMENT_GROUP)

    async with in_process() as run:
        session, call = run.session, run.call
        await call("browser_navigate", {"url": f"{site}/article.html"})
        tab = await session.current_tab()
        await tab.page.evaluate("""() => { const s = document.createElement('span'); s.textContent = 'Like this';
            s.addEventListener('click', () => {}); document.body.prepend(s); }""")
        del sent[:]
        first = await call("browser_snapshot", {})
        assert re.search(r'clickable "Like this" \[e\d+\]', first), first
        assert whole() == 0 and calls() > 0, "the navigation's walk kept the script in this document's world"
        assert keeps() == 1
        del sent[:]
        assert await call("browser_snapshot", {"force": True}) == first
        assert keeps() == 0, "the same listened-to elements: not handed over again"
        assert finds() == 0, "the document object of the last listing is asked again"

        await tab.page.evaluate("""() => { const s = document.createElement('span'); s.textContent = 'Share this';
            s.addEventListener('click', () => {}); document.body.prepend(s); }""")
        snap = await call("browser_snapshot", {"force": True})
        assert re.search(r'clickable "Share this" \[e\d+\]', snap) and 'clickable "Like this"' in snap, snap
        assert keeps() == 1

        # a world without the set (as a replaced document's, under the same context id) is given it again
        await tab.worlds.evaluate(tab.page.main_frame, """() => { const bc = window.__browserCtx;
            bc.listened = null; bc.listenedToken = undefined; }""")
        assert await call("browser_snapshot", {"force": True}) == snap
        assert keeps() == 2

        await tab.worlds.evaluate(tab.page.main_frame, "() => { delete globalThis.__browserCtxScripts; }")
        del sent[:]
        assert await call("browser_snapshot", {"force": True}) == snap
        assert whole() == 1, "the world lost it: sent whole again"

        del sent[:]
        card = await call("browser_navigate", {"url": f"{site}/semantics/states.html"})
        assert "Profile" in card
        assert whole() == 1, "a new document: sent whole once"
        assert finds() == 1, "a new document: its document object found again"
        await call("browser_snapshot", {"force": True})
        assert whole() == 1


async def test_a_native_selects_value_is_the_walks_not_asked_over_cdp(site, sent):
    async with in_process() as run:
        call = run.call
        await call("browser_navigate", {"url": f"{site}/actions/latency/toast.html"})
        await call("browser_snapshot", {})
        del sent[:]
        snap = await call("browser_snapshot", {"force": True})
        assert 'select "Theme" [e4] = "Light" (3 options: Light, Dark, System)' in snap, snap
        methods = [m for m, _, _ in sent]
        assert "Runtime.getProperties" not in methods, methods  # no node's keys picked: none is asked
        assert methods.count("Accessibility.getPartialAXTree") == 1, methods  # the one that held the tree
