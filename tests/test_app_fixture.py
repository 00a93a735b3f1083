"""Smoke test of the component-library app fixture (``fixtures/apps/shop``, see its README).

The committed build (``fixtures/apps/shop/dist``) is served from localhost by the ``site``
fixture and driven with plain Playwright in real Chromium, the way a user would: this checks
that the fixture itself renders every part the accessibility, verify-loop and widget tests
rely on. It needs no npm and no network.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, ConsoleMessage, Error, Page, Request, async_playwright, expect

from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.settings import LaunchSettings
from tests.support.site import FIXTURES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

APP_PATH = "apps/shop/dist/index.html"
COUNTRIES = ["France", "Germany", "Italy", "Portugal", "Spain", "Sweden"]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    settings = LaunchSettings(offline_external=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_executable(settings),
                                           args=chromium_args(settings), headless=True)
        async with browser:
            yield browser


class AppPage:
    """The app loaded in a fresh context, with every request and console error it made."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("request", self._on_request)
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)

    def _on_request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def _on_page_error(self, error: Error) -> None:
        self.errors.append(f"pageerror: {error}")


@pytest.fixture
async def app(browser: Browser, site: str) -> AsyncIterator[AppPage]:
    async with await browser.new_context(viewport={"width": 1280, "height": 900}) as context:
        page = await context.new_page()
        loaded = AppPage(page)
        await page.goto(f"{site}/{APP_PATH}", wait_until="load")
        await expect(page.get_by_role("tab", name="Order", exact=True)).to_be_visible()
        yield loaded
        # Everything the app loads comes from the local site; it logs no errors or warnings.
        assert [u for u in loaded.requests if not u.startswith((site, "data:"))] == []
        assert loaded.errors == []


def test_build_is_committed_without_source_maps() -> None:
    dist = FIXTURES / "apps" / "shop" / "dist"
    scripts = list((dist / "assets").glob("*.js"))
    assert (dist / "index.html").is_file() and len(scripts) == 1
    assert not list(dist.rglob("*.map"))
    assert "sourceMappingURL" not in scripts[0].read_text(encoding="utf-8")
    # Relative asset URLs (Vite base './'): the build works from any path.
    assert 'src="./assets/' in (dist / "index.html").read_text(encoding="utf-8")


async def test_tabs_and_order_form(app: AppPage) -> None:
    page = app.page
    tabs = page.get_by_role("tablist")
    assert await tabs.get_by_role("tab").all_inner_texts() == ["Order", "Orders", "Help"]
    await expect(page.get_by_role("tab", name="Order", exact=True)).to_have_attribute("aria-selected", "true")
    await expect(page.get_by_role("textbox", name="Full name")).to_be_visible()
    await expect(page.get_by_role("textbox", name="Email")).to_be_visible()
    await expect(page.get_by_role("combobox", name="Country")).to_contain_text("Choose a country")
    await expect(page.get_by_role("combobox", name="Tags")).to_be_visible()
    await expect(page.get_by_role("textbox", name="Delivery date")).to_be_visible()
    await expect(page.get_by_role("combobox", name=re.compile(r"^Size"))).to_be_visible()
    await expect(page.get_by_role("checkbox", name="I accept the terms")).not_to_be_checked()
    submit = page.get_by_role("button", name="Place order")
    await expect(submit).to_have_css("text-transform", "uppercase")
    assert await submit.inner_text() == "PLACE ORDER"


