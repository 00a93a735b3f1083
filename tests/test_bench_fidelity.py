"""The bench's fidelity measure (``bench/fidelity*.py``).

Units (no browser) of the matching: parsing each server's format, normalising, scoring, the report. Then, marked
e2e: the ground truth's visibility filter in real Chromium, and a smoke of ``python -m bench --fidelity`` with
browser-ctx alone on two app states.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from bench.fidelity import gaps_markdown, render, states
from bench.fidelity_match import Item, canonical_role, haystack, norm, parse_items, score
from bench.fidelity_truth import ground_truth
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.settings import LaunchSettings

REPO = Path(__file__).resolve().parents[1]

BROWSER_CTX = """Page: Shop — http://127.0.0.1:1/
tablist:
  tab "Order" [e1] selected
form "New order":
  textbox "Full name" [e4] invalid
  password "Password" [e6] (filled)
  select "Country" [e7] = "Spain" (2 options)
  heading 3 "Shipping" button [e9] expanded
  text: He said "hi" and [the guide](e10) then button "Go" [e11] ok
  - option "Spain" [e12] selected
  button "No ref here"
  row: 1001 | Ada | button "Delete" [f1e3]
"""

PLAYWRIGHT = """### Snapshot
```yaml
- tablist "Sections" [ref=e7]:
  - tab "Order" [selected] [ref=e8] [cursor=pointer]
  - 'button "Save: now" [ref=e9]'
  - button "Say \\"hi\\"" [ref=e10]
  - button "Go to previous page" [disabled]
  - row [ref=e11]:
  - generic [ref=e12]: Full name
```"""

DEVTOOLS = """## Latest page snapshot
uid=1_0 RootWebArea "Shop" url="http://127.0.0.1:1/"
  uid=1_4 tab "Order" selectable selected
  uid=1_10 "Full name"
  uid=1_26 button "PLACE ORDER"
  uid=1_30 MenuListOption "Spain"
