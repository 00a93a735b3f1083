"""Browsers a :class:`~browser_ctx.browser.session.BrowserSession` uses but does not own.

A *provider* hands out browser contexts from a browser that outlives any one session:

- :class:`RemoteBrowser`: connects instead of launching. ``--cdp-endpoint URL`` uses
  ``chromium.connect_over_cdp`` (any Chrome DevTools Protocol endpoint: a Chrome started with
  ``--remote-debugging-port``, Browserless, a Selenium Grid 4 node); ``--ws-endpoint URL`` uses
  ``chromium.connect`` (a Playwright browser server: ``playwright run-server`` or ``launchServer``).
  With ``adopt_existing`` (stdio, ``--shared-context``) a CDP browser's default context is used,
  so the tabs that were open before connecting are listed as tabs of the session; they are never
  closed by us. Otherwise each session gets a fresh, isolated context in the remote browser.
- :class:`LaunchedBrowser`: one Chromium launched here and shared by many sessions, each with
  its own context (the HTTP transport's per-client isolation).

Connection loss: the browser's ``disconnected`` event is logged (stderr) and every session using
it notices on its next call (``BrowserSession`` marks itself lost), which reconnects through
:meth:`BrowserProvider.open_context`: up to ``LaunchSettings.connect_attempts`` attempts (default 4),
``LaunchSettings.connect_timeout_ms`` each (default 10,000 ms), with exponential backoff between
them (0.25 s, 0.5 s, 1 s, …). If every attempt fails the call gets one
:class:`~browser_ctx.BrowserLaunchError` line naming the endpoint, and the next call tries again.
The first call that succeeds afterwards carries a note saying the connection was lost and restored.

Scale-out: run the browsers as a pool of Playwright servers (``npx playwright run-server --port P`` or
``python -m playwright run-server --port P`` on each browser host; with ``--unsafe`` a client may send
``x-playwright-launch-options`` through ``--remote-header``), or Browserless / a Selenium Grid 4 node
over CDP, and start N ``browser-ctx serve --transport http --ws-endpoint ws://host:P/`` servers behind
a load balancer that keeps an MCP session on one server (route on the ``Mcp-Session-Id`` header).
Each client session gets its own context in that server's remote browser, so sessions never see each
other's cookies, storage or tabs; a browser host that dies costs only its sessions' pages, and their
next calls reconnect (to the same endpoint, which the pool's supervisor restarts).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright

from .._errors import BrowserCtxError, BrowserLaunchError, one_line
from ..settings import LaunchSettings
from .launcher import chromium_args, find_executable

__all__ = ["BrowserProvider", "RemoteBrowser", "LaunchedBrowser", "BACKOFF_START_S"]

log = logging.getLogger("browser_ctx")

#: First wait between connection attempts, in seconds; doubled after each failed attempt.
BACKOFF_START_S = 0.25


async def _register_ref_engine(pw: Playwright) -> None:
    try:
        from .extract import register_ref_engine
    except ImportError:  # pragma: no cover - extractor not built yet
        return
    await register_ref_engine(pw)


class BrowserProvider:
    """Base class: a browser shared by sessions, handing each one a context.

    Coroutine-safe: concurrent :meth:`open_context` calls (re)launch or (re)connect at most once.
    """

    #: Short description used in notes and logs ("the browser at ws://…").
    label = "the browser"

    def __init__(self) -> None:
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def up(self) -> bool:
        """Whether the browser is currently launched/connected."""
        return self._browser is not None and self._browser.is_connected()

    @property
    def browser(self) -> Browser | None:
        """The current browser, if any (``None`` before the first call and after a loss)."""
        return self._browser if self.up else None

    def lost_note(self) -> str:
        """The note a session adds to the first call after the browser went away."""
        return "The browser had closed or crashed; relaunched it (tabs and page state were lost)."

    async def _start(self) -> Browser:
        raise NotImplementedError

    async def _ensure(self) -> Browser:
        async with self._lock:
            if self._closed:
                raise BrowserLaunchError("The server is shutting down; no browser is available.")
            if self.up:
                assert self._browser is not None
                return self._browser
            if self._pw is None:
                self._pw = await async_playwright().start()
                await _register_ref_engine(self._pw)
            browser = await self._start()
            self._browser = browser
            browser.on("disconnected", self._on_disconnected)
            return browser

    def _on_disconnected(self, browser: Browser) -> None:
        if browser is self._browser and not self._closed:
            log.warning("lost %s; the next call reconnects", self.label)

    async def open_context(self, options: dict[str, Any], *, adopt_existing: bool = False
                           ) -> tuple[BrowserContext, bool]:
        """Return a browser context for one session, launching or connecting first if needed.

        Args:
            options: keyword arguments for ``browser.new_context`` (viewport, storage_state, …).
            adopt_existing: return the browser's existing default context (with the tabs open
                before we connected) instead of a new one, when there is one (CDP endpoints).

        Returns:
            ``(context, owned)``: ``owned`` is False for an adopted context, which the session must
            not close (it only closes the tabs it opened itself).

        Raises:
            BrowserLaunchError, BrowserNotFound: no browser could be launched or reached.
        """
        for attempt in range(2):
            browser = await self._ensure()
            default = self._default_context(browser) if adopt_existing else None
            if default is not None:
                return default, False
            try:
                return await browser.new_context(**options), True
            except Exception as exc:  # noqa: BLE001 - the browser died between the check and the call
                if attempt or browser.is_connected():
                    raise BrowserLaunchError(f"Could not open a browser context in {self.label}: "
                                             f"{one_line(str(exc), 200)}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _default_context(self, browser: Browser) -> BrowserContext | None:
        """The browser's own default context (holding tabs opened before we connected), if it has one."""
        return None

    async def close(self) -> None:
        """Disconnect from (remote) or close (launched) the browser and stop Playwright. Idempotent."""
        self._closed = True
        browser, self._browser = self._browser, None
        if browser is not None:
            try:
                await asyncio.wait_for(browser.close(), 10)
            except Exception:  # noqa: BLE001 - already gone
                pass
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), 10)
            except Exception:  # noqa: BLE001
                pass


