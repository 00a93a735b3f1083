"""The session's token ledger: what each tool returned, against what the usual alternative would have cost.

Pure bookkeeping; the server's pipeline calls :meth:`Ledger.record` once per tool call
(errors included) and ``browser_ctx_stats`` renders it. All figures are o200k tokens:

- ``tokens``: what the client received for the call as text: every text part plus the
  structured content as compact JSON (the same count the caps use);
- ``image_tokens``: the estimated image tokens of images sent (``estimatedImageTokens``);
- ``baseline``: what the same job would have cost the usual way: for reads, a full
  ``aria_snapshot(mode="ai")`` of the same page (what ``@playwright/mcp`` returns); for
  console/network listings, the unfiltered listing; for anything else, or when unknown,
  the call's own ``tokens`` (no saving is claimed);
- ``saving`` = ``baseline - tokens - image_tokens`` (can be negative).

``session_tokens`` (sent as ``sessionTokens`` with every result) is ``tokens + image_tokens``
summed over every call so far.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolTally", "Ledger"]


@dataclass
class ToolTally:
    """Totals for one tool (all tokens are o200k tokens).

    Attributes:
        calls: calls made (errors included).
        errors: calls that returned an error.
        tokens: text tokens returned (text parts + structured content).
        image_tokens: estimated image tokens returned.
        baseline: tokens the usual alternative would have cost (see the module docstring).
        measured: calls whose baseline was measured rather than assumed equal to ``tokens``.
        pending: calls whose baseline is still being measured (counted as ``tokens`` until settled).
        measurable: calls of read tools, whose baseline can be measured (a full snapshot of the page).
    """

    calls: int = 0
    errors: int = 0
    tokens: int = 0
    image_tokens: int = 0
    baseline: int = 0
    measured: int = 0
    pending: int = 0
    measurable: int = 0

    @property
    def saving(self) -> int:
        """``baseline - tokens - image_tokens`` (tokens; negative when the tool cost more)."""
        return self.baseline - self.tokens - self.image_tokens


class Ledger:
    """Per-tool tallies for one session, plus a small cache of measured baselines.

    Attributes:
        definition_tokens: o200k tokens of the server's ``tools/list`` result, if the server
            set it (``None`` = unknown).
    """

    #: Baselines remembered (by page state) so re-reading an unchanged page does not re-measure.
    CACHE_SIZE = 32

    def __init__(self) -> None:
        self.tools: dict[str, ToolTally] = {}
        self.definition_tokens: int | None = None
        self._baselines: OrderedDict[Any, int] = OrderedDict()

    # -- recording -------------------------------------------------------------------------

    def record(self, tool: str, tokens: int, *, baseline: int | None = None, image_tokens: int = 0,
               error: bool = False, pending: bool = False, measurable: bool = False) -> None:
        """Add one call.

        Args:
            tool: the tool name.
            tokens: text tokens the client received (≥ 0).
            baseline: tokens of the usual alternative, or ``None`` to assume ``tokens + image_tokens``.
            image_tokens: estimated image tokens sent (≥ 0).
            error: the call returned an error.
            pending: the baseline is being measured; it counts as ``tokens + image_tokens`` until
                :meth:`settle` replaces it.
            measurable: the call is a read whose baseline can be measured (the summary says how many
                of those were measured).

        Raises:
            ValueError: a negative figure.
        """
        if tokens < 0 or image_tokens < 0 or (baseline is not None and baseline < 0):
            raise ValueError("ledger figures must be >= 0")
        tally = self.tools.setdefault(tool, ToolTally())
        tally.calls += 1
        tally.errors += int(error)
        tally.measurable += int(measurable)
        tally.tokens += tokens
        tally.image_tokens += image_tokens
        if pending:
            tally.pending += 1
        if baseline is None:
            tally.baseline += tokens + image_tokens
        else:
            tally.baseline += baseline
            tally.measured += 1

    def settle(self, tool: str, provisional: int, measured: int | None) -> None:
        """Replace a pending call's ``provisional`` baseline (its ``tokens + image_tokens``) with ``measured``
        (``None``: it could not be measured; the provisional figure stays)."""
        tally = self.tools.get(tool)
        if tally is None or tally.pending <= 0:
            return
        tally.pending -= 1
        if measured is not None and measured >= 0:
            tally.baseline += measured - provisional
            tally.measured += 1

    @property
    def session_tokens(self) -> int:
        """Text plus image tokens returned by every call so far."""
        return sum(t.tokens + t.image_tokens for t in self.tools.values())

    @property
    def calls(self) -> int:
        """Calls recorded so far."""
        return sum(t.calls for t in self.tools.values())

    def totals(self) -> ToolTally:
        """The sum of every tool's tally."""
        total = ToolTally()
        for t in self.tools.values():
            total.calls += t.calls
            total.errors += t.errors
            total.tokens += t.tokens
            total.image_tokens += t.image_tokens
            total.baseline += t.baseline
            total.measured += t.measured
            total.pending += t.pending
            total.measurable += t.measurable
        return total

    # -- baseline cache ----------------------------------------------------------------------

    def cached_baseline(self, key: Any) -> int | None:
        """Return a remembered baseline for ``key`` (any hashable page-state key), or ``None``."""
        value = self._baselines.get(key)
        if value is not None:
            self._baselines.move_to_end(key)
        return value

    def remember_baseline(self, key: Any, tokens: int) -> None:
        """Remember ``tokens`` as the baseline for ``key`` (keeps the last :attr:`CACHE_SIZE`)."""
        self._baselines[key] = tokens
        self._baselines.move_to_end(key)
        while len(self._baselines) > self.CACHE_SIZE:
            self._baselines.popitem(last=False)

    # -- output --------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Structured totals (camelCase): ``calls``, ``sessionTokens``, ``baselineTokens``, ``savedTokens``,
        ``imageTokens`` and, when known, ``definitionTokens``."""
        total = self.totals()
        out: dict[str, Any] = {"calls": total.calls, "sessionTokens": total.tokens + total.image_tokens,
                               "imageTokens": total.image_tokens, "baselineTokens": total.baseline,
                               "savedTokens": total.saving}
        if self.definition_tokens is not None:
            out["definitionTokens"] = self.definition_tokens
        return out

    def render(self) -> str:
        """Render the ledger as a small table, one line per tool, then totals.

        Columns: calls, tokens returned (text; ``+N img`` when images were sent), baseline,
        saving (tokens and percent of the baseline).
        """
        lines = ["tool | calls | returned | baseline | saved"]

        def row(name: str, t: ToolTally) -> str:
            returned = f"{t.tokens:,}" + (f" +{t.image_tokens:,} img" if t.image_tokens else "")
            pct = f" ({100 * t.saving / t.baseline:.0f}%)" if t.baseline else ""
            errors = f" ({t.errors} err)" if t.errors else ""
            return f"{name} | {t.calls}{errors} | {returned} | {t.baseline:,} | {t.saving:,}{pct}"

        for name in sorted(self.tools):
            lines.append(row(name, self.tools[name]))
        if not self.tools:
            lines.append("(no calls yet)")
        lines.append(row("total", self.totals()))
        lines.append("Baseline: reads = a full aria_snapshot(mode=\"ai\") of the same page; console/network = "
                     "the unfiltered listing; other tools, and reads not measured, = what they returned.")
        total = self.totals()
        reads = sum(t.measurable for t in self.tools.values())
        if total.pending or reads > total.measured:
            lines.append(f"Measured baselines: {total.measured} calls"
                         + (f", {total.pending} still measuring" if total.pending else "") + ".")
        if self.definition_tokens is not None:
            lines.append(f"Tool definitions (tools/list): {self.definition_tokens:,} tokens, paid on every turn.")
        return "\n".join(lines)
