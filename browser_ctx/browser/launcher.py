"""Find a Chrome/Chromium executable and the flags to start it with.

Search order (first hit wins):

1. ``LaunchSettings.executable_path`` (``--executable-path``, or ``$BROWSER_CTX_EXECUTABLE`` read by the CLI);
2. a system browser on ``PATH``: ``chromium``, ``chromium-browser``, ``google-chrome``,
   ``google-chrome-stable``, ``chrome``, then the usual macOS application paths;
3. Playwright's own Chromium (``playwright install chromium``), if installed.

If none exists, :class:`BrowserNotFound` lists every place tried and how to install one.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from .._errors import BrowserNotFound
from ..settings import OFFLINE_EXTERNAL_RULES, LaunchSettings

__all__ = ["find_executable", "chromium_args", "context_options", "BASE_ARGS", "IGNORED_DEFAULT_ARGS"]

#: Chromium's switch enabling web-platform features; given twice, the last wins, so the user's join ours.
BLINK_FEATURES = "--enable-blink-features"

#: Flags always passed: no background traffic to Google services (it stalls closed networks), and the
#: accessibility API reads use (below).
BASE_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    # Element.computedRole / computedName: a read takes the accessible names of the nodes it shows from
    # Chromium's accessibility tree in one evaluate instead of one CDP message per node (browser/semantics.py)
    f"{BLINK_FEATURES}=ComputedAccessibilityInfo",
)

#: Flags Playwright adds by default that we leave out (``ignore_default_args``): without Chromium's IPC
#: flooding protection a page calling ``history.pushState`` 10,000 times keeps the browser busy for over
#: 20 s (every call a round trip), so a navigation to it never reaches DOMContentLoaded; with it, Chromium
#: ignores the calls past 200 in 10 s (as in a normal Chrome) and the page loads in about 3 s.
IGNORED_DEFAULT_ARGS = ("--disable-ipc-flooding-protection",)

_PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_MAC_APPS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
INSTALL_HINT = (
    "Install one: on Debian/Ubuntu `sudo apt-get install chromium`, or `python -m playwright install chromium`, "
    "or pass --executable-path / set BROWSER_CTX_EXECUTABLE."
)


def _playwright_chromium() -> str | None:
    """Return the path of Playwright's downloaded Chromium, if it is installed.

    ``PLAYWRIGHT_BROWSERS_PATH`` is read here, not by the CLI: it is Playwright's own variable, which
    Playwright's driver (started by this process, with this environment) reads to find its browsers,
    so looking where Playwright looks must use the same environment, not a setting that could differ.
    """
    base = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    if sys.platform == "darwin":
        base = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / "Library/Caches/ms-playwright")
    if not base.is_dir():
        return None
    patterns = ("chromium-*/chrome-linux*/chrome", "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
                "chromium-*/chrome-win*/chrome.exe", "chromium_headless_shell-*/chrome-*/headless_shell")
    for pattern in patterns:
        hits = sorted(base.glob(pattern), reverse=True)
        if hits:
            return str(hits[0])
    return None


def find_executable(settings: LaunchSettings) -> str:
    """Return the browser executable to launch.

    Raises:
        BrowserNotFound: nothing usable was found; the message lists what was tried.
    """
    tried: list[str] = []
    candidate = settings.executable_path
    if candidate:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        raise BrowserNotFound(f"--executable-path (or BROWSER_CTX_EXECUTABLE) {candidate!r} is not an executable "
                              f"file. {INSTALL_HINT}")
    for name in _PATH_NAMES:
        hit = shutil.which(name)
        if hit:
            return hit
        tried.append(f"{name} on PATH")
    for app in _MAC_APPS:
        if os.path.isfile(app):
            return app
    tried.append("macOS Chrome/Chromium apps")
    hit = _playwright_chromium()
    if hit:
        return hit
    tried.append("Playwright's browser cache")
    raise BrowserNotFound(f"No Chrome or Chromium found (tried {', '.join(tried)}). {INSTALL_HINT}")


def chromium_args(settings: LaunchSettings) -> list[str]:
    """Return the command-line flags for Chromium: base flags, sandbox, resolver rules, then the user's
    (their ``--enable-blink-features=…`` joined to ours, since Chromium reads only the last one given)."""
    args = list(BASE_ARGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start sandboxed as root
    if settings.offline_external:
        args.append(f"--host-resolver-rules={OFFLINE_EXTERNAL_RULES}")
    for arg in settings.chromium_args:
        if arg.startswith(BLINK_FEATURES + "="):  # one switch holding ours and the user's features
            at = next(i for i, a in enumerate(args) if a.startswith(BLINK_FEATURES + "="))
            args[at] += "," + arg.split("=", 1)[1]
        else:
            args.append(arg)
    return args


def context_options(settings: LaunchSettings) -> dict[str, Any]:
    """Return the ``new_context`` options of ``--user-agent``, ``--proxy-server``/``--proxy-bypass`` and
    ``--grant-permissions`` (only those given)."""
    opts: dict[str, Any] = {}
    if settings.user_agent:
        opts["user_agent"] = settings.user_agent
    if settings.proxy_server:
        opts["proxy"] = {"server": settings.proxy_server,
                         **({"bypass": settings.proxy_bypass} if settings.proxy_bypass else {})}
    if settings.grant_permissions:
        opts["permissions"] = list(settings.grant_permissions)
    return opts
