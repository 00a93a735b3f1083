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

Errors name the cause: nothing listening at the endpoint, a refused token or path (401/403/400/404 on the
WebSocket upgrade), or a Playwright server without a browser of its own (``Executable doesn't exist``:
``playwright run-server`` launches only Playwright's downloaded browsers; :mod:`.browser_server` serves the
system Chromium instead). The last two are not retried: retrying cannot fix them.

Scale-out: run the browsers as a pool of ``browser-ctx browser-server`` processes (see
:mod:`.browser_server`), or Browserless / a Selenium Grid 4 node over CDP, and start N
``browser-ctx serve --transport http --ws-endpoint ws://host:P/`` servers behind a load balancer that keeps
an MCP session on one server (``deploy/haproxy.cfg``). Each client session gets its own context in that
server's remote browser, so sessions never see each other's cookies, storage or tabs; a browser host that
dies costs only its sessions' pages, and their next calls reconnect.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from .._errors import BrowserCtxError, BrowserLaunchError, one_line
from ..settings import LaunchSettings
from .launcher import chromium_args, find_executable
from .refs import register_ref_engine

__all__ = ["BrowserProvider", "RemoteBrowser", "LaunchedBrowser", "BACKOFF_START_S", "PROBE_TIMEOUT_S",
           "RECENT_FAILURE_S", "explain_connect_error"]

log = logging.getLogger("browser_ctx")

#: First wait between connection attempts, in seconds; doubled after each failed attempt.
BACKOFF_START_S = 0.25
#: Seconds a readiness probe (:meth:`BrowserProvider.available`) may take to reach a remote endpoint.
PROBE_TIMEOUT_S = 1.0
#: Seconds after a failed launch / connection during which :meth:`BrowserProvider.available` says no even if the
#: endpoint answers TCP (a refused token, a server without a browser): a balancer keeps the server out of
#: rotation meanwhile, then lets a call try again.
RECENT_FAILURE_S = 30.0
#: Seconds closing the browser (or stopping Playwright) may take before it is abandoned.
_CLOSE_TIMEOUT_S = 10


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
        #: Successful launches / connections so far; every one after the first is a relaunch or reconnect.
        self.starts = 0
        #: The last launch / connection failure, ``(time.monotonic(), one-line reason)``; cleared by a success.
        self.last_failure: tuple[float, str] | None = None

    @property
    def up(self) -> bool:
        """Whether the browser is currently launched/connected."""
        return self._browser is not None and self._browser.is_connected()

    @property
    def reconnects(self) -> int:
        """Relaunches or reconnections after the first start (for metrics)."""
        return max(0, self.starts - 1)

    @property
    def browser(self) -> Browser | None:
        """The current browser, if any (``None`` before the first call and after a loss)."""
        return self._browser if self.up else None

    def lost_note(self) -> str:
        """The note a session adds to the first call after the browser went away."""
        return "The browser had closed or crashed; relaunched it (tabs and page state were lost)."

    async def available(self) -> bool:
        """Whether a call could get a browser now: it is up, or it could be launched / reached and no launch or
        connection failed in the last :data:`RECENT_FAILURE_S` seconds.

        Cheap enough for a health check every second: never launches or connects a browser.
        """
        return self.up and not self._closed

    def failed_recently(self) -> str | None:
        """The reason of a launch / connection failure less than :data:`RECENT_FAILURE_S` seconds old, if any."""
        if self.last_failure is None or time.monotonic() - self.last_failure[0] >= RECENT_FAILURE_S:
            return None
        return self.last_failure[1]

    async def _start(self) -> Browser:
        raise NotImplementedError

    async def _ensure(self) -> Browser:
        async with self._lock:
            if self._closed:
                raise BrowserLaunchError("The server is shutting down; no browser is available.")
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if self._pw is None:
                self._pw = await async_playwright().start()
                await register_ref_engine(self._pw)
            try:
                browser = await self._start()
            except BrowserCtxError as exc:
                self.last_failure = (time.monotonic(), str(exc))
                raise
            self._browser = browser
            self.starts += 1
            self.last_failure = None
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
            except PlaywrightError as exc:  # the browser died between the check and the call: retried once
                gone = "has been closed" in str(exc)  # before its `disconnected` event came
                if attempt or (browser.is_connected() and not gone):
                    raise BrowserLaunchError(f"Could not open a browser context in {self.label}: "
                                             f"{one_line(str(exc), 200)}") from exc
                if gone and browser is self._browser:
                    self._on_disconnected(browser)
                    self._browser = None  # connected again below (its attempts are reported)
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
                await asyncio.wait_for(browser.close(), _CLOSE_TIMEOUT_S)
            except (TimeoutError, PlaywrightError) as exc:  # already gone: nothing left to close
                log.debug("closing %s: %s", self.label, one_line(str(exc), 120))
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), _CLOSE_TIMEOUT_S)
            except (TimeoutError, PlaywrightError, OSError) as exc:  # the driver is already gone
                log.debug("stopping Playwright: %s", one_line(str(exc), 120))


