"""Pure tests of the verify loop's core: deltas matched by element identity, popups that hide the page."""

from __future__ import annotations

from browser_ctx.core.delta import diff_renderings, render_delta

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
    assert render_delta(delta) == '~ checkbox "I accept the terms" [e3] checked (was: checkbox "I accept the terms")'


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
