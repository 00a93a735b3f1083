"""Unit tests of the pure action modules: the DOM delta and the action record (no browser)."""

from __future__ import annotations

import pytest

from browser_ctx._errors import InvalidArgument
from browser_ctx.browser.dialogs import DEFAULT_POLICY, DialogCenter, DialogPolicy
from browser_ctx.cli import build_parser, settings_from_args
from browser_ctx.core.delta import NO_CHANGE, diff_renderings, render_delta
from browser_ctx.core.record import ActionRecord, DialogInfo, DownloadInfo, PopupInfo, human_size, render_record
from browser_ctx.core.tokens import count_tokens
from browser_ctx.settings import ActionSettings

BEFORE = """\
main
  heading "Todos" [level=1]
  textbox "What needs to be done?" [e1]
  button "Add" [e2]
  "0 items left"
"""


def test_no_change_is_short() -> None:
    delta = diff_renderings(BEFORE, BEFORE)
    assert delta.empty
    assert render_delta(delta) == NO_CHANGE
    text = render_record(ActionRecord(action='Clicked "Add" (e2)', url_before="http://a/", url_after="http://a/",
                                      delta=render_delta(delta)))
    assert text == 'Clicked "Add" (e2). No visible change.'
    assert count_tokens(text) < 15


def test_appeared_and_disappeared_lines() -> None:
    after = BEFORE.replace('"0 items left"', 'listitem "Buy milk" [e3]\n  "1 item left"')
    delta = diff_renderings(BEFORE, after)
    assert delta.appeared == ['listitem "Buy milk" [e3]', '"1 item left"']
    assert delta.disappeared == ['"0 items left"']
    out = render_delta(delta)
    assert '+ listitem "Buy milk" [e3]' in out
    assert '~ "1 item left" (was: "0 items left")' in out  # the same text line changed, one line


def test_same_content_new_refs_is_rerendered_not_changed() -> None:
    before = "list\n" + "".join(f'  listitem "Item {i}" [e{i}]\n' for i in range(1, 6))
    after = "list\n" + "".join(f'  listitem "Item {i}" [e{i + 10}]\n' for i in range(1, 6))
    delta = diff_renderings(before, after)
    assert not delta.appeared and not delta.disappeared
    assert len(delta.rerendered) == 5
    out = render_delta(delta)
    assert out.startswith("~ 5 lines re-rendered with new refs (old refs are stale)")
    assert "[e11]" in out


def test_long_runs_fold_and_cap() -> None:
    after = BEFORE + "".join(f'  listitem "Row {i}" [e{i + 100}]\n' for i in range(50))
    out = render_delta(diff_renderings(BEFORE, after))
    assert "… 47 more similar lines" in out
    assert out.count("\n") < 6
    # Many dissimilar lines: capped with a closing line.
    after2 = BEFORE + "".join(f"  {'x' * (i % 7 + 1)} paragraph number {i} with words {'y' * i}\n" for i in range(400))
    out2 = render_delta(diff_renderings(BEFORE, after2), max_tokens=300)
    assert count_tokens(out2) <= 300
    assert out2.splitlines()[-1].startswith("… ") and "not shown" in out2


def test_record_lists_everything_in_order() -> None:
    rec = ActionRecord(
        action="Clicked e7", url_before="http://a/", url_after="http://a/next", title_after="Next",
        new_document=True,
        dialogs=[DialogInfo("confirm", "Sure?", accepted=False)],
        popups=[PopupInfo(1, "http://a/p", "Popup"), PopupInfo(None, "http://a/q", closed=True)],
        downloads=[DownloadInfo("r.csv", 2048, "/tmp/x/r.csv"), DownloadInfo("big.bin", None, None, "over cap")],
        console_errors=["TypeError: boom"], console_error_count=4,
        failed_requests=["GET http://a/api → 500"], failed_request_count=1,
        settle_note="Network never went quiet.", delta='+ "hello"')
    text = render_record(rec)
    lines = text.splitlines()
    assert lines[0] == "Clicked e7."
    assert lines[1] == 'Navigated: http://a/ → http://a/next "Next"'
    assert 'Dialog confirm "Sure?" → dismissed (default policy; to accept, call browser_handle_dialog' in lines[2]
    assert 'New tab [1] "Popup" http://a/p' in text
    assert "Popup opened and closed itself: http://a/q" in text
    assert "Download: r.csv, 2.0 KB, saved to /tmp/x/r.csv" in text
    assert "Download big.bin: not saved (over cap)" in text
    assert "Console errors: 4 new — TypeError: boom (+3 more)" in text
    assert "Failed requests: 1 new — GET http://a/api → 500" in text
    assert lines[-1] == '+ "hello"'


def test_human_size() -> None:
    assert human_size(10) == "10 B"
    assert human_size(1536) == "1.5 KB"
    assert human_size(3 * 1024 * 1024) == "3.0 MB"
    assert human_size(None) == "?"


def test_inline_link_refs_are_refs() -> None:
    delta = diff_renderings("text: see [Docs](e4) now", "text: see [Docs](e9) now")
    assert not delta.appeared and delta.rerendered == ["text: see [Docs](e9) now"]


def test_dialog_policy_parse_and_defaults() -> None:
    assert [DEFAULT_POLICY.accepts(k) for k in ("alert", "beforeunload", "confirm", "prompt")] == \
        [True, True, False, False]
    p = DialogPolicy.parse("confirm=accept, alert=dismiss")
    assert p.accepts("confirm") and not p.accepts("alert") and p.accepts("beforeunload") and not p.accepts("prompt")
    assert all(DialogPolicy.parse("accept").accepts(k) for k in ("alert", "confirm", "prompt", "beforeunload"))
    assert DialogPolicy.parse("default") == DEFAULT_POLICY
    with pytest.raises(InvalidArgument):
        DialogPolicy.parse("confirm=maybe")
    center = DialogCenter()
    mark = center.mark()
    center.arm(True, "x")
    assert center.armed == (True, "x") and center.since(mark) == []


def test_action_and_dialog_flags_reach_the_settings() -> None:
    args = build_parser().parse_args(["serve", "--dialogs", "accept", "--settle-quiet-ms", "200",
                                      "--settle-max-ms", "3000"])
    settings = settings_from_args(args)
    assert settings.dialogs == DialogPolicy(alert=True, beforeunload=True, confirm=True, prompt=True)
    assert (settings.actions.quiet_ms, settings.actions.max_ms) == (200, 3000)
    default = settings_from_args(build_parser().parse_args(["serve"]))
    assert default.dialogs == DialogPolicy() and default.actions == ActionSettings()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--dialogs", "confirm=maybe"])
    with pytest.raises(ValueError, match="max_ms"):
        ActionSettings(max_ms=0)
