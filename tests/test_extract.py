"""The in-page walker against real Chromium and the fixtures site (docs/visible-html.md).

The walks are checked through their HTML serialisation (:func:`browser_ctx.core.tree.to_html`), the form
``docs/visible-html.md`` describes."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import async_playwright
from selectolax.lexbor import LexborHTMLParser, LexborNode

from browser_ctx._errors import InvalidArgument, SelectorError
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.refs import FrameIds, is_ref, page_version, ref_frame_prefix, register_ref_engine
from browser_ctx.browser.worlds import Worlds
from browser_ctx.settings import LaunchSettings
from tests.support.site import FIXTURES
from tests.support.walks import walked_html as extract_frame
from tests.support.walks import walked_parts as extract_locator

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def browser():
    settings = LaunchSettings(offline_external=True)
    async with async_playwright() as pw:
        await register_ref_engine(pw)
        await register_ref_engine(pw)  # idempotent
        b = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings),
                                     headless=True)
        try:
            yield b
        finally:
            await b.close()


@pytest.fixture
async def page(browser):
    context = await browser.new_context()
    try:
        yield await context.new_page()
    finally:
        await context.close()


_WORLDS: dict[object, Worlds] = {}


def worlds_of(page) -> Worlds:
    """The page's isolated worlds (one per page, as a Tab keeps them): the walker runs there, and bcref reads there."""
    if page not in _WORLDS:
        _WORLDS.clear()  # one page at a time in this module
        _WORLDS[page] = Worlds(page)
    return _WORLDS[page]


async def load(page, site: str, path: str) -> tuple[str, FrameIds]:
    await page.goto(f"{site}/{path}", wait_until="load")
    ids = FrameIds()
    return await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page)), ids


def sentinels(path: str, prefix: str) -> set[str]:
    return set(re.findall(prefix + r"[A-Z0-9_]+", (FIXTURES / path).read_text()))


def ref_of(html: str, text: str) -> str:
    """The data-ref of the first element whose data-name is ``text``."""
    node = LexborHTMLParser(html).css_first(f'[data-name="{text}"]')
    assert node is not None, f"no element named {text!r} in {html[:300]}"
    ref = node.attributes["data-ref"]
    assert ref is not None, node.html
    return ref


def el(root: LexborHTMLParser | LexborNode, css: str) -> LexborNode:
    """The first element under ``root`` matching ``css``; fails the test when there is none."""
    node = root.css_first(css)
    assert node is not None, f"nothing matches {css!r}"
    return node


# --- hidden content ---------------------------------------------------------------------------------------------

async def test_no_hidden_sentinel_and_every_visible_one(page, site):
    html, _ = await load(page, site, "hidden.html")
    hidden = sentinels("hidden.html", "HIDDEN_")
    visible = sentinels("hidden.html", "VISIBLE_")
    assert len(hidden) >= 20 and len(visible) >= 8
    assert sorted(s for s in hidden if s in html) == []
    assert sorted(s for s in visible if s not in html) == []


async def test_sr_only_text_names_the_icon_button_but_is_not_text(page, site):
    html, _ = await load(page, site, "hidden.html")
    tree = LexborHTMLParser(html)
    button = el(tree, 'button[data-name="Close dialog"]')
    assert re.fullmatch(r"e\d+", button.attributes["data-ref"] or "")
    assert tree.body is not None and "Close dialog" not in tree.body.text()
    assert button.attributes["class"] == "btn btn-icon icon-close"  # first three class tokens only


async def test_attributes_follow_the_table(page, site):
    html, _ = await load(page, site, "hidden.html")
    tree = LexborHTMLParser(html)
    hrefs = {a.text(): a.attributes.get("href") for a in tree.css("a")}
    assert hrefs["Home"] == f"{site}/"
    assert hrefs["Relative link"] == f"{site}/page.html?q=1#top"
    assert hrefs["Script link"] == "javascript:"
    assert hrefs["Data link"] == "data:"
    assert "PAYLOAD" not in html
    # a visually hidden checkbox with a label is kept, with its live state
    box = el(tree, 'input[type="checkbox"]')
    assert "checked" in box.attributes and box.attributes["data-name"] == "I agree VISIBLE_CUSTOM_CHECK"
    assert el(tree, '[role="button"]').attributes["aria-pressed"] == "false"
    assert tree.css_first('[data-value="Editable VISIBLE_EDITABLE"]') is not None
    assert el(tree, "th[colspan]").attributes["colspan"] == "2"
    assert tree.css_first("td[colspan]") is None
    assert [o.text() for o in tree.css("option[selected]")] == ["Banana"]
    assert el(tree, "table").attributes["data-name"] == "Prices"
    assert el(tree, "nav").attributes["data-name"] == "Primary"
    assert "line one\n    indented   line two" in el(tree, "pre").text()
    assert "&amp; an ampersand &lt;tag&gt;." in html
    assert "<details><summary" in html and "<details open>" in html
    assert "HIDDEN_INPUT_VALUE" not in html and "csrf" not in html


