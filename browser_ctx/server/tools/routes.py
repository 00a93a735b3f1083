"""The ``network`` caps: mock, abort or delay requests (``browser_route``), list and remove routes, go offline,
set extra request headers.

Names and parameters follow ``@playwright/mcp`` 0.0.83: ``browser_route {pattern, status?, body?, contentType?,
headers?, removeHeaders?}``, ``browser_route_list {}``, ``browser_unroute {pattern?}``,
``browser_network_state_set {state}``. Ours: ``path`` (the body from a file within ``--allowed-roots``),
``abort`` (fail the request with an error code), ``delay`` (milliseconds first), a pattern written ``/…/`` is a
regex, and mocked ``headers`` are response headers (without a mock they are added to the request, as there).
``browser_set_extra_headers`` (none in ``@playwright/mcp``) sets headers sent with every request. Routes act on
every tab of the session's browser context (:mod:`browser_ctx.browser.routes`); mocked responses show as
``(mocked)`` in ``browser_network_requests`` and in action records.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import InvalidArgument, PageError
from ...browser.routes import ABORT_CODES, MAX_DELAY_MS, RouteTable, parse_headers, parse_pattern, table_of
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS"]

_RELAUNCHED = "The browser was relaunched since the last change; its routes, headers and offline mode went with it. "


async def _table(call: ToolCall) -> RouteTable:
    tab = await call.session.current_tab()
    return table_of(call.session).for_context(tab.page.context)


def _said(table: RouteTable, text: str) -> Rendered:
    if table.relaunched:
        table.relaunched = False
        text = _RELAUNCHED + text
    return Rendered(text, capture=False)


def _route_fields(call: ToolCall) -> dict[str, Any]:
    """:class:`~browser_ctx.browser.routes.RouteSpec` fields from ``browser_route``'s arguments (checked)."""
    a = call.args
    fields: dict[str, Any] = {"pattern": a["pattern"].strip(), "matcher": parse_pattern(a["pattern"])}
    status, abort, delay = a.get("status"), a.get("abort"), a.get("delay")
    if status is not None and (int(status) != status or not 100 <= status <= 599):
        raise InvalidArgument(f"status must be an HTTP status 100-599 (got {status!r}).")
    if abort is not None and abort not in ABORT_CODES:
        raise InvalidArgument(f"abort must be an error code: {', '.join(ABORT_CODES)} (got {abort!r}).")
    if delay is not None and not 0 <= delay <= MAX_DELAY_MS:
        raise InvalidArgument(f"delay must be 0 to {MAX_DELAY_MS} ms (got {delay!r}).")
    if a.get("body") is not None and a.get("path"):
        raise InvalidArgument("Give body or path (a file for the body), not both.")
    mocking = status is not None or a.get("body") is not None or bool(a.get("path")) or bool(a.get("contentType"))
    if abort and (mocking or a.get("headers")):
        raise InvalidArgument("abort fails the request; it cannot be combined with status, body, path, contentType "
                              "or headers.")
    headers = parse_headers(a.get("headers"))
    removed = [h.strip() for h in (a.get("removeHeaders") or "").split(",") if h.strip()]
    if mocking and removed:
        raise InvalidArgument("removeHeaders changes the request passed on; a mock does not pass it on.")
    if a.get("path"):
        path = files.upload_path(call.settings, a["path"])
        fields.update(path=path, body=path.read_bytes())
    elif a.get("body") is not None:
        fields["body"] = a["body"].encode()
    red = call.session.redactor
    for name, value in headers.items():
        red.header(name, value)  # a secret header value is scrubbed from every later output
    fields.update(status=int(status) if status is not None else None, content_type=a.get("contentType") or None,
                  abort=abort, delay_ms=float(delay or 0), remove_headers=removed,
                  **({"headers": headers} if mocking else {"request_headers": headers}))
    return fields


async def route(call: ToolCall) -> Rendered:
    """Add a route; the newest route matching a request handles it (see :mod:`browser_ctx.browser.routes`)."""
    fields = _route_fields(call)
    table = await _table(call)
    try:
        spec = await table.add(fields)
    except PlaywrightError as exc:
        raise PageError(f"Could not add the route: {str(exc).splitlines()[0]}") from exc
    return _said(table, f"Route added: {spec.describe()}. It applies to requests from now on, in every tab; "
                        "remove it with browser_unroute.")


