"""Request routes of one session's browser context: mock, abort or delay requests by URL glob or regex.

A :class:`RouteTable` (one per :class:`~.session.BrowserSession`, :func:`table_of`) holds the routes added with
``browser_route`` and installs each with Playwright's ``BrowserContext.route``: the newest route that matches a
request handles it. A handler that only delays or rewrites request headers passes the request on
(``route.fallback()``), so an older route, the origin filter (``--blocked-origins``) or the network answers it.

A mocked response carries the header :data:`MOCK_HEADER` with this process's :data:`MOCK_TOKEN` (random, so a
real server cannot forge it); the tab's network capture marks such a response ``mocked`` and drops the header
(:func:`is_mock_header`), so listings and action records say ``(mocked)``. The page can read that header.

Routes, extra headers and offline mode belong to the context: a relaunched browser (``browser_close``, a
crash) has none, and the table starts empty again (:meth:`RouteTable.for_context`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import BrowserContext, Route
from playwright.async_api import Error as PlaywrightError

from .._errors import InvalidArgument

if TYPE_CHECKING:
    from .session import BrowserSession

__all__ = ["RouteTable", "RouteSpec", "table_of", "parse_pattern", "parse_headers", "is_mock_header",
           "MOCK_HEADER", "MOCK_TOKEN", "ABORT_CODES", "MAX_DELAY_MS"]

#: Response header that marks a mocked response (its value is :data:`MOCK_TOKEN`).
MOCK_HEADER = "x-browser-ctx-mocked"
#: This process's marker value: random, so a real server's header of that name is not taken for a mock.
MOCK_TOKEN = secrets.token_hex(8)
#: Error codes ``abort`` accepts (Playwright's ``route.abort``); ``failed`` when ``abort: true``.
ABORT_CODES = ("aborted", "accessdenied", "addressunreachable", "blockedbyclient", "blockedbyresponse",
               "connectionaborted", "connectionclosed", "connectionfailed", "connectionrefused", "connectionreset",
               "internetdisconnected", "namenotresolved", "timedout", "failed")
#: Longest ``delay``, milliseconds.
MAX_DELAY_MS = 60_000
#: Characters of a mocked body shown by ``browser_route_list``.
BODY_PREVIEW = 50

log = logging.getLogger("browser_ctx")
_TABLES: weakref.WeakKeyDictionary[Any, RouteTable] = weakref.WeakKeyDictionary()


def is_mock_header(name: str, value: str) -> bool:
    """Whether a response header is this process's mock marker."""
    return name.lower() == MOCK_HEADER and value == MOCK_TOKEN


def parse_pattern(pattern: str) -> str | re.Pattern[str]:
    """A URL glob (``**/api/*``, as Playwright) or, written ``/…/`` or ``/…/i``, a regular expression.

    Raises:
        InvalidArgument: an empty pattern or a regex that does not compile.
    """
    if not pattern.strip():
        raise InvalidArgument('pattern is empty; give a URL glob such as "**/api/items" or a regex such as '
                              '"/api/\\d+/".')
    m = re.fullmatch(r"/(.+)/([i]*)", pattern.strip(), re.S)
    if m is None:
        return pattern.strip()
    try:
        return re.compile(m.group(1), re.I if m.group(2) else 0)
    except re.error as exc:
        raise InvalidArgument(f"pattern {pattern!r} is not a valid regular expression: {exc}.") from exc


def parse_headers(lines: list[str] | None, what: str = "headers") -> dict[str, str]:
    """``["Name: Value", …]`` as a dict.

    Raises:
        InvalidArgument: a line without ``:`` or with an empty name.
    """
    out: dict[str, str] = {}
    for line in lines or []:
        name, colon, value = str(line).partition(":")
        if not colon or not name.strip():
            raise InvalidArgument(f'{what}: {line!r} is not "Name: Value".')
        out[name.strip()] = value.strip()
    return out


