"""The exceptions browser-ctx raises, and the one place Playwright's errors are translated.

Hierarchy::

    BrowserCtxError                 every error we raise; its message is one line a model can act on
    ├── InvalidArgument             a tool argument has the wrong type, range or form
    ├── SchemeRefused               a URL scheme outside http(s) without the flag that allows it
    ├── BrowserNotFound             no Chrome/Chromium executable could be found (lists what was tried)
    ├── BrowserLaunchError          an executable was found but did not start
    ├── NavigationError             the page could not be loaded (names the ``net::ERR_…``)
    ├── SelectorError               a selector is invalid, or matches nothing / too many elements
    │   └── StaleRefError           a ref whose element is gone, detached, or from an earlier page
    ├── ActionTimeout               waiting for something took longer than its timeout
    └── PageError                   the page or browser failed while we were using it
        └── PageNavigated           the document went away during the call (calling again reads the new one)

Tool handlers raise these; the server turns them into one-line ``isError`` results.
Everything from Playwright goes through :func:`translate` (``raise ... from exc``),
so no Playwright stack or "Call log" text ever reaches the client. What a Playwright error means is read
from its message in one place, :func:`error_kind` (with :func:`net_error` and :func:`timed_out`).
"""

from __future__ import annotations

import re
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

__all__ = [
    "BrowserCtxError",
    "InvalidArgument",
    "SchemeRefused",
    "BrowserNotFound",
    "BrowserLaunchError",
    "NavigationError",
    "SelectorError",
    "StaleRefError",
    "ActionTimeout",
    "PageError",
    "PageNavigated",
    "ErrorKind",
    "error_kind",
    "net_error",
    "timed_out",
    "translate",
    "one_line",
    "without_credentials",
    "auth_required",
]


class BrowserCtxError(Exception):
    """Base class: every error browser-ctx raises on purpose. ``str(exc)`` is one line."""


class InvalidArgument(BrowserCtxError):
    """A tool argument has the wrong type, range or form."""


class SchemeRefused(BrowserCtxError):
    """A URL whose scheme is not http(s), refused unless ``--allow-scheme`` names it."""


class BrowserNotFound(BrowserCtxError):
    """No browser executable was found; the message lists every place tried."""


class BrowserLaunchError(BrowserCtxError):
    """A browser executable was found but failed to start."""


class NavigationError(BrowserCtxError):
    """Loading a URL failed; the message names the network error (``net::ERR_…``)."""


class SelectorError(BrowserCtxError):
    """A selector is malformed or matches no element (or, for actions, more than one)."""


class StaleRefError(SelectorError):
    """A ref whose element no longer exists in the current page."""


class ActionTimeout(BrowserCtxError):
    """Something we waited for did not happen in time; the message says what and how long."""


class PageError(BrowserCtxError):
    """The page, frame or browser failed or closed while in use."""


class PageNavigated(PageError):
    """The page navigated (its document, or the frame, went away) during the call; calling again reads the new one."""


#: What a Playwright or browser error means (:func:`error_kind`):
#: ``closed`` the page, context or browser closed, or the renderer crashed; ``navigated`` the document went away
#: under the call (execution context destroyed, frame detached); ``stale-context`` a CDP execution context id
#: that no longer exists; ``net`` a network error (:func:`net_error` names it); ``selector`` a malformed selector;
#: ``unknown-engine`` a selector engine the page does not have; ``covered``, ``disabled``, ``hidden``,
#: ``readonly``, ``unstable``, ``offscreen``: why an action waited until its timeout; ``wrong-element`` a fill of a
#: non-field or a select of a non-select; ``detached`` the element was removed from the DOM; ``no-option`` a
#: select found no such option; ``unknown-key`` a key name Playwright does not know; ``tracing-on`` /
#: ``tracing-off`` a trace started twice / stopped without one; ``timeout`` timed out, for no reason above;
#: ``other`` anything else.
ErrorKind = Literal["closed", "navigated", "stale-context", "net", "selector", "unknown-engine", "covered", "disabled",
                    "hidden", "readonly", "unstable", "offscreen", "wrong-element", "detached", "no-option",
                    "unknown-key", "tracing-on", "tracing-off", "timeout", "other"]

#: Lower-case phrases of Playwright's and Chromium's messages, first match wins (earlier kinds take precedence:
#: a click that timed out says in its call log why, and a closed page beats what it was doing).
_KINDS: tuple[tuple[ErrorKind, tuple[str, ...]], ...] = (
    ("closed", ("target page, context or browser has been closed", "target closed", "browser has been closed",
                "session closed", "target crashed", "has crashed", "page crashed", "no object with guid")),
    ("navigated", ("execution context was destroyed", "frame was detached")),
    ("stale-context", ("cannot find context with specified id",)),
    ("net", ("net::err_",)),
    ("unknown-engine", ("unknown engine",)),
    ("selector", ("while parsing", "is not a valid selector", "is not a valid xpath expression",
                  "invalidselectorerror")),
    ("covered", ("intercepts pointer events",)),
    ("disabled", ("element is not enabled",)),
    ("hidden", ("element is not visible",)),
    ("readonly", ("element is not editable",)),
    ("unstable", ("element is not stable",)),
    ("offscreen", ("outside of the viewport",)),
    ("wrong-element", ("is not an <input>", "not an <select>", "is not a <select>")),
    ("detached", ("element is not attached", "element was detached")),
    ("no-option", ("did not find some options",)),
    ("unknown-key", ("unknown key:",)),
    ("tracing-on", ("tracing has been already started",)),
    ("tracing-off", ("must start tracing before stopping",)),
)
_TIMEOUT = re.compile(r"^[\w.]+: Timeout \d+(?:\.\d+)?ms exceeded")