async def test_live_checked_state_and_values(page, site):
    await page.goto(f"{site}/hidden.html")
    await page.uncheck("#agree")
    await page.select_option("select", "Apple")
    ids = FrameIds()
    tree = LexborHTMLParser(await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page)))
    assert "checked" not in el(tree, 'input[type="checkbox"]').attributes
    assert [o.text() for o in tree.css("option[selected]")] == ["Apple"]


# --- shadow DOM, frames, noise, graphics, forms -------------------------------------------------------------------

async def test_open_shadow_roots_are_flattened_with_slots(page, site):
    html, _ = await load(page, site, "shadow.html")
    shown = ["SLOTTED_TITLE", "DEFAULT_SLOT_TEXT", "SHADOW_PRICE_TEXT", "SLOT_FALLBACK_VISIBLE", "SHADOW_BUTTON",
             "NESTED_SHADOW_TEXT", "CLOSED_SHADOW_TEXT"]
    positions = [html.find(s) for s in shown]
    assert -1 not in positions, html
    assert positions == sorted(positions)  # slotted content sits where its slot is
    # a closed shadow root with no slot renders none of its host's light children: CLOSED_LIGHT_TEXT has no box;
    # the closed root's own content is read through CDP (browser/closed_shadow.py)
    for absent in ("FALLBACK_TITLE_UNUSED", "UNASSIGNED_LIGHT_CHILD", "SHADOW_HIDDEN_TEXT", "SHADOW_HIDDEN_NESTED",
                   "CLOSED_LIGHT_TEXT", ":host"):
        assert absent not in html
    tree = LexborHTMLParser(html)
    field = tree.css_first('input[data-name="Nested search"]')
    assert field is not None and field.attributes["data-value"] == "NESTED_VALUE"
    assert el(tree, "h2").text() == "SLOTTED_TITLE"
    ref = ref_of(html, "SHADOW_BUTTON")
    assert await page.locator(f"bcref={ref}").text_content() == "SHADOW_BUTTON"


async def test_frames_same_and_cross_origin_are_spliced(page, site, other_origin):
    html, ids = await load(page, site, "iframe.html")
    tree = LexborHTMLParser(html)
    frames = tree.css("bc-frame")
    assert len(frames) == 2, html  # the display:none frame is not emitted
    by_url = {f.attributes["data-url"]: f for f in frames}
    same = by_url[f"{site}/frame-child.html"]
    cross = by_url[f"{other_origin}/frame-child.html?x"]
    assert "FRAME_ORIGIN_127.0.0.1" in same.text() and "FRAME_CHILD_TEXT" in same.text()
    assert "FRAME_ORIGIN_localhost" in cross.text() and "FRAME_CHILD_TEXT" in cross.text()
    assert same.attributes["data-name"] == "Same-origin frame"
    assert "FRAME_HIDDEN_TEXT" not in html and "<body" not in html[5:]
    assert html.index("IFRAME_PARENT_TEXT") < html.index("FRAME_CHILD_TEXT") < html.index("IFRAME_PARENT_FOOTER")
    for frame_el in frames:
        fid = frame_el.attributes["data-frame"] or ""
        assert re.fullmatch(r"f\d+", fid)
        ref = el(frame_el, "button").attributes["data-ref"] or ""
        assert ref.startswith(fid + "e") and ref_frame_prefix(ref) == fid
        frame = ids.frame_for(page, fid)
        assert frame is not None
        assert await frame.locator(f"bcref={ref}").text_content() == "Frame button"
        assert await frame.locator(f"bcref={ref}").count() == 1
    # the same ref asked of the wrong frame matches nothing
    assert await page.main_frame.locator(f"bcref={el(frames[0], 'button').attributes['data-ref']}").count() == 0
    # a part of the page: frames are spliced only when inside it
    [section] = await extract_locator(page.locator("#frames"), frame_ids=ids, worlds=worlds_of(page))
    assert section.count("FRAME_CHILD_TEXT") == 2 and "IFRAME_PARENT_TEXT" not in section
    [heading] = await extract_locator(page.locator("h1"), frame_ids=ids, worlds=worlds_of(page))
    assert heading == "<h1>IFRAME_PARENT_TEXT</h1>"


