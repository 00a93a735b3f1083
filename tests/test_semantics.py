"""Semantics from Chromium's accessibility tree (browser/semantics.py) on the fixtures/semantics pages.

Each test loads one small page of a situation of the accessibility-tree work (generated content,
spanned tables and grids, canvas, SVG text, closed shadow roots, states and values, text hygiene,
long and sensitive values) in a real Chromium, hands the page's nodes over to a CDP session the way a
walker would, and checks what Chromium's answer carries, so the core can rely on it (or, for format
characters, CSS-uppercased names and card numbers, knows it must clean or mask it itself).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, CDPSession, Page, async_playwright

from browser_ctx._errors import PageError
from browser_ctx.browser import semantics
from browser_ctx.browser.launcher import BLINK_FEATURES, chromium_args, find_executable
from browser_ctx.browser.refs import FrameIds
from browser_ctx.browser.semantics import NodeSemantics
from browser_ctx.core.snapshot import render_snapshot
from browser_ctx.settings import LaunchSettings
from tests.support.walks import walked_html as extract_frame

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: Page-side: every element with an id, in document order.
WITH_IDS = "[...document.querySelectorAll('[id]')]"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    settings = LaunchSettings(offline_external=True)
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings),
                                     headless=True)
        try:
            yield b
        finally:
            await b.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context()
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture
async def cdp(page: Page) -> AsyncIterator[CDPSession]:
    session = await page.context.new_cdp_session(page)
    try:
        yield session
    finally:
        await semantics.release(session)
        await session.detach()


async def by_id(page: Page, cdp: CDPSession, site: str, name: str) -> dict[str, tuple[str, NodeSemantics]]:
    """Load ``fixtures/semantics/<name>`` and return id -> (objectId, semantics) for every element with an id."""
    await page.goto(f"{site}/semantics/{name}", wait_until="load")
    ids = await page.evaluate(f"{WITH_IDS}.map(e => e.id)")
    handle = await page.evaluate_handle(WITH_IDS)
    keys = await semantics.handoff(page, handle, cdp)
    await handle.dispose()
    assert len(keys) == len(ids) and all(keys)
    answers = await semantics.fetch(cdp, [k for k in keys if k])
    assert all(answers)
    return {i: (k, a) for i, k, a in zip(ids, keys, answers, strict=True) if k and a}


async def texts(cdp: CDPSession, key: str) -> list[str]:
    """The StaticText names Chromium shows under a node."""
    return [n.name for n in await semantics.subtree(cdp, key, role="StaticText")]


# --- situations -----------------------------------------------------------------------------------------------

async def test_css_generated_content_is_in_names_and_text(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "generated.html")
    price_key, _ = nodes["price"]
    assert "".join(await texts(cdp, price_key)) == "$19 per month"
    assert await texts(cdp, nodes["badge"][0]) == ["Out of stock"]
    email = nodes["email"][1]
    assert (email.role, email.name, email.required) == ("textbox", "Email *", True)
    delete = nodes["delete"][1]
    assert (delete.role, delete.name, delete.focusable) == ("button", "Delete item", True)


async def test_spanned_table_and_grid_roles_and_counts(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "table-spans.html")
    assert (nodes["sales"][1].role, nodes["sales"][1].name) == ("table", "Sales by region")
    assert (nodes["region"][1].role, nodes["region"][1].name) == ("columnheader", "Region")
    assert (nodes["north"][1].role, nodes["not-reported"][1].name) == ("cell", "not reported")
    orders = nodes["orders"][1]
    assert (orders.role, orders.name, orders.row_count, orders.col_count) == ("grid", "Orders", 200, 3)
    row = nodes["orders-row"][1]
    assert (row.role, row.row_index) == ("row", 2)
    cell = nodes["order-cell"][1]
    assert (cell.role, cell.name, cell.col_index, cell.row_count) == ("gridcell", "#1001", 1, None)


async def test_canvas_label_fallback_or_nothing(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "canvas.html")
    assert nodes["labelled"][1].name == "Revenue chart"
    assert await texts(cdp, nodes["fallback"][0]) == ["Revenue grew 12% in Q2.", "See the data table"]
    links = await semantics.subtree(cdp, nodes["fallback"][0], role="link")
    assert [(n.role, n.name) for n in links] == [("link", "See the data table")]
    bare_key, bare = nodes["bare"]
    assert bare.name == "" and await texts(cdp, bare_key) == []  # the reader must say "no text layer"
    assert {n[1].role for n in nodes.values()} == {"Canvas"}


async def test_svg_text_without_path_data(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "svg-chart.html")
    chart = await texts(cdp, nodes["chart"][0])
    assert chart == ["Jan", "Feb", "Mar", "Apr", "May", "4,200"]
    everything = await semantics.subtree(cdp, nodes["chart"][0])
    assert not any("M40" in (n.name + (n.value or "")) for n in everything)


async def test_closed_shadow_root_text_and_button_found_and_clicked(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "closed-shadow.html")
    host_key = nodes["host"][0]
    assert "Closed shadow total: 3 items" in await texts(cdp, host_key)
    buttons = await semantics.subtree(cdp, host_key, role="button")
    assert [(b.role, b.name) for b in buttons] == [("button", "Checkout now")]
    assert buttons[0].backend_node_id is not None
    # The same node by backend id, then acted on through an objectId: what a ref to it would do.
    [again] = await semantics.fetch(cdp, [buttons[0].backend_node_id])
    assert again is not None and again.name == "Checkout now"
    object_id = await semantics.resolve(cdp, buttons[0].backend_node_id)
    assert object_id
    await cdp.send("Runtime.callFunctionOn", {"objectId": object_id,
                                              "functionDeclaration": "function () { this.click(); }"})
    assert await page.text_content("#status") == "Checkout clicked"


async def test_states_values_levels_and_descriptions(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "states.html")
    name = nodes["name"][1]
    assert (name.role, name.name, name.description) == ("textbox", "Full name", "Full name is required")
    assert name.states == ("invalid", "required")
    assert (nodes["country"][1].role, nodes["country"][1].value) == ("combobox", "Spain")
    custom = nodes["custom-country"][1]
    assert (custom.role, custom.name, custom.value, custom.expanded) == ("combobox", "Country of residence", "Spain",
                                                                         False)
    assert nodes["terms"][1].states == ("checked",) and nodes["terms"][1].name == "Accept terms"
    assert nodes["bold"][1].states == ("pressed",)
    assert nodes["menu"][1].states == ("expanded",)
    assert nodes["off"][1].states == ("disabled",)
    assert (nodes["ro"][1].value, nodes["ro"][1].states) == ("fixed", ("readonly",))
    assert (nodes["tab1"][1].role, nodes["tab1"][1].selected) == ("tab", True)
    dialog = nodes["dialog"][1]
    assert (dialog.role, dialog.name, dialog.modal) == ("dialog", "Terms of service", True)
    assert (nodes["h3"][1].role, nodes["h3"][1].level) == ("heading", 3)
    # An empty <label for> does not hide the placeholder (Chromium alone would answer "").
    assert (nodes["search"][1].role, nodes["search"][1].name) == ("textbox", "Search orders")


async def test_text_hygiene_is_left_to_the_core(page, cdp, site) -> None:
    """Chromium keeps format characters, private-use glyphs and CSS text-transform in names: the core cleans."""
    nodes = await by_id(page, cdp, site, "text-hygiene.html")
    assert nodes["reset"][1].name == "Pass\u200bword re\u200bset"
    assert await texts(cdp, nodes["nav"][0]) == ["New order", "Orders", "Help"]  # separate nodes: no run-together
    assert nodes["shout"][1].name == "DELETE"
    assert nodes["icon-button"][1].name == "\ue5cd Close"


async def test_long_values_whole_and_sensitive_values_raw(page, cdp, site) -> None:
    nodes = await by_id(page, cdp, site, "long-values.html")
    [sha] = await texts(cdp, nodes["sha"][0])
    assert len(sha) == 128
    token = nodes["token"][1]
    assert token.value is not None and token.value.count(".") == 2 and len(token.value) > 150
    assert (nodes["pixel"][1].role, nodes["pixel"][1].name) == ("image", "Logo")

    nodes = await by_id(page, cdp, site, "sensitive.html")
    assert nodes["pw"][1].value is not None and set(nodes["pw"][1].value) == {"\u2022"}  # never the password
    # Card numbers and one-time codes come through in clear: the core must mask them.
    assert nodes["cc"][1].value == "4111 1111 1111 1111" and nodes["otp"][1].value == "918273"


# --- handing nodes over ---------------------------------------------------------------------------------------

async def test_handoff_keeps_order_and_joins_by_backend_id(page, cdp, site) -> None:
    await page.goto(f"{site}/semantics/states.html", wait_until="load")
    handle = await page.evaluate_handle("[document.getElementById('off'), 7, document.getElementById('bold')]")
    keys = await semantics.handoff(page, handle, cdp)
    await handle.dispose()
    assert keys[1] is None and keys[0] and keys[2]
    off, bold = await semantics.fetch(cdp, [keys[0], keys[2]])
    assert off is not None and bold is not None and (off.name, bold.name) == ("Unavailable", "Bold")
    assert off.backend_node_id is not None
    [off_again] = await semantics.fetch(cdp, [off.backend_node_id])
    assert off_again == off
    assert not await page.evaluate("Object.keys(globalThis).some(k => k.startsWith('__browserCtxAx'))")


async def test_hidden_and_removed_nodes(page, cdp, site) -> None:
    await page.goto(f"{site}/semantics/states.html", wait_until="load")
    await page.evaluate("document.getElementById('bold').setAttribute('aria-hidden', 'true')")
    handle = await page.evaluate_handle("[document.getElementById('bold'), document.getElementById('off')]")
    keys = [k for k in await semantics.handoff(page, handle, cdp) if k]
    await handle.dispose()
    await page.evaluate("document.getElementById('off').remove()")
    bold, off = await semantics.fetch(cdp, keys)
    assert bold is not None and bold.ignored
    assert off is None or off.ignored
    assert await semantics.fetch(cdp, []) == []


async def test_out_of_process_iframe_through_its_own_session(page, site) -> None:
    await page.goto(f"{site}/iframe.html", wait_until="load")
    frame = next(f for f in page.frames if f.url.startswith("http://localhost"))
    await frame.wait_for_load_state("load")
    session = await page.context.new_cdp_session(frame)
    try:
        handle = await frame.evaluate_handle("[document.getElementById('frame-button')]")
        keys = [k for k in await semantics.handoff(frame, handle, session) if k]
        await handle.dispose()
        [button] = await semantics.fetch(session, keys)
        assert button is not None and (button.role, button.name) == ("button", "Frame button")
        texts_in_frame = [n.name for n in await semantics.subtree(session, keys[0], role="StaticText")]
        assert texts_in_frame == ["Frame button"]
    finally:
        await semantics.release(session)
        await session.detach()


async def test_closed_page_is_a_page_error(browser) -> None:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.set_content("<button id=b>Go</button>")
        session = await context.new_cdp_session(page)
        handle = await page.evaluate_handle("[document.getElementById('b')]")
        keys = [k for k in await semantics.handoff(page, handle, session) if k]
        await page.close()
        with pytest.raises(PageError):
            await semantics.fetch(session, keys)
    finally:
        await context.close()


async def test_kept_nodes_found_by_token_in_every_kind_of_frame(page, site) -> None:
    """A walk's kept nodes are reached through the page's session (main and in-process frames) or the frame's own."""
    await page.goto(f"{site}/iframe.html", wait_until="load")
    same = page.frame_locator("#same")
    await same.locator("#frame-button").wait_for()
    await page.frame_locator("#cross").locator("#frame-button").wait_for()
    frames = {"main": page.main_frame,
              "same": next(f for f in page.frames if f.parent_frame and f.url.startswith(site)),
              "cross": next(f for f in page.frames if f.url.startswith("http://localhost"))}
    keep = ("(token) => { window.__browserCtx = {axToken: token, "
            "axKept: [document.querySelector('h1, button'), 'not a node']}; }")
    for label, frame in frames.items():
        await frame.evaluate(keep, f"token-{label}")
    async with semantics.FrameSessions(page) as sessions:
        answers = {label: await semantics.kept_semantics(sessions, frame, f"token-{label}")
                   for label, frame in frames.items()}
        again = await semantics.kept_semantics(sessions, frames["cross"], "token-cross")
        await frames["cross"].evaluate(keep, "token-cross")
        limited = await semantics.kept_semantics(sessions, frames["cross"], "token-cross", limit=1)
        missing = await semantics.kept_semantics(sessions, frames["same"], "no-such-token")
    main, same_answer, cross = answers["main"], answers["same"], answers["cross"]
    assert main[0] is not None and (main[0].role, main[0].name, main[1]) == ("heading", "IFRAME_PARENT_TEXT", None)
    for answer in (same_answer, cross):
        assert answer[0] is not None and (answer[0].role, answer[0].name, answer[1]) == ("button", "Frame button",
                                                                                          None)
    assert len(limited) == 2 and limited[0] is not None and limited[1] is None and missing == []
    assert again == []  # read once: the page keeps no reference to the kept nodes after the read