"""


def test_parse_browser_ctx_lines_inline_links_and_heading_controls() -> None:
    items = parse_items(BROWSER_CTX, "browser-ctx")
    assert Item("tab", "Order", "e1") in items
    assert Item("textbox", "Full name", "e4") in items
    assert Item("textbox", "Password", "e6") in items  # password reads as textbox
    assert Item("combobox", "Country", "e7") in items  # a native select is a combobox in Chromium
    assert Item("button", "Shipping", "e9") in items  # a control inside a heading, named by it
    assert Item("link", "the guide", "e10") in items
    assert Item("button", "Go", "e11") in items  # not 'said "hi" and … "Go"': only known roles start an item
    assert Item("option", "Spain", "e12") in items
    assert Item("button", "Delete", "f1e3") in items
    assert not any(i.name == "No ref here" for i in items)


def test_parse_playwright_yaml_quoted_keys_escapes_and_refs() -> None:
    items = parse_items(PLAYWRIGHT, "playwright-mcp")
    assert Item("tab", "Order", "e8") in items
    assert Item("button", "Save: now", "e9") in items
    assert Item("button", 'Say "hi"', "e10") in items
    assert Item("button", "Go to previous page", "") in items  # shown without a ref: does not count
    assert Item("row", "", "e11") in items


def test_parse_devtools_uids_are_refs_and_roles_are_canonical() -> None:
    items = parse_items(DEVTOOLS, "chrome-devtools-mcp")
    assert Item("tab", "Order", "1_4") in items
    assert Item("button", "PLACE ORDER", "1_26") in items
    assert Item("option", "Spain", "1_30") in items
    assert not any(i.name == "Full name" for i in items)  # text lines have no role
    with pytest.raises(ValueError):
        parse_items("", "lynx")


def test_normalising() -> None:
    assert canonical_role("MenuListOption") == "option"
    assert canonical_role("searchbox") == "textbox"
    assert norm("  Pass\u200bword\u00a0 re\u00adset \ue001 ") == "password reset"
    assert norm("PLACE ORDER") == norm("Place order")
    assert "say \"hi\"" in haystack(['- text: "Say \\"hi\\""'])


def test_score_is_a_multiset_match_needing_refs_and_text_substrings() -> None:
    truth_nodes = [("button", "DELETE"), ("button", "DELETE"), ("button", "DELETE"), ("tab", "Order"),
                   ("button", "Go to previous page")]
    truth_text = ["Orders are confirmed by email", "1–25 of 200", "Orders are confirmed by email", "Missing"]
    out = ('tab "Order" [e1] selected\nrow: 1 | button "Delete" [e2]\nrow: 2 | button "Delete" [e3]\n'
           'button "Go to previous page" disabled\ntext: Orders are  confirmed by email. 1–25 of 200')
    s = score(truth_nodes, truth_text, [out], "browser-ctx")
    assert (s.interactive_found, s.interactive_total) == (3, 5)
    assert sorted(s.missing_nodes or []) == [("button", "DELETE", 1), ("button", "Go to previous page", 1)]
    assert (s.text_found, s.text_total) == (2, 3)  # distinct texts
    assert s.missing_text == ["Missing"]
    assert round(s.interactive_pct) == 60 and round(s.text_pct) == 67
    # A second call's output counts too (browser-ctx's follow-up read).
    s2 = score(truth_nodes, truth_text, [out, 'button "Delete" [e4]\ntext: Missing'], "browser-ctx")
    assert s2.interactive_found == 4 and s2.text_found == 3


def test_report_table_and_gaps() -> None:
    entry = {"interactiveFound": 5, "interactiveTotal": 6, "textFound": 9, "textTotal": 9, "tokens": 1234,
             "calls": [{"isError": False}, {"isError": False}], "missingNodes": [["option", "Sweden", 1]],
             "missingText": []}
    results = {"servers": {"browser-ctx": {"version": "0.1.0"}},
               "states": [{"state": "country-open", "path": "x?state=country-open", "app": True,
                           "interactive": [], "servers": {"browser-ctx": entry}}]}
    report = render(results)
    assert "| country-open | 6 | 9 | 83% / 100% / 1,234 (2 calls) |" in report
    assert "**total, app states**" in report and "**total, fixture pages**" not in report
    entry.update(interactiveFound=205, interactiveTotal=206)
    assert "| country-open | 206 | 9 | 99% / 100% / 1,234 (2 calls) |" in render(results)  # never rounded up to 100%
    assert '  - node option "Sweden"' in gaps_markdown(results, "browser-ctx")


def test_states_cover_the_app_and_every_semantics_fixture() -> None:
    labels = [s.label for s in states()]
    assert labels[:3] == ["order", "order-invalid", "country-open"]
    assert {"terms-dialog", "orders-grid", "date-open", "help"} <= set(labels)
    fixtures = sorted(p.stem for p in (REPO / "fixtures" / "semantics").glob("*.html"))
    assert [s.label for s in states() if not s.app] == [f"semantics/{f}" for f in fixtures]


@pytest.mark.e2e
def test_fidelity_smoke_browser_ctx_alone(tmp_path: Path) -> None:
    """``python -m bench --fidelity`` end to end on two app states, browser-ctx alone: table, JSON, gaps file."""
    gaps = tmp_path / "gaps.md"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--fidelity", "--servers", "browser-ctx", "--states",
         "country-open,order-invalid", "--out", str(tmp_path), "--gaps", str(gaps), "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| country-open | 6 | 6 | " in proc.stdout  # ground truth: the 6 options of the open select
    data = json.loads((tmp_path / "fidelity.json").read_text())
    by_state = {s["state"]: s for s in data["states"]}
    assert [r for r, _ in by_state["country-open"]["interactive"]] == ["option"] * 6
    assert "Full name is required" in by_state["order-invalid"]["text"]
    bc = by_state["order-invalid"]["servers"]["browser-ctx"]
    assert 1 <= len(bc["calls"]) <= 2 and bc["tokens"] > 0 and bc["calls"][0]["tool"] == "browser_snapshot"
    assert gaps.read_text().startswith("# Fidelity")
    assert (tmp_path / "fidelity-text" / "country-open.browser-ctx.txt").is_file()


@pytest.mark.e2e
@pytest.mark.anyio
async def test_ground_truth_keeps_what_a_person_sees(site: str) -> None:
    """The ground truth's visibility filter on the hiding fixture, generated content and canvas fallback."""
    settings = LaunchSettings(offline_external=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings))
        try:
            truths = {}
            for path in ("hidden.html", "semantics/generated.html", "semantics/canvas.html",
                         "apps/shop/dist/index.html?state=terms-dialog"):
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await page.goto(f"{site}/{path}", wait_until="load")
                truths[path] = await ground_truth(page)
                await page.close()
        finally:
            await browser.close()
    hidden = truths["hidden.html"]
    text = " ".join(hidden.text)
    assert "VISIBLE_PARAGRAPH" in text and "VISIBLE_FOOTER" in text
    for word in ("HIDDEN_CLIPPED", "HIDDEN_ZERO_SIZE", "HIDDEN_OPACITY", "HIDDEN_OFFSCREEN", "HIDDEN_CLIP_PATH",
                 "HIDDEN_SCALED_AWAY", "HIDDEN_COLLAPSED_HEIGHT", "HIDDEN_OFFSCREEN_RIGHT", "HIDDEN_OPTION"):
        assert word not in text.replace("HIDDEN_ATTR_OVERRIDDEN", ""), word
    assert ("option", "HIDDEN_OPTION") in hidden.hidden
    assert {"$", "per month", "Out of stock", "Delete item"} <= set(truths["semantics/generated.html"].text)
    assert ("link", "See the data table") in truths["semantics/canvas.html"].interactive
    dialog = truths["apps/shop/dist/index.html?state=terms-dialog"]
    assert dialog.interactive == [("button", "Close")]  # the page behind the modal is left out
    assert "Terms of service" in dialog.text


