"""What the snapshot shows of grids, folds and hard content, end to end (real MCP stdio client, real Chromium).

The component-library app (``fixtures/apps/shop``, MUI X DataGrid "Orders": 200 rows, 25 a page) and the pages
under ``fixtures/semantics/`` are served from localhost. Each test checks the text an agent receives, and that
the one call a fold line names really shows what it folded.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

APP = "apps/shop/dist/index.html"
_FOLD_TARGET = re.compile(r"\(all: browser_snapshot target='([^']+)'\)")


async def call(session: Any, name: str, **args: Any) -> str:
    result = await session.call_tool(name, args)
    text = result_text(result)
    assert not result.is_error, f"{name} {args}: {text}"
    return text


async def test_data_grid_shows_name_header_rows_range_and_refs(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/{APP}")
        snap = await call(s, "browser_snapshot")
        tab = re.search(r'tab "Orders" \[(e\d+)\]', snap)
        assert tab, snap
        await call(s, "browser_click", target=tab.group(1))
        snap = await call(s, "browser_snapshot", force=True)
        assert 'grid "Orders" 6 cols, rows 1-25 of 200:' in snap, snap
        assert re.search(r"header \[e\d+\]: Order \| Customer \| Country \| Total \| Status \| Actions", snap), snap
        # All 25 rows of the page, each row and cell with a ref, the Delete button with its own.
        rows = re.findall(r'row \[e\d+\]: (10\d\d) \[e\d+\] \| [^\n]*button "Delete" \[(e\d+)\] \[e\d+\]', snap)
        assert [r[0] for r in rows] == [str(1001 + i) for i in range(25)], snap
        assert re.search(r"row \[e\d+\]: 1001 \[e\d+\] \| Ada Lovelace \[(e\d+)\] \| France \[e\d+\] \| "
                         r"€9\.99 \[e\d+\] \| Paid \[e\d+\]", snap), snap
        assert "more rows" not in snap
        # A cell's ref is the cell: clicking it selects it (MUI marks the cell focused, the row stays).
        cell = re.search(r"Ada Lovelace \[(e\d+)\]", snap)
        assert cell
        await call(s, "browser_click", target=cell.group(1))
        # Deleting by the row's button ref removes that row.
        await call(s, "browser_click", target=rows[1][1])
        after = await call(s, "browser_snapshot", force=True)
        assert "Ben Moreau" not in after and "Ada Lovelace" in after, after
        # The next page says which rows it shows.
        nxt = re.search(r'button "Go to next page" \[(e\d+)\]', after)
        assert nxt, after
        await call(s, "browser_click", target=nxt.group(1))
        page2 = await call(s, "browser_snapshot", force=True)
        assert re.search(r"rows 26-50 of 19[89]", page2), page2


async def test_virtualised_grid_states_its_total_and_the_rendered_rows(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/virtual-grid.html")
        snap = await call(s, "browser_snapshot")
        assert 'grid "Events" 2 cols, rows 1-20 of 1,000:' in snap, snap
        assert re.search(r"header \[e\d+\]: Event \| When", snap), snap
        assert re.search(r"row \[e\d+\]: Event 20 \[e\d+\] \| Day 20 \[e\d+\]", snap) and "more rows" not in snap, snap


async def test_every_fold_line_names_a_call_that_shows_what_it_folded(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/folds.html")
        assert "… " not in await call(s, "browser_snapshot")  # the whole page fits the default cap: no fold
        snap = await call(s, "browser_snapshot", maxTokens=400)  # it does not fit 400: all three runs fold
        folds = [line.strip() for line in snap.split("\n") if line.strip().startswith("… ")]
        assert len(folds) == 3, snap  # topics, paragraphs, references
        wanted = {"Topic": 40, "Paragraph": 12, "Source": 60}
        for line in folds:
            target = _FOLD_TARGET.search(line)
            assert target, line
            whole = await call(s, "browser_snapshot", target=target.group(1), maxTokens=8000)
            assert "… " not in whole.replace("Page:", ""), whole
            word = next(w for w in wanted if w in whole)
            found = set(int(n) for n in re.findall(rf"{word} (\d+)\b", whole))
            assert found == set(range(1, wanted.pop(word) + 1)), (line, whole)
        assert wanted == {}


async def test_generated_content_svg_text_and_canvas_are_never_silence(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/generated.html")
        snap = await call(s, "browser_snapshot")
        text = await call(s, "browser_text")
        for out in (snap, text):
            assert "Pro plan: $19 per month" in out and "Blue mug Out of stock" in out, out
        assert 'textbox "Email *"' in snap and 'button "Delete item"' in snap, snap

        await call(s, "browser_navigate", url=f"{site}/semantics/svg-chart.html")
        snap = await call(s, "browser_snapshot")
        text = await call(s, "browser_text")
        for out in (snap, text):
            assert "Jan Feb Mar Apr May 4,200" in out, out
            assert "M40 180" not in out and "L120" not in out, out

        await call(s, "browser_navigate", url=f"{site}/semantics/canvas.html")
        snap = await call(s, "browser_snapshot")
        assert 'img "Revenue chart"' in snap, snap                          # its label
        assert re.search(r"(?m)^\s*Revenue grew 12% in Q2\. See the data table", snap), snap  # its fallback
        assert "canvas 800×600, no text layer" in snap, snap                # neither: what it is
        assert "canvas 800×600, no text layer" in await call(s, "browser_text")


async def test_text_hygiene_in_every_output_and_in_verify(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/text-hygiene.html")
        snap = await call(s, "browser_snapshot")
        text = await call(s, "browser_text")
        for out in (snap, text):
            assert not re.search("[\u00ad\u200b-\u200d\u2060\ufeff\ue000-\uf8ff]", out), ascii(out)
            assert "Password reset" in out and "Extraordinary content" in out, out
            assert "New orderOrders" not in out and "OrdersHelp" not in out, out
        assert 'button "Close" [e' in snap, snap                   # the private-use icon glyph is gone
        assert 'button "Delete" [e' in snap, snap                  # the page's text, not CSS uppercase
        assert await call(s, "browser_verify", text="Password reset") == "PASS"
        assert await call(s, "browser_verify", text="Pass\u200bword reset") == "PASS"
        assert (await call(s, "browser_verify", text="Password reset", visible=False)).startswith("FAIL")


async def test_long_visible_values_are_kept_whole(site: str) -> None:
    sha = ("cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931"
           "bd47417a81a538327af927da3e")
    ssh = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx2b3ZlbHlzc2hrZXlmb3J0ZXN0aW5nb25seWRvbm90dXNl dev@example"
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/long-values.html")
        text = await call(s, "browser_text")
        assert sha in text and ssh in text, text
        assert "how-to-configure-a-reverse-proxy-for-websockets-behind-a-load-balancer-with-sticky-sessions" in text
        snap = await call(s, "browser_snapshot")
        assert ssh in snap, snap
        assert sha in snap, snap  # a long value across the snapshot's line length is kept whole
        assert sha in await call(s, "browser_text", target="#sha")
        assert "base64" not in snap and "R0lGOD" not in snap


async def test_open_dialog_shows_its_name_and_full_text(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/{APP}?state=terms-dialog")
        snap = await call(s, "browser_snapshot")
        assert 'dialog "Terms of service":' in snap, snap
        for sentence in ("customs duties for other destinations are paid by the recipient.",
                         "Items marked Fragile must be returned in their original packaging.",
                         "we will tell you by email if a date cannot be met.",
                         "and never sell them to third parties."):
            assert sentence in snap, snap
        assert "more paragraphs" not in snap and "(+" not in snap, snap


async def test_spanned_table_values_sit_in_their_columns(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/table-spans.html")
        snap = await call(s, "browser_snapshot")
        assert "Region | Q1 Units | Q1 Revenue | Q2 Units | Q2 Revenue" in snap, snap
        assert "row: North | 11 | 110 | not reported |" in snap, snap
        text = await call(s, "browser_text")
        assert "| North | 11 | 110 | not reported | |" in text, text
        assert re.search(r"row \[e\d+\]: #1001 \[e\d+\] \| Ada \[e\d+\] \| \$12 \[e\d+\]", snap), snap


async def test_closed_shadow_root_text_and_controls_are_read_and_clickable_by_ref(site: str) -> None:
    async with mcp_session() as s:
        card = await call(s, "browser_navigate", url=f"{site}/semantics/closed-shadow.html")
        assert "Interactive: 1 button" in card, card  # the card counts what is inside the closed root too
        snap = await call(s, "browser_snapshot")
        assert "Closed shadow total: 3 items" in snap, snap
        button = re.search(r'button "Checkout now" \[(e\d+)\]', snap)
        assert button, snap
        record = await call(s, "browser_click", target=button.group(1))
        assert "Checkout clicked" in record, record
        assert "Closed shadow total: 3 items" in await call(s, "browser_text")
        assert (await call(s, "browser_verify", text="Checkout clicked")) == "PASS"


async def test_scrolled_virtualised_grid_is_reported_as_rows_now_visible(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/virtual-grid.html")
        first = await s.call_tool("browser_snapshot", {})
        fingerprint = first.structured_content["fingerprint"]
        await call(s, "browser_evaluate", function="() => { document.getElementById('viewport').scrollTop = 17 * 22; }")
        await call(s, "browser_wait_for", text="Event 37")
        since = await call(s, "browser_snapshot", since=fingerprint)
        assert 'grid "Events": rows 18-37 of 1,000 now visible (were rows 1-20)' in since, since
        assert not re.search(r"^\s*[+-] row", since, re.M), since  # the rows that went and came are not listed


async def test_text_of_the_app_separates_tabs_and_lays_out_the_grid(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/{APP}?state=orders")
        text = await call(s, "browser_text", target="body")
        assert "Order Orders Help" in text and "OrderOrders" not in text, text
        assert "| 1001 | Ada Lovelace | France | €9.99 | Paid | Delete |" in text, text