# --- joined into the walk (browser/walk.py) ---------------------------------------------------------------

async def test_walk_takes_names_states_and_values_from_chromium(page, site) -> None:
    await page.goto(f"{site}/semantics/generated.html", wait_until="load")
    html = await extract_frame(page.main_frame, frame_ids=FrameIds())
    assert 'data-name="Delete item"' in html  # named only by ::before: the walker alone found no name
    assert 'data-name="Email *"' in html
    assert "data-ax" not in html
    await page.goto(f"{site}/semantics/states.html", wait_until="load")
    html = await extract_frame(page.main_frame, frame_ids=FrameIds())
    snapshot = render_snapshot(html, title="States", url=page.url)
    assert 'textbox "Full name" [e1] invalid required' in snapshot
    assert 'combobox "Country of residence" [e3] collapsed = "Spain"' in snapshot
    assert 'dialog "Terms of service":' in snapshot
    assert 'textbox "Search orders"' in snapshot
    assert not await page.evaluate("window.__browserCtx.axKept")  # read once: no node kept alive
    await page.goto(f"{site}/semantics/text-hygiene.html", wait_until="load")
    html = await extract_frame(page.main_frame, frame_ids=FrameIds())
    assert 'data-name="Delete"' in html  # Chromium says "DELETE" (CSS text-transform); the page says "Delete"