async def test_detached_frame_leaves_an_empty_placeholder(page, site):
    await page.goto(f"{site}/iframe.html", wait_until="load")
    ids = FrameIds()
    child = page.frames[1]
    handle = await child.frame_element()
    await handle.evaluate("el => { el.__browserCtxFrameId = 'f1' }")
    await handle.dispose()
    # remove the frame element between marking and reading: the reader must not raise
    await page.evaluate("() => document.getElementById('cross').remove()")
    html = await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page))
    assert html.count("<bc-frame") == 1 and "FRAME_ORIGIN_localhost" not in html


async def test_noise_is_dropped(page, site):
    html, _ = await load(page, site, "noise.html")
    found = set(re.findall(r"NOISE_[A-Z_]+", html))
    assert found == {"NOISE_VISIBLE_HEADING", "NOISE_VISIBLE_TEXT", "NOISE_VISIBLE_AFTER_COMMENT",
                     "NOISE_WRITTEN_VISIBLE"}
    for junk in ("<!--", "style=", "onclick", " id=", "data-tracking", "font-family", "{"):
        assert junk not in html


async def test_svg_paths_and_data_uris_are_dropped_names_kept(page, site):
    html, _ = await load(page, site, "svg.html")
    # path data never; the text of an svg named as one image (role=img) neither, its children being
    # presentational; a canvas's fallback content is what it says when it has no name (issue 12 items 6-7)
    for junk in ("12.345", "base64", "iVBOR", "data:image", "<svg", "<path", "SVG_INNER_TEXT", "<canvas"):
        assert junk not in html
    assert "SVG_CANVAS_FALLBACK" in html
    tree = LexborHTMLParser(html)
    alts = [img.attributes.get("alt") for img in tree.css("img")]
    assert "Red square SVG_IMG_ALT" in alts
    assert "Sales chart SVG_NAMED_LABEL" in alts
    assert "Titled drawing SVG_TITLE_NAME" in alts
    assert "Drawing canvas SVG_CANVAS_NAME" in alts
    assert tree.css_first('a[data-name="Cart link"]') is not None
    assert len(html) < 2000


async def test_password_value_never_serialised(page, site):
    html, ids = await load(page, site, "login.html")
    assert "PASSWORD_SENTINEL_123" not in html
    tree = LexborHTMLParser(html)
    assert el(tree, 'input[name="password"]').attributes["data-filled"] == "yes"
    assert el(tree, 'input[name="confirm"]').attributes["data-filled"] == "no"
    assert "data-value" not in el(tree, 'input[name="password"]').attributes
    user = el(tree, 'input[name="username"]')
    assert user.attributes["data-value"] == "alice" and user.attributes["data-name"] == "Username"
    assert "required" in user.attributes
    assert "checked" in el(tree, 'input[name="remember"]').attributes
    assert el(tree, 'input[name="remember"]').attributes["data-name"] == "Remember me"
    assert el(tree, "form").attributes["data-name"] == "Sign in form"
    await page.fill("#pw2", "SECOND_SECRET_456")
    [form] = await extract_locator(page.locator("form"), frame_ids=ids, worlds=worlds_of(page))
    assert "SECOND_SECRET_456" not in form and "PASSWORD_SENTINEL_123" not in form
    assert el(LexborHTMLParser(form), 'input[name="confirm"]').attributes["data-filled"] == "yes"


# --- refs, locators, versions -------------------------------------------------------------------------------------

