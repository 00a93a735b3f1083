"""A page that patches the builtins our page-side code relies on cannot make reads lie or fail (issue 16 item 1).

``fixtures/hostile/patched-builtins.html`` replaces, before anything else runs, ``getComputedStyle`` (everything
visible), ``getAttributeNames``/``getAttribute``/``hasAttribute`` (no ``hidden``, ``aria-hidden`` or
``style``), ``getBoundingClientRect``, ``checkVisibility``, the ``textContent`` getter, ``WeakRef``,
``WeakMap``, ``JSON.stringify``/``parse``, ``Array.prototype.map/filter/push/join``, ``Object.keys``,
``String.prototype.trim``, ``Promise`` and ``MutationObserver``. Our reads run in an isolated world
(``browser/worlds.py``), so through the real stdio client: no hidden sentinel reaches any output, every
visible control is there and usable by ref, and ``browser_evaluate`` returns the page's true values.
"""

from __future__ import annotations

import re

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PAGE = "hostile/patched-builtins.html"
SENTINEL = "PATCHED_SENTINEL"
#: What a patched builtin or a polluted prototype answers; never in an output of ours.
LIES = ("PATCHED_TEXT", "PATCHED_JSON", "PATCHED_JOIN", "PATCHED_MAP", "PATCHED_TRIM", "PATCHED_PROMISE",
        "WeakRef is not a constructor", "patched': True", '"patched": true',
        "POLLUTED_TOJSON", "POLLUTED_KEY", "POLLUTED_INDEX")


def _ref(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'{role} "{re.escape(name)}"[^\[\n]*\[(e\d+)\]', snapshot)
    assert found, f"no {role} {name!r} with a ref in:\n{snapshot}"
    return found.group(1)


class Calls:
    """Calls tools and keeps every text, for the no-sentinel and no-lie checks at the end."""

    def __init__(self, session) -> None:
        self.s = session
        self.texts: list[str] = []

    async def ok(self, name: str, **args) -> str:
        result = await self.s.call_tool(name, args)
        text = result_text(result)
        self.texts.append(text)
        assert not result.is_error, f"{name} {args} failed: {text[:600]}"
        return text


async def test_reads_and_actions_on_a_page_that_patched_its_builtins(site: str):
    async with mcp_session() as session:
        c = Calls(session)
        card = await c.ok("browser_navigate", url=f"{site}/{PAGE}")
        assert card.startswith("Page: Patched Builtins"), card
        assert "Interactive: 1 link, 1 button, 1 textbox, 1 select" in card, card

        snap = await c.ok("browser_snapshot")
        for shown in ('heading 1 "Patched builtins"', "VISIBLE_INTRO", "Nothing added yet", 'link "Next page"'):
            assert shown in snap, snap
        name, colour, add = (_ref(snap, "textbox", "Full name"), _ref(snap, "select", "Colour"),
                             _ref(snap, "button", "Add item"))

        text = await c.ok("browser_text")
        assert "VISIBLE_INTRO" in text and "Nothing added yet" in text, text

        assert (await c.ok("browser_verify", text="VISIBLE_INTRO")).startswith("PASS")
        hidden = await c.ok("browser_verify", text="PATCHED_SENTINEL_VISIBILITY")
        assert hidden.startswith("FAIL"), hidden  # hidden text is not on the page for a person
        c.texts.pop()  # that FAIL quotes the sentinel it was asked about, and nothing else
        waited = await c.ok("browser_wait_for", text="VISIBLE_INTRO")
        assert "appeared" in waited, waited

        clicked = await c.ok("browser_click", target=add)
        assert "Added one item" in clicked and "VISIBLE_ITEM_ADDED" in clicked, clicked
        typed = await c.ok("browser_type", target=name, text="Ada Lovelace")
        assert '"Ada Lovelace"' in typed, typed
        chosen = await c.ok("browser_select_option", target=colour, values=["Blue"])
        assert "Colour is Blue" in chosen and '"Blue"' in chosen, chosen
        assert (await c.ok("browser_verify", target=name, value="Ada Lovelace")).startswith("PASS")

        console = await c.ok("browser_console_messages")
        assert "VISIBLE_CONSOLE_MESSAGE from the patched page" in console, console
        assert "PATCHED_MUTATION_OBSERVER" not in console, console  # our journal made no error on the page

        title = await c.ok("browser_evaluate", function="() => document.title")
        assert title.strip() == "Patched Builtins", title  # not what the page's JSON.stringify says
        assert (await c.ok("browser_evaluate", function="() => 6 * 7")).strip() == "42"
        assert (await c.ok("browser_evaluate", function="async () => document.title.length")).strip() == "16"

        moved = await c.ok("browser_click", target=_ref(snap, "link", "Next page"))
        assert "Navigated:" in moved and "patched-builtins.html?next" in moved, moved
        again = await c.ok("browser_snapshot")
        assert 'button "Add item"' in again and "VISIBLE_INTRO" in again, again

    everything = "\n".join(c.texts)
    assert SENTINEL not in everything, [t for t in c.texts if SENTINEL in t][0][:800]
    for lie in LIES:
        assert lie not in everything, (lie, [t for t in c.texts if lie in t][0][:800])
