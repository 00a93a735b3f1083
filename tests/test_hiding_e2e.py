"""Hidden text never reaches the model, whichever tool reads the page (issue 16 item 3, issue 12's hiding list).

``fixtures/hostile/hiding.html`` hides one sentinel word (``SENTINELnn``) by each of 40+ methods (CSS
paint, geometry, clipping, covering, markup that is never rendered), beside visible controls and
visible paragraphs (``VISIBLExxx``), some of which look hidden to a careless check (low contrast, half
opacity, small print, white on a gradient, text under a transparent link overlay, text under
``aria-hidden``: a person sees it, so the agent must too). ``hiding-modal.html`` and
``hiding-aria-modal.html`` put text behind an open modal dialog (native ``showModal`` and an ARIA modal
over an overlay). One server session per page reads the page through every tool once (stdio client,
real Chromium); the tests below are parametrised over the sentinels, visible words and controls, so a
failure names the hiding method.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.site import FIXTURES

pytestmark = [pytest.mark.e2e]

HOSTILE = Path(FIXTURES) / "hostile"
PAGES = ("hiding.html", "hiding-modal.html", "hiding-aria-modal.html")
#: Shown only after "Toggle details" is clicked.
AFTER_TOGGLE = "VISIBLETOGGLED"


def _methods(page: str) -> list[tuple[str, str]]:
    """(sentinel, hiding method) for every line of a fixture marked data-method."""
    found = []
    for line in (HOSTILE / page).read_text(encoding="utf-8").splitlines():
        m = re.search(r'data-method="([^"]+)"', line)
        if m:
            found.append((re.findall(r"SENTINEL\d\d", line)[0], m.group(1)))
    return found


def _visible(page: str) -> list[str]:
    body = (HOSTILE / page).read_text(encoding="utf-8").split("<body>", 1)[1]
    return sorted(set(re.findall(r"VISIBLE[A-Z]+", body)) - {AFTER_TOGGLE})


METHODS = {page: _methods(page) for page in PAGES}
#: (page, sentinel, method) over all pages.
CASES = [(page, s, m) for page in PAGES for s, m in METHODS[page]]
VISIBLE = [(page, w) for page in PAGES for w in _visible(page)]
#: Controls of hiding.html as the snapshot names them.
CONTROLS = ['textbox "Email address"', 'select "Country"', 'button "Toggle details"', 'button "Save draft"',
            'link "Read the guide"', 'link "Card link"']


def test_the_fixture_has_at_least_30_methods_each_with_its_own_sentinel() -> None:
    sentinels = [s for _, s, _ in CASES]
    assert len(CASES) >= 30 and len(set(sentinels)) == len(sentinels), CASES
    assert ("hiding.html", "VISIBLEARIA") in VISIBLE


async def _read_everything(site: str, page: str) -> dict[str, str]:
    """Every output a tool gives on the page: label -> text."""
    out: dict[str, str] = {}
    async with mcp_session() as s:
        async def call(label: str, tool: str, **args: object) -> str:
            res = await s.call_tool(tool, args)
            out[label] = result_text(res)
            return out[label]

        await call("browser_navigate card", "browser_navigate", url=f"{site}/hostile/{page}")
        await call("browser_snapshot", "browser_snapshot")
        await call("browser_snapshot maxTokens 8000", "browser_snapshot", maxTokens=8000, force=True)
        await call("browser_text markdown", "browser_text", maxTokens=8000)
        await call("browser_text text", "browser_text", format="text", maxTokens=8000)
        await call("browser_text links", "browser_text", links=True, maxTokens=8000)
        await call("browser_text body", "browser_text", target="body", maxTokens=8000)
        await call("browser_text body text", "browser_text", target="body", format="text", maxTokens=8000)
        await call("browser_verify SENTINEL", "browser_verify", text="SENTINEL", timeout=0)
        for sentinel, _ in METHODS[page]:
            await call(f"browser_verify {sentinel}", "browser_verify", text=sentinel, timeout=0)
            await call(f"browser_wait_for {sentinel}", "browser_wait_for", text=sentinel, time=0.2)
        if page == "hiding.html":
            await call("browser_click Toggle details", "browser_click", target="#toggle")
            await call("browser_click Save draft", "browser_click", target="#save")
            await call("browser_snapshot after clicks", "browser_snapshot", maxTokens=8000)
    return out


@pytest.fixture(scope="module")
def outputs(site: str) -> Iterator[dict[str, dict[str, str]]]:
    """Each page's outputs, read once for the module (one server session per page)."""
    yield {page: asyncio.run(_read_everything(site, page)) for page in PAGES}