def error_kind(exc: BaseException) -> ErrorKind:
    """What ``exc`` (raised by Playwright, a CDP session or the browser) means, from its type and message;
    see :data:`ErrorKind`. Never raises."""
    low = str(exc).lower()
    for kind, phrases in _KINDS:
        if any(phrase in low for phrase in phrases):
            return kind
    return "timeout" if timed_out(exc) else "other"


def net_error(exc: BaseException) -> str | None:
    """The Chromium network error ``exc`` names (``net::ERR_ABORTED``…), or ``None``."""
    m = _NET_ERR.search(str(exc))
    return m.group(0) if m else None


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a timeout: Playwright's, asyncio's, ours (:class:`ActionTimeout`), or a message that
    says ``Timeout …ms exceeded``."""
    return isinstance(exc, (PlaywrightTimeout, TimeoutError, ActionTimeout)) or bool(_TIMEOUT.match(str(exc)))


_NET_ERR = re.compile(r"net::ERR_[A-Z0-9_]+")


def one_line(text: str, limit: int = 300) -> str:
    """Collapse ``text`` to its first meaningful line, without Playwright's call log, at most ``limit`` chars."""
    text = text.split("Call log:")[0]
    text = re.split(r"\n\s+at |\s+at (?:eval|async|Object\.|<anonymous>)", text)[0]  # JavaScript stack frames
    text = re.sub(r"={3,}.*?={3,}", " ", text, flags=re.S)  # Playwright's "=== logs ===" banners
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#\s]*@")
_CHALLENGE = re.compile(r'^\s*([A-Za-z][\w-]*)(?:.*?\brealm\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+)))?', re.S)
#: Characters of an authentication realm quoted in a message.
REALM_CHARS = 80


def without_credentials(url: str) -> str:
    """Return ``url`` without its ``user:password@`` part (nothing of it is kept, not even its length)."""
    return _USERINFO.sub(r"\1", url)


def auth_required(status: int, challenge: str | None, url: str, *, credentials_given: bool) -> NavigationError:
    """The error for an HTTP authentication challenge (401, or 407 from a proxy).

    ``challenge`` is the ``WWW-Authenticate`` (or ``Proxy-Authenticate``) header: its scheme and realm are
    named, e.g. ``HTTP 401: authentication required (Basic, realm "Staff")``. ``url`` is shown without
    credentials; ``credentials_given`` says the browser had credentials and they were refused.
    """
    detail = ""
    m = _CHALLENGE.match(challenge or "")
    if m:
        realm = m.group(2) if m.group(2) is not None else m.group(3)
        detail = m.group(1)
        if realm is not None:
            realm = realm.replace('\\"', "'").replace('"', "'")
            if len(realm) > REALM_CHARS:
                realm = realm[:REALM_CHARS - 1] + "…"
            detail += f', realm "{realm}"'
    who = "proxy authentication" if status == 407 else "authentication"
    head = f"HTTP {status}: {who} required" + (f" ({detail})" if detail else "") + f" at {without_credentials(url)}"
    if credentials_given:
        return NavigationError(f"{head}; the credentials given were refused. Check --http-credentials "
                               "(user:password, or https://origin=user:password) for this origin.")
    return NavigationError(f"{head}. Start the server with --http-credentials user:password (or "
                           "https://origin=user:password, $BROWSER_CTX_HTTP_CREDENTIALS, --http-credentials-file).")


def translate(exc: BaseException, *, action: str, target: str | None = None, url: str | None = None,
              timeout_ms: float | None = None) -> BrowserCtxError:
    """Turn an exception raised by Playwright (or the browser) into one of ours.

    Args:
        exc: what Playwright raised.
        action: what we were doing, in words ("navigate", "read text", "click").
        target: the selector or ref involved, if any; named in the message.
        url: the URL involved, if any; named in the message without its ``user:password@``.
        timeout_ms: the timeout in force, named in timeout messages.

    Returns:
        The exception to raise (the caller writes ``raise translate(...) from exc``).
    """
    if isinstance(exc, BrowserCtxError):
        return exc
    msg = str(exc)
    url = without_credentials(url) if url else url
    what = f" {target!r}" if target else ""
    if isinstance(exc, PlaywrightTimeout):
        waited = f" after {timeout_ms:.0f} ms" if timeout_ms else ""
        if url:
            return ActionTimeout(f"Timed out{waited} loading {url}; the page did not finish loading. "
                                 "Try again, or raise the navigation timeout (--timeout-navigation).")
        return ActionTimeout(f"Timed out{waited} waiting to {action}{what}. Check the element exists and is "
                             "visible (browser_snapshot), or raise the timeout.")
    code = net_error(exc)
    if code and url:
        return NavigationError(f"Could not load {url}: {code}. Check the URL and that the server is reachable.")
    kind = error_kind(exc)
    if target and kind in ("selector", "unknown-engine"):
        detail = re.sub(r"^\w+\.\w+: ", "", one_line(msg, 160)).rstrip(". ")  # drop "Locator.count: "
        detail += "" if detail.endswith(("?", "!")) else "."
        return SelectorError(f"Invalid selector{what}: {detail} Use CSS, text=, role=, "
                             "data-testid= or a ref from browser_snapshot.")
    if kind == "closed":
        return PageError(f"The page or browser closed while trying to {action}; the next call opens a new one.")
    if kind == "navigated":
        return PageNavigated(f"The page navigated while trying to {action}{what}; call again to read the new page.")
    if isinstance(exc, PlaywrightError):
        return PageError(f"Could not {action}{what}: {one_line(msg, 200)}")
    return PageError(f"Could not {action}{what}: {type(exc).__name__}: {one_line(msg, 200)}")
