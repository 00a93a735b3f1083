"""The verify-loop measure's round rules (bench/verify_rounds.py): pure, no browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.verify_rounds import ROUNDS, Edit, Round, apply_edit, judge, split_answer

APP = Path(__file__).resolve().parents[1] / "fixtures" / "apps" / "shop"

LABEL = Round("label", "label", "form", expect=("Recipient name",), gone="Full name")
SAME = Round("no-change", "none", "form", changes=False)
REFS_ONLY = ("Changes since 0144b9f811e3 (fingerprint now 44c5a0700e0d):\n"
             '~ 12 lines re-rendered with new refs (old refs are stale), e.g. tab "Order" [e13] selected')


def test_every_round_applies_to_the_committed_source_in_order():
    sources: dict[str, str] = {}
    for rnd in ROUNDS:
        for edit in rnd.edits:
            text = sources.get(edit.path) or (APP / edit.path).read_text()
            sources[edit.path] = apply_edit(text, edit)
    # the throw is fixed again, the other edits stay
    assert "throw new Error" not in sources["src/OrderForm.jsx"]
    assert "Recipient name" in sources["src/OrderForm.jsx"] and "Order confirmed" in sources["src/OrderForm.jsx"]
    assert [r.name for r in ROUNDS if not r.changes] == ["no-change"]


def test_an_edit_must_match_exactly_once():
    with pytest.raises(ValueError, match="found 0"):
        apply_edit("abc", Edit("x", "zz", "y"))
    with pytest.raises(ValueError, match="found 2"):
        apply_edit("aa", Edit("x", "a", "b"))


def test_split_since_answer_into_present_and_gone():
    text = ("Changes since a (fingerprint now b):\n- textbox \"Full name\" [e16]\n+ textbox \"Recipient name\" [e28]\n"
            "~ button \"Save\" [e3] disabled (was: button \"Save old\")\n" + REFS_ONLY.splitlines()[1])
    present, gone, change = split_answer(text)
    assert "Recipient name" in present and "Full name" not in present and "Save old" not in present
    assert "Full name" in gone and "Save old" in gone and change
    assert split_answer(REFS_ONLY)[2] is False
    assert split_answer("Unchanged since abc (same tool)") == ("", "", False)
    yaml = '### Snapshot\n- generic [ref=e3]:\n  - textbox "Full name" [ref=e16]'  # another server's snapshot
    assert split_answer(yaml, diff=False) == (yaml, "", False)


def test_label_round_right_and_wrong():
    good = "Changes since a (fingerprint now b):\n- textbox \"Full name\" [e16]\n+ textbox \"Recipient name\" [e28]"
    assert judge(LABEL, ["card", good], look=good, diffs=True).correct
    stale = "Page: Shop\n  textbox \"Full name\" [e4]\n  textbox \"Recipient name\" [e5]"
    verdict = judge(LABEL, [stale], look=stale)
    assert not verdict.correct and verdict.stale
    missing = judge(LABEL, ["Page: Shop"], look="Page: Shop")
    assert not missing.correct and missing.missing == ["Recipient name"]
    assert not judge(LABEL, [good], look=good, errors=["browser_snapshot: boom"]).correct
    assert not judge(LABEL, [good], look=None).correct


def test_false_unchanged_is_any_look_reporting_no_change_on_a_changed_page():
    for look in ("Unchanged since abc (the page within the target is as it was then).", REFS_ONLY):
        verdict = judge(LABEL, ["card", look], look=look, diffs=True)
        assert verdict.false_unchanged and not verdict.correct
    # only browser-ctx answers since reads
    assert not judge(LABEL, [REFS_ONLY], look=REFS_ONLY).false_unchanged
    # saying the page changed where the read does not show it is not a false Unchanged (but not correct either)
    unseen = ("No change in what browser_snapshot shows since a, but the page changed inside what it folds or cuts "
              "(fingerprint now b).")
    verdict = judge(LABEL, [unseen], look=unseen, diffs=True)
    assert not verdict.false_unchanged and not verdict.correct


def test_no_change_round():
    assert judge(SAME, [REFS_ONLY], look=REFS_ONLY, diffs=True).correct
    assert judge(SAME, ["Unchanged since abc."], look="Unchanged since abc.", diffs=True).correct
    changed = "Changes since a (fingerprint now b):\n+ text: Hello"
    assert not judge(SAME, [changed], look=changed, diffs=True).correct
    assert judge(SAME, ["- generic [ref=e3]: whole page"], look="- generic [ref=e3]: whole page").correct


def test_toast_seen_in_an_action_record_counts():
    toast = Round("toast", "t", "placed", expect=("Order confirmed",), gone="Order placed")
    record = 'Clicked button "Place order" [e200].\n+ region "Notifications alt+T":\n+ - Order confirmed'
    look = "Changes since a (fingerprint now b):\n- - Order placed\n+ - Order confirmed"
    assert judge(toast, [record, look], look=look, diffs=True).correct
    journal = '[Shown and gone: toast "Order confirmed" (1.5 s)]\nChanges since a (fingerprint now b):\n+ text: x'
    assert judge(toast, [journal], look=journal, diffs=True).correct


def test_the_old_text_is_judged_on_the_page_not_on_console_history():
    fix = Round("fix", "f", "form", expect=("New order",), gone="price table missing")
    look, console = "Page: Shop\n  heading 2 \"New order\"", "[error] Uncaught Error: price table missing"
    assert judge(fix, [look, console], look=look, page_texts=[look]).correct
    assert not judge(fix, [look, console], look=look).correct


def test_shown_and_gone_counts_as_shown_never_as_still_there():
    msg = Round("validation", "v", "invalid", expect=("Tell us",), gone="Full name is required")
    record = ('Clicked button "Place order" [e36].\nShown and gone: alert "Full name is required" (9.3 s)\n'
              "- text: Full name is required\n+ text: Tell us")
    assert judge(msg, [record], look=record, diffs=True).correct
    toast = Round("toast", "t", "placed", expect=("Order confirmed",), gone="Order placed")
    note = '[Shown and gone: toast "Order confirmed" (1.5 s)]\nChanges since a (fingerprint now b):\n+ text: x'
    assert judge(toast, [note], look=note, diffs=True).correct