def leaked_into(outputs: dict[str, str], sentinel: str) -> list[str]:
    """Labels of the outputs that show ``sentinel``, or that found it (a ``browser_verify`` of it that did not
    FAIL, a ``browser_wait_for`` of it that did not time out); a check's echo of its own argument does not count
    ("expected visible text "SENTINEL07"", "waiting for text 'SENTINEL07'"), what it found does."""
    leaked = []
    for label, text in outputs.items():
        if label.startswith(("browser_verify", "browser_wait_for")) and label.split()[-1] == sentinel:
            if not text.startswith(("FAIL", "Timed out")):  # the check found it
                leaked.append(label)
                continue
            text = text.replace(sentinel, "", 1)
        if sentinel in text:
            leaked.append(label)
    return leaked


@pytest.mark.parametrize(("page", "sentinel", "method"), CASES, ids=[f"{s}-{m}" for _, s, m in CASES])
def test_no_tool_shows_hidden_text(outputs: dict[str, dict[str, str]], page: str, sentinel: str,
                                   method: str) -> None:
    leaked = leaked_into(outputs[page], sentinel)
    assert not leaked, f"{method} ({sentinel}) leaked into: {leaked}"


def test_verify_finds_no_sentinel_at_all(outputs: dict[str, dict[str, str]]) -> None:
    for page in PAGES:
        verdict = outputs[page]["browser_verify SENTINEL"]
        assert verdict.startswith("FAIL") and "SENTINEL" not in verdict.split(" got ", 1)[-1], (page, verdict)


@pytest.mark.parametrize(("page", "word"), VISIBLE, ids=[f"{p}-{w}" for p, w in VISIBLE])
def test_visible_text_is_read(outputs: dict[str, dict[str, str]], page: str, word: str) -> None:
    out = outputs[page]
    # the snapshot folds runs of paragraphs ("… 8 more paragraphs"), so text is looked for in browser_text
    missing = [label for label in ("browser_text markdown", "browser_text text", "browser_text links",
                                   "browser_text body") if word not in out[label]]
    assert not missing, f"visible {word} missing from {missing}"


@pytest.mark.parametrize("control", CONTROLS)
def test_visible_controls_are_in_the_snapshot(outputs: dict[str, dict[str, str]], control: str) -> None:
    snap = outputs["hiding.html"]["browser_snapshot maxTokens 8000"]
    assert re.search(re.escape(control) + r".*\[e\d+\]", snap, re.I), f"{control} missing:\n{snap}"


def test_select_shows_its_visible_options_only(outputs: dict[str, dict[str, str]]) -> None:
    snap = outputs["hiding.html"]["browser_snapshot maxTokens 8000"]
    assert "Spain" in snap and "SENTINEL33" not in snap


def test_an_action_record_shows_what_the_click_revealed(outputs: dict[str, dict[str, str]]) -> None:
    out = outputs["hiding.html"]
    assert AFTER_TOGGLE in out["browser_click Toggle details"], out["browser_click Toggle details"]
    assert "Saved draft" in out["browser_click Save draft"], out["browser_click Save draft"]
    assert AFTER_TOGGLE in out["browser_snapshot after clicks"]


@pytest.mark.parametrize("page", PAGES[1:])
def test_a_modal_shows_the_dialog_and_says_the_page_is_covered(outputs: dict[str, dict[str, str]],
                                                               page: str) -> None:
    out = outputs[page]
    for label in ("browser_snapshot", "browser_text body"):
        assert "covered by dialog" in out[label], (label, out[label])
