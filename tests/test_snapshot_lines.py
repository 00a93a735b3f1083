"""The snapshot's structured lines (pure): each line carries its kind, refs and full character count, and the
action-record diff matches snapshot lines by the refs they carry."""

from __future__ import annotations

from browser_ctx.core.delta import diff_renderings, render_delta
from browser_ctx.core.snapshot import SnapshotOptions, render_lines, render_snapshot
from browser_ctx.core.tokens import count_tokens

PAGE = "http://localhost:8000/"


def test_lines_carry_kind_refs_and_full_character_count() -> None:
    long = "Lorem ipsum dolor sit amet. " * 10
    html = (f'<h2><a href="/x" data-ref="e1">Section</a></h2><p>{long}<a href="/y" data-ref="e2">more</a></p>'
            '<ul><li>First <a href="/z" data-ref="e3">item</a></li></ul><button data-ref="e4">Go</button>')
    lines = render_lines(html, url=PAGE)
    by_kind = {line.kind: line for line in lines}
    assert by_kind["heading"].refs == ["e1"] and by_kind["heading"].text.startswith('heading 2 "Section" link [e1]')
    text = by_kind["textref"]
    assert text.refs == ["e2"] and text.label == "text" and text.cut > 0
    shown = len(text.body) - text.body.count("…")
    assert text.chars == shown + text.cut, (text.chars, text.text)
    assert text.text.endswith(f"(+{text.cut:,} chars)")
    item = by_kind["item"]
    assert item.item and item.refs == ["e3"] and item.text == "- First [item](e3)"
    assert by_kind["control"].refs == ["e4"]
    # the text a snapshot returns is these lines, indented
    snap = render_snapshot(html, url=PAGE, page_line=False)
    assert snap == "\n".join("  " * line.depth + line.text for line in lines)


def test_table_rows_carry_the_refs_of_their_cells() -> None:
    rows = "".join(f'<tr><td>Row {i}</td><td><button data-ref="e{i}">Delete</button></td></tr>' for i in range(3))
    lines = render_lines(f"<table><tr><th>Name</th><th>Action</th></tr>{rows}</table>", url=PAGE)
    assert [line.refs for line in lines[1:]] == [["e0"], ["e1"], ["e2"]], lines


def test_diff_of_snapshot_lines_matches_by_their_refs() -> None:
    before = '<button data-ref="e1">Save</button><button data-ref="e2">Save</button><p>Draft</p>'
    after = '<button data-ref="e1">Save</button><p>Saved</p>'
    opts = SnapshotOptions()
    by_lines = diff_renderings(render_lines(before, url=PAGE, options=opts),
                               render_lines(after, url=PAGE, options=opts))
    by_text = diff_renderings(render_snapshot(before, url=PAGE), render_snapshot(after, url=PAGE))
    assert by_lines.disappeared == ['button "Save" [e2]', "Draft"]
    assert by_lines.appeared == ["Saved"]
    assert render_delta(by_lines) == render_delta(by_text)


def test_an_operable_named_from_its_text_shows_it_whole_unless_the_budget_needs_the_room() -> None:
    """A control the walker found operable without ARIA (a terminal div it listens to) is named from its text: the
    line keeps that text whole (a command's output), and is cut back to the name's length only to fit."""
    text = "Type help for the commands. $ ls notes.txt report.pdf todo.md archive.tar.gz $ whoami ada $"
    html = (f'<div data-ref="e1" data-op="listener" data-name="{text}">{text}</div>'
            f'<div data-ref="e2" data-op="listener" role="button" data-name="{text}">{text}</div>'
            f'<button data-ref="e3">{text}</button>')
    lines = render_lines(html, url=PAGE, max_tokens=8000)
    assert lines[0].text == f'clickable "{text}" [e1]', lines[0].text
    assert lines[1].text.endswith('…" [e2]'), "a role the page gave: named as ARIA names it, cut to name_chars"
    assert lines[2].text.endswith('…" [e3]'), "a button's name is cut as before"
    condensed = render_snapshot(html, url=PAGE, page_line=False)
    whole = render_snapshot(html, url=PAGE, page_line=False, max_tokens=8000)
    assert f'"{text}" [e1]' not in condensed and '…" [e1]' in condensed, condensed
    squeezed = render_snapshot(html, url=PAGE, page_line=False, max_tokens=count_tokens(condensed) + 2)
    assert count_tokens(whole) > count_tokens(condensed) + 2 and squeezed == condensed, "cut back to fit"
