"""Console capture of one tab: the in-page hook, uncaught errors and the browser's own log.

Why a hook in the page: every CDP event our session receives crosses Playwright's driver (node) first.
Receiving ``Runtime.consoleAPICalled`` per message grew the driver by 70-120 MB over 100,000 messages
(and ``page.on("console")`` grew Python by ~300 MB and the driver by ~320 MB), so console calls are
folded *in the page* (``browser/js/console_hook.js``) and arrive as a few batches.

Captured:

- console API calls, through the hook: added by ``add_init_script`` to the main world of every frame
  (out-of-process iframes and popups too) before the page's own scripts; calls are folded in the page
  like :func:`~browser_ctx.core.console.fold_key` and sent through a CDP binding (``Runtime.addBinding``
  on our own sessions: nothing of Playwright's is exposed to the page), at once while the frame sends
  fewer than 50 batches a second, else every 100 ms; the original ``console`` method still runs for up
  to 100 calls a second per frame, so a flood never reaches any CDP session. Workers have no hook:
  their console calls arrive as ``Runtime.consoleAPICalled`` on their own sessions;
- ``Runtime.exceptionThrown``: uncaught errors and unhandled rejections, with their stack and source;
- ``Log.entryAdded``: the browser's own messages (CORS, failed loads, interventions).

All of them are folded into one :class:`~browser_ctx.core.console.ConsoleBuffer`
(``EventSettings.console_entries`` distinct entries, default 1,000). Console batches are filed by the
CDP execution context they came from (``Runtime.executionContextCreated`` maps each main-frame
document's context to its section) and carry the URL at each first call, so a message logged before a
``pushState`` or just before leaving a page lands in the right section and route.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import BrowserContext, Frame
from playwright.async_api import Error as PlaywrightError

from ...core.console import KEEP_CHARS, ConsoleBuffer, ConsoleEntry
from ...core.console_payloads import entry_from_console_api, entry_from_exception, entry_from_hook, entry_from_log
from ...core.network import is_favicon
from ...core.sections import Section, relative_url
from ..scripts import invocation
from .sections import MAX_SECTIONS, SectionLog

if TYPE_CHECKING:
    from ...core.redact import Redactor
    from ...settings import EventSettings
    from ..page_cdp import PageCDP

__all__ = ["ConsoleCapture", "ConsoleHook", "HOOK_PREFIX", "TRACE_FRAMES", "new_binding_name", "cdp_time"]

log = logging.getLogger("browser_ctx")

#: Prefix of the names the in-page console hook uses on ``window`` (visible to the page): its binding
#: is ``<prefix><id>`` and its own handle ``<prefix><id>Hook``, ``<id>`` unique per browser-ctx
#: session, so two sessions sharing a tab (``--shared-context``) each get every call.
HOOK_PREFIX = "__browserCtxConsole"
#: Stack frames the hook keeps per ``console.trace``.
TRACE_FRAMES = 16
#: The most calls one batch item (or its dropped count) may claim: the page can call the binding
#: itself, so counts are clamped.
MAX_BATCH_COUNT = 10_000_000
#: Seconds a CDP timestamp may be off our clock before it is ignored (a remote browser's clock).
CLOCK_SKEW = 60
#: Seconds to wait for the hook to run in a frame that was already there when the capture started.
HOOK_INSTALL_TIMEOUT = 2.0
#: Main-frame execution contexts remembered (mapped to their section), per section kept.
CONTEXTS_PER_SECTION = 4


def new_binding_name() -> str:
    """A fresh name for the console hook's binding (:data:`HOOK_PREFIX` and 8 random hex digits)."""
    return f"{HOOK_PREFIX}{secrets.token_hex(4)}"


def cdp_time(stamp_ms: Any) -> float | None:
    """Seconds since the epoch from a CDP timestamp in ms since the epoch; ``None`` when it is missing
    or more than :data:`CLOCK_SKEW` seconds from our clock (then the time of arrival is used)."""
    try:
        stamp = float(stamp_ms or 0) / 1000
    except (TypeError, ValueError):
        return None
    return stamp if abs(stamp - time.time()) < CLOCK_SKEW else None


