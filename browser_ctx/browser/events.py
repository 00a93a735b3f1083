"""Per-tab console and network capture: an in-page console hook, and CDP sessions of the page (and of
its out-of-process iframes) for the rest.

Why the hook: every CDP event our session receives crosses Playwright's driver (node) first. Receiving
``Runtime.consoleAPICalled`` per message grew the driver by 70-120 MB over 100,000 messages (and
``page.on("console")`` grew Python by ~300 MB and the driver by ~320 MB), so console calls are folded
*in the page* and arrive as a few batches.

Captured, from the moment a navigation starts:

- console API calls, through ``console_hook.js``: added by ``page.add_init_script`` to the main world
  of every frame (out-of-process iframes too) before the page's own scripts; calls are folded in the
  page like :func:`~browser_ctx.core.console.fold_key` and sent through a CDP binding
  (``Runtime.addBinding`` on our own session: nothing of Playwright's is exposed to the page), at once
  while the frame sends fewer than 50 batches a second, else every 100 ms; the original ``console``
  method still runs for up to 100 calls a second per frame, so a flood never reaches any CDP session;
- ``Runtime.exceptionThrown``: uncaught errors and unhandled rejections, with their stack and source;
- ``Log.entryAdded`` (the browser's own messages: CORS, failed loads, interventions);
  all three are folded into a :class:`~browser_ctx.core.console.ConsoleBuffer`
  (``EventSettings.console_entries`` distinct entries, default 1,000);
- ``Network.*``: one :class:`~browser_ctx.core.network.RequestRecord` per request, redirects folded
  into their request, WebSocket frames and EventSource messages counted with the last few kept
  (``EventSettings.network_entries`` records, default 2,000, oldest evicted and counted);
- ``Page.frameNavigated`` / ``Page.navigatedWithinDocument`` for sections: a new document in the
  main frame starts a new section, ``pushState`` adds a route to the current one. Console batches are
  filed by the CDP execution context they came from (``Runtime.executionContextCreated`` maps each
  main-frame document's context to its section) and carry the URL at each first call, so a message
  logged before a ``pushState`` or just before leaving a page lands in the right section and route.

Headers, URLs and request bodies are redacted by name as they arrive, and every value redacted is
remembered in the session's :class:`~browser_ctx.core.redact.Redactor`, which scrubs it from all later
output. Response bodies are not kept: they are fetched on demand with ``Network.getResponseBody``
while the browser still has them (:meth:`EventCapture.response_body`).

Out-of-process (cross-site) iframes are separate CDP targets: their console calls come through the
hook like any frame's, and their network through a CDP session opened on each such frame when its
document commits (up to :data:`MAX_FRAME_SESSIONS` per tab); requests such a frame makes before that
session is attached are missed (its document request itself is seen by the page's session).
Console calls of workers are not captured.

Interface the rest of browser-ctx relies on:

- ``EventCapture(page, settings, redactor, binding=name)``; one binding name per browser-ctx session
  (:func:`new_binding_name`); ``await start()`` right after the page is created and before any
  navigation; ``await close()`` when the tab goes away;
- ``await sync()`` before reading: delivers what the page and the browser already produced;
- ``load_summary() -> {"consoleErrors": int, "failedRequests": int}``: counts since the last full
  navigation started (used by ``browser_navigate``'s page card).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from .._errors import InvalidArgument
from ..core.console import (
    ConsoleBuffer,
    KEEP_CHARS,
    ConsoleEntry,
    entry_from_exception,
    entry_from_hook,
    entry_from_log,
)
from ..core.network import POST_KEEP, RequestRecord, SocketInfo
from ..core.sections import Section, relative_url

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

    from ..core.redact import Redactor
    from ..settings import EventSettings

__all__ = ["EventCapture", "Body", "MAX_SECTIONS", "new_binding_name"]

log = logging.getLogger("browser_ctx")

#: Sections kept per tab (older ones are dropped with their remaining entries).
MAX_SECTIONS = 20
#: Prefix of the names the in-page console hook uses on ``window`` (visible to the page): its binding
#: is ``<prefix><id>`` and its own handle ``<prefix><id>Hook``, ``<id>`` unique per capture, so two
#: browser-ctx sessions sharing a tab (``--shared-context``) each get every call.
HOOK_PREFIX = "__browserCtxConsole"
_HOOK_SOURCE = resources.files(__package__).joinpath("console_hook.js").read_text(encoding="utf-8")


def _when(stamp_ms: Any) -> dict[str, float | None]:
    """``first``/``last`` keyword arguments from a CDP timestamp in ms since the epoch; none when it is
    missing or far from our clock (a remote browser's clock may be off)."""
    try:
        when = float(stamp_ms or 0) / 1000
    except (TypeError, ValueError):
        return {}
    return {"first": when, "last": when} if abs(when - time.time()) < 60 else {}


def new_binding_name() -> str:
    """A fresh name for the console hook's binding (:data:`HOOK_PREFIX` and 8 random hex digits). One
    per browser-ctx session: the hook is added to its whole browser context, popups included."""
    return f"{HOOK_PREFIX}{secrets.token_hex(4)}"


# Browser contexts that already run the hook for a binding name (added once per context and name).
_context_hooks: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


async def _detach(session: Any) -> None:
    try:
        await session.detach()
    except Exception:  # noqa: BLE001 - already gone
        pass


async def _ping(session: Any) -> None:
    """A round trip over ``session``: its reply comes after every event its target sent before."""
    try:
        await session.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
    except Exception:  # noqa: BLE001 - the frame went away
        pass


async def _drain(frame: Any, hook: str) -> None:
    try:
        await frame.evaluate("(name) => { const h = globalThis[name]; return h ? h.drain() : null; }", hook)
    except Exception:  # noqa: BLE001 - a detached or navigating frame has nothing more to send
        pass


def hook_script(binding: str, max_pending: int) -> str:
    """The in-page console hook (``console_hook.js``) with its constants filled in: the ``binding``
    name (the hook's handle is ``binding + "Hook"``), ``max_pending`` distinct entries held before a
    batch is sent at once, :data:`KEEP_CHARS` characters kept per message and 16 frames per
    ``console.trace``."""
    return (_HOOK_SOURCE.replace("__BINDING__", binding).replace("__MAX__", str(max(1, max_pending)))
            .replace("__KEEP__", str(KEEP_CHARS)).replace("__FRAMES__", "16"))
_EXTRA_KEEP = 500  # ExtraInfo payloads held while waiting for their request
_MAX_BATCH_COUNT = 10_000_000  # calls one batch item (or its dropped count) may claim
#: Out-of-process iframes per tab whose network is captured through a CDP session of their own.
MAX_FRAME_SESSIONS = 20


@dataclass
class Body:
    """A body fetched from the browser.

    Attributes:
        text: the body as text (redacted by field name for JSON/form bodies), or ``None`` when it is
            binary or not available.
        full_bytes: size of the body in bytes (decoded, as the page received it), if known.
        binary: the body is binary (``text`` is ``None``; ``full_bytes`` says how big).
        missing: why the body is not available (``None`` when it is).
    """

    text: str | None
    full_bytes: int | None = None
    binary: bool = False
    missing: str | None = None


class EventCapture:
    """Console, page-error and network capture for one tab (see the module docstring).

    Attributes:
        console: the folded console buffer.
        sections: sections by id, oldest first (at most :data:`MAX_SECTIONS`).
        evicted_requests: requests dropped from the buffer to make room.
        hook_batches: console batches received from the in-page hook (each folds many calls).
        net_seq: sequence number of the latest network change (``since`` cursors compare it).
    """

    def __init__(self, page: Page, settings: EventSettings, redactor: Redactor, *, binding: str | None = None) -> None:
        self._page = page
        self.settings = settings
        self.redactor = redactor
        self.console = ConsoleBuffer(settings.console_entries)
        self.sections: OrderedDict[int, Section] = OrderedDict()
        self._gone_sections: OrderedDict[int, Section] = OrderedDict()
        self._section_loader: str | None = None
        self._stats: dict[int, dict[str, int]] = {}
        self._requests: OrderedDict[int, RequestRecord] = OrderedDict()
        self._by_id: dict[str, RequestRecord] = {}
        self._extra_req: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._extra_resp: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._counted_failed: set[int] = set()
        self._next_index = 1
        self.evicted_requests = 0
        self.net_seq = 0
        self._cdp: CDPSession | None = None
        self._main_frame: str | None = None
        self._closed = False
        self._hooked = False
        self._binding = binding or new_binding_name()
        self.hook_batches = 0
        self._frame_sessions: dict[Any, tuple[str, CDPSession]] = {}  # OOPIF frame -> (target id, session)
        self._attaching: set[Any] = set()
        self._req_session: dict[str, CDPSession] = {}  # request id -> the frame session that saw it
        self._ctx_sections: OrderedDict[int, int] = OrderedDict()  # main-frame context id -> section id
        self._fresh_contexts: list[int] = []  # main-frame contexts created since its last commit
        self._starting: asyncio.Future[None] | None = None
        self._next_section = 1
        self._new_section(page.url if page.url else "about:blank", None)

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Install the console hook, open the CDP session and enable its Page, Network, Log and Runtime
        domains (with the hook's binding).

        Idempotent and safe to call concurrently: later calls wait for the first one to finish, so
        a caller that must not miss the next navigation's events can ``await start()`` again.
        A session that dies while starting (the page swapped renderer processes) is retried twice.
        Raises whatever Playwright raises if the page is closed (the caller ignores it).
        """
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        await self._install_hook()
        for attempt in range(3):
            try:
                await self._open_session()
                return
            except Exception:
                cdp, self._cdp = self._cdp, None
                if cdp is not None:
                    try:
                        await cdp.detach()
                    except Exception:  # noqa: BLE001 - already gone
                        pass
                if attempt == 2 or self._page.is_closed() or self._closed:
                    raise
                await asyncio.sleep(0.05)

    async def _install_hook(self) -> None:
        """Add the console hook to every future document of every frame of the browser context (once per
        context and binding name; Playwright's init scripts reach out-of-process frames and popups too)
        and run it in the frames already there (a tab adopted from a remote browser). Its batches
        arrive through a CDP binding of this capture's sessions. Once per capture."""
        if self._hooked:
            return
        page = self._page
        script = hook_script(self._binding, self.settings.console_entries)
        context = page.context
        names = _context_hooks.setdefault(context, set())
        if self._binding not in names:  # the whole context: a popup runs the hook from its first document
            await context.add_init_script(script)
            names.add(self._binding)
        page.on("framenavigated", self._guard(self._on_frame_committed))
        page.on("framedetached", self._guard(self._on_frame_detached))
        self._hooked = True
        if page.url not in ("", "about:blank") or len(page.frames) > 1:
            for frame in page.frames:
                try:
                    await asyncio.wait_for(frame.evaluate(script), 2)
                except Exception:  # noqa: BLE001 - a busy or detached frame: captured from its next document
                    pass

    def _runtime_handlers(self, top_target: bool = True) -> dict[str, Callable[[dict[str, Any]], None]]:
        handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "Runtime.bindingCalled": lambda p: self._on_binding(p, top_target),
            "Runtime.exceptionThrown": self._on_exception,
        }
        if top_target:  # context ids are per target: only the page's own map to sections
            handlers["Runtime.executionContextCreated"] = self._on_context_created
        return handlers

    async def _enable_runtime(self, cdp: Any) -> None:
        """Expose the hook's binding on ``cdp``'s target and enable Runtime there (for uncaught errors and
        the binding's calls; console calls reach it only up to the hook's pass-through budget)."""
        await cdp.send("Runtime.addBinding", {"name": self._binding})
        await cdp.send("Runtime.enable")

    def _network_handlers(self) -> dict[str, Callable[[dict[str, Any]], None]]:
        return {
            "Log.entryAdded": self._on_log,
            "Network.requestWillBeSent": self._on_request,
            "Network.requestWillBeSentExtraInfo": self._on_request_extra,
            "Network.responseReceived": self._on_response,
            "Network.responseReceivedExtraInfo": self._on_response_extra,
            "Network.loadingFinished": self._on_finished,
            "Network.loadingFailed": self._on_failed,
            "Network.webSocketCreated": self._on_ws_created,
            "Network.webSocketHandshakeResponseReceived": self._on_ws_handshake,
            "Network.webSocketFrameSent": lambda p: self._on_ws_frame(p, "↑"),
            "Network.webSocketFrameReceived": lambda p: self._on_ws_frame(p, "↓"),
            "Network.webSocketFrameError": self._on_ws_error,
            "Network.webSocketClosed": self._on_ws_closed,
            "Network.eventSourceMessageReceived": self._on_es_message,
        }

    async def _open_session(self) -> None:
        cdp = await self._page.context.new_cdp_session(self._page)
        self._cdp = cdp
        handlers = self._network_handlers() | self._runtime_handlers()
        handlers["Page.frameNavigated"] = self._on_frame_navigated
        handlers["Page.navigatedWithinDocument"] = self._on_same_document
        for event, handler in handlers.items():
            cdp.on(event, self._guard(handler))
        tree = await cdp.send("Page.getFrameTree")
        self._main_frame = tree["frameTree"]["frame"]["id"]
        await cdp.send("Page.enable")
        await cdp.send("Network.enable", {"maxPostDataSize": POST_KEEP})
        await cdp.send("Log.enable")
        await self._enable_runtime(cdp)
        # If a navigation committed while we were attaching, label the section with it.
        tree = await cdp.send("Page.getFrameTree")
        frame = tree["frameTree"]["frame"]
        if frame.get("loaderId") and frame.get("loaderId") != self._section_loader \
                and not self._stats[self.current_section.id]["items"]:
            self._new_section(frame.get("url", ""), frame.get("loaderId"))

    def _on_frame_committed(self, frame: Any) -> None:
        if frame.parent_frame is not None and not self._closed and frame not in self._attaching:
            self._attaching.add(frame)
            task = asyncio.ensure_future(self._attach_frame(frame))
            task.add_done_callback(lambda _t: self._attaching.discard(frame))

    def _on_frame_detached(self, frame: Any) -> None:
        held = self._frame_sessions.pop(frame, None)
        if held is not None:
            asyncio.ensure_future(_detach(held[1]))

    async def _attach_frame(self, frame: Any) -> None:
        """Capture the network of an out-of-process (cross-site) iframe through a CDP session of its own
        target, opened when its document commits (requests it made before that, other than the
        document itself, which the page's session sees, are missed). Frames in the page's process are
        already covered; at most :data:`MAX_FRAME_SESSIONS` frames get a session."""
        try:
            cdp = await self._page.context.new_cdp_session(frame)
        except Exception:  # noqa: BLE001 - in the page's process (or gone): the page's session covers it
            held = self._frame_sessions.pop(frame, None)
            if held is not None:
                await _detach(held[1])
            return
        try:
            info = await cdp.send("Target.getTargetInfo")
            target = str((info.get("targetInfo") or {}).get("targetId") or "")
            held = self._frame_sessions.get(frame)
            if self._closed or (held is not None and held[0] == target) or (
                    held is None and len(self._frame_sessions) >= MAX_FRAME_SESSIONS):
                await _detach(cdp)
                return
            if held is not None:
                await _detach(held[1])
            self._frame_sessions[frame] = (target, cdp)
            for event, handler in self._network_handlers().items():
                cdp.on(event, self._guard(self._from_session(cdp, handler)))
            for event, handler in self._runtime_handlers(top_target=False).items():
                cdp.on(event, self._guard(handler))
            await cdp.send("Network.enable", {"maxPostDataSize": POST_KEEP})
            await cdp.send("Log.enable")
            await self._enable_runtime(cdp)
        except Exception as exc:  # noqa: BLE001 - the frame navigated or closed meanwhile
            log.debug("frame capture failed: %s", exc)
            await _detach(cdp)

    def _from_session(self, cdp: Any, handler: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        """Wrap a handler of a frame's session: remember which session saw each request (its bodies
        must be fetched through it)."""
        def run(p: dict[str, Any]) -> None:
            handler(p)
            rid = p.get("requestId")
            if rid and rid in self._by_id and rid not in self._req_session:
                self._req_session[rid] = cdp
        return run

    def _session_of(self, rec: RequestRecord) -> Any:
        return self._req_session.get(rec.request_id, self._cdp)

    async def terminate_execution(self) -> bool:
        """Stop the JavaScript running in the page (CDP ``Runtime.terminateExecution``) over the capture's
        session, which is already attached (attaching a new one would wait on a busy renderer).
        Returns whether the browser accepted it."""
        cdp = self._cdp
        if cdp is None:
            return False
        try:
            await asyncio.wait_for(cdp.send("Runtime.terminateExecution"), 5)
            return True
        except Exception:  # noqa: BLE001 - detached, or a remote browser refused it
            return False

    async def sync(self, timeout: float = 2.0) -> bool:
        """Wait until what the page and the browser produced before this call has been processed.

        Asks the console hook of every frame to send what it holds and waits for it to be received
        (its ``drain()``), and sends a no-op to the renderer (``Runtime.evaluate``) and to the browser
        side (``Target.getTargetInfo``) over the capture's own session, whose replies come after every
        event queued before them. Returns ``False`` if that took longer than ``timeout`` seconds (a
        page busy in a long script) or failed; the buffers are then as fresh as they could be.
        """
        cdp = self._cdp
        if cdp is None:
            return False
        waits: list[Any] = [cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True}),
                            cdp.send("Target.getTargetInfo")]
        waits.extend(_ping(child) for _, child in list(self._frame_sessions.values()))
        if not self._page.is_closed():
            waits.extend(_drain(frame, self._binding + "Hook") for frame in self._page.frames)
        try:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)
            await asyncio.sleep(0)  # let a batch whose reply is in flight reach its handler
            return True
        except Exception:  # noqa: BLE001 - navigating, closed, or busy: take what we have
            return False

    @staticmethod
    def _guard(handler: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        def run(params: dict[str, Any]) -> None:
            try:
                handler(params)
            except Exception:  # noqa: BLE001 - a malformed event must not break capture
                log.debug("event handler failed", exc_info=True)
        return run

    async def close(self) -> None:
        """Detach the CDP session (safe to call twice, or after the page closed)."""
        self._closed = True
        cdp, self._cdp = self._cdp, None
        children = [c for _, c in self._frame_sessions.values()]
        self._frame_sessions.clear()
        self._req_session.clear()
        for session in ([cdp] if cdp is not None else []) + children:
            await _detach(session)

    # -- sections -------------------------------------------------------------------------------

    def _new_section(self, url: str, loader: str | None, started: float | None = None) -> Section:
        if self.sections:
            current = self.current_section
            if not self._stats[current.id]["items"] and not current.routes:
                # Nothing happened on the previous document (about:blank): replace it.
                self.sections.pop(current.id)
                self._stats.pop(current.id, None)
        sid = self._next_section
        self._next_section += 1
        section = Section(sid, self.redactor.url(url), started or time.time(), loader=loader)
        self.sections[sid] = section
        self._stats[sid] = {"consoleErrors": 0, "failedRequests": 0, "items": 0}
        self._section_loader = loader
        while len(self.sections) > MAX_SECTIONS:
            old, gone = self.sections.popitem(last=False)
            self._stats.pop(old, None)
            self._gone_sections[old] = gone  # its entries may still be held: keep its URL for them
            while len(self._gone_sections) > 10 * MAX_SECTIONS:
                self._gone_sections.popitem(last=False)
        return section

    def section(self, sid: int) -> Section | None:
        """The section with id ``sid``, also one dropped from :attr:`sections` whose entries are still held."""
        return self.sections.get(sid) or self._gone_sections.get(sid)

    @property
    def current_section(self) -> Section:
        """The section of the current document."""
        return self.sections[next(reversed(self.sections))]

    def _on_frame_navigated(self, p: dict[str, Any]) -> None:
        frame = p.get("frame") or {}
        if frame.get("parentId") or (self._main_frame and frame.get("id") != self._main_frame):
            return
        url = frame.get("url", "") + (frame.get("urlFragment") or "")
        loader = frame.get("loaderId")
        fresh, self._fresh_contexts = self._fresh_contexts, []
        if loader and loader == self._section_loader:
            self.current_section.url = self.redactor.url(url)
            return
        section = self._new_section(url, loader)
        for ctx in fresh:  # created for this document just before its commit was reported
            if ctx in self._ctx_sections:
                self._ctx_sections[ctx] = section.id

    def _section_for(self, loader: str | None) -> Section:
        """The section of the document with this loader id (requests made by a page that is being
        navigated away from still belong to it), else the current one."""
        current = self.current_section
        if loader and loader != current.loader:
            for section in reversed(self.sections.values()):
                if section.loader == loader:
                    return section
        return current

    def _on_same_document(self, p: dict[str, Any]) -> None:
        if self._main_frame and p.get("frameId") != self._main_frame:
            return
        self.current_section.routes.append(self.redactor.url(p.get("url", "")))

    # -- console ----------------------------------------------------------------------------------

    def _add_console(self, entry: ConsoleEntry, section: Section | None = None, *, route: str | None = None,
                     count: int = 1, first: float | None = None, last: float | None = None,
                     varies: bool = False) -> None:
        section = section or self.current_section
        entry.section = section.id
        if route is not None:
            entry.route = route or None
        else:
            entry.route = relative_url(section.route, section.url) if section.route else None
        held = self.console.add(entry, last or time.time(), count=count, first_time=first, varies=varies)
        stats = self._stats.get(section.id)
        if stats is None:
            return
        stats["items"] += count
        if held.level == "error" and not (held.kind == "browser" and _is_favicon(held.source or "")):
            stats["consoleErrors"] += count

    def _on_exception(self, p: dict[str, Any]) -> None:
        self._add_console(entry_from_exception(p, self.current_section.url), **_when(p.get("timestamp")))

    def _on_binding(self, p: dict[str, Any], top_target: bool = True) -> None:
        if p.get("name") != self._binding:
            return
        sid = self._ctx_sections.get(p.get("executionContextId")) if top_target else None
        section = self.sections.get(sid) if sid is not None else None
        self._on_hook_batch(p.get("payload"), section or self.current_section, top=sid is not None)

    def _on_context_created(self, p: dict[str, Any]) -> None:
        """Remember which section each main-frame document's context belongs to: console batches carry
        their context id, so a page being left that reports after the next page began, or a page that
        redirected at once, is filed correctly (and a page cannot claim another page's section)."""
        ctx = p.get("context") or {}
        aux = ctx.get("auxData") or {}
        if not aux.get("isDefault") or aux.get("frameId") != self._main_frame or "id" not in ctx:
            return
        self._ctx_sections[ctx["id"]] = self.current_section.id
        self._fresh_contexts.append(ctx["id"])
        while len(self._ctx_sections) > 4 * MAX_SECTIONS:
            self._ctx_sections.popitem(last=False)

    def _on_hook_batch(self, payload: Any, section: Section, *, top: bool) -> None:
        """Receive one batch from ``console_hook.js`` (through the binding; see that file for its shape),
        sent by a document of ``section`` (``top``: the main frame's document, whose URL at each call
        gives the route). The page can call the binding itself, so every number is clamped."""
        if self._closed:
            return
        try:
            batch = json.loads(payload) if isinstance(payload, str) else []
        except (TypeError, ValueError):
            return
        if not isinstance(batch, list) or not batch or not isinstance(batch[-1], dict) or "d" not in batch[-1]:
            return
        meta = batch.pop()
        self.hook_batches += 1
        del batch[2 * max(1, self.settings.console_entries):]  # the hook never sends more; a page might
        for item in batch:
            if not isinstance(item, dict):
                continue
            try:
                entry = entry_from_hook(item, section.url)
                route = None
                href = item.get("h") if top else None
                if href:
                    here = self.redactor.url(str(href))
                    route = relative_url(here, section.url) if here != section.url else ""
                count = min(_MAX_BATCH_COUNT, max(1, int(item.get("c") or 1)))
                first = float(item.get("f") or 0) / 1000 or None
                last = float(item.get("z") or 0) / 1000 or None
                if last is None or first is None or abs(last - time.time()) > 60 or first > last:
                    first = last = None  # a remote browser's clock may be off
                self._add_console(entry, section, route=route, count=count, first=first, last=last,
                                  varies=bool(item.get("v")))
            except Exception:  # noqa: BLE001 - a malformed item must not break capture
                log.debug("console batch item failed", exc_info=True)
        dropped = min(_MAX_BATCH_COUNT, max(0, int(meta.get("d") or 0)))
        if dropped > 0:
            self.console.total += dropped
            self.console.evicted_messages += dropped

    def _on_log(self, p: dict[str, Any]) -> None:
        self._add_console(entry_from_log(p, self.current_section.url), **_when((p.get("entry") or {}).get("timestamp")))

    # -- network ----------------------------------------------------------------------------------

    def _touch(self, rec: RequestRecord) -> None:
        self.net_seq += 1
        rec.seq = self.net_seq

    def _new_record(self, request_id: str, loader: str | None = None, **fields: Any) -> RequestRecord:
        section = self._section_for(loader)
        rec = RequestRecord(index=self._next_index, request_id=request_id, section=section.id,
                            route=relative_url(section.route, section.url) if section.route else None, **fields)
        self._next_index += 1
        self._stats[section.id]["items"] += 1
        self._requests[rec.index] = rec
        self._by_id[request_id] = rec
        while len(self._requests) > max(1, self.settings.network_entries):
            _, old = self._requests.popitem(last=False)
            self.evicted_requests += 1
            if self._by_id.get(old.request_id) is old:
                del self._by_id[old.request_id]
                self._req_session.pop(old.request_id, None)
        self._touch(rec)
        return rec

    def _count_failed(self, rec: RequestRecord) -> None:
        if rec.resource_type == "other" and _is_favicon(rec.url):
            return  # the browser's own favicon fetch is not the page's failure
        if rec.failed and rec.index not in self._counted_failed:
            self._counted_failed.add(rec.index)
            stats = self._stats.get(rec.section)
            if stats is not None:
                stats["failedRequests"] += 1

    def _on_request(self, p: dict[str, Any]) -> None:
        req = p.get("request") or {}
        rid = p.get("requestId", "")
        url = self.redactor.url(req.get("url", "") + (req.get("urlFragment") or ""))
        rtype = str(p.get("type") or "Other").lower()
        if (rtype == "document" and rid == p.get("loaderId") and p.get("frameId") == self._main_frame
                and not p.get("redirectResponse")):
            # Started when the browser sent the request (its clock, like the documents' timeOrigin).
            self._new_section(req.get("url", ""), p.get("loaderId"), _when(float(p.get("wallTime") or 0) * 1000).get("first"))
        headers = self.redactor.headers(req.get("headers") or {})
        redirect = p.get("redirectResponse")
        rec = self._by_id.get(rid)
        if redirect is not None and rec is not None:
            rec.chain.append((rec.url, int(redirect.get("status", 0))))
            rec.url, rec.method, rec.request_headers = url, req.get("method", rec.method), headers
            rec.status = None
            rec.response_headers = {}
            self._touch(rec)
            if rtype == "document" and rid == p.get("loaderId") and p.get("frameId") == self._main_frame:
                self.current_section.url = url
            return
        rec = self._new_record(rid, p.get("loaderId"), method=req.get("method", "GET"), url=url, resource_type=rtype,
                               start=float(p.get("timestamp") or 0), wall_time=float(p.get("wallTime") or time.time()),
                               request_headers=headers)
        if req.get("hasPostData") or req.get("postData"):
            rec.has_post_data = True
            data = req.get("postData")
            if data is not None:
                rec.post_length = len(data)
                rec.post_data = self.redactor.body(data, _content_type(req.get("headers") or {}))[:POST_KEEP]
        extra = self._extra_req.pop(rid, None)
        if extra is not None:
            self._on_request_extra(extra)

    def _on_request_extra(self, p: dict[str, Any]) -> None:
        rid = p.get("requestId", "")
        rec = self._by_id.get(rid)
        if rec is None:
            self._park(self._extra_req, rid, p)
            return
        _merge(rec.request_headers, self.redactor.headers(p.get("headers") or {}))

    def _on_response(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        resp = p.get("response") or {}
        rec.status = int(resp.get("status", 0))
        rec.status_text = str(resp.get("statusText") or "")
        rec.mime = str(resp.get("mimeType") or "")
        rec.response_at = float(p.get("timestamp") or 0) or None
        rec.from_service_worker = bool(resp.get("fromServiceWorker"))
        rec.from_cache = bool(resp.get("fromDiskCache") or resp.get("fromPrefetchCache"))
        if p.get("type"):
            rec.resource_type = str(p["type"]).lower()
        _merge(rec.response_headers, self.redactor.headers(resp.get("headers") or {}))
        extra = self._extra_resp.pop(rec.request_id, None)
        if extra is not None:
            self._apply_response_extra(rec, extra)
        self._touch(rec)
        self._count_failed(rec)

    def _on_response_extra(self, p: dict[str, Any]) -> None:
        rid = p.get("requestId", "")
        rec = self._by_id.get(rid)
        if rec is None or rec.status is None:
            self._park(self._extra_resp, rid, p)
            # Remember secrets (Set-Cookie) at once, even before the response arrives.
            self.redactor.headers(p.get("headers") or {})
            return
        self._apply_response_extra(rec, p)

    def _apply_response_extra(self, rec: RequestRecord, p: dict[str, Any]) -> None:
        _merge(rec.response_headers, self.redactor.headers(p.get("headers") or {}))

    @staticmethod
    def _park(store: OrderedDict[str, dict[str, Any]], rid: str, p: dict[str, Any]) -> None:
        store[rid] = p
        while len(store) > _EXTRA_KEEP:
            store.popitem(last=False)

    def _on_finished(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        rec.end = float(p.get("timestamp") or rec.start)
        rec.encoded_bytes = int(p.get("encodedDataLength") or 0)
        if rec.socket is not None:
            rec.socket.closed = True
        self._touch(rec)

    def _on_failed(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        rec.end = float(p.get("timestamp") or rec.start)
        rec.failure = str(p.get("errorText") or "failed")
        rec.canceled = bool(p.get("canceled"))
        cors = (p.get("corsErrorStatus") or {}).get("corsError")
        if cors:
            rec.blocked = f"CORS {cors}"
        elif p.get("blockedReason"):
            rec.blocked = f"blocked: {p['blockedReason']}"
        if p.get("type"):
            rec.resource_type = str(p["type"]).lower()
        if rec.socket is not None:
            rec.socket.closed = True
        self._touch(rec)
        self._count_failed(rec)

    def _on_ws_created(self, p: dict[str, Any]) -> None:
        rec = self._new_record(p.get("requestId", ""), method="GET", url=self.redactor.url(p.get("url", "")),
                               resource_type="websocket", wall_time=time.time())
        rec.socket = SocketInfo()

    def _on_ws_handshake(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        resp = p.get("response") or {}
        rec.status = int(resp.get("status", 0))
        rec.status_text = str(resp.get("statusText") or "")
        rec.response_headers = self.redactor.headers(resp.get("headers") or {})
        if resp.get("requestHeaders"):
            rec.request_headers = self.redactor.headers(resp["requestHeaders"])
        rec.start = rec.start or float(p.get("timestamp") or 0)
        self._touch(rec)

    def _on_ws_frame(self, p: dict[str, Any], direction: str) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None or rec.socket is None:
            return
        resp = p.get("response") or {}
        payload = str(resp.get("payloadData") or "")
        if resp.get("opcode") == 2:
            payload = f"[binary {len(payload) * 3 // 4} bytes]"
        elif payload[:1] in ("{", "["):
            payload = self.redactor.body(payload, "application/json")
        rec.socket.add(direction, payload)
        self._touch(rec)

    def _on_ws_error(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is not None and rec.socket is not None:
            rec.socket.error = str(p.get("errorMessage") or "error")
            self._touch(rec)

    def _on_ws_closed(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is not None and rec.socket is not None:
            rec.socket.closed = True
            rec.end = float(p.get("timestamp") or rec.start)
            self._touch(rec)

    def _on_es_message(self, p: dict[str, Any]) -> None:
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        if rec.socket is None:
            rec.socket = SocketInfo()
        data = str(p.get("data") or "")
        if p.get("eventName") and p.get("eventName") != "message":
            data = f"{p['eventName']}: {data}"
        if data[:1] in ("{", "["):
            data = self.redactor.body(data, "application/json")
        rec.socket.add("↓", data)
        self._touch(rec)

    # -- reading -------------------------------------------------------------------------------

    def load_summary(self) -> dict[str, int]:
        """Return ``{"consoleErrors": n, "failedRequests": m}`` since the last full navigation started
        (console errors count every occurrence, repeats included; the browser's own ``/favicon.ico``
        fetch and its "Failed to load resource" message are not counted). ``await sync()`` first for
        figures that include every event the browser has already sent."""
        stats = self._stats.get(self.current_section.id) or {}
        return {"consoleErrors": stats.get("consoleErrors", 0), "failedRequests": stats.get("failedRequests", 0)}

    def console_mark(self) -> dict[int, int]:
        """A mark for :meth:`console_errors_since`: the occurrence count of every held error entry."""
        return {id(e): e.count for e in self.console.entries() if e.level == "error"}

    def console_errors_since(self, mark: dict[int, int]) -> list[tuple[ConsoleEntry, int]]:
        """Error entries with occurrences after ``mark`` (from :meth:`console_mark`), in time order,
        each with how many new occurrences it got; the browser's own favicon failure is left out.
        ``await sync()`` first."""
        out = []
        for e in sorted(self.console.entries(), key=lambda e: (e.first_time, e.first_seq)):
            if e.level != "error" or (e.kind == "browser" and _is_favicon(e.source or "")):
                continue
            new = e.count - mark.get(id(e), 0)
            if new > 0:
                out.append((e, new))
        return out

    def records(self) -> list[RequestRecord]:
        """Held request records, oldest first."""
        return list(self._requests.values())

    @property
    def total_requests(self) -> int:
        """Requests seen in all (held or evicted)."""
        return self._next_index - 1

    def record(self, index: int) -> RequestRecord:
        """Return the request with this 1-based ``index``.

        Raises:
            InvalidArgument: no such request (never seen, or evicted); says which are held.
        """
        rec = self._requests.get(index)
        if rec is not None:
            return rec
        if not self._requests:
            raise InvalidArgument(f"No request #{index}: no requests captured on this tab yet; "
                                  "navigate first, then call browser_network_requests.")
        lo, hi = next(iter(self._requests)), next(reversed(self._requests))
        if 1 <= index < lo:
            raise InvalidArgument(f"Request #{index} was evicted (only the last {self.settings.network_entries} "
                                  f"are kept; held: #{lo}-#{hi}).")
        raise InvalidArgument(f"No request #{index}; this tab holds #{lo}-#{hi}. "
                              "Use an index from browser_network_requests.")

    async def response_body(self, rec: RequestRecord) -> Body:
        """Fetch the response body of ``rec`` from the browser (``Network.getResponseBody``).

        Text bodies are redacted by field name (JSON/form) and every redacted value remembered.
        Returns a :class:`Body` whose ``missing`` says why when the body is not available: a socket or
        stream, a failed or pending request, a redirect or empty response, or one the browser no
        longer holds (the page navigated away, or its buffer evicted it).
        """
        if rec.resource_type in ("websocket", "eventsource"):
            return Body(None, missing="streamed: no body is kept for a "
                        f"{'WebSocket' if rec.resource_type == 'websocket' else 'EventSource'}; its frames are "
                        "summarised in the request line")
        if rec.failure and rec.status is None:
            return Body(None, missing=f"the request failed ({rec.failure}); there is no response body")
        if rec.pending:
            return Body(None, missing="the response has not finished loading yet; call again shortly")
        if rec.status in (204, 304) or (rec.status and 300 <= rec.status < 400):
            return Body("", full_bytes=0)
        cdp = self._session_of(rec)
        if cdp is None or self._page.is_closed():
            return Body(None, missing="the tab was closed, and its bodies with it")
        try:
            result = await cdp.send("Network.getResponseBody", {"requestId": rec.request_id})
        except Exception as exc:  # noqa: BLE001 - the browser no longer has it
            msg = str(exc)
            if "closed" in msg.lower() or "detached" in msg.lower():
                reason = "the tab was closed, and its bodies with it"
            else:
                reason = ("the browser no longer holds it (bodies are dropped when the page navigates away or "
                          "its network buffer fills); reload the page and ask again")
            return Body(None, missing=reason)
        raw = result.get("body") or ""
        if result.get("base64Encoded"):
            data = base64.b64decode(raw)
            from ..core.bodies import looks_binary
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return Body(None, full_bytes=len(data), binary=True)
            if looks_binary(rec.mime, text):
                return Body(None, full_bytes=len(data), binary=True)
            return Body(self.redactor.body(text, rec.mime), full_bytes=len(data))
        return Body(self.redactor.body(raw, rec.mime), full_bytes=len(raw.encode("utf-8", "surrogatepass")))

    async def request_body(self, rec: RequestRecord) -> Body:
        """Return the (redacted) request body of ``rec``, fetching it if it was too large to arrive inline."""
        if not rec.has_post_data:
            return Body(None, missing="the request has no body")
        if rec.post_data is not None and rec.post_length <= len(rec.post_data):
            return Body(rec.post_data, full_bytes=len(rec.post_data.encode("utf-8", "surrogatepass")))
        cdp = self._session_of(rec)
        if cdp is not None and not self._page.is_closed():
            try:
                result = await cdp.send("Network.getRequestPostData", {"requestId": rec.request_id})
                data = str(result.get("postData") or "")
                return Body(self.redactor.body(data, _content_type(rec.request_headers)),
                            full_bytes=len(data.encode("utf-8", "surrogatepass")))
            except Exception:  # noqa: BLE001 - not available any more
                pass
        if rec.post_data is not None:
            return Body(rec.post_data, full_bytes=rec.post_length,
                        missing=f"only the first {len(rec.post_data)} characters were kept")
        return Body(None, missing="the browser no longer holds the request body")


def _is_favicon(url: str) -> bool:
    return url.split("?", 1)[0].split("#", 1)[0].endswith("/favicon.ico")


def _merge(into: dict[str, str], new: dict[str, str]) -> None:
    """Merge ``new`` headers into ``into``, replacing names that differ only in case (raw wins)."""
    lower = {k.lower(): k for k in into}
    for k, v in new.items():
        old = lower.get(k.lower())
        if old is not None and old != k:
            del into[old]
        into[k] = v


def _content_type(headers: dict[str, Any]) -> str:
    for k, v in headers.items():
        if k.lower() == "content-type":
            return str(v)
    return ""
