"""Refs inside text (pure, on trees parsed from HTML with the walker's data-ref attributes): an operable element
in running text (a link, or a word with a click handler and no widget role) keeps its ref in the text line, and a
cut never hides one."""

from __future__ import annotations

from browser_ctx.core.dom import parse_html
from browser_ctx.core.snapshot import render_lines, render_snapshot

PAGE = "http://localhost:8000/"


def snap(body: str, **kw) -> str:
    return render_snapshot(parse_html(f"<html><body>{body}</body></html>"), url=PAGE, page_line=False, **kw)


def test_a_clickable_word_keeps_its_ref_inside_the_text() -> None:
    out = snap('<p>Fermentum nec. Adipiscing porta eu hendrerit. <span data-ref="e14">Egestas</span> non '
               'maecenas.</p>')
    assert out == "Fermentum nec. Adipiscing porta eu hendrerit. [Egestas](e14) non maecenas.", out
    marked = snap('<p>Call <span data-ref="e3" data-role="clickable" data-name="Ashli">Ashli</span> today.</p>')
    assert marked == "Call [Ashli](e3) today.", marked
    lines = render_lines(parse_html('<p>Email: <span data-ref="e7">ashli@example.com</span></p>'), url=PAGE)
    assert [(x.text, x.refs) for x in lines] == [("Email: [ashli@example.com](e7)", ["e7"])]


def test_widgets_and_icon_only_elements_keep_lines_of_their_own() -> None:
    out = snap('<p>Rate it <button data-ref="e2">Send</button> or <span data-ref="e3" class="like" '
               'data-name="like" data-name-from="class" data-name-token="like"></span> it.</p>')
    lines = out.splitlines()
    assert 'button "Send" [e2]' in lines, out
    assert "clickable .like [e3]" in lines, out  # named by its class token, as CSS writes it
    block = snap('<div>Pick one:</div><div data-ref="e4" data-role="clickable">Card title</div>')
    assert 'clickable "Card title" [e4]' in block.splitlines(), block


def test_a_cut_never_hides_an_operable_element() -> None:
    long = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 6
    out = snap(f'<p>{long}<span data-ref="e9">Egestas</span> and more words after it.</p>')
    assert "[Egestas](e9)" in out and "(+" in out, out
    (line,) = render_lines(parse_html(f'<p>{long}<span data-ref="e9">Egestas</span> tail.</p>'), url=PAGE)
    assert line.refs == ["e9"] and line.cut > 0, line.text
    whole = snap(f'<p>{long}<span data-ref="e9">Egestas</span> tail.</p>', max_tokens=2000)
    assert "(+" not in whole and "[Egestas](e9) tail." in whole, whole


def test_a_clickable_word_in_a_table_cell_is_inline_too() -> None:
    out = snap('<table><tr><th>Name</th><th>Phone</th></tr><tr><td><span data-ref="e5">Ashli</span> (team)</td>'
               "<td>555</td></tr></table>")
    assert "row: [Ashli](e5) (team) | 555" in out, out