class ConsoleHook:
    """The console hook of one browser-ctx session: its binding name, and the browser contexts it was
    added to (each once: Playwright's init scripts reach every page, frame and popup of a context).

    One per :class:`~browser_ctx.browser.session.BrowserSession`, shared by the captures of its tabs.

    Attributes:
        binding: the CDP binding the hook sends its batches through (:func:`new_binding_name`); the
            hook's own handle on ``globalThis`` is ``binding + "Hook"``.
    """

    def __init__(self, binding: str | None = None) -> None:
        self.binding = binding or new_binding_name()
        self._contexts: weakref.WeakSet[BrowserContext] = weakref.WeakSet()

    @property
    def handle(self) -> str:
        """The hook's handle on ``globalThis`` (its ``drain()``)."""
        return self.binding + "Hook"

    def script(self, max_pending: int) -> str:
        """The hook as a self-invoking script: ``console_hook.js`` called with the binding name,
        ``max_pending`` distinct entries held before a batch is sent at once, :data:`KEEP_CHARS`
        characters kept per message and :data:`TRACE_FRAMES` frames per ``console.trace``."""
        return invocation("console_hook", self.binding, max(1, max_pending), KEEP_CHARS, TRACE_FRAMES)

    async def install(self, context: BrowserContext, max_pending: int) -> None:
        """Add the hook to every future document of ``context`` (once per context).

        Raises whatever Playwright raises when the context is closed."""
        if context in self._contexts:
            return
        await context.add_init_script(self.script(max_pending))
        self._contexts.add(context)

    async def run_in(self, frame: Frame, max_pending: int) -> None:
        """Run the hook in a frame whose document is already loaded (a tab adopted from a remote
        browser); a busy or detached frame is left to its next document."""
        try:
            await asyncio.wait_for(frame.evaluate(self.script(max_pending)), HOOK_INSTALL_TIMEOUT)
        except (TimeoutError, PlaywrightError) as exc:
            log.debug("console hook not run in a loaded frame: %s", exc)

    async def drain(self, frame: Frame) -> None:
        """Ask the hook in ``frame`` to send what it holds now (its reply comes after the batch)."""
        if not frame.url:  # no document ever committed (a blocked file: iframe): nothing to send, and
            return  # Playwright would wait for one for ever
        try:
            await frame.evaluate("(name) => { const h = globalThis[name]; return h ? h.drain() : null; }",
                                 self.handle)
        except PlaywrightError:
            pass  # a detached or navigating frame has nothing more to send


