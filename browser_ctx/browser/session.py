"""The browser session: one Playwright, one browser context, its tabs and their captures.

Lifetime: ``async with BrowserSession(settings) as session``. The browser is launched
lazily by the first call that needs it (:meth:`BrowserSession.current_tab`) and
relaunched on the next call after :meth:`close_browser` or a crash; the call that
relaunched is told so through :meth:`BrowserSession.take_notes`. Leaving the
``async with`` closes the browser and stops Playwright, so no Chromium outlives the
session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from .._errors import BrowserLaunchError, InvalidArgument, PageError, one_line
from ..core.ledger import Ledger
from ..core.redact import Redactor
from ..settings import Settings
from .capture import ConsoleHook, EventCapture
from .dialogs import DialogCenter
from .journal import install as install_journal
from .launcher import IGNORED_DEFAULT_ARGS, chromium_args, context_options, find_executable
from .page_cdp import PageCDP
from .refs import register_ref_engine
from .remote import BrowserProvider, RemoteBrowser
from .scripts import invocation
from .tab import Capture, Tab

__all__ = ["BrowserSession", "Tab", "Capture"]

log = logging.getLogger("browser_ctx")

#: Seconds closing one page, context or browser may take on teardown before it is left for dead.
CLOSE_TIMEOUT_S = 5
#: Seconds stopping Playwright's driver may take when the session ends.
STOP_TIMEOUT_S = 10
#: The most tabs one session holds (its popups included). A page that opens more windows gets them closed at
#: once, and the next call says how many; ``browser_tabs new`` past it is refused. Each tab is a renderer
#: (tens to hundreds of MB): issue 16's page opening 50 popups on load held 74 tabs and 1.9 GB without it.
TAB_CAP = 16


#: Playwright's device descriptors by name, read once per process: constant data of the installed
#: Playwright, not per-session state (no session writes to it after the first read).
_DEVICES: dict[str, dict[str, Any]] = {}


async def device_options(name: str, pw: Playwright | None = None) -> dict[str, Any]:
    """Return ``new_context`` options emulating Playwright's device ``name`` (e.g. ``"iPhone 15"``).

    Names match case-insensitively. ``pw`` is a running Playwright to read the device list from;
    without one a short-lived one is started once (about half a second).

    Raises:
        BrowserLaunchError: an unknown device name (the message suggests some).
    """
    if not _DEVICES:
        if pw is not None:
            _DEVICES.update(pw.devices)
        else:
            async with async_playwright() as p:
                _DEVICES.update(p.devices)
    found = _DEVICES.get(name) or next((v for k, v in _DEVICES.items() if k.lower() == name.lower()), None)
    if found is None:
        close = [k for k in _DEVICES if name.lower().split()[0] in k.lower()][:5] if name.split() else []
        examples = close or ["iPhone 15", "Pixel 7", "Desktop Chrome HiDPI"]
        raise BrowserLaunchError(f"Unknown --device {name!r}; use a Playwright device name such as "
                                 f"{', '.join(repr(k) for k in examples)}.")
    return {k: v for k, v in found.items() if k != "default_browser_type"}


class BrowserSession:
    """Owns the browser for one MCP session. All methods are coroutine-safe under :attr:`lock`.

    Args:
        settings: server settings.
        redactor: shared secret scrubber (default: a new one).
        provider: where the browser comes from when this session does not launch its own: a
            browser shared by HTTP sessions or a remote one (:mod:`.remote`). Default ``None``
            launches one here, or, when ``settings.launch`` names a ``cdp_endpoint`` /
            ``ws_endpoint``, connects to it (a :class:`~.remote.RemoteBrowser` this session owns).
        adopt_existing: with a provider, use the remote browser's existing default context (so tabs
            opened before connecting are listed) instead of a fresh one (default ``True``).
    """

    def __init__(self, settings: Settings, redactor: Redactor | None = None, *,
                 provider: BrowserProvider | None = None, adopt_existing: bool = True) -> None:
        self.settings = settings
        self.redactor = redactor or Redactor(settings.events.redact)
        #: The console hook of every tab of this session (its binding name, the contexts it is added to).
        self.console_hook = ConsoleHook()
        #: Serialises tool calls: one call at a time per session.
        self.lock = asyncio.Lock()
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._tabs: list[Tab] = []
        self._current: Tab | None = None
        self._next_id = 1
        self._lost = False  # the browser went away on its own
        self._launched_once = False
        self._notes: list[str] = []
        self.executable: str | None = None
        #: Tokens returned per tool against their baselines (read by ``browser_ctx_stats``).
        self.ledger = Ledger()
        #: Answers and logs every dialog of this session's pages by ``settings.dialogs``
        #: (installed on each page as it is adopted, before it navigates).
        self.dialogs = DialogCenter(settings.dialogs)
        #: Background measurements of ledger baselines still running (``server.tools.ledger``).
        self.baseline_tasks: set[asyncio.Future[int | None]] = set()
        #: Those of them still waiting for the session to go idle (not yet asking the page anything).
        self.baselines_waiting: set[asyncio.Future[int | None]] = set()
        #: Set to run those measurements now instead of waiting for the session to go idle.
        self.baselines_due = asyncio.Event()
        #: When (``time.monotonic()`` s) the session's last tool call ended (set by the server's pipeline).
        self.last_call_end = 0.0
        self._owns_provider = False
        if provider is None and (settings.launch.cdp_endpoint or settings.launch.ws_endpoint):
            provider = RemoteBrowser(settings.launch)
            self._owns_provider = True
        #: The provider the browser comes from, or ``None`` when this session launches its own.
        self.provider = provider
        self._adopt_existing = adopt_existing
        self._owns_context = True  # False for a remote browser's default context we adopted
        self._kept_pages: set[Page] = set()  # tabs of an adopted context that were there before us
        self._on_disconnect: tuple[Browser, Any] | None = None
        self._pending_note: str | None = None  # a relaunch note whose relaunch failed; said once it works
        self._arriving: set[Page] = set()  # pages opened by the browser ("page" event) not yet adopted
        self._popups_closed = 0  # popups closed past TAB_CAP since the last call's notes

    async def __aenter__(self) -> BrowserSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- lifecycle -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether a browser context is open and usable."""
        return self._context is not None and not self._lost

    def take_notes(self) -> list[str]:
        """Return and clear notes for the current call (e.g. "browser relaunched")."""
        if self._popups_closed:
            n, self._popups_closed = self._popups_closed, 0
            self._notes.append(f"Closed {n} popup{'s' if n != 1 else ''} the page opened beyond the cap of "
                               f"{TAB_CAP} tabs per session; close tabs (browser_tabs close) to let new ones open.")
        notes, self._notes = self._notes, []
        return notes

    def add_note(self, text: str) -> None:
        """Add a note the next call's result carries (e.g. "this idle session was reset")."""
        self._notes.append(text)

    async def _ensure_context(self) -> BrowserContext:
        if self._context is not None and not self._lost:
            return self._context
        note = self._pending_note
        if self._lost:
            note = (self.provider.lost_note() if self.provider is not None else
                    "The browser had closed or crashed; relaunched it (tabs and page state were lost).")
            await self._discard()
        elif note is None and self._launched_once:
            note = "Relaunched the browser (it was closed with browser_close)."
        try:
            await self._launch()
        except BaseException:
            self._pending_note = note  # said by the call whose relaunch (or reconnect) finally works
            raise
        self._pending_note = None
        if note:
            self._notes.append(note)
        self._launched_once = True
        assert self._context is not None
        return self._context

    async def _launch(self) -> None:
        launch = self.settings.launch
        executable = self.provider.label if self.provider is not None else find_executable(launch)
        self.executable = executable
        if self._pw is None and self.provider is None:
            self._pw = await async_playwright().start()
            await register_ref_engine(self._pw)
        context_opts: dict[str, Any] = {
            "ignore_https_errors": launch.ignore_https_errors,
            "accept_downloads": True,
        }
        if launch.device:  # --device: its viewport, scale factor, user agent, touch; --viewport-size still wins
            context_opts = {**await device_options(launch.device, self._pw), **context_opts}
        if launch.viewport:
            context_opts["viewport"] = {"width": launch.viewport[0], "height": launch.viewport[1]}
        if launch.http_credentials is not None:  # --http-credentials: answers 401/407 challenges
            creds = launch.http_credentials
            context_opts["http_credentials"] = {"username": creds.username, "password": creds.password,
                                                **({"origin": creds.origin} if creds.origin else {})}
            self.redactor.remember(creds.password)  # a page that echoes it still never shows it
        context_opts.update(context_options(launch))  # --user-agent, --proxy-server, --grant-permissions
        try:
            if self.provider is not None:
                if launch.storage_state:
                    context_opts["storage_state"] = launch.storage_state
                self._context, self._owns_context = await self.provider.open_context(
                    context_opts, adopt_existing=self._adopt_existing)
                self._browser = self._context.browser
            elif launch.user_data_dir:
                assert self._pw is not None  # started above whenever there is no provider
                self._context = await self._pw.chromium.launch_persistent_context(
                    launch.user_data_dir, executable_path=executable, headless=launch.headless,
                    args=chromium_args(launch), ignore_default_args=list(IGNORED_DEFAULT_ARGS), **context_opts)
                self._browser = self._context.browser
            else:
                assert self._pw is not None  # started above whenever there is no provider
                self._browser = await self._pw.chromium.launch(
                    executable_path=executable, headless=launch.headless, args=chromium_args(launch),
                    ignore_default_args=list(IGNORED_DEFAULT_ARGS))
                if launch.storage_state:
                    context_opts["storage_state"] = launch.storage_state
                self._context = await self._browser.new_context(**context_opts)
        except (PlaywrightError, OSError, TimeoutError) as exc:  # every launch failure becomes one line
            raise BrowserLaunchError(f"Could not start {executable}: {one_line(str(exc), 240)}") from exc
        self._lost = False
        context = self._context
        if self._browser is not None:
            def on_disconnect(_b: Browser) -> None:
                self._mark_lost()
            self._browser.on("disconnected", on_disconnect)
            self._on_disconnect = (self._browser, on_disconnect)
        context.on("close", lambda _c: self._mark_lost())

        def on_page(page: Page) -> None:
            if page in self._arriving or any(t.page is page for t in self._tabs):
                return
            if self._tab_count() >= TAB_CAP:
                self._popups_closed += 1
                asyncio.ensure_future(self._close_extra(page))
                return
            self._arriving.add(page)
            asyncio.ensure_future(self._adopt_arriving(page))  # a popup: adopted as a tab from its birth

        context.on("page", on_page)
        context.set_default_timeout(self.settings.timeouts.action_ms)
        context.set_default_navigation_timeout(self.settings.timeouts.navigation_ms)
        if launch.blocked_origins or launch.allowed_origins:
            await context.route("**/*", self._filter_origin)
        await install_journal(context)  # the transient-UI journal, in every frame of every document
        await context.add_init_script(invocation("timers"))  # setTimeout kept for browser_evaluate (js/timers.js)
        for path in launch.init_scripts:  # --init-script: after ours, before the page's own, in every frame
            await context.add_init_script(path=path)
        self._kept_pages = set() if self._owns_context else set(context.pages)
        for page in list(context.pages):
            await self._adopt(page)
        if self._kept_pages:
            # The user's own browser (--cdp-endpoint): work in a tab we open, never in theirs unless the agent
            # selects one (browser_tabs select); theirs are listed but never navigated or closed by us.
            self._current = await self._adopt(await self._open_page(context))
        log.info("launched %s (%s)", executable, self._browser.version if self._browser else "persistent")

    def _tab_count(self) -> int:
        """Tabs this session opened plus pages the browser opened that are not adopted yet (each counted
        once); the user's own tabs of a ``--cdp-endpoint`` browser do not count against :data:`TAB_CAP`."""
        adopted = {id(t.page) for t in self._tabs}
        mine = sum(1 for t in self._tabs if t.page not in self._kept_pages)
        return mine + sum(1 for p in self._arriving if id(p) not in adopted)

    async def _adopt_arriving(self, page: Page) -> None:
        try:
            await self._adopt(page)
        finally:
            self._arriving.discard(page)

    @staticmethod
    async def _close_extra(page: Page) -> None:
        """Close a popup opened past :data:`TAB_CAP` (without running its beforeunload)."""
        with contextlib.suppress(PlaywrightError, TimeoutError):  # it closed itself meanwhile: nothing to do
            await asyncio.wait_for(page.close(), CLOSE_TIMEOUT_S)

    async def _filter_origin(self, route: Any) -> None:
        launch = self.settings.launch
        parts = urlsplit(route.request.url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if parts.scheme in ("http", "https"):
            def hit(origins: tuple[str, ...]) -> bool:
                return any(origin == o.rstrip("/") or parts.hostname == o for o in origins)
            if hit(launch.blocked_origins) or (launch.allowed_origins and not hit(launch.allowed_origins)):
                await route.abort("blockedbyclient")
                return
        await route.continue_()

    def _mark_lost(self) -> None:
        if self._context is not None:
            self._lost = True

    async def _adopt(self, page: Page) -> Tab:
        for tab in self._tabs:
            if tab.page is page:
                # The context's "page" event may have adopted it first; make sure capture is attached
                # before the caller navigates (start() is idempotent and safe to call concurrently).
                try:
                    await tab.events.start()
                except PlaywrightError as exc:  # a tab that closed at once
                    log.debug("event capture failed to start on tab %s: %s", tab.id, exc)
                return tab
        cdp = PageCDP(page)
        events = EventCapture(page, self.settings.events, self.redactor, hook=self.console_hook, cdp=cdp)
        tab = Tab(id=self._next_id, page=page, events=events, cdp=cdp)
        self.dialogs.install(page)  # answer dialogs from the first load on
        if self._owns_context:  # one subscription for the tab's life, not two round trips per action
            tab.hold_choosers()
        self._next_id += 1
        self._tabs.append(tab)
        page.on("close", lambda _p: self._forget(tab))
        page.on("crash", lambda _p: setattr(tab, "crashed", True))
        try:
            await events.start()
        except PlaywrightError as exc:  # a tab that closed at once
            log.debug("event capture failed to start on tab %s: %s", tab.id, exc)
        return tab

    def _forget(self, tab: Tab) -> None:
        if tab.priming is not None:
            tab.priming.cancel()
        if tab in self._tabs:
            self._tabs.remove(tab)
        if self._current is tab:
            self._current = self._tabs[-1] if self._tabs else None

    async def _discard(self) -> None:
        """Drop a dead browser without waiting on it."""
        self._tabs.clear()
        self._current = None
        browser, context = self._browser, self._context
        owned, kept = self._owns_context, self._kept_pages
        self._browser = self._context = None
        self._lost = False
        self._owns_context, self._kept_pages = True, set()
        if self._on_disconnect is not None:
            source, handler = self._on_disconnect
            self._on_disconnect = None
            source.remove_listener("disconnected", handler)
        closers: list[Any] = []
        if context is not None and not owned:  # an adopted context: close only the tabs we opened
            closers.extend(p for p in context.pages if p not in kept)
        elif context is not None:
            closers.append(context)
        if self.provider is None:  # a provider's browser outlives this session
            closers.append(browser)
        for closer in closers:
            if closer is not None:
                with contextlib.suppress(PlaywrightError, TimeoutError):  # already dead: nothing left to close
                    await asyncio.wait_for(closer.close(), CLOSE_TIMEOUT_S)

    async def close_browser(self) -> bool:
        """Close the browser (the next call relaunches it). Returns whether one was open."""
        was_open = self._context is not None
        for tab in list(self._tabs):
            if tab.priming is not None:
                tab.priming.cancel()
            await tab.events.close()  # safe after the page closed
            await tab.cdp.close()
        await self._discard()
        return was_open

    async def close(self) -> None:
        """Close the browser and stop Playwright."""
        await self.close_browser()
        if self._owns_provider and self.provider is not None:
            await self.provider.close()
        if self._pw is not None:
            pw, self._pw = self._pw, None
            try:
                await asyncio.wait_for(pw.stop(), STOP_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 - last step of teardown: a driver that died any way must not crash the exit
                log.debug("stopping Playwright failed: %s", exc)

    # -- tabs --------------------------------------------------------------------------

    @property
    def tabs(self) -> list[Tab]:
        """Open tabs, in opening order."""
        return list(self._tabs)

    async def until_idle(self, quiet_s: float, wake: asyncio.Event | None = None) -> None:
        """Return once no call is running and none has ended for ``quiet_s`` seconds, or at once when ``wake``
        is set. Looks again at most every 50 ms."""
        while wake is None or not wake.is_set():
            quiet = time.monotonic() - self.last_call_end
            if quiet >= quiet_s and not self.lock.locked():
                return
            delay = max(0.05, quiet_s - quiet)
            if wake is None:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(TimeoutError):  # waited out the quiet time: look again
                    await asyncio.wait_for(wake.wait(), delay)

    def peek_tab(self) -> Tab | None:
        """Return the current tab without launching anything (``None`` if there is none)."""
        if not self.running:
            return None
        return self._current

    async def current_tab(self) -> Tab:
        """Return the current tab, launching the browser and opening a tab if needed.

        Raises:
            BrowserNotFound, BrowserLaunchError: the browser could not be started.
        """
        context = await self._ensure_context()
        tab = self._current
        if tab is not None and tab.crashed and not tab.page.is_closed():
            # A crashed page refuses everything, reload included: close it and open a new tab in its place.
            url = tab.page.url
            self._forget(tab)
            with contextlib.suppress(PlaywrightError, TimeoutError):  # already dead: it is replaced either way
                await asyncio.wait_for(tab.page.close(), CLOSE_TIMEOUT_S)
            self._notes.append(f"The tab had crashed (its renderer died at {url}); closed it and opened a new "
                               "tab. Navigate to load the page again.")
            tab = None
            self._current = None
            self._current = tab = await self._adopt(await self._open_page(context))
        if tab is None or tab.page.is_closed():
            if tab is not None:
                self._forget(tab)
            tab = self._tabs[-1] if self._tabs else None
            if tab is None:
                tab = await self._adopt(await self._open_page(context))
            self._current = tab
        return tab

    async def _open_page(self, context: BrowserContext) -> Page:
        """Open a page in ``context``; a dead browser marks the session lost (the next call relaunches)."""
        try:
            return await context.new_page()
        except PlaywrightError as exc:
            self._mark_lost()
            raise PageError("Could not open a tab: the browser closed or the connection to it was lost. "
                            "Call again to relaunch (or reconnect).") from exc

    async def new_tab(self) -> Tab:
        """Open a new tab and make it current.

        Raises:
            InvalidArgument: the session already holds :data:`TAB_CAP` tabs (nothing is opened).
        """
        context = await self._ensure_context()
        if self._tab_count() >= TAB_CAP:
            raise InvalidArgument(f"This session already has {self._tab_count()} tabs (the cap is {TAB_CAP}); close "
                                  "one with browser_tabs close, then open a new one.")
        page = await context.new_page()
        tab = await self._adopt(page)
        self._current = tab
        return tab

    def select_tab(self, tab: Tab) -> None:
        """Make ``tab`` the current tab."""
        self._current = tab

    def is_user_tab(self, tab: Tab) -> bool:
        """Whether ``tab`` was open before we connected (a ``--cdp-endpoint`` browser's own tab, never closed by us)."""
        return tab.page in self._kept_pages

    async def close_tab(self, tab: Tab) -> None:
        """Close ``tab``, a tab this session opened.

        Raises:
            InvalidArgument: ``tab`` was open before we connected (the user's); it is left open.
        """
        if self.is_user_tab(tab):
            raise InvalidArgument("That tab was open before browser-ctx connected (the user's own); browser-ctx "
                                  "never closes it. Close one of the tabs browser-ctx opened, or leave it.")
        await tab.page.close()
