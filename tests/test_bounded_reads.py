"""Pure parts of bounded reads (issue 15): the walk's size, partial results labelled, incremental cutting."""

from __future__ import annotations

import json

from browser_ctx.core.capping import (
    MIN_COLLECT_CHARS,
    PARTIAL_KEY,
    cap,
    collect_chars,
    partial_fields,
    partial_note,
)
from browser_ctx.core.tokens import count_tokens


def _json_tokens(meta: dict) -> int:
    return count_tokens(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))


def test_collect_chars_follows_the_budget_with_a_floor():
    assert collect_chars(2000, 40_000) == 200_000
    assert collect_chars(8000, 40_000) > collect_chars(2000, 40_000)
    assert collect_chars(200, 40_000) == MIN_COLLECT_CHARS
    assert collect_chars(8000, 1_000) == MIN_COLLECT_CHARS  # a small character budget still finds main content


def test_whole_read_has_no_partial_field():
    assert partial_fields(500, 0, loading=False) is None
    assert partial_note(0, 500, loading=False) == ""


def test_partial_result_is_truncated_with_estimates():
    text = "line\n" * 100
    partial = partial_fields(1_000, 199_000, loading=False)
    assert partial == {"elementsRead": 1_000, "elementsLeft": 199_000, "loading": False}
    got = cap(text, max_tokens=2000, max_chars=40_000, extra_meta={PARTIAL_KEY: partial})
    assert got.text == text  # all of what was read fits
    assert got.meta["truncated"] is True and got.meta["estimated"] is True
    assert got.meta["fullLength"] == len(text) * 200 and got.meta["fullTokens"] == count_tokens(text) * 200
    assert "nextOffset" not in got.meta  # nothing more to page through in this capture


def test_cut_partial_result_marker_says_about():
    text = "word " * 5_000
    got = cap(text, max_tokens=300, max_chars=40_000,
              extra_meta={PARTIAL_KEY: partial_fields(100, 100, loading=False)})
    assert got.truncated and "of about " in got.text
    assert got.meta["fullLength"] == 2 * len(text)


def test_loading_note_and_field():
    note = partial_note(0, 1_234, loading=True)
    assert note.startswith("page still loading: 1,234 elements so far")
    assert partial_fields(1_234, 0, loading=True) == {"elementsRead": 1_234, "elementsLeft": 0, "loading": True}
    more = partial_note(5_000, 9_000, loading=False)
    assert "about 5,000 more elements not read" in more and "list" not in more
    inside = partial_note(5_000, 9_000, loading=False, siblings_left=2_400)
    assert "2,400 of them further items of the list where it stopped" in inside


def test_cut_fits_the_budget_exactly_counted():
    # multi-byte text and many lines: the cut chosen from one encoding still fits when counted exactly
    text = "".join(f"ligne {i} — été ✓ 漢字\n" for i in range(3_000))
    for budget in (200, 777, 2000):
        got = cap(text, max_tokens=budget, max_chars=40_000)
        assert got.truncated
        assert count_tokens(got.text) + _json_tokens(got.meta) <= budget
        assert text[: got.next_offset].endswith("\n")  # cut at a line boundary
        assert got.text.startswith(text[: got.next_offset])
        # nearly all the budget is used (not shrunk by a blind factor)
        assert count_tokens(got.text) + _json_tokens(got.meta) > budget * 0.85
