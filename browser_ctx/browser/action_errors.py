"""Why an action could not use its element, in one line (:func:`action_error`), and the tab-is-open check.

Pure translation of Playwright's action errors (their kind from :func:`browser_ctx._errors.error_kind`, the call log
naming what covers the element) into ours; no Playwright calls.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .._errors import (
    ActionTimeout,
    BrowserCtxError,
    PageError,
    SelectorError,
    StaleRefError,
    error_kind,
    one_line,
    translate,
)

if TYPE_CHECKING:
    from .tab import Tab

__all__ = ["action_error", "ensure_open"]

_COVER_RE = re.compile(r"-\s*(.+?) intercepts pointer events")
#: Why an element was not acted on (:func:`~browser_ctx._errors.error_kind`), and what to do: (why, hint).
_NOT_ACTIONABLE = {
    "disabled": ("it is disabled", "Fill the form so it enables, or check browser_snapshot"),
    "hidden": ("it is not visible", "Scroll, open its menu, or pick a visible element"),
    "readonly": ("it is not editable (readonly?)", "Pick an editable field"),
    "unstable": ("it kept moving (animation)", "Wait, then try again"),
    "offscreen": ("it is outside the viewport", "Scroll it into view first"),
}


def action_error(exc: BaseException, *, verb: str, target: str, timeout_ms: float,
                 element: str | None = None) -> BrowserCtxError:
    """Translate a Playwright action error into one line that says why the element could not be used.

    Reads Playwright's call log: "intercepts pointer events" names what covers the element;
    "not enabled" (disabled), "not visible", "not editable" (readonly), "not stable", detached say so,
    each a different message naming the element (``element``, e.g. ``textbox "Email" [e5]``, else the
    quoted ``target``); anything else goes through :func:`browser_ctx._errors.translate`.
    """
    if isinstance(exc, BrowserCtxError):
        return exc
    msg = str(exc)
    kind = error_kind(exc)
    what = element or f"{target!r}"
    covers = _COVER_RE.findall(msg) if kind == "covered" else []
    if covers:
        cover = covers[-1].replace(" subtree", "")
        return ActionTimeout(f"Could not {verb} {what}: it is covered by {one_line(cover, 160)} (it intercepts "
                             f"pointer events; waited {timeout_ms:.0f} ms). Close or dismiss that first.")
    if kind in _NOT_ACTIONABLE:
        why, hint = _NOT_ACTIONABLE[kind]
        return ActionTimeout(f"Could not {verb} {what}: {why} (waited {timeout_ms:.0f} ms). {hint}.")
    if kind == "wrong-element":
        return SelectorError(f"Could not {verb} {what}: {one_line(msg.split('Error: ')[-1], 160)}")
    if kind == "detached":
        return StaleRefError(f"Could not {verb} {what}: the element was removed from the page. "
                             "Take a new browser_snapshot.")
    return translate(exc, action=verb, target=target, timeout_ms=timeout_ms)


def ensure_open(tab: Tab) -> None:
    """Raise :class:`PageError` if ``tab``'s page is closed."""
    if tab.page.is_closed():
        raise PageError("The tab is closed; use browser_tabs to pick another or browser_navigate to open one.")
