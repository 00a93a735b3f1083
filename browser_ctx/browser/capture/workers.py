"""Requests of a tab's dedicated workers, captured from each worker's creation and labelled "(worker)".

Playwright's driver drops every CDP message of a session it did not open itself, so a *flattened*
child session of ours is never heard from. So:

- the page's session auto-attaches to dedicated workers (:data:`WORKERS_ONLY`) *without* flattening:
  each message of a worker arrives as ``Target.receivedMessageFromTarget`` on the page's session and
  commands go out with ``Target.sendMessageToTarget`` (:class:`WorkerChannel`); only ``Network`` is
  enabled on a worker;
- such a session does not hold a new worker (the first ``Runtime.runIfWaitingForDebugger``,
  Playwright's, lets it run), so a second session of the page, the *hold*, auto-attaches flattened
  with ``waitForDebuggerOnStart``: the browser then keeps the worker's script from loading until
  every such session let go. The hold lets go (detaches) once the worker answered ``Network.enable``,
  or after :data:`HOLD_TIMEOUT` seconds. Playwright's own session, ``page.workers`` and its pausing
  are untouched.

A worker's requests are filed in the section of the document that created it: the section of the
worker's script request (its request id is the worker's target id, and the page's session saw it
with the document's loader id), else the section shown when the worker attached. However late their
events arrive, they stay on that page. The worker's script request, seen starting by the page's
session, ends on the worker's.

Not captured: workers started by a worker, and workers beyond :data:`MAX_WORKERS` alive at once in a
tab (let run unwatched). Service workers are not the page's targets: a response they serve is marked
on the page's own request ("(service worker)"); their own fetches are not listed. Workers' console
calls need nothing of this: Chromium reports them to the page's ``Log`` domain (source ``worker``),
see :mod:`browser_ctx.core.console_payloads`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from ...core.sections import Section
from .network import NetworkCapture
from .sections import SectionLog

__all__ = ["WorkerCapture", "WorkerChannel", "WORKERS_ONLY", "MAX_WORKERS", "HOLD_TIMEOUT", "REPLY_TIMEOUT"]

log = logging.getLogger("browser_ctx")

#: ``Target.setAutoAttach`` filter: dedicated workers only (frames are never held).
WORKERS_ONLY = [{"type": "worker", "exclude": False}, {"exclude": True}]
#: Workers alive at once per tab whose requests are captured.
MAX_WORKERS = 20
#: Seconds the hold keeps a new worker from starting, at most, while its ``Network.enable`` is under way.
HOLD_TIMEOUT = 5.0
#: Seconds to wait for a worker's answer to a command (``Network.getResponseBody``).
REPLY_TIMEOUT = 10.0
#: Target ids remembered as ready (answered ``Network.enable``) for a hold that attaches after.
READY_KEEP = 100


class WorkerChannel:
    """One worker, reached through the page's session (``Target.sendMessageToTarget``); its replies
    come back as events (:meth:`reply`). Has the ``send`` of a ``CDPSession``, so bodies are fetched
    through it like through any session.

    Attributes:
        target_id: the worker's CDP target id (also the request id of its script).
        section: the section its requests are filed in (see the module docstring).
        pinned: ``section`` is the one of the worker's script request (not a guess).
    """

    def __init__(self, cdp: CDPSession, session_id: str, target_id: str, section: Section) -> None:
        self._cdp = cdp
        self._session_id = session_id
        self.target_id = target_id
        self.section = section
        self.pinned = False
        self._next = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._gone = False

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a command to the worker and return its result.

        Raises:
            playwright.async_api.Error: the worker answered with an error, is gone, or did not answer
                within :data:`REPLY_TIMEOUT` seconds.
        """
        if self._gone:
            raise PlaywrightError(f"{method}: the worker has ended")
        self._next += 1
        mid = self._next
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[mid] = future
        try:
            await self._cdp.send("Target.sendMessageToTarget", {
                "sessionId": self._session_id,
                "message": json.dumps({"id": mid, "method": method, "params": params or {}})})
            return await asyncio.wait_for(future, REPLY_TIMEOUT)
        except TimeoutError:
            raise PlaywrightError(f"{method}: the worker did not answer within {REPLY_TIMEOUT:g} s") from None
        finally:
            self._waiting.pop(mid, None)

    def reply(self, message: dict[str, Any]) -> None:
        """A reply of the worker (a message with an ``id``)."""
        future = self._waiting.get(int(message.get("id") or 0))
        if future is None or future.done():
            return
        error = message.get("error")
        if error is not None:
            future.set_exception(PlaywrightError(str((error or {}).get("message") or error)))
        else:
            future.set_result(message.get("result") or {})

    def end(self) -> None:
        """The worker ended: commands still waiting fail."""
        self._gone = True
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(PlaywrightError("the worker has ended"))