async def test_empty_submit_shows_validation_messages(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("button", name="Place order").click()
    name = page.get_by_role("textbox", name="Full name")
    email = page.get_by_role("textbox", name="Email")
    await expect(name).to_have_attribute("aria-invalid", "true")
    await expect(name).to_have_accessible_description("Full name is required")
    await expect(email).to_have_attribute("aria-invalid", "true")
    await expect(email).to_have_accessible_description("Enter a valid email")
    await email.fill("not-an-email")
    await expect(email).to_have_accessible_description("Enter a valid email")


async def test_country_select_lists_six_options(app: AppPage) -> None:
    page = app.page
    country = page.get_by_role("combobox", name="Country")
    await country.click()
    listbox = page.get_by_role("listbox")
    await expect(listbox).to_be_visible()
    assert await listbox.get_by_role("option").all_inner_texts() == COUNTRIES
    await listbox.get_by_role("option", name="Spain").click()
    await expect(listbox).to_be_hidden()
    await expect(country).to_contain_text("Spain")


async def test_date_picker_day_cells_are_named(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("textbox", name="Delivery date").click()
    day = page.get_by_role("gridcell", name=re.compile(r"^Choose Tuesday, December 15th, 2026"))
    await expect(day).to_be_visible()
    await day.click()
    await expect(page.get_by_role("textbox", name="Delivery date")).to_have_value("2026-12-15")


async def test_terms_dialog(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("button", name="Read terms").click()
    dialog = page.get_by_role("dialog", name="Terms of service")
    await expect(dialog).to_be_visible()
    await expect(dialog).to_contain_text("You may return any unused item within 30 days")
    assert await dialog.locator("p").count() >= 4
    await dialog.get_by_role("button", name="Close").click()
    await expect(dialog).to_be_hidden()


async def test_valid_order_shows_toast_and_summary(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("textbox", name="Full name").fill("Ada Lovelace")
    await page.get_by_role("textbox", name="Email").fill("ada@example.com")
    await page.get_by_role("combobox", name="Country").click()
    await page.get_by_role("option", name="Spain").click()
    tags = page.get_by_role("combobox", name="Tags")
    for tag in ("Gift", "Express"):
        await tags.click()
        await page.get_by_role("option", name=tag, exact=True).click()
    await page.get_by_role("textbox", name="Delivery date").click()
    await page.get_by_role("gridcell", name=re.compile(r"^Choose Tuesday, December 15th, 2026")).click()
    await page.get_by_role("combobox", name=re.compile(r"^Size")).click()
    await page.get_by_role("option", name="Medium").click()
    await page.get_by_role("checkbox", name="I accept the terms").check()
    await page.get_by_role("button", name="Place order").click()
    toast = page.get_by_text("Order placed")
    await expect(toast).to_be_visible(timeout=3000)
    await expect(page.get_by_text("Last order: Ada Lovelace, Spain, Gift + Express, 2026-12-15")).to_be_visible()
    await expect(toast).to_be_hidden(timeout=4000)  # the toast is transient (about 1.5 s)


async def test_orders_grid(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("tab", name="Orders").click()
    grid = page.get_by_role("grid", name="Orders")
    await expect(grid).to_be_visible()
    await expect(grid).to_have_attribute("aria-rowcount", "201")  # header row + 200 orders
    header = grid.get_by_role("columnheader")
    assert [t.strip() for t in await header.all_inner_texts()] == [
        "Order", "Customer", "Country", "Total", "Status", "Actions"]
    rows = grid.locator('[role="row"][data-rowindex]')
    await expect(rows).to_have_count(25)
    first = rows.first
    await expect(first.get_by_role("gridcell").first).to_have_text("1001")
    await expect(first).to_contain_text("Ada Lovelace")
    await expect(page.get_by_text("1–25 of 200")).to_be_visible()
    # Delete the second row: 199 remain and row 1002 is gone.
    await rows.nth(1).get_by_role("button", name="Delete").click()
    await expect(page.get_by_text("1–25 of 199")).to_be_visible()
    await expect(grid.get_by_role("gridcell", name="1002", exact=True)).to_have_count(0)
    await page.get_by_role("button", name="Go to next page").click()
    await expect(page.get_by_text("26–50 of 199")).to_be_visible()


async def test_help_accordion_and_status(app: AppPage) -> None:
    page = app.page
    await page.get_by_role("tab", name="Help").click()
    triggers = page.get_by_role("button", name=re.compile("^(Shipping|Returns|Payment)$"))
    await expect(triggers).to_have_count(3)
    assert [await t.get_attribute("aria-expanded") for t in await triggers.all()] == ["true", "false", "false"]
    status = page.get_by_role("status")
    await expect(status).to_have_text("")
    await page.get_by_role("button", name="Check status").click()
    await expect(status).to_have_text("Saved after retry")
    await expect(status).to_have_text("", timeout=4000)


async def test_start_states_from_the_query(browser: Browser, site: str) -> None:
    """``?state=`` opens each state the bench's fidelity measure reads, as the user actions above would."""
    async with await browser.new_context(viewport={"width": 1280, "height": 800}) as context:
        page = await context.new_page()

        async def load(state: str) -> None:
            await page.goto(f"{site}/{APP_PATH}?state={state}", wait_until="load")

        await load("orders")
        await expect(page.get_by_role("tab", name="Orders")).to_have_attribute("aria-selected", "true")
        await expect(page.get_by_role("grid", name="Orders")).to_be_visible()
        await load("help")
        await expect(page.get_by_role("button", name="Check status")).to_be_visible()
        await load("order-invalid")
        await expect(page.get_by_role("textbox", name="Full name")).to_have_attribute("aria-invalid", "true")
        await expect(page.get_by_text("Enter a valid email")).to_be_visible()
        await load("country-open")
        assert await page.get_by_role("listbox").get_by_role("option").all_inner_texts() == COUNTRIES
        await load("tags-open")
        await expect(page.get_by_role("option", name="Fragile")).to_be_visible()
        await load("size-open")
        await expect(page.get_by_role("option", name="Medium")).to_be_visible()
        await load("date-open")
        day = page.get_by_role("gridcell", name=re.compile(r"^Choose Tuesday, December 15th, 2026"))
        await expect(day).to_be_visible()
        await load("terms-dialog")
        await expect(page.get_by_role("dialog", name="Terms of service")).to_be_visible()
        await load("")
        await expect(page.get_by_role("tab", name="Order", exact=True)).to_have_attribute("aria-selected", "true")
        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_role("listbox")).to_have_count(0)
