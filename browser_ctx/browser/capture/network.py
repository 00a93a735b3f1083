"""Network capture of one tab: one :class:`~browser_ctx.core.network.RequestRecord` per request, from CDP
``Network.*`` events of the page's session and of its frames' and workers' sessions (a worker's come
through :meth:`NetworkCapture.worker_event`, see :mod:`.workers`).

Redirects are folded into their request; WebSocket frames and EventSource messages are counted with the
last few kept; ``EventSettings.network_entries`` records are held (default 2,000, oldest evicted and
counted). Headers, URLs and request bodies are redacted by name as they arrive, and every value
redacted is remembered in the session's :class:`~browser_ctx.core.redact.Redactor`, which scrubs it from
all later output. Response bodies are not kept: they are fetched on demand with
``Network.getResponseBody`` through the session that saw the request, while the browser still has them
(:meth:`NetworkCapture.response_body`).

A request to the main frame's new document starts a new section (at the browser's wall time of the
request, like the documents' ``timeOrigin``).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession

from ..._errors import InvalidArgument
from ...core.network import POST_KEEP, RequestRecord, SocketInfo, browser_favicon
from ...core.sections import Section, relative_url
from ..routes import is_mock_header
from .bodies import Body, Sender, content_type, request_body, response_body
from .console import cdp_time
from .sections import SectionLog

if TYPE_CHECKING:
    from ...core.redact import Redactor
    from ...settings import EventSettings
    from ..page_cdp import PageCDP

__all__ = ["NetworkCapture", "EXTRA_KEEP", "merge_headers"]

#: ``*ExtraInfo`` payloads held while waiting for their request (they may arrive first).
EXTRA_KEEP = 500

class NetworkCapture:
    """The requests of one tab (see the module docstring).

    Attributes:
        evicted: requests dropped from the buffer to make room.
        seq: sequence number of the latest network change (``since`` cursors compare it).
        page_session: the CDP session of the tab's page (bodies of requests no other session saw
            are fetched through it); ``None`` until attached and after closing.
    """

    def __init__(self, sections: SectionLog, settings: EventSettings, redactor: Redactor) -> None:
        self._sections = sections
        self._settings = settings
        self._redactor = redactor
        self._requests: OrderedDict[int, RequestRecord] = OrderedDict()
        self._by_id: dict[str, RequestRecord] = {}
        self._extra_req: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._extra_resp: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._counted_failed: set[int] = set()
        self._req_session: dict[str, Sender] = {}  # request id -> the frame's or worker's session that saw it
        self._handlers = self.handlers()
        self._from_worker: Section | None = None  # while a worker's event is handled: the worker's section
        self._next_index = 1
        self._clock = 0.0  # the latest CDP monotonic timestamp seen (seconds)
        self.evicted = 0
        self.seq = 0
        self.page_session: CDPSession | None = None

    # -- CDP ------------------------------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], None]]:
        """CDP ``Network.*`` event handlers (the same for the page's and its frames' sessions)."""
        return {
            "Network.requestWillBeSent": self.on_request,
            "Network.requestWillBeSentExtraInfo": self.on_request_extra,
            "Network.responseReceived": self.on_response,
            "Network.responseReceivedExtraInfo": self.on_response_extra,
            "Network.loadingFinished": self.on_finished,
            "Network.dataReceived": self.on_data,
            "Network.loadingFailed": self.on_failed,
            "Network.webSocketCreated": self.on_ws_created,
            "Network.webSocketHandshakeResponseReceived": self.on_ws_handshake,
            "Network.webSocketFrameSent": lambda p: self.on_ws_frame(p, "↑"),
            "Network.webSocketFrameReceived": lambda p: self.on_ws_frame(p, "↓"),
            "Network.webSocketFrameError": self.on_ws_error,
            "Network.webSocketClosed": self.on_ws_closed,
            "Network.eventSourceMessageReceived": self.on_es_message,
        }

    @staticmethod
    async def enable(cdp: Any, domains: PageCDP | None = None) -> None:
        """Enable ``Network`` on ``cdp`` (request bodies up to :data:`~browser_ctx.core.network.POST_KEEP`
        characters arrive inline): held through ``domains`` for one of the tab's sessions, sent directly to a
        worker's channel (``domains`` ``None``)."""
        params = {"maxPostDataSize": POST_KEEP}
        if domains is None:
            await cdp.send("Network.enable", params)
        else:
            await domains.enable(cdp, "Network", params)

    def seen_by(self, cdp: Sender, handler: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        """Wrap a handler of a frame's or worker's session: remember which session saw each request (its
        bodies must be fetched through it)."""
        def run(p: dict[str, Any]) -> None:
            handler(p)
            rid = p.get("requestId")
            if rid and rid in self._by_id and rid not in self._req_session:
                self._req_session[rid] = cdp
        return run

    def forget_sessions(self) -> None:
        """Drop every session reference (the capture closed)."""
        self._req_session.clear()
        self.page_session = None

    def _session_of(self, rec: RequestRecord) -> Sender | None:
        return self._req_session.get(rec.request_id, self.page_session)

    # -- records --------------------------------------------------------------------------------

    def _touch(self, rec: RequestRecord) -> None:
        self.seq += 1
        rec.seq = self.seq

    def _stamp(self, p: dict[str, Any]) -> float:
        """The event's CDP monotonic timestamp (0 when missing), remembered as the latest seen."""
        at = float(p.get("timestamp") or 0)
        self._clock = max(self._clock, at)
        return at

    def close_cut(self, current: int) -> int:
        """The main frame committed the document of section ``current``: close every request of an
        earlier section still in flight (and every stream still open) as cut by navigation, ending
        at the latest browser time seen. Returns how many were closed. A request that finishes after
        all (a ``keepalive`` fetch) is reopened by its end."""
        closed = 0
        for rec in self._requests.values():
            if rec.section == current or rec.end is not None or rec.failure is not None:
                continue
            rec.cut_by_navigation = True
            rec.end = max(self._clock, rec.start)
            if rec.socket is not None:
                rec.socket.closed = True
            self._touch(rec)
            closed += 1
        return closed

    def _reopen(self, rec: RequestRecord) -> None:
        """A request closed as cut by navigation did go on after all."""
        if rec.cut_by_navigation:
            rec.cut_by_navigation = False
            rec.end = None

    def _new_record(self, request_id: str, loader: str | None = None, **fields: Any) -> RequestRecord:
        section = self._from_worker or self._sections.for_loader(loader)
        rec = RequestRecord(index=self._next_index, request_id=request_id, section=section.id,
                            route=relative_url(section.route, section.url) if section.route else None, **fields)
        self._next_index += 1
        self._sections.count(section.id, "items")
        self._requests[rec.index] = rec
        self._by_id[request_id] = rec
        while len(self._requests) > max(1, self._settings.network_entries):
            _, old = self._requests.popitem(last=False)
            self.evicted += 1
            if self._by_id.get(old.request_id) is old:
                del self._by_id[old.request_id]
                self._req_session.pop(old.request_id, None)
        rec.worker = self._from_worker is not None
        self._touch(rec)
        return rec

    def _count_failed(self, rec: RequestRecord) -> None:
        if browser_favicon(rec):
            return  # the browser's own favicon fetch is not the page's failure
        if rec.failed and rec.index not in self._counted_failed:
            self._counted_failed.add(rec.index)
            self._sections.count(rec.section, "failedRequests")

    @staticmethod
    def _park(store: OrderedDict[str, dict[str, Any]], rid: str, p: dict[str, Any]) -> None:
        store[rid] = p
        while len(store) > EXTRA_KEEP:
            store.popitem(last=False)

    # -- workers (see workers.py) -----------------------------------------------------------------

    def worker_event(self, channel: Sender, section: Section, method: str, p: dict[str, Any]) -> None:
        """A ``Network.*`` event of a worker reached through ``channel``: a new request is filed under
        ``section`` and marked as the worker's; the worker's script request, which the page's session
        saw start, is completed, not filed again."""
        handler = self._handlers.get(method)
        if handler is None:
            return
        rid = p.get("requestId")
        if method == "Network.requestWillBeSent" and rid in self._by_id and not p.get("redirectResponse"):
            return
        self._from_worker = section
        try:
            handler(p)
        finally:
            self._from_worker = None
        if rid and rid in self._by_id and rid not in self._req_session:
            self._req_session[rid] = channel

    def section_of_request(self, request_id: str) -> Section | None:
        """The section of the held request with this CDP id, if any."""
        rec = self._by_id.get(request_id)
        return self._sections.get(rec.section) if rec is not None else None

    # -- events ---------------------------------------------------------------------------------

    def on_request(self, p: dict[str, Any]) -> None:
        """``Network.requestWillBeSent``: a new request, or a redirect of one."""
        req = p.get("request") or {}
        rid = p.get("requestId", "")
        url = self._redactor.url(req.get("url", "") + (req.get("urlFragment") or ""))
        rtype = str(p.get("type") or "Other").lower()
        main_document = (rtype == "document" and rid == p.get("loaderId") and self._from_worker is None
                         and p.get("frameId") == self._sections.main_frame)
        if main_document and not p.get("redirectResponse"):
            # Started when the browser sent the request (its clock, like the documents' timeOrigin).
            self._sections.new(req.get("url", ""), p.get("loaderId"),
                               cdp_time(float(p.get("wallTime") or 0) * 1000))
        headers = self._redactor.headers(req.get("headers") or {})
        redirect = p.get("redirectResponse")
        rec = self._by_id.get(rid)
        if redirect is not None and rec is not None:
            rec.chain.append((rec.url, int(redirect.get("status", 0))))
            rec.url, rec.method, rec.request_headers = url, req.get("method", rec.method), headers
            rec.status = None
            rec.response_headers = {}
            self._touch(rec)
            if main_document:
                self._sections.current.url = url
            return
        rec = self._new_record(rid, p.get("loaderId"), method=req.get("method", "GET"), url=url, resource_type=rtype,
                               start=self._stamp(p), wall_time=float(p.get("wallTime") or time.time()),
                               request_headers=headers)
        if req.get("hasPostData") or req.get("postData"):
            rec.has_post_data = True
            data = req.get("postData")
            if data is not None:
                rec.post_length = len(data)
                rec.post_data = self._redactor.body(data, content_type(req.get("headers") or {}))[:POST_KEEP]
        extra = self._extra_req.pop(rid, None)
        if extra is not None:
            self.on_request_extra(extra)

    def on_request_extra(self, p: dict[str, Any]) -> None:
        """``Network.requestWillBeSentExtraInfo``: the headers as sent (cookies included)."""
        rid = p.get("requestId", "")
        rec = self._by_id.get(rid)
        if rec is None:
            self._park(self._extra_req, rid, p)
            return
        merge_headers(rec.request_headers, self._redactor.headers(p.get("headers") or {}))

    def on_response(self, p: dict[str, Any]) -> None:
        """``Network.responseReceived``: status, type and headers."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        resp = p.get("response") or {}
        rec.status = int(resp.get("status", 0))
        rec.status_text = str(resp.get("statusText") or "")
        rec.mime = str(resp.get("mimeType") or "")
        self._reopen(rec)
        rec.response_at = self._stamp(p) or None
        rec.from_service_worker = bool(resp.get("fromServiceWorker"))
        rec.from_cache = bool(resp.get("fromDiskCache") or resp.get("fromPrefetchCache"))
        if p.get("type"):
            rec.resource_type = str(p["type"]).lower()
        raw = resp.get("headers") or {}
        rec.mocked = any(is_mock_header(k, str(v)) for k, v in raw.items())  # a browser_route mock
        if rec.mocked:
            raw = {k: v for k, v in raw.items() if not is_mock_header(k, str(v))}
        merge_headers(rec.response_headers, self._redactor.headers(raw))
        extra = self._extra_resp.pop(rec.request_id, None)
        if extra is not None:
            merge_headers(rec.response_headers, self._redactor.headers(extra.get("headers") or {}))
        self._touch(rec)
        self._count_failed(rec)

    def on_response_extra(self, p: dict[str, Any]) -> None:
        """``Network.responseReceivedExtraInfo``: the headers as received (``Set-Cookie`` included)."""
        rid = p.get("requestId", "")
        rec = self._by_id.get(rid)
        if rec is None or rec.status is None:
            self._park(self._extra_resp, rid, p)
            # Remember secrets (Set-Cookie) at once, even before the response arrives.
            self._redactor.headers(p.get("headers") or {})
            return
        merge_headers(rec.response_headers, self._redactor.headers(p.get("headers") or {}))

    def on_finished(self, p: dict[str, Any]) -> None:
        """``Network.loadingFinished``: the end, with the bytes on the wire."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        self._reopen(rec)
        rec.end = self._stamp(p) or rec.start
        rec.encoded_bytes = int(p.get("encodedDataLength") or 0)
        if rec.socket is not None:
            rec.socket.closed = True
        self._touch(rec)

    def on_data(self, p: dict[str, Any]) -> None:
        """``Network.dataReceived``: decoded body bytes arrived (counted; the data is not kept)."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is not None:
            rec.body_bytes += int(p.get("dataLength") or 0)

    def on_failed(self, p: dict[str, Any]) -> None:
        """``Network.loadingFailed``: a network failure, a cancel or a block (CORS, CSP, mixed content)."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        self._reopen(rec)
        rec.end = self._stamp(p) or rec.start
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

    def on_ws_created(self, p: dict[str, Any]) -> None:
        """``Network.webSocketCreated``."""
        rec = self._new_record(p.get("requestId", ""), method="GET", url=self._redactor.url(p.get("url", "")),
                               resource_type="websocket", wall_time=time.time())
        rec.socket = SocketInfo()

    def on_ws_handshake(self, p: dict[str, Any]) -> None:
        """``Network.webSocketHandshakeResponseReceived``."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        resp = p.get("response") or {}
        rec.status = int(resp.get("status", 0))
        rec.status_text = str(resp.get("statusText") or "")
        rec.response_headers = self._redactor.headers(resp.get("headers") or {})
        if resp.get("requestHeaders"):
            rec.request_headers = self._redactor.headers(resp["requestHeaders"])
        rec.start = rec.start or float(p.get("timestamp") or 0)
        self._touch(rec)

    def on_ws_frame(self, p: dict[str, Any], direction: str) -> None:
        """``Network.webSocketFrameSent`` (``↑``) / ``…Received`` (``↓``): counted, the last few kept."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None or rec.socket is None:
            return
        resp = p.get("response") or {}
        payload = str(resp.get("payloadData") or "")
        if resp.get("opcode") == 2:
            payload = f"[binary {len(payload) * 3 // 4} bytes]"
        else:  # socket.io packets (42["auth",…]), JSON and text: redacted by name and by shape
            payload = self._redactor.frame(payload)
        rec.socket.add(direction, payload)
        self._touch(rec)

    def on_ws_error(self, p: dict[str, Any]) -> None:
        """``Network.webSocketFrameError``."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is not None and rec.socket is not None:
            rec.socket.error = str(p.get("errorMessage") or "error")
            self._touch(rec)

    def on_ws_closed(self, p: dict[str, Any]) -> None:
        """``Network.webSocketClosed``."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is not None and rec.socket is not None:
            rec.socket.closed = True
            rec.end = float(p.get("timestamp") or rec.start)
            self._touch(rec)

    def on_es_message(self, p: dict[str, Any]) -> None:
        """``Network.eventSourceMessageReceived``: counted, the last few kept."""
        rec = self._by_id.get(p.get("requestId", ""))
        if rec is None:
            return
        if rec.socket is None:
            rec.socket = SocketInfo()
        data = self._redactor.event(p.get("eventName"), str(p.get("data") or ""))  # before the name is prefixed
        if p.get("eventName") and p.get("eventName") != "message":
            data = f"{p['eventName']}: {data}"
        rec.socket.add("↓", data)
        self._touch(rec)

    # -- reading --------------------------------------------------------------------------------

    def records(self) -> list[RequestRecord]:
        """Held request records, oldest first."""
        return list(self._requests.values())

    @property
    def total(self) -> int:
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
            raise InvalidArgument(f"Request #{index} was evicted (only the last {self._settings.network_entries} "
                                  f"are kept; held: #{lo}-#{hi}).")
        raise InvalidArgument(f"No request #{index}; this tab holds #{lo}-#{hi}. "
                              "Use an index from browser_network_requests.")

    async def response_body(self, rec: RequestRecord, page_closed: bool = False) -> Body:
        """The response body of ``rec`` (see :func:`.bodies.response_body`)."""
        return await response_body(rec, self._session_of(rec), self._redactor, page_closed=page_closed)

    async def request_body(self, rec: RequestRecord, page_closed: bool = False) -> Body:
        """The (redacted) request body of ``rec`` (see :func:`.bodies.request_body`)."""
        return await request_body(rec, self._session_of(rec), self._redactor, page_closed=page_closed)


def merge_headers(into: dict[str, str], new: dict[str, str]) -> None:
    """Merge ``new`` headers into ``into``, replacing names that differ only in case (raw wins)."""
    lower = {k.lower(): k for k in into}
    for k, v in new.items():
        old = lower.get(k.lower())
        if old is not None and old != k:
            del into[old]
        into[k] = v
