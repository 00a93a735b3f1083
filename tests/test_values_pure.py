"""Exact values (pure): JSON-style quoting, where two values differ only in whitespace, a field's value as the
snapshot and browser_text show it."""

from __future__ import annotations

from browser_ctx.core.dom import parse_html
from browser_ctx.core.markdown import render_markdown, render_text
from browser_ctx.core.snapshot import render_snapshot
from browser_ctx.core.values import quote_value, whitespace_difference


def test_values_are_quoted_as_the_field_holds_them() -> None:
    assert quote_value("cursus eu ") == '"cursus eu "'
    assert quote_value("a\n\tb \"c\"") == '"a\\n\\tb \\"c\\""'
    assert quote_value("x" * 10, 4) == '"xxxx"… (+6 chars)'
    assert quote_value("abc…", cut=True) == '"abc"… (more not read)'


def test_a_whitespace_difference_names_the_character() -> None:
    assert whitespace_difference("cursus eu ", "cursus eu") == \
        'differs at character 10: expected " " (space), got end of text'
    assert whitespace_difference("a\n b", "a\n\tb") == 'differs at character 3: expected " " (space), got "\\t" (tab)'
    assert whitespace_difference("a b", "a\u00a0b") == \
        'differs at character 2: expected " " (space), got "\u00a0" (no-break space)'
    assert whitespace_difference("same", "same") is None and whitespace_difference("cat", "cart") is None


def test_the_snapshot_shows_a_walked_value_exactly() -> None:
    html = ('<textarea data-ref="e1" data-name="Copy" data-value="Lorem, cursus eu "></textarea>'
            '<input data-ref="e2" data-name="Notes" data-value="one\ntwo\tthree">'
            f'<input data-ref="e3" data-name="Long" data-value="{"w" * 199}…" data-value-hash="x1">')
    out = render_snapshot(html, url="http://a/")
    assert 'textbox "Copy" [e1] = "Lorem, cursus eu "' in out, out
    assert 'textbox "Notes" [e2] = "one\\ntwo\\tthree"' in out, out
    assert 'textbox "Long" [e3] = "' + "w" * 60 + '"… (more not read)' in out, out
    fits = render_snapshot(html, url="http://a/", max_tokens=2000)
    assert '= "' + "w" * 199 + '"… (more not read)' in fits, fits  # the page fits: the value is shown whole


def test_text_of_a_lone_field_is_its_value() -> None:
    doc = parse_html('<input value="  A-17  ">')
    assert render_markdown(doc) == "  A-17  " and render_text(doc) == "  A-17  "
    assert render_text(parse_html('<input type="password" value="secret">')) == ""
    assert render_text(parse_html("<p>Label</p><input value='x'>")) == "Label"  # a page: fields are not text
