"""Pure tests of the verify loop's core: deltas matched by element identity, popups that hide the page,
fingerprints, the bounded read history and the shown-and-gone line."""

from __future__ import annotations

from browser_ctx.core.delta import diff_renderings, render_delta
from browser_ctx.core.fingerprint import ReadHistory, page_fingerprint, result_fingerprint
from browser_ctx.core.journal import parse_entries, render_gone
from browser_ctx.core.record import ActionRecord, render_record

ROWS = """\
grid "Orders"
  row "1001 Ada"
    button "Delete" [e5]
  row "1002 Bob"
    button "Delete" [e7]
  row "1003 Cy"
    button "Delete" [e9]
"""


def test_deleting_the_second_of_three_identical_buttons_names_the_second() -> None:
    after = ROWS.replace('  row "1002 Bob"\n    button "Delete" [e7]\n', "")
    delta = diff_renderings(ROWS, after)
    assert delta.disappeared == ['row "1002 Bob"', 'button "Delete" [e7]']
    assert not delta.appeared and not delta.changed
    out = render_delta(delta)
    assert '- button "Delete" [e7]' in out and "[e5]" not in out and "[e9]" not in out


def test_same_element_new_state_is_changed_not_appeared() -> None:
    before = 'checkbox "I accept the terms" [e3]\nbutton "Place order" [e4]'
    after = 'checkbox "I accept the terms" [e3] checked\nbutton "Place order" [e4]'
    delta = diff_renderings(before, after)
    assert not delta.appeared and not delta.disappeared
    assert delta.changed == [('checkbox "I accept the terms" [e3]', 'checkbox "I accept the terms" [e3] checked')]
    assert render_delta(delta) == '~ checkbox "I accept the terms" [e3]: checked added'


def test_modal_that_hides_the_page_is_one_line_each_way() -> None:
    page = "\n".join(['heading "Shop" [level=1]', 'tab "Order" [e1] selected', 'tab "Orders" [e2]',
                      'textbox "Full name" [e3]', 'textbox "Email" [e4]', 'button "Read terms" [e5]',
                      'button "Place order" [e6]'])
    modal = "\n".join(['dialog "Terms of service"', '"These terms apply to every order."',
                       'button "Close" [e9]'])
    opened = render_delta(diff_renderings(page, modal))
    lines = opened.splitlines()
    assert lines[0] == 'dialog "Terms of service" opened; page behind it hidden from assistive technology'
    assert '+ button "Close" [e9]' in lines
    assert not any(line.startswith("- ") for line in lines)
    closed = render_delta(diff_renderings(modal, page))
    assert closed == 'dialog "Terms of service" closed; page behind it shown again'


def test_a_dialog_beside_the_page_is_reported_line_by_line() -> None:
    page = "\n".join(f'button "B{i}" [e{i}]' for i in range(1, 11))
    after = page + '\ndialog "Cookies"\nbutton "OK" [e20]'
    out = render_delta(diff_renderings(page, after))
    assert out.splitlines() == ['+ dialog "Cookies"', '+ button "OK" [e20]']


def test_an_unnamed_dialog_takes_its_heading() -> None:
    page = "\n".join(f'button "B{i}" [e{i}]' for i in range(1, 11))
    modal = 'dialog:\n  heading 2 "Terms of service"\n  button "Close" [e20]'
    out = render_delta(diff_renderings(page, modal))
    assert out.splitlines()[0] == 'dialog "Terms of service" opened; page behind it hidden from assistive technology'


def test_read_history_is_bounded_per_key_keys_and_chars() -> None:
    h = ReadHistory(keys=2, per_key=3, chars=100)
    for i in range(5):
        h.remember("snap", f"fp{i}", f"text {i}")
    assert h.get("snap", "fp0") is None and h.get("snap", "fp1") is None  # only the last 3 of a key
    assert h.get("snap", "fp4") == "text 4" and len(h) == 3
    h.remember("text", "a", "x")
    h.remember("other", "b", "y")  # a third key: the least recently read key goes
    assert h.get("snap", "fp4") is None and h.get("text", "a") == "x" and h.get("other", "b") == "y"
    h.remember("text", "big", "z" * 99)  # 101 characters in all: the oldest read goes, down to 100
    assert h.get("text", "big") == "z" * 99 and h.get("text", "a") is None and h.get("other", "b") == "y"


