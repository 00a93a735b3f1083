"""Requests made by a tab's dedicated workers, labelled "(worker)".

Why Playwright's request events here, when everything else comes from our own CDP sessions: a worker
is a target of its own, and CDP events of a target Playwright's driver attached to on our behalf never
reach us (only our sessions' own events do). Measured on ``fixtures/events/worker.html`` (a worker
whose only ``fetch`` answers 500), in fresh sessions:

- our page session auto-attached without flattening (``Target.sendMessageToTarget``) reached the
  worker after it had started: it saw the fetch in 0 of 8 loads (its response alone in 1);
- Playwright's ``requestfinished`` listened to from the start: 8 of 8, but then every request of the
  page stays alive as two Playwright objects until the page closes (1,870 after three loads of the
  310-request page), so it is not listened to on pages without workers;
- listened to from the first ``Target.attachedToTarget`` of a worker: 5 of 8 (a worker starts as soon
  as Playwright's own session lets it);
- the same, with our page session auto-attaching to workers (:data:`WORKERS_ONLY`) *flattened* and
  with ``waitForDebuggerOnStart`` (so the browser holds a new worker until we let go by detaching,
  which we do at once, after asking for Playwright's events): 16 of 16.

So :class:`WorkerRequests` does the last: once a tab has had a worker it listens to Playwright's
``requestfinished`` / ``requestfailed`` of that page, files every request our CDP sessions did not see
as a worker's, and completes one they saw start but never end (the worker's own script, whose end is
reported to the worker's target). Service workers are not the page's targets: a response they serve is
marked on the page's own request ("(service worker)"); their own fetches are not listed.

Workers' console calls need nothing of this: Chromium reports them to the page's ``Log`` domain
(source ``worker``), see :mod:`browser_ctx.core.console_payloads`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession, Page, Request, Response, Worker
from playwright.async_api import Error as PlaywrightError

from .network import NetworkCapture

if TYPE_CHECKING:
    from ...core.redact import Redactor

__all__ = ["WorkerRequests"]

log = logging.getLogger("browser_ctx")

#: ``Target.setAutoAttach`` filter: dedicated workers only (frames are never held).
WORKERS_ONLY = [{"type": "worker", "exclude": False}, {"exclude": True}]


class WorkerRequests:
    """Files a page's workers' requests into its :class:`~.network.NetworkCapture` (see the module
    docstring). Listens to Playwright's request events only once the page has had a worker.

    Attributes:
        workers: workers the page started so far.
    """

    def __init__(self, page: Page, network: NetworkCapture, redactor: Redactor) -> None:
        self._page = page
        self._network = network
        self._redactor = redactor
        self._listening = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.workers = 0

    def start(self) -> None:
        """Watch the page for workers."""
        self._page.on("worker", self._on_worker)

    def _on_worker(self, _worker: Worker) -> None:
        self.workers += 1
        self.listen()

    @staticmethod
    async def watch_targets(cdp: CDPSession) -> None:
        """Have ``cdp`` (the page's session) told of every dedicated worker the page creates, held by the
        browser until :meth:`on_attached` lets go of it."""
        await cdp.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                                "flatten": True, "filter": WORKERS_ONLY})

    def on_attached(self, cdp: CDPSession, p: dict[str, Any]) -> None:
        """``Target.attachedToTarget`` on the page's session: if a worker was created, listen (the request
        to Playwright goes out first); then let go of the target, which lets it start."""
        if str((p.get("targetInfo") or {}).get("type") or "").endswith("worker"):
            self.listen()
        session_id = p.get("sessionId")
        if session_id:
            task = asyncio.ensure_future(_let_go(cdp, str(session_id)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def listen(self) -> None:
        """Listen to Playwright's request ends of the page (from now on; once)."""
        if not self._listening:
            self._listening = True
            self._page.on("requestfinished", self._on_done)
            self._page.on("requestfailed", self._on_done)

    def _on_done(self, request: Request) -> None:
        task = asyncio.ensure_future(self._file(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) until the requests already reported are filed."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def _file(self, request: Request) -> None:
        try:
            response: Response | None = await request.response()
        except PlaywrightError:
            response = None  # the page or the request went away: file what the request says
        try:
            frame_url = request.frame.url if request.frame is not self._page.main_frame else None
        except PlaywrightError:
            frame_url = None  # a request without a frame: a worker's
        timing = request.timing
        start = float(timing.get("startTime") or 0) / 1000 or time.time()
        end_ms = max(float(timing.get("responseEnd") or 0), float(timing.get("responseStart") or 0))
        duration = end_ms / 1000 if end_ms > 0 else None
        if self._network.complete_from_playwright(
                method=request.method, url=self._redactor.url(request.url),
                status=response.status if response is not None else None,
                status_text=response.status_text if response is not None else "",
                failure=request.failure, duration=duration):
            return  # our CDP sessions saw it start: it is the page's (or a frame's), now finished
        if frame_url is not None:
            return  # a frame's request our sessions missed (before its session attached): not a worker's
        headers = {} if response is None else await _headers(response)
        self._network.add_worker_request(
            method=request.method, url=self._redactor.url(request.url), resource_type=request.resource_type,
            request_headers=self._redactor.headers(request.headers), start_wall=start, duration=duration,
            status=response.status if response is not None else None,
            status_text=response.status_text if response is not None else "",
            response_headers=self._redactor.headers(headers), failure=request.failure, response=response)


async def _let_go(cdp: CDPSession, session_id: str) -> None:
    try:
        await cdp.send("Target.detachFromTarget", {"sessionId": session_id})
    except PlaywrightError:
        pass  # the target or the page is gone already: nothing is held


async def _headers(response: Response) -> dict[str, str]:
    try:
        return await response.all_headers()
    except PlaywrightError:
        return dict(response.headers)  # the raw headers are gone: Playwright's provisional ones