class WorkerCapture:
    """Attaches to the tab's dedicated workers and hands their ``Network`` events to the tab's
    :class:`~.network.NetworkCapture` (see the module docstring)."""

    def __init__(self, network: NetworkCapture, sections: SectionLog) -> None:
        self._network = network
        self._sections = sections
        self._cdp: CDPSession | None = None
        self._hold: CDPSession | None = None
        self._channels: dict[str, WorkerChannel] = {}  # session id (of the page's session) -> channel
        self._held: dict[str, str] = {}  # target id -> session id of the hold
        self._ready: OrderedDict[str, None] = OrderedDict()  # target ids whose Network.enable was answered
        self._tasks: set[asyncio.Task[None]] = set()

    def page_handlers(self) -> dict[str, Callable[[dict[str, Any]], None]]:
        """Handlers of the page's session."""
        return {"Target.attachedToTarget": self.on_attached,
                "Target.receivedMessageFromTarget": self.on_message,
                "Target.detachedFromTarget": self.on_detached}

    def hold_handlers(self) -> dict[str, Callable[[dict[str, Any]], None]]:
        """Handlers of the hold's session."""
        return {"Target.attachedToTarget": self.on_held}

    async def watch(self, cdp: CDPSession, hold: CDPSession) -> None:
        """Have the page's session ``cdp`` attach to every dedicated worker the page creates, unflattened,
        and the ``hold`` session hold each until :meth:`on_attached` enabled its network."""
        self._cdp, self._hold = cdp, hold
        await hold.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                                 "flatten": True, "filter": WORKERS_ONLY})
        await cdp.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                                "flatten": False, "filter": WORKERS_ONLY})

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the hold --------------------------------------------------------------------------------

    def on_held(self, p: dict[str, Any]) -> None:
        """``Target.attachedToTarget`` on the hold: keep the worker until it is ready, at most
        :data:`HOLD_TIMEOUT` seconds."""
        target = str((p.get("targetInfo") or {}).get("targetId") or "")
        session_id = str(p.get("sessionId") or "")
        if not session_id:
            return
        self._held[target] = session_id
        if target in self._ready or self._cdp is None:
            self._release(target)
        else:
            asyncio.get_running_loop().call_later(HOLD_TIMEOUT, self._release, target)

    def _ready_now(self, target: str) -> None:
        self._ready[target] = None
        while len(self._ready) > READY_KEEP:
            self._ready.popitem(last=False)
        self._release(target)

    def _release(self, target: str) -> None:
        session_id = self._held.pop(target, None)
        if session_id is not None and self._hold is not None:
            self._spawn(_let_go(self._hold, session_id))

    # -- the workers ---------------------------------------------------------------------------------

    def on_attached(self, p: dict[str, Any]) -> None:
        """``Target.attachedToTarget`` on the page's session (unflattened): enable the worker's network,
        then let the hold go."""
        info = p.get("targetInfo") or {}
        target = str(info.get("targetId") or "")
        session_id = str(p.get("sessionId") or "")
        cdp = self._cdp
        if cdp is None or not session_id:
            return
        if info.get("type") != "worker" or len(self._channels) >= MAX_WORKERS:
            self._spawn(_let_go(cdp, session_id))
            self._ready_now(target)
            return
        channel = WorkerChannel(cdp, session_id, target, self._sections.shown)
        self._pin(channel)
        self._channels[session_id] = channel
        self._spawn(self._enable(channel))

    async def _enable(self, channel: WorkerChannel) -> None:
        try:
            await self._network.enable(channel)
        except PlaywrightError as exc:  # the worker ended already, or would not answer
            log.debug("worker capture failed: %s", exc)
        finally:
            self._ready_now(channel.target_id)
        try:
            await channel.send("Runtime.runIfWaitingForDebugger")
        except PlaywrightError:
            pass  # ended: nothing is held

    def _pin(self, channel: WorkerChannel) -> None:
        """File the worker under the section of its script request, once the page's session saw it."""
        section = self._network.section_of_request(channel.target_id)
        if section is not None:
            channel.section, channel.pinned = section, True

    def on_message(self, p: dict[str, Any]) -> None:
        """``Target.receivedMessageFromTarget``: a reply or an event of one of the workers."""
        channel = self._channels.get(str(p.get("sessionId") or ""))
        if channel is None:
            return
        message = json.loads(p.get("message") or "{}")
        if "id" in message:
            channel.reply(message)
            return
        method = str(message.get("method") or "")
        if method.startswith("Network."):
            if not channel.pinned:
                self._pin(channel)
            self._network.worker_event(channel, channel.section, method, message.get("params") or {})

    def on_detached(self, p: dict[str, Any]) -> None:
        """``Target.detachedFromTarget`` on the page's session: the worker ended."""
        channel = self._channels.pop(str(p.get("sessionId") or ""), None)
        if channel is not None:
            channel.end()
            self._ready.pop(channel.target_id, None)

    def close(self) -> None:
        """The capture closed: forget every worker (the sessions are detached by the caller)."""
        for channel in self._channels.values():
            channel.end()
        self._channels.clear()
        self._held.clear()
        self._cdp = self._hold = None


async def _let_go(cdp: CDPSession, session_id: str) -> None:
    try:
        await cdp.send("Target.detachFromTarget", {"sessionId": session_id})
    except PlaywrightError:
        pass  # the target or the page is gone already: nothing is held