def test_grid_rows_and_cells_are_named_by_their_content() -> None:
    bc = ('grid "Orders" 6 cols, rows 1-25 of 200:\n  header [e145]: Order | Customer | Actions\n'
          '  row [e146] selected: 1001 [e147] | Ada Lovelace [e148] | button "Delete" [e153] [e152]\n'
          '  row: 1002 | Ben | button "Delete" [e160]\n')
    items = parse_items(bc, "browser-ctx")
    assert Item("row", "Order Customer Actions", "e145") in items
    assert Item("row", "1001 Ada Lovelace Delete", "e146") in items
    assert Item("gridcell", "1001", "e147") in items and Item("gridcell", "Delete", "e152") in items
    assert Item("button", "Delete", "e153") in items and Item("button", "Delete", "e160") in items
    assert not any(i.role == "row" and "1002" in i.name for i in items)  # a row without a ref is not an item
    pw = ("- row [ref=e43]:\n  - gridcell \"1001\" [ref=e44]\n  - gridcell [ref=e49]:\n"
          "    - button \"Delete\" [ref=e50] [cursor=pointer]\n- row \"Named\" [ref=e51]:\n"
          "  - generic [ref=e52]: Full name\n- row [ref=e60]:\n  - cell \"x\" [ref=e61]\n")
    items = parse_items(pw, "playwright-mcp")
    assert Item("row", "1001 Delete", "e43") in items
    assert Item("gridcell", "Delete", "e49") in items
    assert Item("row", "Named", "e51") in items and Item("generic", "", "e52") in items
    assert Item("row", "x", "e60") in items
    truth = [("row", "1001 Ada Lovelace France €9.99 Paid DELETE"), ("gridcell", "DELETE")]
    out = 'row [e1]: 1001 [e2] | Ada Lovelace [e3] | France [e4] | €9.99 [e5] | Paid [e6] | button "Delete" [e8] [e7]'
    assert score(truth, [], [out], "browser-ctx").interactive_found == 2
