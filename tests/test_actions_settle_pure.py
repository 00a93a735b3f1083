"""Settling's next look (``browser/actions._next_look_ms``): never sooner than an end could be reached."""

from __future__ import annotations

from browser_ctx.browser.actions import SETTLE_POLL_MS, TRANSIENT_WINDOW_MS, _next_look_ms
from browser_ctx.settings import ActionSettings

LIMITS = ActionSettings(quiet_ms=500, max_ms=5000, stream_ms=1000)


def test_a_quiet_page_is_looked_at_again_when_the_transient_window_ends():
    assert _next_look_ms(LIMITS, elapsed=0, dom_quiet=2000, net_quiet=2000, inflight=False,
                         streaming=False) == TRANSIENT_WINDOW_MS


def test_a_recent_mutation_or_request_sets_the_next_look():
    assert _next_look_ms(LIMITS, elapsed=1200, dom_quiet=100, net_quiet=900, inflight=False, streaming=False) == 400
    assert _next_look_ms(LIMITS, elapsed=1200, dom_quiet=900, net_quiet=300, inflight=False, streaming=False) == 200
    # a request in flight: quiet can come no sooner than quiet_ms after it ends
    assert _next_look_ms(LIMITS, elapsed=1200, dom_quiet=900, net_quiet=0, inflight=True, streaming=False) == 500


def test_the_time_limit_and_a_stream_bring_the_next_look_forward():
    assert _next_look_ms(LIMITS, elapsed=4800, dom_quiet=0, net_quiet=0, inflight=True, streaming=False) == 200
    assert _next_look_ms(LIMITS, elapsed=700, dom_quiet=0, net_quiet=600, inflight=False, streaming=True) == 300


def test_never_sooner_than_the_poll_interval():
    assert _next_look_ms(LIMITS, elapsed=990, dom_quiet=600, net_quiet=600, inflight=False,
                         streaming=False) == SETTLE_POLL_MS
