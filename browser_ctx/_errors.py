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

Tool handlers raise these; the server turns them into one-line ``isError`` results.
Everything from Playwright goes through :func:`translate` (``raise ... from exc``),
so no Playwright stack or "Call log" text ever reaches the client.
"""

from __future__ import annotations

import re

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
    m = _NET_ERR.search(msg)
    if m and url:
        return NavigationError(f"Could not load {url}: {m.group(0)}. Check the URL and that the server is reachable.")
    low = msg.lower()
    if target and ("unexpected token" in low or "is not a valid selector" in low or "unknown engine" in low
                   or "failed to parse" in low or "malformed" in low or "syntaxerror" in low):
        detail = re.sub(r"^\w+\.\w+: ", "", one_line(msg, 160)).rstrip(". ")  # drop "Locator.count: "
        detail += "" if detail.endswith(("?", "!")) else "."
        return SelectorError(f"Invalid selector{what}: {detail} Use CSS, text=, role=, "
                             "data-testid= or a ref from browser_snapshot.")
    if "target page, context or browser has been closed" in low or "target closed" in low \
            or "browser has been closed" in low or "has crashed" in low or "page crashed" in low:
        return PageError(f"The page or browser closed while trying to {action}; the next call opens a new one.")
    if "execution context was destroyed" in low or "frame was detached" in low:
        return PageError(f"The page navigated while trying to {action}{what}; call again to read the new page.")
    if isinstance(exc, PlaywrightError):
        return PageError(f"Could not {action}{what}: {one_line(msg, 200)}")
    return PageError(f"Could not {action}{what}: {type(exc).__name__}: {one_line(msg, 200)}")
