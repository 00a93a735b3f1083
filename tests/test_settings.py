"""Settings are validated when built, and the CLI turns a bad combination into a usage error."""

from __future__ import annotations

import pytest

from browser_ctx.browser.launcher import BLINK_FEATURES, chromium_args
from browser_ctx.cli import main
from browser_ctx.settings import CapSettings, EventSettings, LaunchSettings, Settings, Timeouts


def test_defaults_are_valid():
    assert Settings().caps.default_max_tokens <= Settings().caps.ceiling_tokens


@pytest.mark.parametrize("kwargs, words", [
    ({"default_max_tokens": 9000}, "exceeds the ceiling"),
    ({"default_max_tokens": 100}, "below the least"),
    ({"image_default_tokens": 5000}, "--max-image-tokens"),
    ({"ceiling_chars": 0}, "ceiling_chars"),
    ({"captures_per_tab": -1}, "captures_per_tab"),
])
def test_caps_must_be_positive_and_ordered(kwargs, words):
    with pytest.raises(ValueError, match=words):
        CapSettings(**kwargs)


def test_other_sizes_must_be_positive():
    with pytest.raises(ValueError, match="read_ms"):
        Timeouts(read_ms=0)
    with pytest.raises(ValueError, match="network_entries"):
        EventSettings(network_entries=0)
    with pytest.raises(ValueError, match="viewport_width"):
        LaunchSettings(viewport=(0, 800))


def test_cli_reports_a_bad_combination_as_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--max-tokens", "9000"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--max-tokens 9000" in err and "ceiling" in err and "Traceback" not in err


def test_the_users_blink_features_join_ours():
    """Chromium reads only the last --enable-blink-features, so the user's join the one the reads need."""
    plain = chromium_args(LaunchSettings())
    assert plain.count(f"{BLINK_FEATURES}=ComputedAccessibilityInfo") == 1
    mine = chromium_args(LaunchSettings(chromium_args=(f"{BLINK_FEATURES}=Foo,Bar", "--lang=fr")))
    assert [a for a in mine if a.startswith(BLINK_FEATURES)] == [f"{BLINK_FEATURES}=ComputedAccessibilityInfo,Foo,Bar"]
    assert mine[-1] == "--lang=fr" and len(mine) == len(plain) + 1