async def test_walk_names_in_frames_of_every_kind(page, site) -> None:
    await page.goto(f"{site}/iframe.html", wait_until="load")
    await page.frame_locator("#cross").locator("#frame-button").wait_for()
    await page.frame_locator("#same").locator("#frame-button").wait_for()
    same = next(f for f in page.frames if f.parent_frame and f.url.startswith(site))
    cross = next(f for f in page.frames if f.url.startswith("http://localhost"))
    for frame in (same, cross):
        await frame.add_style_tag(content="#frame-button::after { content: ' now'; }")
    html = await extract_frame(page.main_frame, frame_ids=FrameIds())
    assert html.count('data-name="Frame button now"') == 2  # generated content: only Chromium knows it
    assert "data-ax" not in html


async def test_names_read_in_the_page_are_the_ones_cdp_gives(browser, site) -> None:
    """A walk reads names in the page (``Element.computedName``, one evaluate) when the browser has the feature
    flag, and asks each node over CDP without it: the walk is the same either way, values and states included."""
    settings = LaunchSettings(offline_external=True)
    plain = [a for a in chromium_args(settings) if not a.startswith(BLINK_FEATURES)]
    assert len(plain) == len(chromium_args(settings)) - 1
    other = await browser.browser_type.launch(executable_path=find_executable(settings), args=plain, headless=True)
    pages = [f"semantics/{n}.html" for n in ("generated", "states", "long-values", "svg-chart", "table-spans",
                                             "closed-shadow", "canvas")]
    pages += [f"widgets/{n}.html" for n in ("states", "choose", "files", "dates")]
    pages += ["login.html", "article.html", "iframe.html", "hidden.html", "shadow.html", "svg.html"]
    named = 0
    try:
        for path in pages:
            walks, paths = [], []
            for b in (browser, other):
                context = await b.new_context()
                try:
                    page = await context.new_page()
                    await page.goto(f"{site}/{path}", wait_until="load")
                    await page.wait_for_timeout(200)  # the widget pages render after load
                    walks.append(await extract_frame(page.main_frame, frame_ids=FrameIds()))
                    await page.evaluate("(t) => { window.__browserCtx = {axToken: t, axKept: [document.body]}; }",
                                        "token")
                    cdp = await context.new_cdp_session(page)
                    array = await semantics.kept_array(cdp, "token")
                    assert array is not None
                    paths.append(await semantics.computed_semantics(cdp, array))
                    await cdp.detach()
                finally:
                    await context.close()
            named += walks[0].count("data-name=")
            assert walks[0] == walks[1], path
            assert paths[0] is not None and paths[0][0] == 1 and paths[1] is None, path  # in page with the flag only
    finally:
        await other.close()
    assert named > 50