async def route_list(call: ToolCall) -> Rendered:
    """The routes (newest last, with their hits), extra headers and offline state."""
    table = await _table(call)
    red = call.session.redactor
    lines = [r.describe() for r in table.routes] or ["No routes."]
    if table.extra_headers:
        lines.append("Extra headers: " + "; ".join(f"{k}: {red.header(k, v)}" for k, v in table.extra_headers.items()))
    if table.offline:
        lines.append("Offline: every request fails (browser_network_state_set online to restore).")
    return _said(table, "\n".join(lines))


async def unroute(call: ToolCall) -> Rendered:
    """Remove the routes added with ``pattern`` (as given), or all of them."""
    pattern = call.args.get("pattern")
    table = await _table(call)
    try:
        gone = await table.remove(pattern)
    except PlaywrightError as exc:
        raise PageError(f"Could not remove the route: {str(exc).splitlines()[0]}") from exc
    if not gone:
        known = ", ".join(repr(r.pattern) for r in table.routes[:5])
        return _said(table, f"No route has pattern {pattern!r}" + (f" (routes: {known})." if known else ".")
                     if pattern else "There were no routes.")
    left = f" {len(table.routes)} left." if table.routes else " No routes left."
    return _said(table, f"Removed {len(gone)} route{'s' if len(gone) != 1 else ''}: "
                        + "; ".join(r.describe() for r in gone) + "." + left)


async def network_state_set(call: ToolCall) -> Rendered:
    """Go ``offline`` (every request fails, as with no network) or back ``online``."""
    state = call.args["state"]
    if state not in ("online", "offline"):
        raise InvalidArgument(f"state must be online or offline (got {state!r}).")
    table = await _table(call)
    try:
        await table.context.set_offline(state == "offline")  # type: ignore[union-attr]
    except PlaywrightError as exc:
        raise PageError(f"Could not go {state}: {str(exc).splitlines()[0]}") from exc
    table.offline = state == "offline"
    return _said(table, f"Network is now {state}" + (": every request fails until state online." if table.offline
                                                     else "."))


async def set_extra_headers(call: ToolCall) -> Rendered:
    """Send ``headers`` (``["Name: Value", …]``) with every request of every tab; ``[]`` stops."""
    headers = parse_headers(call.args["headers"])
    table = await _table(call)
    try:
        await table.context.set_extra_http_headers(headers)  # type: ignore[union-attr]
    except PlaywrightError as exc:
        raise InvalidArgument(f"Could not set the headers: {str(exc).splitlines()[0]}") from exc
    table.extra_headers = headers
    red = call.session.redactor
    shown = "; ".join(f"{k}: {red.header(k, v)}" for k, v in headers.items())
    return _said(table, f"Every request now carries {shown}." if headers else "No extra headers are sent now.")


_STR: dict[str, Any] = {"type": "string"}
_NUM: dict[str, Any] = {"type": "number"}
_LIST: dict[str, Any] = {"type": "array", "items": _STR}


def _spec(name: str, description: str, properties: dict, handler: Any, required: tuple[str, ...] = (),
          read_only: bool = False) -> ToolSpec:
    return ToolSpec(name=name, description=description, properties=properties, handler=handler,
                    required=required, pageable=False, caps="network", read_only=read_only)


TOOLS = [
    _spec("browser_route", "Mock (status/body/path/contentType/headers), abort or delay (ms) requests matching "
          "pattern (glob, or /regex/).",
          {"pattern": _STR, "status": _NUM, "body": _STR, "path": _STR, "contentType": _STR, "headers": _LIST,
           "removeHeaders": _STR, "abort": _STR, "delay": _NUM}, route, ("pattern",)),
    _spec("browser_route_list", "List routes.", {}, route_list, read_only=True),
    _spec("browser_unroute", "Remove routes with pattern, or all.", {"pattern": _STR}, unroute),
    _spec("browser_network_state_set", "Go offline or online.", {"state": {"enum": ["online", "offline"]}},
          network_state_set, ("state",)),
    _spec("browser_set_extra_headers", 'Send headers ("Name: Value") with every request; [] stops.',
          {"headers": _LIST}, set_extra_headers, ("headers",)),
]
