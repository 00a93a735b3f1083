"""The call budget (browser_ctx.core.budget): clamped once, reserves never below one token."""

from __future__ import annotations

from browser_ctx.core.budget import MIN_IMAGE_TOKENS, Budget
from browser_ctx.settings import CapSettings

CAPS = CapSettings()


def test_default_when_not_given():
    b = Budget.from_request(None, CAPS)
    assert (b.tokens, b.chars, b.image_tokens) == (CAPS.default_max_tokens, CAPS.ceiling_chars,
                                                   CAPS.image_default_tokens)


def test_clamped_to_bounds():
    low = Budget.from_request(1, CAPS)
    assert low.tokens == CAPS.min_tokens and low.image_tokens == MIN_IMAGE_TOKENS
    high = Budget.from_request(10**9, CAPS)
    assert high.tokens == CAPS.ceiling_tokens and high.image_tokens == CAPS.image_ceiling_tokens
    mid = Budget.from_request(3000, CAPS)
    assert mid.tokens == 3000 and mid.image_tokens == 3000


def test_reserve_never_below_one():
    b = Budget.from_request(None, CAPS)
    part = b.reserve(250, 500)
    assert (part.tokens, part.chars, part.image_tokens) == (b.tokens - 250, b.chars - 500, b.image_tokens)
    assert b.reserve(10**9, 10**9).tokens == 1 and b.reserve(10**9, 10**9).chars == 1
    assert b.tokens == CAPS.default_max_tokens  # frozen: reserve returns a new budget