async def test_refs_are_stable_and_new_elements_get_new_refs(page, site):
    first, ids = await load(page, site, "hidden.html")
    second = await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page))
    assert first == second
    close_ref = ref_of(first, "Close dialog")
    top = max(int(r[1:]) for r in re.findall(r'data-ref="(e\d+)"', first))
    await page.evaluate("() => { const b = document.createElement('button'); b.textContent = 'Brand new';"
                        " document.querySelector('main').prepend(b); }")
    third = await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page))
    assert ref_of(third, "Close dialog") == close_ref
    assert ref_of(third, "Brand new") == f"e{top + 1}"


async def test_bcref_clicks_the_right_element_and_stale_refs_match_nothing(page, site):
    html, ids = await load(page, site, "hidden.html")
    ref = ref_of(html, "Count clicks")
    await page.locator(f"bcref={ref}").click()
    assert await page.text_content("#counter") == "Clicked 1"
    assert await page.locator("bcref=e99999").count() == 0
    assert await page.locator("bcref=not-a-ref").count() == 0
    await page.evaluate("() => document.getElementById('counter').remove()")
    assert await page.locator(f"bcref={ref}").count() == 0
    # after a reload the same numbers are not reused, so an old ref cannot hit a new element
    old_refs = set(re.findall(r'data-ref="(e\d+)"', html))
    await page.reload(wait_until="load")
    fresh = await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds_of(page))
    assert not old_refs & set(re.findall(r'data-ref="(e\d+)"', fresh))
    for old in old_refs:
        assert await page.locator(f"bcref={old}").count() == 0


async def test_extract_locator_order_empty_hidden_and_malformed(page, site):
    await page.goto(f"{site}/hidden.html")
    ids = FrameIds()
    items = await extract_locator(page.locator("td"), frame_ids=ids, worlds=worlds_of(page))
    # each cell is read in a table of its own (under the table's header row, when it has one), in document order
    assert [re.findall(r"<td>([^<]*)</td>", item) for item in items[:3]] == [["Apple"], ["1"], ["EUR"]], items[:3]
    assert all(item.startswith("<table>") for item in items[:3]), items[:3]
    assert await extract_locator(page.locator("#does-not-exist"), frame_ids=ids, worlds=worlds_of(page)) == []
    assert await extract_locator(page.locator("div[hidden]").first, frame_ids=ids, worlds=worlds_of(page)) == [""]
    faded = page.locator('div[style="opacity:0"] p')
    assert await extract_locator(faded, frame_ids=ids, worlds=worlds_of(page)) == [""]
    with pytest.raises(SelectorError):
        await extract_locator(page.locator("div["), frame_ids=ids, worlds=worlds_of(page))
    [button] = await extract_locator(page.locator("#close"), frame_ids=ids, worlds=worlds_of(page))
    assert button.startswith("<button") and 'data-name="Close dialog"' in button


async def test_page_version_changes_on_mutation_and_navigation(page, site):
    await page.goto(f"{site}/hidden.html")
    v1 = await page_version(page, worlds=worlds_of(page))
    assert await page_version(page, worlds=worlds_of(page)) == v1
    await page.evaluate("() => { document.querySelector('h1').textContent = 'changed' }")
    v2 = await page_version(page, worlds=worlds_of(page))
    assert v2 != v1
    await page.evaluate("() => { document.body.setAttribute('data-x', '1') }")
    v3 = await page_version(page, worlds=worlds_of(page))
    assert v3 != v2
    await page.reload()
    v4 = await page_version(page, worlds=worlds_of(page))
    assert v4 not in (v1, v2, v3)
    await page.goto(f"{site}/login.html")
    assert await page_version(page, worlds=worlds_of(page)) != v4
    await page.evaluate("() => history.pushState({}, '', '#other')")
    v5 = await page_version(page, worlds=worlds_of(page))
    await page.evaluate("() => history.pushState({}, '', '#again')")
    assert await page_version(page, worlds=worlds_of(page)) != v5


def test_ref_helpers():
    assert is_ref("e12") and is_ref("f3e12") and is_ref(" e1 ")
    for bad in ("e0", "e", "f1", "#e12", "button", "f0e1", "e12x", ""):
        assert not is_ref(bad)
    assert ref_frame_prefix("e12") == ""
    assert ref_frame_prefix("f3e12") == "f3"
    with pytest.raises(InvalidArgument):
        ref_frame_prefix("button")
