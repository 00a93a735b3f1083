"""Dialog policy: every ``alert``/``confirm``/``prompt``/``beforeunload`` is answered at once, and logged.

Default policy (:data:`DEFAULT_POLICY`): **accept** ``alert`` and ``beforeunload``, **dismiss**
``confirm`` and ``prompt``. A page therefore never hangs on a dialog, and an alert during page
load never blocks the navigation. ``browser_handle_dialog {accept, promptText?}`` arms a one-shot
answer for the *next* dialog on any tab (it replaces the policy for that one dialog only).

Every dialog answered is appended to the session's log (:class:`DialogCenter`), so an action
record can list the dialogs it caused (:meth:`DialogCenter.mark` / :meth:`DialogCenter.since`).

Hook: :func:`install` must run for every page of the context, before it navigates. Until
``BrowserSession._adopt`` calls it, the action tools call :func:`ensure_installed` before each
action (pages that show a dialog before that are answered by Playwright's own default, which
dismisses; an alert is closed either way and never blocks).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import InvalidArgument
from ..core.record import DialogInfo

if TYPE_CHECKING:
    from playwright.async_api import Dialog, Page

    from .session import BrowserSession

__all__ = ["DialogPolicy", "DEFAULT_POLICY", "DialogCenter", "center_for", "install", "ensure_installed"]

log = logging.getLogger("browser_ctx")

#: Dialogs kept in a session's log (oldest dropped first).
LOG_LIMIT = 200


@dataclass(frozen=True)
class DialogPolicy:
    """Whether each dialog type is accepted (``True``) or dismissed (``False``) by default.

    Attributes:
        alert: default ``True``.
        beforeunload: default ``True`` (leaving the page is allowed).
        confirm: default ``False``.
        prompt: default ``False`` (accepting would submit the prompt's default text).
    """

    alert: bool = True
    beforeunload: bool = True
    confirm: bool = False
    prompt: bool = False

    def accepts(self, kind: str) -> bool:
        """Return whether a dialog of type ``kind`` is accepted (unknown types: dismissed)."""
        return bool(getattr(self, kind, False)) if kind in ("alert", "beforeunload", "confirm", "prompt") else False

    @classmethod
    def parse(cls, spec: str) -> DialogPolicy:
        """Parse a CLI value: ``accept``, ``dismiss``, ``default``, or ``type=accept|dismiss,…``.

        Example: ``"confirm=accept,prompt=dismiss"`` (unnamed types keep their defaults).

        Raises:
            InvalidArgument: an unknown word or type.
        """
        spec = spec.strip().lower()
        if spec in ("", "default"):
            return cls()
        if spec in ("accept", "dismiss"):
            v = spec == "accept"
            return cls(alert=v, beforeunload=v, confirm=v, prompt=v)
        values: dict[str, bool] = {}
        for part in spec.split(","):
            kind, _, how = part.partition("=")
            kind, how = kind.strip(), how.strip()
            if kind not in ("alert", "beforeunload", "confirm", "prompt") or how not in ("accept", "dismiss"):
                raise InvalidArgument(f"Bad dialog policy {part!r}; use e.g. confirm=accept,prompt=dismiss "
                                      "(types: alert, beforeunload, confirm, prompt).")
            values[kind] = how == "accept"
        return cls(**values)


DEFAULT_POLICY = DialogPolicy()


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
        self._pages: weakref.WeakSet[Any] = weakref.WeakSet()

    def arm(self, accept: bool, prompt_text: str | None = None) -> None:
        """Answer the next dialog (any tab, any type) with ``accept`` (and ``prompt_text`` for a prompt)."""
        self.armed = (accept, prompt_text)

    def mark(self) -> int:
        """Return a position in the log; :meth:`since` lists the dialogs answered after it."""
        return self._count

    def since(self, mark: int) -> list[DialogInfo]:
        """Return the dialogs answered after ``mark`` (from :meth:`mark`), oldest first."""
        return [info for n, info in self._log if n > mark]

    def install(self, page: Page) -> None:
        """Answer ``page``'s dialogs from now on (idempotent)."""
        if page in self._pages:
            return
        self._pages.add(page)
        page.on("dialog", self._on_dialog)

    async def _on_dialog(self, dialog: Dialog) -> None:
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
        except Exception as exc:  # noqa: BLE001 - the page closed meanwhile; still log what it asked
            log.debug("dialog answer failed: %s", exc)
        self._count += 1
        info = DialogInfo(kind, dialog.message, accept, by,
                          prompt_text if kind == "prompt" and accept else None)
        self._log.append((self._count, info))
        del self._log[:-LOG_LIMIT]


_centers: weakref.WeakKeyDictionary[Any, DialogCenter] = weakref.WeakKeyDictionary()


def center_for(session: BrowserSession) -> DialogCenter:
    """Return the session's :class:`DialogCenter`, creating it on first use.

    Its policy comes from ``session.settings.dialogs`` when the settings have that field (a
    :class:`DialogPolicy` or a string for :meth:`DialogPolicy.parse`), else :data:`DEFAULT_POLICY`.
    """
    center = _centers.get(session)
    if center is None:
        policy: Any = getattr(session.settings, "dialogs", None) or DEFAULT_POLICY
        if isinstance(policy, str):
            policy = DialogPolicy.parse(policy)
        center = DialogCenter(policy)
        _centers[session] = center
    return center


def install(session: BrowserSession, page: Page) -> None:
    """Answer ``page``'s dialogs by the session's policy (idempotent). Call right after a page opens."""
    center_for(session).install(page)


def ensure_installed(session: BrowserSession) -> DialogCenter:
    """Install the dialog handler on every open tab of ``session``; return its center."""
    center = center_for(session)
    for tab in session.tabs:
        if not tab.page.is_closed():
            center.install(tab.page)
    return center


async def drain() -> None:
    """Let pending dialog handlers run (one event-loop turn)."""
    await asyncio.sleep(0)
