"""How a record says a change in few tokens (issue 25): pure tests of core/delta_lines.py and core/acted.py."""

from __future__ import annotations

import re

from browser_ctx.core.acted import acted_ref, class_words, record_delta
from browser_ctx.core.delta import diff_renderings, drift_shape, render_delta, ticking
from browser_ctx.core.delta_lines import changed_line, count_gone, paired_line, pairs, without_value
from browser_ctx.core.dom import parse_html
from browser_ctx.core.record import ActionRecord, render_record
from browser_ctx.core.snapshot import render_lines
from browser_ctx.core.tokens import count_tokens

PAGE = "http://localhost:8000/"


def test_a_changed_element_says_only_what_changed() -> None:
    assert changed_line('tab "Section #1" collapsed', 'tab "Section #1" [e4] selected expanded') == \
        'tab "Section #1" [e4]: collapsed → selected expanded'
    liked = changed_line('clickable "like" (named by class)',
                         'clickable "like" [e21] active (by class) (named by class)')
    assert liked == 'clickable "like" [e21]: active (by class) added'
    assert changed_line('textbox "Name"', 'textbox "Name" [e3] = "Ada"') == 'textbox "Name" [e3]: = "Ada"'
    assert changed_line('slider "Volume" = "22%"', 'slider "Volume" [e9] = "31%"') == 'slider "Volume" [e9]: = "31%"'
    assert changed_line('clickable "0"', 'clickable "-7" [e5]') == 'clickable "-7" [e5]: "0" → "-7"'
    # nothing shorter to say: the whole line and what it was
    assert changed_line('textbox "x" = "abc"', 'textbox "x" [e1]') == 'textbox "x" [e1] (was: textbox "x" = "abc")'


def test_a_line_of_sibling_controls_names_the_one_that_changed() -> None:
    before = "clickable .reply, .retweet, .like, .share"
    after = "clickable .reply [e36], .retweet [e37], .like [e38] active (by class), .share [e39]"
    assert changed_line(before, after) == "clickable .like [e38]: active (by class) added"


def test_a_text_line_that_changed_in_place_is_one_line() -> None:
    assert pairs(["Time left: 3599 / 3600sec"], ["Time left: 3598 / 3600sec"]) == [(0, 0)]
    assert paired_line("Time left: 3599 / 3600sec", "Time left: 3598 / 3600sec") == \
        "Time left: 3598 (was: 3599) / 3600sec"
    assert paired_line("Last reward: -", "Last reward: 1.00") == "Last reward: 1.00 (was: -)"
    assert paired_line('"0 items left"', '"1 item left"') == '"1 item left" (was: "0 items left")'
    # a change inside a parenthesised group is not cut out of it
    assert paired_line("Saved (1 click); volume 0", "Saved (2 click); volume 0") == \
        "Saved (2 click); volume 0 (was: Saved (1 click); volume 0)"
    # lines with refs pair only by their label; two buttons alike are two elements
    assert pairs(["Phone: [165-742-1254](e390)"], ["Phone: [351-490-2129](e396)"]) == [(0, 0)]
    assert pairs(['button "Delete" [e5]'], ['button "Delete" [e7]']) == []
    assert pairs(["text: to me"], ["text: to:"]) == []  # alike letters, other words
    # the shape of a ticking value ignores what it was
    assert drift_shape("Time left: 3598 (was: 3599) / 3600sec") == drift_shape("Time left: 3600 / 3600sec")
    # the probe's ticking elements name a shape by their text, digits masked; a text without digits names none
    shape = drift_shape("text: Time left: 3598 / 3600sec")
    assert ticking(shape, ["3597"]) and ticking(shape, ["Time left:  3590 / 3600sec"])
    assert not ticking(shape, ["Loading"]) and not ticking(shape, []) and not ticking(shape, ["Cart (2)"])


def test_a_region_that_went_is_counted_not_listed() -> None:
    before = "heading 1 \"Inbox\"\n" + "\n".join(f'button "Open message {i}" [e{i}]' for i in range(1, 11))
    after = 'heading 1 "Inbox"\nheading 2 "Message from Cy"\nLunch on Friday?\nbutton "Back" [e20]'
    out = render_delta(diff_renderings(before, after))
    assert '- 10 lines gone, from button "Open message 1" [e1]' in out, out
    assert "Open message 2" not in out and '+ button "Back" [e20]' in out, out
    assert count_tokens(out) < 50, out
    # a few lines that went are listed, each quoted up to 40 characters
    ops = count_gone([("-", "a" * 80), ("-", "b"), ("+", "c")])
    assert ops == [("-", "a" * 39 + "…"), ("-", "b"), ("+", "c")]