def _redact_url(url: str) -> str:
    """``url`` without credentials, path or query (endpoints often carry a token there)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    path = parts.path if parts.path in ("", "/") else "/…"  # a path may be the secret itself
    return urlunsplit((parts.scheme, netloc, path, "", ""))


_MISSING_EXECUTABLE = re.compile(r"Executable doesn't exist at (\S+)")
_UPGRADE_REFUSED = re.compile(r"\b(400|401|403|404|503) [A-Z][A-Za-z ]+\b")


def explain_connect_error(label: str, message: str) -> tuple[str, bool]:
    """Say why connecting to a remote browser failed, and whether retrying can help.

    Args:
        label: ``"the browser at ws://host:port/"`` (no credentials).
        message: Playwright's error text.

    Returns:
        ``(sentence, retry)``: one sentence naming the cause and the fix; ``retry`` is False when
        waiting cannot fix it (no browser installed there, a refused token or path).
    """
    missing = _MISSING_EXECUTABLE.search(message)
    if missing:
        return (f"{label} is a Playwright server without a browser it can launch (it looked for "
                f"{missing.group(1)}). Start the pool with `browser-ctx browser-server`, which serves this "
                "machine's Chrome/Chromium, or run `python -m playwright install chromium` on that host.", False)
    refused = _UPGRADE_REFUSED.search(message)
    if refused:
        code = refused.group(1)
        if code == "503":
            return (f"{label} is full (503: every --max-clients slot is taken); the next call tries again.", True)
        return (f"{label} refused the connection ({refused.group(0)}): check the endpoint path and the token "
                "sent with --remote-header 'Authorization: Bearer …'.", False)
    if "ECONNREFUSED" in message or "ECONNRESET" in message or "ENOTFOUND" in message or "EHOSTUNREACH" in message:
        return (f"Nothing answers at {label} ({one_line(message, 120)}): start the browser server there, or fix "
                "--ws-endpoint / --cdp-endpoint; the next call tries again.", True)
    return (f"Could not connect to {label} ({one_line(message, 160)}); the next call tries again.", True)


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

    async def available(self) -> bool:
        """Connected, or the endpoint accepts a TCP connection within :data:`PROBE_TIMEOUT_S` (no browser is
        launched and no WebSocket opened: a probe costs the remote side nothing), and no connection failed
        in the last :data:`RECENT_FAILURE_S` seconds."""
        if self._closed:
            return False
        if self.up:
            return True
        if self.failed_recently():
            return False
        parts = urlsplit(self.endpoint)
        port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
        try:
            _reader, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), PROBE_TIMEOUT_S)
        except (TimeoutError, OSError):
            return False
        writer.close()
        try:
            await asyncio.wait_for(writer.wait_closed(), PROBE_TIMEOUT_S)
        except (TimeoutError, OSError):  # closing a probe socket may fail; the endpoint answered anyway
            pass
        return True

    async def _start(self) -> Browser:
        assert self._pw is not None
        headers = dict(self.launch.remote_headers) or None
        timeout = self.launch.connect_timeout_ms
        attempts = max(1, self.launch.connect_attempts)
        delay = BACKOFF_START_S
        last: BaseException | None = None
        why = ""
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
            except (TimeoutError, PlaywrightError, OSError) as exc:  # retried, then reported in one line
                self.failures += 1
                last = exc
                why, retry = explain_connect_error(self.label, str(exc))
                log.warning("connecting to %s failed (attempt %d of %d): %s", self.label, attempt + 1, attempts,
                            one_line(str(exc), 160))
                if not retry:
                    raise BrowserLaunchError(f"Could not connect: {why}") from exc
                if attempt + 1 < attempts:
                    await asyncio.sleep(delay)
                    delay *= 2
        assert last is not None
        raise BrowserLaunchError(f"Could not connect to {self.label} after {attempts} attempts. {why}") from last


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
        except PlaywrightError as exc:  # every launch failure becomes one line
            raise BrowserLaunchError(f"Could not start {executable}: {one_line(str(exc), 240)}") from exc
        log.info("launched %s (%s) shared by the HTTP sessions", executable, browser.version)
        return browser

    async def available(self) -> bool:
        """Launched, or a browser executable is found and no launch failed in the last
        :data:`RECENT_FAILURE_S` seconds (nothing is launched to check)."""
        if self._closed:
            return False
        if self.up:
            return True
        if self.failed_recently():
            return False
        try:
            find_executable(self.launch)
        except BrowserCtxError:
            return False
        return True
