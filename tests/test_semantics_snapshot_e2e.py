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
        assert re.search(r'grid "Orders" 6 cols, rows 1-25 of 200: Order \| Customer \| Country \| Total \| '
                         r'Status \| Actions', snap), snap
        assert re.search(r'row: 1001 \| Ada Lovelace \| France \| €9\.99 \| Paid \| button "Delete" \[e\d+\]',
                         snap), snap
        fold = _FOLD_TARGET.search(snap)
        assert fold and "… 22 more rows" in snap, snap
        # The fold line's call shows all 25 rows, each with its Delete ref, and folds nothing.
        whole = await call(s, "browser_snapshot", target=fold.group(1))
        rows = re.findall(r'row: (10\d\d) \|[^\n]*button "Delete" \[e\d+\]', whole)
        assert rows == [str(1001 + i) for i in range(25)], whole
        assert "more rows" not in whole and "rows 1-25 of 200" in whole
        # The next page says which rows it shows.
        nxt = re.search(r'button "Go to next page" \[(e\d+)\]', snap)
        assert nxt, snap
        await call(s, "browser_click", target=nxt.group(1))
        page2 = await call(s, "browser_snapshot", force=True)
        assert "rows 26-50 of 200" in page2 and "row: 1026 |" in page2, page2


async def test_virtualised_grid_states_its_total_and_the_rendered_rows(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/virtual-grid.html")
        snap = await call(s, "browser_snapshot")
        assert 'grid "Events" 2 cols, rows 1-20 of 1,000: Event | When' in snap, snap
        assert "row: Event 20 | Day 20" in snap and "more rows" not in snap, snap


async def test_every_fold_line_names_a_call_that_shows_what_it_folded(site: str) -> None:
    async with mcp_session() as s:
        await call(s, "browser_navigate", url=f"{site}/semantics/folds.html")
        snap = await call(s, "browser_snapshot")
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
