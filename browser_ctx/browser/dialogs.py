"""Dialogs: every ``alert``/``confirm``/``prompt``/``beforeunload`` is answered at once, and logged.

The answer comes from the session's :class:`~browser_ctx.settings.DialogPolicy` (``Settings.dialogs``,
``--dialogs``; default: **accept** ``alert`` and ``beforeunload``, **dismiss** ``confirm`` and
``prompt``). A page therefore never hangs on a dialog, and an alert during page load never blocks the
navigation. ``browser_handle_dialog {accept, promptText?}`` arms a one-shot answer for the *next*
dialog on any tab (it replaces the policy for that one dialog only).

Every dialog answered is appended to the session's log (:class:`DialogCenter`), so an action
record can list the dialogs it caused (:meth:`DialogCenter.mark` / :meth:`DialogCenter.since`).

Owner: each :class:`~browser_ctx.browser.session.BrowserSession` holds one :class:`DialogCenter`
(``session.dialogs``) and installs it on every page it adopts, before the page navigates.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections import deque

from playwright.async_api import Dialog, Page
from playwright.async_api import Error as PlaywrightError

from ..core.record import DialogInfo
from ..settings import DialogPolicy

__all__ = ["DialogPolicy", "DEFAULT_POLICY", "DialogCenter", "LOG_LIMIT"]

log = logging.getLogger("browser_ctx")

#: Dialogs kept in a session's log (oldest dropped first).
LOG_LIMIT = 200

#: The default answers: accept alert and beforeunload, dismiss confirm and prompt.
DEFAULT_POLICY = DialogPolicy()


#: Dialogs in a row within the storm window that make a page count as opening them non-stop.
STORM_DIALOGS = 3


class DialogCenter:
    """Answers and logs the dialogs of one browser session.

    Attributes:
        policy: the default answers.
        armed: ``(accept, prompt_text)`` for the next dialog, set by :meth:`arm`, else ``None``.
    """

    def __init__(self, policy: DialogPolicy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self.armed: tuple[bool, str | None] | None = None
        self._log: list[tuple[int, DialogInfo]] = []
        self._count = 0
        self._pages: weakref.WeakSet[Page] = weakref.WeakSet()
        #: time.monotonic() when each of the last STORM_DIALOGS dialogs opened
        self._recent: deque[float] = deque(maxlen=STORM_DIALOGS)

    def arm(self, accept: bool, prompt_text: str | None = None) -> None:
        """Answer the next dialog (any tab, any type) with ``accept`` (and ``prompt_text`` for a prompt)."""
        self.armed = (accept, prompt_text)

    def mark(self) -> int:
        """Return a position in the log; :meth:`since` lists the dialogs answered after it."""
        return self._count

    def since(self, mark: int) -> list[DialogInfo]:
        """Return the dialogs answered after ``mark`` (from :meth:`mark`), oldest first."""
        return [info for n, info in self._log if n > mark]

    def opened_within(self, seconds: float) -> bool:
        """Whether the last :data:`STORM_DIALOGS` dialogs (any tab) all opened in the last ``seconds`` seconds: a
        page opening them non-stop (one or two alerts while a page loads are not a storm)."""
        return len(self._recent) == STORM_DIALOGS and time.monotonic() - self._recent[0] <= seconds

    def install(self, page: Page) -> None:
        """Answer ``page``'s dialogs from now on (idempotent)."""
        if page in self._pages:
            return
        self._pages.add(page)
        page.on("dialog", self._on_dialog)

    async def _on_dialog(self, dialog: Dialog) -> None:
        self._recent.append(time.monotonic())
        kind = dialog.type
        if self.armed is not None:
            accept, prompt_text = self.armed
            self.armed = None
            by = "browser_handle_dialog"
        else:
            accept, prompt_text, by = self.policy.accepts(kind), None, "default"
        try:
            if accept:
                if kind == "prompt" and prompt_text is not None:
                    await dialog.accept(prompt_text)
                else:
                    await dialog.accept()
            else:
                await dialog.dismiss()
        except PlaywrightError as exc:  # the page closed meanwhile; still log what it asked
            log.debug("dialog answer failed: %s", exc)
        self._count += 1
        info = DialogInfo(kind, dialog.message, accept, by,
                          prompt_text if kind == "prompt" and accept else None)
        self._log.append((self._count, info))
        del self._log[:-LOG_LIMIT]
