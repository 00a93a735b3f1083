"""A page that replaces ``window.Map`` or stubs ``setTimeout`` cannot break actions, value checks or evaluate.

``fixtures/hostile/replaced-map.html`` makes ``new Map()`` throw in the page's main world, where Playwright's own
helpers run (``ElementHandle.owner_frame``, ``page.evaluate``'s serialiser): fills, selects and value checks once
failed with "no map", and ``verify {value}`` reported that error as the field's value in a FAIL.
``fixtures/hostile/stubbed-timers.html`` makes ``setTimeout`` never call back: ``browser_evaluate`` once waited
for it until its 15 s timeout and blamed the caller's function. Both pages get the same calls through the real
stdio client, with the server's action and read timeouts cut to 4 s, so a call that waits on the page's broken
builtin fails instead of passing slowly.
"""

from __future__ import annotations

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: Each page and the text its button writes.
PAGES = [("hostile/replaced-map.html", "Replaced Map", "MAP_CLICKED"),
         ("hostile/stubbed-timers.html", "Stubbed Timers", "TIMERS_CLICKED")]
#: Server timeouts (ms): well under the defaults, so waiting on a broken builtin fails the call.
TIMEOUTS = ("--timeout-read", "4000", "--timeout-action", "4000")


async def _ok(session, name: str, **args) -> str:
    result = await session.call_tool(name, args)
    text = result_text(result)
    assert not result.is_error, f"{name} {args} failed: {text[:600]}"
    return text


@pytest.mark.parametrize(("page", "title", "clicked"), PAGES, ids=["replaced-map", "stubbed-timers"])
async def test_actions_and_evaluate_on_a_page_with_broken_builtins(site: str, page: str, title: str, clicked: str):
    async with mcp_session(*TIMEOUTS) as session:
        card = await _ok(session, "browser_navigate", url=f"{site}/{page}")
        assert card.startswith(f"Page: {title}"), card

        filled = await _ok(session, "browser_fill_form", fields=[
            {"target": "#name", "name": "Full name", "type": "textbox", "value": "Ada"}])
        assert "no map" not in filled, filled
        assert (await _ok(session, "browser_verify", target="#name", value="Ada")).startswith("PASS")

        chosen = await _ok(session, "browser_select_option", target="#colour", values=["Green"])
        assert '"Green"' in chosen, chosen
        assert (await _ok(session, "browser_verify", target="#colour", value="Green")).startswith("PASS")

        typed = await _ok(session, "browser_type", target="#name", text="Grace")
        assert '"Grace"' in typed, typed
        assert (await _ok(session, "browser_verify", target="#name", value="Grace")).startswith("PASS")
        wrong = await session.call_tool("browser_verify", {"target": "#name", "value": "Alice"})
        assert "FAIL" in result_text(wrong) and '"Grace"' in result_text(wrong), result_text(wrong)

        pressed = await _ok(session, "browser_click", target="#add")
        assert clicked in pressed or clicked in await _ok(session, "browser_text"), pressed

        assert (await _ok(session, "browser_evaluate", function="() => 1")).strip() == "1"
        assert title in await _ok(session, "browser_evaluate", function="() => document.title")
        on_field = await _ok(session, "browser_evaluate", function="(el) => el.value", target="#name")
        assert "Grace" in on_field, on_field
