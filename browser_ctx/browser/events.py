"""Per-tab console and network capture (placeholder until issue 3 lands).

Interface the rest of browser-ctx relies on:

- ``EventCapture(page, settings, redactor)``; ``await start()`` right after the page
  is created and before any navigation; ``await close()`` when the tab goes away;
- ``load_summary() -> {"consoleErrors": int, "failedRequests": int}``: counts since
  the last full navigation started (used by ``browser_navigate``'s page card).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..core.redact import Redactor
    from ..settings import EventSettings


class EventCapture:
    """Counts console errors and failed requests per navigation (full capture comes with issue 3)."""

    def __init__(self, page: Page, settings: EventSettings, redactor: Redactor) -> None:
        self._page = page
        self._errors = 0
        self._failed = 0

    async def start(self) -> None:
        """Attach listeners to the page."""
        page = self._page
        page.on("console", self._on_console)
        page.on("pageerror", self._on_pageerror)
        page.on("requestfailed", self._on_failed)
        page.on("response", self._on_response)
        page.on("framenavigated", self._on_nav)

    def _on_console(self, msg) -> None:
        if msg.type == "error":
            self._errors += 1

    def _on_pageerror(self, _exc) -> None:
        self._errors += 1

    def _on_failed(self, _req) -> None:
        self._failed += 1

    def _on_response(self, resp) -> None:
        if resp.status >= 400:
            self._failed += 1

    def _on_nav(self, frame) -> None:
        if frame.parent_frame is None:
            self._errors = 0
            self._failed = 0

    def load_summary(self) -> dict[str, int]:
        """Return ``{"consoleErrors": n, "failedRequests": m}`` since the last main-frame navigation."""
        return {"consoleErrors": self._errors, "failedRequests": self._failed}

    async def close(self) -> None:
        """Detach from the page."""
