"""A stdio MCP connection that records what the client receives and counts its o200k tokens.

Token counting rules (the same for every server):

- ``tools/list``: the ``result`` object exactly as it came over the wire (the raw JSON-RPC result, re-serialised
  compactly as ``json.dumps(..., separators=(",", ":"), ensure_ascii=False)``, which is what Node's
  ``JSON.stringify`` sends);
- a tool call: every text part (text content and embedded text resources) plus the structured content serialised
  the same compact way; image and audio parts are not text and are counted separately as bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from browser_ctx.core.tokens import count_tokens

from .servers import ServerSpec

__all__ = ["CallRecord", "Connection", "connect", "compact_json", "result_text"]


def compact_json(value: Any) -> str:
    """Serialise ``value`` as compact JSON (no spaces, non-ASCII kept), as Node's ``JSON.stringify`` does."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def result_text(result: Any) -> str:
    """Join every text part of a CallToolResult (text content and embedded text resources) with newlines."""
    parts: list[str] = []
    for c in result.content:
        kind = getattr(c, "type", "")
        if kind == "text":
            parts.append(c.text)
        elif kind == "resource":
            text = getattr(c.resource, "text", None)
            if text:
                parts.append(text)
    return "\n".join(parts)


@dataclass
class CallRecord:
    """One tool call as the client saw it.

    Attributes:
        tool / arguments: what was called.
        tokens: o200k tokens of all text parts plus the structured content JSON.
        text_tokens / structured_tokens: the two parts of ``tokens``.
        image_bytes: total base64 length of image/audio parts (not counted as tokens).
        seconds: wall time of the call (request sent to result parsed).
        is_error: the result's ``isError`` flag, or ``True`` when the call raised.
        raised: the call raised (timeout, closed connection, protocol error) instead of returning a result.
        error: the first line of the error message, if any.
        text: the joined text parts (for answer checks; not stored in the JSON output by default).
        structured: the structured content (dict or ``None``).
    """

    tool: str
    arguments: dict[str, Any]
    tokens: int = 0
    text_tokens: int = 0
    structured_tokens: int = 0
    image_bytes: int = 0
    seconds: float = 0.0
    is_error: bool = False
    raised: bool = False
    error: str | None = None
    text: str = ""
    structured: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """JSON-ready dict of the record without the text body."""
        return {
            "tool": self.tool, "arguments": self.arguments, "tokens": self.tokens, "textTokens": self.text_tokens,
            "structuredTokens": self.structured_tokens, "imageBytes": self.image_bytes,
            "seconds": round(self.seconds, 3), "isError": self.is_error, "error": self.error,
            "chars": len(self.text),
        }


@dataclass
class Connection:
    """An initialised session plus what the benchmark learned at start-up."""

    spec: ServerSpec
    session: ClientSession
    tools_raw: dict[str, Any] = field(default_factory=dict)
    tools_tokens: int = 0
    start_seconds: float = 0.0

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, timeout: float = 120.0) -> CallRecord:
        """Call ``tool`` and return its :class:`CallRecord`; never raises for tool or protocol errors."""
        rec = CallRecord(tool=tool, arguments=dict(arguments or {}))
        t0 = time.perf_counter()
        try:
            result = await self.session.call_tool(tool, rec.arguments, read_timeout_seconds=timeout)
        except Exception as exc:  # noqa: BLE001 - protocol errors and timeouts are recorded, not raised
            rec.seconds = time.perf_counter() - t0
            rec.is_error = True
            rec.raised = True
            rec.error = (str(exc) or type(exc).__name__).splitlines()[0][:300]
            return rec
        rec.seconds = time.perf_counter() - t0
        rec.text = result_text(result)
        rec.text_tokens = sum(
            count_tokens(p) for p in _text_parts(result)
        )
        rec.structured = result.structured_content
        if result.structured_content is not None:
            rec.structured_tokens = count_tokens(compact_json(result.structured_content))
        rec.tokens = rec.text_tokens + rec.structured_tokens
        rec.image_bytes = sum(len(getattr(c, "data", "") or "") for c in result.content
                              if getattr(c, "type", "") in ("image", "audio"))
        rec.is_error = bool(result.is_error)
        if rec.is_error:
            rec.error = (rec.text.strip().splitlines() or ["(no message)"])[0][:300]
        return rec


def _text_parts(result: Any) -> list[str]:
    out = []
    for c in result.content:
        kind = getattr(c, "type", "")
        if kind == "text":
            out.append(c.text)
        elif kind == "resource" and getattr(c.resource, "text", None):
            out.append(c.resource.text)
    return out


class _Tap:
    """Wraps the transport's read stream and keeps the raw ``result`` of every JSON-RPC response by id."""

    def __init__(self, inner):
        self._inner = inner
        self.results: dict[Any, Any] = {}

    async def receive(self):
        item = await self._inner.receive()
        message = getattr(item, "message", None)
        result = getattr(message, "result", None)
        if message is not None and result is not None and hasattr(message, "id"):
            self.results[message.id] = result
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self):
        await self._inner.aclose()

    def close(self):
        close = getattr(self._inner, "close", None)
        if close:
            close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()

    def __getattr__(self, name):
        return getattr(self._inner, name)


@contextlib.asynccontextmanager
async def connect(spec: ServerSpec, errlog: TextIO | None = None) -> AsyncIterator[Connection]:
    """Start ``spec``'s server over stdio, initialise, list its tools (recording the raw result) and yield it.

    ``errlog`` receives the server's stderr (default: ``os.devnull``).
    """
    params = StdioServerParameters(command=spec.command, args=spec.args, env={**os.environ, **spec.env})
    own_log = errlog is None
    log = errlog if errlog is not None else open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=log) as (read, write):
            tap = _Tap(read)
            async with ClientSession(tap, write) as session:
                await session.initialize()
                before = set(tap.results)
                listed = await session.list_tools()
                new = [k for k in tap.results if k not in before]
                raw = tap.results[new[-1]] if new else listed.model_dump(by_alias=True, exclude_none=True, mode="json")
                conn = Connection(spec=spec, session=session, tools_raw=raw,
                                  tools_tokens=count_tokens(compact_json(raw)),
                                  start_seconds=time.perf_counter() - t0)
                yield conn
    finally:
        if own_log:
            log.close()