def _redact_url(url: str) -> str:
    """``url`` without credentials or query (endpoints often carry a token there)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class RemoteBrowser(BrowserProvider):
    """A browser running elsewhere, reached over CDP (``cdp_endpoint``) or a Playwright server (``ws_endpoint``).

    Args:
        launch: launch settings; exactly one of ``cdp_endpoint`` / ``ws_endpoint`` must be set.
            ``remote_headers`` are sent with the connection; ``connect_timeout_ms`` and
            ``connect_attempts`` bound each connection (see the module docstring).

    Raises:
        ValueError: neither or both endpoints given, or an endpoint that is not a URL.
    """

    def __init__(self, launch: LaunchSettings) -> None:
        super().__init__()
        if bool(launch.cdp_endpoint) == bool(launch.ws_endpoint):
            raise ValueError("give exactly one of --cdp-endpoint and --ws-endpoint")
        self.kind = "cdp" if launch.cdp_endpoint else "ws"
        self.endpoint = str(launch.cdp_endpoint or launch.ws_endpoint)
        scheme = urlsplit(self.endpoint).scheme.lower()
        allowed = ("http", "https", "ws", "wss") if self.kind == "cdp" else ("ws", "wss")
        if scheme not in allowed:
            flag = "--cdp-endpoint" if self.kind == "cdp" else "--ws-endpoint"
            raise ValueError(f"{flag} must be a {'/'.join(allowed)} URL, got {_redact_url(self.endpoint)!r}")
        self.launch = launch
        self.label = f"the browser at {_redact_url(self.endpoint)}"
        #: Connection attempts made so far (all calls), and failures among them: for tests and logs.
        self.attempts = 0
        self.failures = 0

    def _default_context(self, browser: Browser) -> BrowserContext | None:
        # Only a CDP connection has a default context (the first one, which exists before we create any);
        # a Playwright server's browser has none, and later contexts belong to other sessions.
        if self.kind == "cdp" and browser.contexts:
            return browser.contexts[0]
        return None

    def lost_note(self) -> str:
        return (f"Lost the connection to {self.label}; reconnected (tabs this server had opened there "
                "were lost).")

    async def _start(self) -> Browser:
        assert self._pw is not None
        headers = dict(self.launch.remote_headers) or None
        timeout = self.launch.connect_timeout_ms
        attempts = max(1, self.launch.connect_attempts)
        delay = BACKOFF_START_S
        last: BaseException | None = None
        for attempt in range(attempts):
            self.attempts += 1
            try:
                if self.kind == "cdp":
                    browser = await self._pw.chromium.connect_over_cdp(self.endpoint, timeout=timeout,
                                                                        headers=headers)
                else:
                    browser = await self._pw.chromium.connect(self.endpoint, timeout=timeout, headers=headers)
                log.info("connected to %s (%s)", self.label, browser.version)
                return browser
            except Exception as exc:  # noqa: BLE001 - retried, then reported in one line
                self.failures += 1
                last = exc
                log.warning("connecting to %s failed (attempt %d of %d): %s", self.label, attempt + 1, attempts,
                            one_line(str(exc), 160))
                if attempt + 1 < attempts:
                    await asyncio.sleep(delay)
                    delay *= 2
        assert last is not None
        raise BrowserLaunchError(
            f"Could not connect to {self.label} after {attempts} attempts ({one_line(str(last), 160)}). "
            "Check the browser is running and reachable; the next call tries again.") from last


class LaunchedBrowser(BrowserProvider):
    """One Chromium launched by this server and shared by many sessions, each in its own context.

    Relaunched by the first :meth:`open_context` after it crashed or was killed.

    Args:
        launch: launch settings (executable, headless, flags). ``user_data_dir`` is not supported:
            a persistent profile is a single context, so it cannot be split between sessions.

    Raises:
        ValueError: ``launch.user_data_dir`` is set.
    """

    def __init__(self, launch: LaunchSettings) -> None:
        super().__init__()
        if launch.user_data_dir:
            raise ValueError("--user-data-dir is one profile and cannot be shared between sessions; "
                             "add --shared-context")
        self.launch = launch
        self.executable: str | None = None

    async def _start(self) -> Browser:
        assert self._pw is not None
        launch = self.launch
        executable = find_executable(launch)
        self.executable = executable
        try:
            browser = await self._pw.chromium.launch(executable_path=executable, headless=launch.headless,
                                                     args=chromium_args(launch))
        except BrowserCtxError:
            raise
        except Exception as exc:  # noqa: BLE001 - every launch failure becomes one line
            raise BrowserLaunchError(f"Could not start {executable}: {one_line(str(exc), 240)}") from exc
        log.info("launched %s (%s) shared by the HTTP sessions", executable, browser.version)
        return browser
