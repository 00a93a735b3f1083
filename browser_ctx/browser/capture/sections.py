"""The sections of one tab: one per full navigation of its main frame, with the counts of each.

A new document in the main frame starts a new section; ``pushState`` adds a route to the current one
(:class:`~browser_ctx.core.sections.Section`). Console entries and requests are filed under the section
they happened in, so a listing shows the current page by default and ``all`` shows earlier ones.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from ...core.sections import Section

if TYPE_CHECKING:
    from ...core.redact import Redactor

__all__ = ["SectionLog", "MAX_SECTIONS", "GONE_SECTIONS"]

#: Sections kept per tab (older ones are dropped with their remaining entries).
MAX_SECTIONS = 20
#: Dropped sections whose URL is still remembered, for the entries of theirs still held.
GONE_SECTIONS = 10 * MAX_SECTIONS


class SectionLog:
    """The sections of one tab, oldest first, and what each counted.

    Attributes:
        sections: sections by id, oldest first (at most :data:`MAX_SECTIONS`).
        main_frame: the CDP frame id of the tab's main frame (``None`` until the capture attached).
        loader: the CDP loader id of the current section's document, if known.
        shown: the section of the document the tab shows (the current one once its document committed;
            until then the one before it).
    """

    def __init__(self, redactor: Redactor, url: str) -> None:
        self._redactor = redactor
        self.sections: OrderedDict[int, Section] = OrderedDict()
        self._gone: OrderedDict[int, Section] = OrderedDict()
        self._stats: dict[int, dict[str, int]] = {}
        self._next = 1
        self.main_frame: str | None = None
        self.loader: str | None = None
        self.shown = Section(0, "about:blank", time.time())
        self.shown = self.new(url or "about:blank", None)

    def new(self, url: str, loader: str | None, started: float | None = None) -> Section:
        """Start a section for a new document at ``url`` (redacted here) with CDP ``loader`` id;
        ``started``: seconds since the epoch (default now). A current section in which nothing
        happened (an ``about:blank`` before the first navigation) is replaced."""
        dropped: Section | None = None
        if self.sections:
            current = self.current
            if not self._stats[current.id]["items"] and not current.routes:
                self.sections.pop(current.id)
                self._stats.pop(current.id, None)
                dropped = current
        sid = self._next
        self._next += 1
        section = Section(sid, self._redactor.url(url), started or time.time(), loader=loader)
        self.sections[sid] = section
        if dropped is not None and self.shown is dropped:
            self.shown = section  # it replaced the empty section shown
        self._stats[sid] = {"consoleErrors": 0, "failedRequests": 0, "items": 0}
        self.loader = loader
        while len(self.sections) > MAX_SECTIONS:
            old, gone = self.sections.popitem(last=False)
            self._stats.pop(old, None)
            self._gone[old] = gone  # its entries may still be held: keep its URL for them
            while len(self._gone) > GONE_SECTIONS:
                self._gone.popitem(last=False)
        return section

    @property
    def current(self) -> Section:
        """The section of the current document."""
        return self.sections[next(reversed(self.sections))]

    def get(self, sid: int) -> Section | None:
        """The section with id ``sid``, also one dropped from :attr:`sections` whose entries are still held."""
        return self.sections.get(sid) or self._gone.get(sid)

    def for_loader(self, loader: str | None) -> Section:
        """The section of the document with this loader id (requests made by a page that is being
        navigated away from still belong to it), else the current one."""
        current = self.current
        if loader and loader != current.loader:
            for section in reversed(self.sections.values()):
                if section.loader == loader:
                    return section
        return current

    def count(self, sid: int, key: str, n: int = 1) -> None:
        """Add ``n`` to counter ``key`` (``consoleErrors``, ``failedRequests``, ``items``) of section
        ``sid``; nothing when the section was dropped."""
        stats = self._stats.get(sid)
        if stats is not None:
            stats[key] += n

    def counts(self, sid: int) -> dict[str, int]:
        """The counters of section ``sid`` (zeros when it was dropped)."""
        return dict(self._stats.get(sid) or {"consoleErrors": 0, "failedRequests": 0, "items": 0})
