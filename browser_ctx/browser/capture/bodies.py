"""Bodies of one tab's requests, fetched from the browser on demand (none are kept by the capture).

A response body comes from ``Network.getResponseBody`` over the CDP session that saw the request (a
worker's request: over that worker's channel, :class:`~.workers.WorkerChannel`); a request body arrives inline up to
:data:`~browser_ctx.core.network.POST_KEEP` characters, else from ``Network.getRequestPostData``. A
:class:`Body` says why when there is none: a stream, a failed, pending or cut request, a response the
page never read or read as a blob (the browser keeps no such body), one the browser no longer holds.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Error as PlaywrightError

from ..._errors import error_kind
from ...core.bodies import looks_binary
from ...core.network import RequestRecord

if TYPE_CHECKING:
    from ...core.redact import Redactor

__all__ = ["Body", "Sender", "response_body", "request_body", "content_type", "NEVER_READ", "READ_AS_STREAM"]

_TAB_CLOSED = "the tab was closed, and its bodies with it"
#: Why the body of a response the page never read is missing (Chromium keeps none).
NEVER_READ = "not kept by the browser (the page never read it)"
#: Why the body of a response the page read as a blob or stream is missing.
READ_AS_STREAM = "not kept by the browser (the page read it as a blob or stream)"


class Sender(Protocol):
    """What bodies are fetched through: a ``CDPSession``, or a worker's channel with the same ``send``."""

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...


@dataclass
class Body:
    """A body fetched from the browser.

    Attributes:
        text: the body as text (redacted by field name for JSON/form bodies), or ``None`` when it is
            binary or not available.
        full_bytes: size of the body in bytes (decoded, as the page received it), if known.
        binary: the body is binary (``text`` is ``None``; ``full_bytes`` says how big).
        missing: why the body is not available (``None`` when it is).
        unread: the response arrived but the browser did not keep its body (the page never read it,
            or read it as a blob or stream); fetching it again is the only way to see it.
    """

    text: str | None
    full_bytes: int | None = None
    binary: bool = False
    missing: str | None = None
    unread: bool = False


async def response_body(rec: RequestRecord, cdp: Sender | None, redactor: Redactor, *,
                        page_closed: bool = False) -> Body:
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
    if rec.cut_by_navigation and rec.status is None:
        return Body(None, missing="the request was cut off by the page's navigation; there is no response body")
    if rec.pending and rec.status is None:
        return Body(None, missing="no response yet; call again shortly")
    if rec.status in (204, 304) or (rec.status and 300 <= rec.status < 400):
        return Body("", full_bytes=0)
    if cdp is None or page_closed:
        return Body(None, missing=_TAB_CLOSED)
    try:
        result = await cdp.send("Network.getResponseBody", {"requestId": rec.request_id})
    except PlaywrightError as exc:
        if error_kind(exc) == "closed":
            return Body(None, missing=_TAB_CLOSED)
        if rec.pending:  # headers came, the body never finished: nobody read it
            return Body(None, missing=NEVER_READ, unread=True)
        return Body(None, missing="the browser no longer holds it (bodies are dropped when the page navigates "
                    "away or its network buffer fills); reload the page and ask again")
    raw = result.get("body") or ""
    if not raw and _announced_bytes(rec) > 0:
        return Body(None, missing=READ_AS_STREAM if not rec.pending else NEVER_READ, unread=True)
    if result.get("base64Encoded"):
        return _decoded(rec, base64.b64decode(raw), redactor)
    return Body(redactor.body(raw, rec.mime), full_bytes=len(raw.encode("utf-8", "surrogatepass")))


def _decoded(rec: RequestRecord, data: bytes, redactor: Redactor) -> Body:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Body(None, full_bytes=len(data), binary=True)
    if looks_binary(rec.mime, text):
        return Body(None, full_bytes=len(data), binary=True)
    return Body(redactor.body(text, rec.mime), full_bytes=len(data))


async def request_body(rec: RequestRecord, cdp: Sender | None, redactor: Redactor, *,
                       page_closed: bool = False) -> Body:
    """Return the (redacted) request body of ``rec``, fetching it if it was too large to arrive inline."""
    if not rec.has_post_data:
        return Body(None, missing="the request has no body")
    if rec.post_data is not None and rec.post_length <= len(rec.post_data):
        return Body(rec.post_data, full_bytes=len(rec.post_data.encode("utf-8", "surrogatepass")))
    if cdp is not None and not page_closed:
        try:
            result = await cdp.send("Network.getRequestPostData", {"requestId": rec.request_id})
        except PlaywrightError:
            result = None  # not available any more: what was kept inline is all there is
        if result is not None:
            data = str(result.get("postData") or "")
            # A body with binary parts comes as base64; redactor.body decodes a multipart one itself.
            size = (len(base64.b64decode(data)) if result.get("base64Encoded")
                    else len(data.encode("utf-8", "surrogatepass")))
            return Body(redactor.body(data, content_type(rec.request_headers)), full_bytes=size)
    if rec.post_data is not None:
        return Body(rec.post_data, full_bytes=rec.post_length,
                    missing=f"only the first {len(rec.post_data)} characters were kept")
    return Body(None, missing="the browser no longer holds the request body")


def _announced_bytes(rec: RequestRecord) -> int:
    """Bytes of body the response announced (``Content-Length``), else the decoded bytes seen arrive."""
    for k, v in rec.response_headers.items():
        if k.lower() == "content-length":
            try:
                return int(v)
            except ValueError:
                break
    return rec.body_bytes


def content_type(headers: dict[str, Any]) -> str:
    """The ``Content-Type`` header's value (any case), or ``""``."""
    for k, v in headers.items():
        if k.lower() == "content-type":
            return str(v)
    return ""
