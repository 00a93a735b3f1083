"""One call's output budget, clamped once.

The pipeline builds a :class:`Budget` from the caller's ``maxTokens`` (``Budget.from_request``)
and hands it to the tool in ``ToolCall.budget``; nothing else clamps ``maxTokens``. Units:

- ``tokens``: o200k_base tokens of the whole text result (the text blocks and the structured
  content the client receives);
- ``chars``: characters (Unicode code points) the text of one result may hold;
- ``image_tokens``: the image-token budget of a screenshot, estimated as in
  :mod:`browser_ctx.core.images` (not text tokens).

A part of a result that must leave room for the rest asks for ``budget.reserve(n)``: a smaller
budget, never below one token.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..settings import CapSettings

__all__ = ["Budget", "MIN_IMAGE_TOKENS"]

#: The least image-token budget a screenshot accepts: a smaller ``maxTokens`` is raised to it (a
#: smaller image shows nothing readable).
MIN_IMAGE_TOKENS = 50


@dataclass(frozen=True)
class Budget:
    """What one call may return.

    Attributes:
        tokens: o200k tokens of the whole text result: the caller's ``maxTokens`` (default
            ``CapSettings.default_max_tokens``), clamped to
            ``[CapSettings.min_tokens, CapSettings.ceiling_tokens]``.
        chars: characters the text of the result may hold (``CapSettings.ceiling_chars``).
        image_tokens: a screenshot's image-token budget: the caller's ``maxTokens`` (default
            ``CapSettings.image_default_tokens``), clamped to
            ``[MIN_IMAGE_TOKENS, CapSettings.image_ceiling_tokens]``.
    """

    tokens: int
    chars: int
    image_tokens: int

    @classmethod
    def from_request(cls, requested: int | None, caps: CapSettings) -> Budget:
        """Return the budget of a call that asked for ``requested`` tokens (``None``: not given).

        ``requested`` is the caller's ``maxTokens`` as validated by the tool's schema (an integer
        ≥ 1); for a screenshot it means image tokens, for every other tool text tokens.
        """
        text = caps.default_max_tokens if requested is None else int(requested)
        image = caps.image_default_tokens if requested is None else int(requested)
        return cls(
            tokens=min(max(text, caps.min_tokens), caps.ceiling_tokens),
            chars=caps.ceiling_chars,
            image_tokens=max(MIN_IMAGE_TOKENS, min(image, caps.image_ceiling_tokens)),
        )

    def reserve(self, tokens: int, chars: int = 0) -> Budget:
        """Return a smaller budget: ``tokens`` tokens and ``chars`` characters kept free for the rest of
        the result (never below 1 token or 1 character). ``image_tokens`` is unchanged."""
        return replace(self, tokens=max(1, self.tokens - tokens), chars=max(1, self.chars - chars))