def test_fingerprints_see_the_page_not_only_the_output() -> None:
    html = '<body><p>a</p><button data-ref="e1">Go</button></body>'
    assert page_fingerprint([html]) == page_fingerprint([html.replace("e1", "e9")])  # refs are in the text
    assert page_fingerprint([html]) != page_fingerprint([html.replace("<p>a", "<p>b")])
    assert result_fingerprint("same", "p1") != result_fingerprint("same", "p2")
    assert result_fingerprint("same") == result_fingerprint("same")


def test_shown_and_gone_line_is_capped_and_folded() -> None:
    raw = {"entries": [{"role": "status", "text": "Saved after retry", "ms": 1500}] * 2
           + [{"role": "toast", "text": f"Toast {i} " + "x" * 200, "ms": 40} for i in range(8)]
           + [{"role": 5, "text": None}, "junk"], "dropped": 3}
    entries, dropped = parse_entries(raw)
    assert len(entries) == 10 and dropped == 3
    line = render_gone(entries, dropped)
    assert line is not None and line.startswith('Shown and gone: status "Saved after retry" (1.5 s) ×2; toast "Toast 0')
    assert "(40 ms)" in line and line.endswith("(+7 more)")  # 5 shown, 4 more toasts and 3 dropped
    assert len(line) < 600
    assert render_gone([]) is None and parse_entries(None) == ([], 0)



def test_what_appeared_after_the_last_call_gets_its_own_line() -> None:
    raw = {"entries": [{"role": "toast", "text": "Flash", "ms": 150}],
           "shown": [{"role": "status", "text": "Settings saved", "ms": 900}, {"role": "toast", "text": "Flash"}]}
    entries, _ = parse_entries(raw, "f1")
    assert [(e.text, e.shown) for e in entries] == [("Flash", False), ("Settings saved", True), ("Flash", True)]
    # what also went is said once, as gone
    assert render_gone(entries) == ('Shown and gone: toast "Flash" in frame f1 (0.1 s)\n'
                                    'Appeared since the last call: status "Settings saved" in frame f1')
    only = render_gone(parse_entries({"entries": [], "shown": [{"role": "toast", "text": "Published", "ms": 5}]})[0])
    assert only == 'Appeared since the last call: toast "Published"'
    assert parse_entries({"entries": [], "shown": "junk"}) == ([], 0)

def test_a_scrolled_virtual_list_reports_the_rows_now_visible() -> None:
    def rows(start: int) -> str:
        return "\n".join(f'row: {i} | Customer {i} | button "Delete" [e{i}]' for i in range(start, start + 10))
    before = 'heading 2 "Orders"\n' + rows(1001)
    after = 'heading 2 "Orders"\n' + rows(1026)
    out = render_delta(diff_renderings(before, after))
    assert out == ('rows now visible (10, 10 no longer shown): row: 1026 | Customer 1026 | button "Delete" [e1026] '
                   '… row: 1035 | Customer 1035 | button "Delete" [e1035]'), out


def test_the_record_carries_the_shown_and_gone_line_before_the_delta() -> None:
    line = render_gone(parse_entries({"entries": [{"role": "toast", "text": "Order placed", "ms": 1500}]})[0])
    text = render_record(ActionRecord(action='Clicked "Place order" [e9]', shown_and_gone=line,
                                      delta='+ "Last order: Ada"'))
    assert text.splitlines() == ['Clicked "Place order" [e9].', 'Shown and gone: toast "Order placed" (1.5 s)',
                                 '+ "Last order: Ada"']
