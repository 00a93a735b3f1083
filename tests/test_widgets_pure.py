"""Pure checks of how widgets are counted and shown (no browser): the navigate card and the snapshot."""

from __future__ import annotations

from browser_ctx.core.outline import outline, render_card
from browser_ctx.core.snapshot import render_snapshot


def test_card_counts_native_selects_apart_from_comboboxes() -> None:
    html = """<form><select><option>a</option></select>
    <div role="combobox" data-ref="e1" aria-expanded="false">Choose a country</div>
    <input role="combobox" data-ref="e2"><ul role="listbox" data-ref="e3"><li role="option">x</li></ul></form>"""
    o = outline(html)
    assert o.interactive["selects"] == 1 and o.interactive["comboboxes"] == 3
    card = render_card(url="http://a/", status=200, title="T", outline=o)
    assert "1 select, 3 comboboxes" in card, card


def test_hidden_file_input_behind_a_label_is_shown_with_its_ref() -> None:
    html = ('<label for="cv">Upload CV</label><input type="file" id="cv" data-ref="e4" data-via="label" '
            'data-name="Upload CV">')
    snap = render_snapshot(html, url="http://a/")
    assert 'file input "Upload CV" (via label) [e4]' in snap, snap
