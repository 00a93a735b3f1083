"""ARIA grids laid out as tables, row ranges from aria-rowcount, and fold lines that name their one-call target
(pure: :mod:`browser_ctx.core.snapshot.tables` through :func:`browser_ctx.core.snapshot.render_snapshot`)."""

from __future__ import annotations

from browser_ctx.core.delta import diff_renderings, render_delta
from browser_ctx.core.dom import parse_html
from browser_ctx.core.markdown import render_markdown
from browser_ctx.core.snapshot import UNFOLDED, render_snapshot
from browser_ctx.core.snapshot.folding import fold_target
from browser_ctx.core.snapshot.tables import grid_rows, row_range


def snap(body: str, **kw) -> str:
    return render_snapshot(f"<html><body>{body}</body></html>", url="http://127.0.0.1:1/", **kw)


def mui_grid(rows: int, *, first: int = 1, total: int | None = 200, name: str = "Orders") -> str:
    """A MUI X DataGrid as the walker returns it: rows and cells in wrappers, a numbered header row."""
    head = ('<div role="rowgroup"><div role="row" aria-rowindex="1"><div role="none"></div>'
            + "".join(f'<div role="columnheader"><div><div>{h}</div></div></div>'
                      for h in ("Order", "Customer", "Actions"))
            + "</div></div>")
    body = "".join(
        f'<div role="row" aria-rowindex="{i + 1}"><div role="none"></div><div role="gridcell">{1000 + i}</div>'
        f'<div role="gridcell">Person {i}</div><div role="gridcell">'
        f'<button data-ref="e{i}" data-name="Delete">Delete</button></div></div>'
        for i in range(first, first + rows))
    count = f' aria-rowcount="{total + 1}"' if total is not None else ""
    return (f'<div role="grid" data-name="{name}"{count}><div role="presentation">{head}'
            f'<div role="rowgroup">{body}</div></div></div>')


def test_aria_grid_is_a_table_with_name_header_rows_and_refs() -> None:
    out = snap(mui_grid(12))
    assert 'grid "Orders" 3 cols, rows 1-12 of 200: Order | Customer | Actions' in out, out
    assert '  row: 1001 | Person 1 | button "Delete" [e1]' in out, out
    assert '  row: 1012 | Person 12 | button "Delete" [e12]' in out, out
    assert "more rows" not in out and "gridcell" not in out, out


def test_grid_page_of_25_is_whole_and_more_than_50_rows_fold_with_the_one_call_target() -> None:
    page = snap(mui_grid(25))
    assert 'grid "Orders" 3 cols, rows 1-25 of 200' in page and "1025 | Person 25 |" in page, page
    assert "more rows" not in page, page
    out = snap(mui_grid(60))
    assert "1003 | Person 3" in out and "Person 4 " not in out, out
    assert "… 57 more rows (all: browser_snapshot target='role=grid[name=\"Orders\"]')" in out, out
    # The targeted snapshot of that grid folds nothing.
    whole = render_snapshot(mui_grid(60), options=UNFOLDED, page_line=False)
    assert all(f"Person {i} |" in whole for i in range(1, 61)) and "more rows" not in whole, whole


def test_data_grid_rows_and_cells_with_refs() -> None:
    grid = ('<div role="grid" data-name="Orders"><div role="row" data-ref="e1"><div role="columnheader">Order</div>'
            '<div role="columnheader">Actions</div></div>'
            '<div role="row" data-ref="e2" aria-selected="true"><div role="gridcell" data-ref="e3">1001</div>'
            '<div role="gridcell" data-ref="e4" data-name="Delete"><button data-ref="e5" data-name="Delete">Delete'
            '</button></div></div>'
            '<div role="row" data-ref="e6"><div role="gridcell" data-ref="e7" data-name="Choose Tuesday, 15">15'
            '</div><div role="gridcell" data-ref="e8"></div></div></div>')
    out = snap(grid)
    assert 'grid "Orders" 2 cols × 2 rows:\n  header [e1]: Order | Actions' in out, out
    assert '  row [e2] selected: 1001 [e3] | button "Delete" [e5] [e4]' in out, out
    # A cell whose name says more than its text shows its name.
    assert '  row [e6]: gridcell "Choose Tuesday, 15" [e7] | [e8]' in out, out