@dataclass
class RouteSpec:
    """One route as given to ``browser_route`` (bodies in bytes, delay in milliseconds).

    Attributes:
        id: 1-based, never reused in the session.
        pattern: as given; ``matcher`` is its glob string or compiled regex.
        status / content_type / headers / body / path: the mocked response (``path``: the file ``body`` was read
            from when the route was added); ``mocks`` is true when any of them is set.
        abort: an error code (:data:`ABORT_CODES`) to fail the request with instead.
        delay_ms: wait this long first.
        request_headers / remove_headers: when not mocking or aborting, rewrite the request's headers.
        hits: requests it handled.
    """

    id: int
    pattern: str
    matcher: str | re.Pattern[str]
    status: int | None = None
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    path: Path | None = None
    abort: str | None = None
    delay_ms: float = 0
    request_headers: dict[str, str] = field(default_factory=dict)
    remove_headers: list[str] = field(default_factory=list)
    hits: int = 0

    @property
    def mocks(self) -> bool:
        """It answers the request itself (status, body, body file or content type given)."""
        return self.abort is None and (self.status is not None or self.body is not None or self.path is not None
                                       or self.content_type is not None)

    def describe(self) -> str:
        """One line: ``#1 **/api/items → mock 200 application/json, body '{"items": []}' (3 hits)``."""
        if self.abort:
            what = f"abort ({self.abort})"
        elif self.mocks:
            bits = [f"mock {self.status or 200}"] + ([self.content_type] if self.content_type else [])
            if self.path is not None:
                bits.append(f"body from {self.path}")
            elif self.body is not None:
                text = self.body.decode("utf-8", "replace")
                bits.append("body " + repr(text if len(text) <= BODY_PREVIEW else text[:BODY_PREVIEW] + "…"))
            if self.headers:
                bits.append("headers " + ", ".join(self.headers))
            what = " ".join(bits[:2]) + "".join(f", {b}" for b in bits[2:])
        else:
            changes = [f"+{n}" for n in self.request_headers] + [f"-{n}" for n in self.remove_headers]
            what = "continue" + (f" with request headers {' '.join(changes)}" if changes else "")
        delay = f" after {self.delay_ms:g} ms" if self.delay_ms else ""
        return f"#{self.id} {self.pattern} → {what}{delay} ({self.hits} hit{'s' if self.hits != 1 else ''})"


class RouteTable:
    """The routes, extra headers and offline state set on one browser context (see the module docstring)."""

    def __init__(self) -> None:
        self.context: BrowserContext | None = None
        self.routes: list[RouteSpec] = []
        self.extra_headers: dict[str, str] = {}
        self.offline = False
        self.relaunched = False
        self._next_id = 1
        self._handlers: dict[int, Any] = {}

    def for_context(self, context: BrowserContext) -> RouteTable:
        """Bind to ``context``; a different one (the browser was relaunched) starts the table empty again."""
        if self.context is not None and self.context is not context:
            self.relaunched = bool(self.routes or self.extra_headers or self.offline)
            self.routes, self.extra_headers, self.offline, self._handlers = [], {}, False, {}
        self.context = context
        return self

    async def add(self, spec_fields: dict[str, Any]) -> RouteSpec:
        """Install a route built from :class:`RouteSpec` fields (no ``id``); the newest route wins."""
        assert self.context is not None
        spec = RouteSpec(id=self._next_id, **spec_fields)
        self._next_id += 1
        handle = _handler(spec)
        await self.context.route(spec.matcher, handle)
        self._handlers[spec.id] = handle
        self.routes.append(spec)
        return spec

    async def remove(self, pattern: str | None = None, route_id: int | None = None) -> list[RouteSpec]:
        """Remove the routes with this ``pattern`` (as given) or ``route_id``, or every route; return them."""
        assert self.context is not None
        gone = [r for r in self.routes if (pattern is None or r.pattern == pattern.strip())
                and (route_id is None or r.id == route_id)]
        for r in gone:
            await self.context.unroute(r.matcher, self._handlers.pop(r.id))
            self.routes.remove(r)
        return gone


def _handler(spec: RouteSpec) -> Callable[[Route], Awaitable[None]]:
    """The Playwright route handler of ``spec`` (it takes the route only: a handler of two parameters is also
    given the request)."""

    async def handle(route: Route) -> None:
        spec.hits += 1
        if spec.delay_ms:
            await asyncio.sleep(spec.delay_ms / 1000)
        try:
            if spec.abort:
                await route.abort(spec.abort)
            elif spec.mocks:
                headers = {**spec.headers, MOCK_HEADER: MOCK_TOKEN}
                if spec.content_type:
                    headers["content-type"] = spec.content_type
                await route.fulfill(status=spec.status or 200, headers=headers, body=spec.body or b"")
            elif spec.request_headers or spec.remove_headers:
                drop = {h.lower() for h in spec.remove_headers}
                headers = {k: v for k, v in route.request.headers.items() if k.lower() not in drop}
                await route.fallback(headers={**headers, **spec.request_headers})
            else:
                await route.fallback()
        except PlaywrightError as exc:  # the page closed or the request was cancelled meanwhile
            log.debug("route #%s: %s", spec.id, exc)

    return handle


def table_of(session: BrowserSession) -> RouteTable:
    """The session's :class:`RouteTable` (made on first use)."""
    table = _TABLES.get(session)
    if table is None:
        table = _TABLES[session] = RouteTable()
    return table
