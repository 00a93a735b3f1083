"""Fit first, condense only to fit (pure): with a token budget the snapshot shows the whole view when it fits,
and folds or cuts only when it does not, where that saves the most; the page line says what the read covered."""

from __future__ import annotations

from browser_ctx.core.snapshot import UNFOLDED, render_snapshot
from browser_ctx.core.tokens import count_tokens

PAGE = "http://localhost:8000/app/"
LONG = "Dear customer, your order has shipped and will arrive within three working days of this notice. " * 2


def page(body: str) -> str:
    return f"<html><body>{body}</body></html>"


def test_a_page_that_fits_is_shown_whole() -> None:
    menu = "".join(f'<li class="item"><a href="/m{i}" data-ref="e{i}">Menu {i}</a></li>' for i in range(8))
    inbox = "".join(f'<div class="mail"><p>Email {i}: {LONG}</p></div>' for i in range(7))
    rows = "".join(f"<tr><td>Row {i}</td><td>{i * 3}</td></tr>" for i in range(30))
    html = page(f"<nav><ul>{menu}</ul></nav><main>{inbox}<table><tr><th>Name</th><th>Qty</th></tr>{rows}</table>"
                "</main>")
    condensed = render_snapshot(html, url=PAGE)
    assert "more similar" in condensed and "(+" in condensed and "more rows" in condensed, condensed
    whole = render_snapshot(html, url=PAGE, max_tokens=4000)
    assert "more similar" not in whole and "more paragraphs" not in whole and "more rows" not in whole, whole
    assert "(+" not in whole and whole.count(LONG.strip()) == 7, whole
    assert all(f"Menu {i}" in whole for i in range(8)) and "Row 29 | 87" in whole, whole
    assert count_tokens(whole) <= 4000


def test_over_budget_folds_where_it_saves_the_most() -> None:
    nav = "".join(f'<li class="nav"><a href="/n{i}" data-ref="e{i}">Section {i}</a></li>' for i in range(8))
    results = "".join(f'<li class="hit"><a href="/r{i}" data-ref="e{100 + i}">Result number {i}</a> — '
                      f"a short description of result {i}</li>" for i in range(300))
    html = page(f'<nav><ul>{nav}</ul></nav><main><ul id="results">{results}</ul></main>')
    out = render_snapshot(html, url=PAGE, max_tokens=800)
    assert count_tokens(out) <= 800, count_tokens(out)
    assert all(f"Section {i}" in out for i in range(8)), out  # the small run is left whole
    assert "… 297 more similar items (all: browser_snapshot target='#results')" in out, out
    assert out == render_snapshot(html, url=PAGE, max_tokens=800)  # deterministic


def test_a_page_that_cannot_fit_is_condensed_as_without_a_budget() -> None:
    paras = "".join(f"<p>Paragraph {i}: {LONG}</p>" for i in range(200))
    html = page(f"<main>{paras}</main>")
    assert render_snapshot(html, url=PAGE, max_tokens=50) == render_snapshot(html, url=PAGE)


def test_fitting_cuts_text_before_folding_when_that_saves_more() -> None:
    long = "Terms apply to every order placed on this site, whatever the payment method. " * 30
    html = page(f"<main><p>{long}</p>" + "".join(f"<p>Note {i}.</p>" for i in range(8)) + "</main>")
    out = render_snapshot(html, url=PAGE, max_tokens=300)
    assert "(+" in out and all(f"Note {i}." in out for i in range(8)), out  # the notes fold would save less


def test_a_fold_never_hides_fewer_than_five_items() -> None:
    for n in (6, 7):
        items = "".join(f'<li class="x"><a href="/i{i}">Item {i}</a></li>' for i in range(n))
        assert "more similar" not in render_snapshot(page(f"<ul>{items}</ul>"), url=PAGE)
    paras = "".join(f"<p>Para {i}: {LONG}</p>" for i in range(7))
    assert "more paragraphs" not in render_snapshot(page(paras), url=PAGE)
    rows = "".join(f"<tr><td>{i}</td><td>x</td></tr>" for i in range(7))
    small = render_snapshot(page(f"<table><tr><th>A</th><th>B</th></tr>{rows}</table>"), url=PAGE,
                            options=UNFOLDED.__class__(table_rows=3, table_rows_whole=4))
    assert "more rows" not in small and "row: 6 | x" in small, small


def test_page_line_says_what_the_read_covered() -> None:
    html = page("<p>Hello</p>")
    whole = render_snapshot(html, title="Shop", url=PAGE, read=(True, 0, 0))
    assert whole.splitlines()[0] == "Page: Shop — http://localhost:8000/app/ (whole document)", whole
    part = render_snapshot(html, title="Shop", url=PAGE, read=(False, 1234, 300))
    assert part.splitlines()[0].endswith("(part of the document: about 1,234 more elements not read, 300 of them "
                                         "further items of the list where it stopped)"), part
    assert render_snapshot(html, title="Shop", url=PAGE).splitlines()[0] == "Page: Shop — http://localhost:8000/app/"
