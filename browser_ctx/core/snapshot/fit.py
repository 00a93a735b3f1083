"""Fit first, condense only to fit: choose which folds and cuts of a rendering to apply for a token budget.

A rendering made for a budget (:class:`~.render.Renderer` with ``plan``) holds every line of the whole view and
every condensation that could shorten it (:class:`~.folding.Fold`: runs of similar items, table rows, long text
lines, and, found here on the lines shown, runs of paragraphs). :func:`fit` applies none when the whole view fits;
otherwise it applies, one at a time, the one that saves the most (lazy greedy, costs estimated from characters
at the page's own characters-per-token ratio), until the estimate fits. The caller checks the exact count and asks
again with a smaller estimate when it is still over.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from .folding import Fold, prose_folds, prose_line
from .inline import refresh
from .lines import Line
from .options import FOLD_LEAST

__all__ = ["Fitter", "PROSE_LINE_CHARS"]

#: Characters a paragraph fold's own line is taken to cost while choosing (the hint included).
PROSE_LINE_CHARS = 90


class Fitter:
    """The folds of one rendering and which of them are applied.

    Args:
        lines: every line of the rendering, in order (folded content and fold lines included).
        folds: its folds (``run``, ``rows``, ``cut``), some perhaps applied already.
        prose_show: paragraphs shown before a run of them folds (``SnapshotOptions.prose_show``; 0: never).
    """

    def __init__(self, lines: list[Line], folds: list[Fold], prose_show: int) -> None:
        self.lines = lines
        self.folds = folds
        self.show = prose_show
        for line in lines:
            for f in line.hidden_by:
                f.hides.append(line)
            if line.shown_by is not None:
                line.shown_by.shows.append(line)
        self._cost: dict[int, int] = {}
        self._prose_hidden: dict[int, Fold] = {}
        self._prose: list[Fold] = []
        self._gen = 0
        self._dirty = False
        self._seq = 0

    # ------------------------------------------------------------------ state
    @property
    def folded(self) -> bool:
        """Whether any fold is applied."""
        return bool(self._prose) or any(f.applied for f in self.folds)

    def visible(self, line: Line) -> bool:
        """Whether ``line`` is shown with the folds applied now."""
        if line.shown_by is not None and not line.shown_by.applied:
            return False
        return not any(f.applied for f in line.hidden_by) and id(line) not in self._prose_hidden

    def cost(self, line: Line) -> int:
        """Characters ``line`` takes in the text (indentation and line break included)."""
        c = self._cost.get(id(line))
        if c is None:
            c = self._cost[id(line)] = 2 * line.depth + len(line.text) + 1
        return c

    def total(self) -> int:
        """Characters of the lines shown now."""
        return sum(self.cost(x) for x in self.lines if self.visible(x)) + PROSE_LINE_CHARS * len(self._prose)

    def apply(self, fold: Fold) -> None:
        fold.applied = True
        for line in fold.refresh:
            refresh(line)
            self._cost.pop(id(line), None)
        if fold.kind == "prose":
            for line in fold.hides:
                if self.visible(line):
                    self._prose_hidden[id(line)] = fold
            self._prose.append(fold)
        if fold.kind != "cut":
            self._dirty = True

    def saving(self, fold: Fold) -> int:
        """Characters applying ``fold`` would save now (0 or less: it would not help)."""
        if fold.applied:
            return 0
        if fold.kind == "prose":
            hidden = [x for x in fold.hides if self.visible(x)]
            return sum(self.cost(x) for x in hidden) - PROSE_LINE_CHARS if len(hidden) >= FOLD_LEAST else 0
        saved = sum(self.cost(x) for x in fold.hides if self.visible(x))
        fold.applied = True
        saved -= sum(self.cost(x) for x in fold.shows if self.visible(x))
        changed = [x for x in fold.refresh if self.visible(x)]
        for line in changed:
            saved += self.cost(line)
            refresh(line)
            saved -= 2 * line.depth + len(line.text) + 1
        fold.applied = False
        for line in changed:
            refresh(line)
        return saved

    # ------------------------------------------------------------------ choosing
    def apply_all(self) -> None:
        """Apply every fold (today's condensed view): structural ones first, then the paragraph runs left."""
        for fold in self.folds:
            if not fold.applied:
                self.apply(fold)
        for fold in prose_folds(self.shown_content(), self.show, FOLD_LEAST, 0):
            self.apply(fold)

    def fit(self, budget_chars: float) -> bool:
        """Apply the folds that save the most until the lines shown take at most ``budget_chars`` characters.
        Returns whether they do."""
        total = self.total()
        if total <= budget_chars:
            return True
        heap: list[tuple[int, int, Fold]] = []
        self._push(heap, self.folds)
        self._push(heap, self._new_prose())
        while total > budget_chars and heap:
            _, _, fold = heapq.heappop(heap)
            if fold.applied or (fold.kind == "prose" and fold.gen != self._gen):
                continue
            if fold.kind == "prose" and self._dirty:
                self._push(heap, self._new_prose())  # the runs shrank: find them again
                continue
            saved = self.saving(fold)
            if saved <= 0:
                continue
            if heap and saved < -heap[0][0]:
                self._seq += 1
                heapq.heappush(heap, (-saved, self._seq, fold))
                continue
            self.apply(fold)
            total -= saved
        return total <= budget_chars

    def _push(self, heap: list[tuple[int, int, Fold]], folds: Iterable[Fold]) -> None:
        for fold in folds:
            saved = self.saving(fold)
            if saved > 0:
                self._seq += 1
                heapq.heappush(heap, (-saved, self._seq, fold))

    def _new_prose(self) -> list[Fold]:
        self._gen += 1
        self._dirty = False
        return prose_folds(self.shown_content(), self.show, FOLD_LEAST, self._gen)

    # ------------------------------------------------------------------ output
    def shown_content(self) -> list[Line]:
        """The lines shown now, without paragraph-fold lines."""
        return [x for x in self.lines if self.visible(x)]

    def shown(self) -> list[Line]:
        """The lines shown now, each applied paragraph fold's line after the run it folds (counting the lines it
        alone hides; none when another fold hides them all)."""
        after: dict[int, list[Fold]] = {}
        for fold in self._prose:
            if fold.anchor is not None:
                after.setdefault(id(fold.anchor), []).append(fold)
        out: list[Line] = []
        for line in self.lines:
            if self.visible(line):
                out.append(line)
            for fold in after.get(id(line), ()):
                hidden = [x for x in fold.hides if self._prose_hidden.get(id(x)) is fold
                          and not any(f.applied for f in x.hidden_by)
                          and (x.shown_by is None or x.shown_by.applied)]
                if hidden:
                    out.append(prose_line(fold, hidden))
        return out