def test_row_range_follows_the_rendered_page_and_the_total() -> None:
    assert 'rows 26-50 of 200' in snap(mui_grid(25, first=26))
    assert 'rows 1-3 of unknown' in snap(mui_grid(3, total=-2))  # aria-rowcount="-1"
    assert "3 cols × 3 rows" in snap(mui_grid(3, total=None))   # no aria-rowcount: counted rows
    # A header row without an index is not counted in aria-rowcount (a virtualised list of 1,000).
    grid = ('<div role="grid" aria-label="Events" aria-rowcount="1000"><div role="row"><div role="columnheader">'
            'Event</div></div>' + "".join(f'<div role="row" aria-rowindex="{i}"><div role="gridcell">E{i}</div></div>'
                                          for i in range(18, 38)) + "</div>")
    assert 'grid "Events" 1 col, rows 18-37 of 1,000: Event' in snap(grid)
    doc = parse_html(f"<html><body>{grid}</body></html>")
    rows = grid_rows(doc.body.children[0])
    assert row_range(doc.body.children[0], rows[:1], rows[1:]) == "rows 18-37 of 1,000"


def test_table_of_20_rows_is_whole_and_21_folds() -> None:
    def table(n: int) -> str:
        rows = "".join(f"<tr><td>Name{i}</td><td>{i}</td></tr>" for i in range(n))
        return f'<table id="prices"><tr><th>Name</th><th>Age</th></tr>{rows}</table>'
    twenty = snap(table(20))
    assert "row: Name19 | 19" in twenty and "more rows" not in twenty, twenty
    more = snap(table(21))
    assert "Name3" not in more and "… 18 more rows (all: browser_snapshot target='#prices')" in more, more


def test_similar_items_fold_line_names_its_container() -> None:
    items = "".join(f'<li class="card"><a href="/p/{i}" data-ref="e{i}">Product {i}</a> in stock</li>'
                    for i in range(40))
    assert "… 37 more similar items (all: browser_snapshot target='#results')" in snap(f'<ul id="results">{items}</ul>')
    assert "(all: browser_snapshot target='role=list[name=\"Results\"]')" in snap(
        f'<ul aria-label="Results">{items}</ul>')
    # Nothing names the list: its nearest named ancestor does.
    named = snap(f'<section aria-label="Shop"><div><ul>{items}</ul></div></section>')
    assert "target='role=region[name=\"Shop\"]'" in named, named
    unfolded = render_snapshot(f'<html><body><ul id="results">{items}</ul></body></html>', options=UNFOLDED)
    assert "Product 39" in unfolded and "more similar" not in unfolded


def test_fold_target_inside_a_frame_uses_refs_only() -> None:
    doc = parse_html('<html><body><bc-frame data-frame="f1"><ul id="x" aria-label="X"><li>a</li></ul></bc-frame>'
                     '</body></html>')
    ul = doc.body.children[0].children[0]
    assert fold_target(ul) == ""
    doc = parse_html('<html><body><bc-frame data-frame="f1"><div role="listbox" data-ref="f1e2"><ul><li>a</li></ul>'
                     '</div></bc-frame></body></html>')
    assert fold_target(doc.body.children[0].children[0].children[0]) == "f1e2"


def test_a_fold_nothing_names_still_names_a_call() -> None:
    """A plain table and a plain run of paragraphs (no ref, id, name or class): the fold names its tag under the
    nearest landmark, or the landmark (a new-user trial found '… 1,997 more rows' with no call to see them)."""
    rows = "".join(f"<tr><td>{i}</td><td>Item {i}</td></tr>" for i in range(60))
    table = snap(f"<main><h1>Big</h1><table><tr><th>Id</th><th>Name</th></tr>{rows}</table></main>")
    assert "more rows (all: browser_snapshot target='main >> table')" in table, table
    paras = "".join(f"<p>Paragraph number {i} of plain prose here.</p>" for i in range(12))
    prose = snap(f"<main><div>{paras}</div></main>")
    assert "more paragraphs" in prose and "(all: browser_snapshot target='main')" in prose, prose
    loose = snap(f"<div>{paras}</div>")
    assert "(all: browser_snapshot target='body')" in loose, loose


