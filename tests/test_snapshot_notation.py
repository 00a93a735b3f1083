"""The snapshot's compact notation (pure, on trees parsed from HTML with the walker's attributes): bare text lines
where nothing else could start so, controls only their class or id names written as CSS writes them, and a run of
such icons on one line. Nothing operable loses its ref or its name."""

from __future__ import annotations

from browser_ctx.core.dom import parse_html
from browser_ctx.core.snapshot import render_lines, render_snapshot
from browser_ctx.core.snapshot.lines import needs_label

PAGE = "http://localhost:8000/"


def snap(body: str, **kw) -> str:
    return render_snapshot(parse_html(f"<html><body>{body}</body></html>"), url=PAGE, page_line=False, **kw)


def icon(ref: str, token: str, source: str = "class", words: str = "", tag: str = "span", more: str = "") -> str:
    return (f'<{tag} data-ref="{ref}" data-name="{words or token}" data-name-from="{source}" '
            f'data-name-token="{token}"{more}></{tag}>')


def test_a_text_line_is_bare_unless_it_could_be_read_as_another_kind_of_line() -> None:
    out = snap("<p>Last reward: -</p><p>button labels are short</p><p>- not an item</p><p>… and so on</p>"
               "<p>(empty page)</p><p>Page: 2 of 5</p><p>Über uns</p><p>42 results</p>", max_tokens=2000)
    assert out.splitlines() == [
        "Last reward: -",
        "text: button labels are short",  # a role word starts it: it could read as a control
        "text: - not an item",
        "text: … and so on",
        "text: (empty page)",
        "text: Page: 2 of 5",
        "Über uns",
        "42 results",
    ], out
    assert needs_label("list 3 items:") and needs_label("") and not needs_label("Email: [x](e1)")


def test_list_items_code_and_lines_with_refs_keep_their_forms() -> None:
    out = snap('<ul><li>Apple</li><li>pear</li></ul><pre>x = 1</pre><p>See <a href="/d" data-ref="e4">docs</a>.</p>')
    assert out.splitlines() == ["list 2 items:", "  - Apple", "  - pear", "code: x = 1", "See [docs](e4)."], out


def test_a_control_named_by_its_class_or_id_is_written_as_css_writes_it() -> None:
    out = snap(icon("e4", "like") + "<p>text</p>" + icon("e5", "open-search", "id", "open search")
               + icon("e6", "ui-slider-handle", words="slider handle", more=' data-role="slider" data-value="22%" '
                      'data-value-from="position"'))
    lines = out.splitlines()
    assert "clickable .like [e4]" in lines, out
    assert "clickable #open-search [e5]" in lines, out
    assert 'slider .ui-slider-handle [e6] (value from position) = "22%"' in lines, out
    assert "named by" not in out, out


def test_a_name_css_could_not_write_as_it_is_keeps_its_quoted_form() -> None:
    out = snap(icon("e4", "w-1/2", words="w") + "<p>x</p>" + icon("e5", "", words="star")
               + "<p>y</p>" + '<span data-ref="e6" data-name="star" data-name-from="icon"></span>')
    lines = out.splitlines()
    assert 'clickable "w" [e4] (named by class)' in lines, out
    assert 'clickable "star" [e5] (named by class)' in lines, out  # no token given: the words, and their source
    assert 'clickable "star" [e6] (named by icon)' in lines, out


def test_a_run_of_icons_with_nothing_between_them_shares_one_line() -> None:
    html = ("<p>Webster @truman</p><div>" + icon("e2", "reply") + " " + icon("e3", "retweet") + icon("e4", "like")
            + "</div>")
    (text, run) = render_lines(parse_html(f"<html><body>{html}</body></html>"), url=PAGE)
    assert run.text == "clickable .reply [e2], .retweet [e3], .like [e4]", run.text
    assert run.refs == ["e2", "e3", "e4"]  # every ref is the line's, for records and the budget
    assert text.text == "Webster @truman"


def test_a_run_breaks_at_text_at_another_role_and_at_a_control_with_a_value_or_a_name() -> None:
    out = snap(icon("e1", "reply") + " Or " + icon("e2", "like") + icon("e3", "bold", tag="button")
               + icon("e4", "star") + '<span data-ref="e5">Share</span>' + icon("e6", "more")
               + icon("e7", "ql-editor", words="editor", more=' data-role="textbox" data-value="Hi"') + icon("e8", "x"))
    assert out.splitlines() == [
        "clickable .reply [e1]",
        "Or",  # words between: no run
        "clickable .like [e2]",
        "button .bold [e3]",
        "clickable .star [e4]",
        "clickable \"Share\" [e5]",
        "clickable .more [e6]",
        'textbox .ql-editor [e7] = "Hi"',
        "clickable .x [e8]",
    ], out


def test_icons_inside_a_control_share_a_line_below_it() -> None:
    row = ('<div data-ref="e9" data-role="clickable" data-name="Koren Habitant">Koren Habitant '
           + icon("e10", "trash") + icon("e11", "star") + "</div>")
    out = snap(row)
    assert out.splitlines() == ['clickable "Koren Habitant" [e9]', "  clickable .trash [e10], .star [e11]"], out


def test_class_states_stay_beside_their_icon_in_a_run() -> None:
    out = snap(icon("e1", "hitarea", more=' data-class-states="collapsed"') + icon("e2", "handle"))
    assert out == "clickable .hitarea [e1] collapsed (by class), .handle [e2]", out