class ConsoleCapture:
    """The console entries of one tab: hook batches, uncaught errors, the browser's log, workers'
    console calls, filed by section.

    Attributes:
        buffer: the folded console buffer.
        hook_batches: batches received from the in-page hook (each folds many calls).
        closed: set when the tab's capture closed; later batches are ignored.
    """

    def __init__(self, sections: SectionLog, settings: EventSettings, redactor: Redactor, hook: ConsoleHook) -> None:
        self._sections = sections
        self._settings = settings
        self._redactor = redactor
        self.hook = hook
        self.buffer = ConsoleBuffer(settings.console_entries)
        self.hook_batches = 0
        self.closed = False
        self._ctx_sections: OrderedDict[int, int] = OrderedDict()  # main-frame context id -> section id
        self._fresh_contexts: list[int] = []  # main-frame contexts created since its last commit

    # -- CDP ------------------------------------------------------------------------------------

    def handlers(self, top_target: bool = True) -> dict[str, Callable[[dict[str, Any]], None]]:
        """CDP event handlers for a page or frame session (``top_target``: the tab's own page, whose
        execution contexts map to sections)."""
        handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "Runtime.bindingCalled": lambda p: self.on_binding(p, top_target),
            "Runtime.exceptionThrown": self.on_exception,
            "Log.entryAdded": self.on_log,
        }
        if top_target:  # context ids are per target: only the page's own map to sections
            handlers["Runtime.executionContextCreated"] = self.on_context_created
        return handlers

    def worker_handlers(self, label: str) -> dict[str, Callable[[dict[str, Any]], None]]:
        """CDP event handlers for a worker's session: its console calls (workers run no hook), uncaught
        errors and log, each text prefixed with ``label`` (``(worker)``)."""
        return {
            "Runtime.consoleAPICalled": lambda p: self._add_at(self._labelled(entry_from_console_api(
                p, self._sections.current.url), label), p.get("timestamp")),
            "Runtime.exceptionThrown": lambda p: self._add_at(self._labelled(entry_from_exception(
                p, self._sections.current.url), label), p.get("timestamp")),
            "Log.entryAdded": lambda p: self._add_at(self._labelled(entry_from_log(
                p, self._sections.current.url), label), (p.get("entry") or {}).get("timestamp")),
        }

    @staticmethod
    def _labelled(entry: ConsoleEntry, label: str) -> ConsoleEntry:
        entry.text = f"{label} {entry.text}"
        entry.full_length += len(label) + 1
        return entry

    async def enable(self, cdp: Any, domains: PageCDP) -> None:
        """Expose the hook's binding on ``cdp``'s target and hold Runtime enabled there through ``domains``
        (the tab's :class:`~browser_ctx.browser.page_cdp.PageCDP`), for uncaught errors and the binding's
        calls; console calls reach it only up to the hook's pass-through budget."""
        await cdp.send("Runtime.addBinding", {"name": self.hook.binding})
        await domains.enable(cdp, "Runtime")

    def on_document(self, section: Section) -> None:
        """A main-frame document committed as ``section``: file the contexts created for it just before
        its commit was reported under it."""
        fresh, self._fresh_contexts = self._fresh_contexts, []
        for ctx in fresh:
            if ctx in self._ctx_sections:
                self._ctx_sections[ctx] = section.id

    # -- events ---------------------------------------------------------------------------------

    def _add(self, entry: ConsoleEntry, section: Section | None = None, *, route: str | None = None,
             count: int = 1, first: float | None = None, last: float | None = None, varies: bool = False) -> None:
        section = section or self._sections.current
        entry.text = self._redactor.text(entry.text)  # secrets by shape, before folding, filters and patterns
        entry.stack = tuple(self._redactor.text(frame) for frame in entry.stack)
        entry.section = section.id
        if route is not None:
            entry.route = route or None
        else:
            entry.route = relative_url(section.route, section.url) if section.route else None
        held = self.buffer.add(entry, last or time.time(), count=count, first_time=first, varies=varies)
        self._sections.count(section.id, "items", count)
        if held.level == "error" and not (held.kind == "browser" and is_favicon(held.source or "")):
            self._sections.count(section.id, "consoleErrors", count)

    def _add_at(self, entry: ConsoleEntry, stamp_ms: Any) -> None:
        """Add one occurrence stamped by the browser (CDP ms since the epoch; see :func:`cdp_time`)."""
        at = cdp_time(stamp_ms)
        self._add(entry, first=at, last=at)

    def on_exception(self, p: dict[str, Any]) -> None:
        """``Runtime.exceptionThrown``: an uncaught error or unhandled rejection."""
        self._add_at(entry_from_exception(p, self._sections.current.url), p.get("timestamp"))

    def on_log(self, p: dict[str, Any]) -> None:
        """``Log.entryAdded``: one of the browser's own messages."""
        self._add_at(entry_from_log(p, self._sections.current.url), (p.get("entry") or {}).get("timestamp"))

    def on_binding(self, p: dict[str, Any], top_target: bool = True) -> None:
        """``Runtime.bindingCalled``: a batch from the hook (other bindings are not ours)."""
        if p.get("name") != self.hook.binding:
            return
        sid = self._ctx_sections.get(p.get("executionContextId", -1)) if top_target else None
        section = self._sections.sections.get(sid) if sid is not None else None
        self.on_hook_batch(p.get("payload"), section or self._sections.current, top=sid is not None)

    def on_context_created(self, p: dict[str, Any]) -> None:
        """Remember which section each main-frame document's context belongs to: console batches carry
        their context id, so a page being left that reports after the next page began, or a page that
        redirected at once, is filed correctly (and a page cannot claim another page's section)."""
        ctx = p.get("context") or {}
        aux = ctx.get("auxData") or {}
        if not aux.get("isDefault") or aux.get("frameId") != self._sections.main_frame or "id" not in ctx:
            return
        self._ctx_sections[ctx["id"]] = self._sections.current.id
        self._fresh_contexts.append(ctx["id"])
        while len(self._ctx_sections) > CONTEXTS_PER_SECTION * MAX_SECTIONS:
            self._ctx_sections.popitem(last=False)

    def on_hook_batch(self, payload: Any, section: Section, *, top: bool) -> None:
        """Receive one batch from ``console_hook.js`` (see that file for its shape), sent by a document of
        ``section`` (``top``: the main frame's document, whose URL at each call gives the route). The
        page can call the binding itself, so every number is clamped."""
        if self.closed:
            return
        try:
            batch = json.loads(payload) if isinstance(payload, str) else []
        except (TypeError, ValueError):
            return
        if not isinstance(batch, list) or not batch or not isinstance(batch[-1], dict) or "d" not in batch[-1]:
            return
        meta = batch.pop()
        self.hook_batches += 1
        del batch[2 * max(1, self._settings.console_entries):]  # the hook never sends more; a page might
        for item in batch:
            if isinstance(item, dict):
                try:
                    self._hook_item(item, section, top)
                except (TypeError, ValueError, OverflowError, AttributeError):
                    log.debug("malformed console batch item", exc_info=True)
        try:
            dropped = min(MAX_BATCH_COUNT, max(0, int(meta.get("d") or 0)))
        except (TypeError, ValueError, OverflowError):
            dropped = 0
        if dropped > 0:
            self.buffer.total += dropped
            self.buffer.evicted_messages += dropped

    def _hook_item(self, item: dict[str, Any], section: Section, top: bool) -> None:
        entry = entry_from_hook(item, section.url)
        route = None
        href = item.get("h") if top else None
        if href:
            here = self._redactor.url(str(href))
            route = relative_url(here, section.url) if here != section.url else ""
        count = min(MAX_BATCH_COUNT, max(1, int(item.get("c") or 1)))
        first: float | None = float(item.get("f") or 0) / 1000 or None
        last: float | None = float(item.get("z") or 0) / 1000 or None
        if last is None or first is None or abs(last - time.time()) > CLOCK_SKEW or first > last:
            first = last = None  # a remote browser's clock may be off
        self._add(entry, section, route=route, count=count, first=first, last=last, varies=bool(item.get("v")))

    # -- reading --------------------------------------------------------------------------------

    def mark(self) -> dict[int, int]:
        """A mark for :meth:`errors_since`: the occurrence count of every held error entry."""
        return {id(e): e.count for e in self.buffer.entries() if e.level == "error"}

    def errors_since(self, mark: dict[int, int]) -> list[tuple[ConsoleEntry, int]]:
        """Error entries with occurrences after ``mark`` (from :meth:`mark`), in time order, each with
        how many new occurrences it got; the browser's own favicon failure is left out."""
        out = []
        for e in sorted(self.buffer.entries(), key=lambda e: (e.first_time, e.first_seq)):
            if e.level != "error" or (e.kind == "browser" and is_favicon(e.source or "")):
                continue
            new = e.count - mark.get(id(e), 0)
            if new > 0:
                out.append((e, new))
        return out