def test_open_dialog_text_is_whole_and_targeted_snapshots_do_not_cut_lines() -> None:
    long = "Orders are confirmed by email once payment has been accepted. " * 4
    paras = "".join(f"<p>{i}: {long}</p>" for i in range(8))
    out = snap(f'<div role="dialog" data-name="Terms">{paras}</div>')
    assert out.count(long.strip()) == 8 and "more paragraphs" not in out and "(+" not in out, out
    # Outside a dialog the outline cuts and folds as before; a targeted snapshot does neither.
    plain = snap(f"<div>{paras}</div>")
    assert "more paragraphs" in plain and "(+" in plain
    whole = render_snapshot(f"<html><body><div>{paras}</div></body></html>", options=UNFOLDED)
    assert whole.count(long.strip()) == 8, whole


SPANNED = ('<table><caption>Sales by region</caption><thead>'
           '<tr><th rowspan="2">Region</th><th colspan="2">Q1</th><th colspan="2">Q2</th></tr>'
           '<tr><th>Units</th><th>Revenue</th><th>Units</th><th>Revenue</th></tr></thead><tbody>'
           '<tr><td rowspan="2">North</td><td>10</td><td>100</td><td>12</td><td>120</td></tr>'
           '<tr><td>11</td><td>110</td><td colspan="2">not reported</td></tr>'
           '<tr><td>South</td><td>20</td><td>200</td><td>22</td><td>220</td></tr></tbody></table>')


def test_spans_are_placed_on_the_column_grid_in_snapshot_and_markdown() -> None:
    out = snap(SPANNED)
    assert ('table "Sales by region" 5 cols × 3 rows: Region | Q1 Units | Q1 Revenue | Q2 Units | Q2 Revenue'
            in out), out
    assert "  row: North | 10 | 100 | 12 | 120\n  row: North | 11 | 110 | not reported | \n" in out + "\n", out
    md = render_markdown(f"<html><body>{SPANNED}</body></html>")
    assert ("| Region | Q1 Units | Q1 Revenue | Q2 Units | Q2 Revenue |\n| --- | --- | --- | --- | --- |\n"
            "| North | 10 | 100 | 12 | 120 |\n| North | 11 | 110 | not reported | |\n"
            "| South | 20 | 200 | 22 | 220 |") in md, md


def test_a_grid_that_scrolled_says_which_rows_are_now_visible() -> None:
    def grid(a: int, b: int) -> str:
        return ('heading 1 "Events"\ngrid "Events" 2 cols, rows ' + f"{a}-{b} of 1,000:\n  header [e1]: Event | When\n"
                + "\n".join(f"  row [e{100 + i}]: Event {i} [e{200 + i}] | Day {i} [e{300 + i}]"
                            for i in range(a, b + 1)))
    out = render_delta(diff_renderings(grid(1, 20), grid(18, 37)))
    assert out == 'grid "Events": rows 18-37 of 1,000 now visible (were rows 1-20)', out


def test_a_long_value_at_the_end_of_a_line_is_kept_whole() -> None:
    sha = "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931" \
          "bd47417a81a538327af927da3e"
    out = snap(f"<p>SHA-512: <code>{sha}</code></p>")
    assert f"SHA-512: {sha}" in out.splitlines() and "(+" not in out, out
    words = " ".join(f"word{i}" for i in range(60))
    assert "(+" in snap(f"<p>{words}</p>")  # prose is still cut, with its length


def test_markdown_lays_out_aria_grids_and_separates_side_by_side_controls() -> None:
    md = render_markdown(f"<html><body>{mui_grid(2)}</body></html>")
    assert ("| Order | Customer | Actions |\n| --- | --- | --- |\n| 1001 | Person 1 | Delete |\n"
            "| 1002 | Person 2 | Delete |") in md, md
    tabs = render_markdown('<html><body><div role="tablist"><button role="tab">Order</button><button role="tab">'
                           "Orders</button><button role=\"tab\">Help</button></div></body></html>")
    assert "Order Orders Help" in tabs, tabs


def test_a_list_whose_items_sit_in_a_spacer_counts_them() -> None:
    """A virtualised list puts its rows in a spacer div; 'list 0 items' while rows show is wrong (new-user trial)."""
    rows = "".join(f'<div role="listitem">Row {i}</div>' for i in range(12))
    out = snap(f'<div role="list" aria-label="Items"><div id="sp">{rows}</div></div>')
    assert 'list "Items" 12 items' in out and "0 items" not in out, out