def test_a_value_the_record_says_already_is_not_repeated() -> None:
    assert without_value('textbox "Name" = "Ada"', 'textbox "Name" [e3] = "Bob"')
    assert not without_value('textbox "Name"', 'textbox "Name" [e3] invalid = "Bob"')
    before = render_lines('<input data-ref="e3" aria-label="Name" value="Ada"><p>Hello</p>', url=PAGE)
    after = render_lines('<input data-ref="e3" aria-label="Name" value="Bob"><p>Hello</p>', url=PAGE)
    said = record_delta(before, after, action='Typed 3 characters into textbox "Name" [e3]', value_said=True,
                        max_tokens=300)
    assert said == "no visible change", said
    shown = record_delta(before, after, action='Clicked button "Fill" [e9]', max_tokens=300)
    assert shown.startswith('~ textbox "Name" [e3]'), shown


def test_the_element_acted_on_says_a_class_word_that_changed() -> None:
    html = '<button data-ref="e4" class="ql-bold{}" title="Bold">B</button><p>Text</p>'
    before_doc, after_doc = parse_html(html.format("")), parse_html(html.format(" ql-active"))
    before, after = render_lines(before_doc, url=PAGE), render_lines(after_doc, url=PAGE)
    assert acted_ref('Clicked button "B" [e4]') == "e4" and class_words(after_doc, "e4") == ["ql-bold", "ql-active"]
    assert render_delta(diff_renderings(before, after)) == "no visible change"  # the line is the same
    out = record_delta(before, after, action='Clicked button "B" [e4]', before_doc=before_doc, after_doc=after_doc,
                       max_tokens=300)
    assert out.startswith("~ button") and out.endswith("[e4]: class ql-active added"), out
    back = record_delta(after, before, action='Clicked button "B" [e4]', before_doc=after_doc, after_doc=before_doc,
                        max_tokens=300)
    assert back.endswith("[e4]: class ql-active removed"), back
    # another element's class words are not the action's
    other = record_delta(before, after, action='Clicked button "C" [e5]', before_doc=before_doc, after_doc=after_doc,
                         max_tokens=300)
    assert other == "no visible change", other


def test_a_change_over_the_budget_is_summarised_by_structure() -> None:
    rows = "".join(f'<tr><td><a href="#" data-ref="e{100 + i}">{i}</a></td><td><a href="#" data-ref="e{200 + i}">'
                   f'{i + 1}</a></td><td>day {i} of the month, a longer cell</td></tr>' for i in range(30))
    before = render_lines('<button data-ref="e1">Pick a date</button>', url=PAGE)
    after = render_lines(f'<button data-ref="e1">Pick a date</button><div id="picker"><table>{rows}</table></div>',
                         url=PAGE)
    out = record_delta(before, after, action='Clicked button "Pick a date" [e1]', max_tokens=120)
    assert re.search(r"\+ table 3 cols × 30 rows \(came with its \d+ lines; browser_snapshot target='#picker'\)$",
                     out), out
    assert count_tokens(out) <= 120 and "(e100)" not in out, out
    listed = record_delta(before, after, action='Clicked button "Pick a date" [e1]', max_tokens=2000)
    assert "(e100)" in listed and "came with" not in listed  # within its budget, what came is listed


def test_a_route_of_the_same_document_says_where_it_went_in_short() -> None:
    same = render_record(ActionRecord(action='Clicked link "Beaulah" [e9]', url_before="http://h:8/m/s.html",
                                      url_after="http://h:8/m/s.html#", title_before="Search", title_after="Search"))
    assert same.splitlines()[1] == "URL changed to /m/s.html#", same  # the title did not change: not repeated
    moved = render_record(ActionRecord(action='Clicked link "Next" [e9]', url_before="http://h:8/a",
                                       url_after="http://h:8/b?p=2", title_before="A", title_after="B"))
    assert moved.splitlines()[1] == 'URL changed to /b?p=2 "B"', moved
    loaded = render_record(ActionRecord(action='Clicked link "Out" [e9]', url_before="http://h:8/a",
                                        url_after="http://x/", new_document=True, title_after="X"))
    assert loaded.splitlines()[1] == 'Navigated: http://h:8/a → http://x/ "X"', loaded


def test_a_read_back_is_shown_exactly() -> None:
    rec = ActionRecord(action='Typed 12 characters into textbox [e2]')
    rec.readback = "Nunc, eu \nsecond"
    out = render_record(rec)
    assert 'It now shows: "Nunc, eu \\nsecond"' in out, out  # the trailing space and the line break kept
    rec.readback = "(filled)"
    assert 'It now shows: "(filled)"' in render_record(rec)


def test_a_selection_is_the_change_a_key_made() -> None:
    rec = ActionRecord(action="Pressed Shift+ArrowLeft")
    rec.delta = "no visible change"
    rec.notes.append('Selected: "eu "')
    assert render_record(rec) == 'Pressed Shift+ArrowLeft.\nSelected: "eu "', render_record(rec)


def test_a_changed_value_is_quoted_exactly() -> None:
    """Whitespace inside a quoted value is the value's: a change line keeps it (outside quotes it is one space)."""
    assert changed_line('textbox "Full name" [e3]', 'textbox "Full name" [e3] = "  Lin Wu  "') == \
        'textbox "Full name" [e3]: = "  Lin Wu  "'
    assert changed_line('textbox "Note" [e4] = "a b"', 'textbox "Note" [e4] = "a  b"') == \
        'textbox "Note" [e4]: = "a  b"'
