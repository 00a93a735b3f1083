"""The pure parts of ``bench.actions`` and ``bench.settle_gaps``: finding a control's ref in each server's snapshot,
the nearest-rank percentile, and the settle a quiet window makes on a timeline."""

from __future__ import annotations

from bench.actions import find_ref, percentile
from bench.settle_gaps import simulate


def test_each_servers_snapshot_gives_the_controls_ref() -> None:
    ours = ('heading 1 "Settings"\nbutton "Save" [e1]\nform:\n  textbox "Display name" [e2]\n'
            'select "Theme" [e4] = "Light"')
    assert find_ref("browser-ctx@150", ours, 'textbox "Display name"') == "e2"
    assert find_ref("browser-ctx", ours, 'combobox "Theme"') == "e4"  # a native select is "select" in ours
    playwright = '- generic [ref=e1]:\n  - button "Save" [ref=e3]\n  - combobox "Theme" [ref=e7]:'
    assert find_ref("playwright-mcp", playwright, 'combobox "Theme"') == "e7"
    devtools = 'uid=1_0 RootWebArea "Settings"\n  uid=1_2 button "Save"\n  uid=1_8 combobox "Theme" expandable'
    assert find_ref("chrome-devtools-mcp", devtools, 'button "Save"') == "1_2"
    assert find_ref("chrome-devtools-mcp", devtools, 'button "Rename"') is None


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5, 1, 4, 2, 3, 6, 7, 8, 9, 10], 0.9) == 9
    assert percentile([3.0], 0.9) == 3.0


def test_a_window_ends_at_the_first_quiet_stretch_and_misses_what_comes_later() -> None:
    animation = [13.0 * i for i in range(1, 20)]  # a script animation, a change every 13 ms
    assert simulate(animation, 50) == (247.0 + 50, False)
    assert simulate([264.0], 150) == (150, True)  # a 300 ms debounce's suggestions come after the record
    assert simulate([264.0], 300) == (564.0, False)
    assert simulate([], 150) == (150, False)
