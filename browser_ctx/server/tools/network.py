"""Network tools: ``browser_network_requests`` (the list) and ``browser_network_request`` (one request).

Tool and parameter names follow ``@playwright/mcp`` 0.0.83 where it has them
(``browser_network_requests {static, filter}``, ``browser_network_request {index, part}``); the rest
are ours, camelCase. Requests come from the tab's capture (:mod:`browser_ctx.browser.capture`); the
list budgets itself (:mod:`.listing`); bodies are fetched from the browser on demand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from ..._errors import InvalidArgument
from ...browser.capture import EventCapture
from ...core.bodies import apply_select, json_shape, looks_binary
from ...core.console import clip_url, section_header
from ...core.listing import compile_pattern, cursor_after
from ...core.network import (
    RequestRecord,
    browser_favicon,
    fold_requests,
    format_bytes,
    parse_status,
    render_group,
    select_requests,
)
from ...core.sections import relative_url
from ...core.tokens import count_tokens
from ...core.urls import clip_end
from ..registry import Rendered, ToolCall, ToolSpec
from .listing import ALL, LIMIT, LISTING_RESERVE, SINCE, line_budget, synced_events

__all__ = ["TOOLS", "RESOURCE_TYPES", "ROUTINE_HEADERS", "raw_listing_tokens"]

#: Resource types accepted by ``resourceTypes`` (CDP's, lower case).
RESOURCE_TYPES = ("document", "stylesheet", "image", "media", "font", "script", "texttrack", "xhr", "fetch",
                  "prefetch", "eventsource", "websocket", "manifest", "signedexchange", "ping",
                  "cspviolationreport", "preflight", "other")
#: Characters of a request body shown in the full-details view (``part="request-body"`` shows all).
REQUEST_BODY_CHARS = 2000
#: How to read a whole request body, said where one is cut.
READ_REQUEST_BODY = 'part="request-body" for all'
#: Characters of each of a socket's last frames shown in the details view.
SOCKET_FRAME_CHARS = 500
#: A text of more than this many characters per token of budget is too large without counting it.
CHARS_PER_TOKEN_BOUND = 8


async def network_requests(call: ToolCall) -> Rendered:
    """Render the tab's requests, one line each, repeated endpoints folded, within the call's budget."""
    ev, tab = await synced_events(call)
    args = call.args
    url_pattern = compile_pattern(args.get("filter"), "filter")
    status = parse_status(str(args["status"])) if args.get("status") not in (None, "") else None
    types = args.get("resourceTypes")
    if types:
        bad = [t for t in types if str(t).lower() not in RESOURCE_TYPES]
        if bad:
            raise InvalidArgument(f"Unknown resourceTypes {bad}; use any of: {', '.join(RESOURCE_TYPES)}.")
    since = args.get("since")
    limit = args.get("limit")
    show_all = bool(args.get("all"))
    scrub = ev.redactor.scrub
    current = ev.current_section
    held = ev.records()
    if not show_all:
        held = [r for r in held if r.section == current.id]
    failed = args.get("failed")
    matched, hidden_static = select_requests(
        held, url_pattern=url_pattern, status=status, failed=True if failed else None, resource_types=types,
        method=args.get("method"), since=since, include_static=bool(args.get("static")), scrub=scrub)
    memory = ev.network_shown
    skip = memory.skip(since)
    matched = [r for r in matched if r.seq > skip.get(r.index, 0)]
    groups = fold_requests(matched)
    budget = line_budget(call)
    where = "all pages of this tab" if show_all else f"current page {clip_url(current.url)}"
    n_failed = sum(1 for r in matched if r.failed and not browser_favicon(r))
    head = f"Network, {where}"
    if since is not None:
        head += f", since cursor {since}"
    if matched:
        head += (f": {len(matched)} request{'s' if len(matched) != 1 else ''}"
                 f"{f' ({n_failed} failed)' if n_failed else ''} in {len(groups)} line{'s' if len(groups) != 1 else ''}"
                 "; #N = index for browser_network_request.")
    else:
        head += ": no requests" + (" match the filters" if (url_pattern or status or failed or types
                                                            or args.get("method")) else "") + "."
    if hidden_static:
        head += f" {hidden_static} successful static resource(s) hidden (static=true shows them)."
    if ev.evicted_requests:
        head += f" {ev.evicted_requests:,} older requests were evicted from this tab's buffer."
    budget.add(scrub(head), force=True)
    shown: set[int] = set()
    shown_items: dict[int, int] = {}
    shown_groups = 0
    last_section = None
    multi = show_all and len({r.section for r in matched}) > 1
    stopped = None
    for g in groups:
        if limit is not None and shown_groups >= limit:
            stopped = f"limit={limit}"
            break
        section = ev.section(g[0].section)
        line = render_group(g, base=section.url if section else current.url, scrub=scrub)
        if multi and g[0].section != last_section:
            line = section_header(section, g[0].section, current.id) + "\n" + line
        if not budget.add(line, force=not shown_groups):
            stopped = "maxTokens"
            break
        last_section = g[0].section
        shown_groups += 1
        shown.update(r.seq for r in g)
        shown_items.update((r.index, r.seq) for r in g)
    cursor = cursor_after([r.seq for r in matched], shown, ev.net_seq)
    memory.remember(cursor, since, shown_items)
    rest = len(groups) - shown_groups
    if rest:
        budget.add(f"… {rest} more line{'s' if rest != 1 else ''} not shown ({stopped}); call again with "
                   f"since={cursor} to read them and anything newer.", force=True)
    meta = {"cursor": cursor, "shown": len(shown), "matched": len(matched)}
    scope = ev.records() if show_all else [r for r in ev.records() if r.section == current.id]
    return Rendered("\n".join(budget.lines), meta=meta, tab=tab.id,
                    baseline_tokens=raw_listing_tokens(scope, scrub))


def raw_listing_tokens(records: list[RequestRecord], scrub: Callable[[str], str] | None = None) -> int:
    """o200k tokens of the raw listing of ``records``: one line per request, nothing folded or
    shortened (``[METHOD] full-url => [status] text type size``, each redirect hop on its own line,
    each WebSocket frame / EventSource message on its own line)."""
    sc = scrub or (lambda t: t)
    lines: list[str] = []
    frame_tokens = 0
    for r in records:
        for url, st in r.chain:
            lines.append(f"[{r.method}] {sc(url)} => [{st}]")
        if r.failure:
            outcome = r.failure
        elif r.status is not None:
            outcome = f"[{r.status}] {r.status_text}"
        else:
            outcome = "pending"
        lines.append(f"[{r.method}] {sc(r.url)} => {outcome} {r.resource_type} {r.encoded_bytes or 0}")
        if r.socket is not None and r.socket.last:
            frames = r.socket.sent + r.socket.received
            sample = [f"{d} {t}" for d, t in r.socket.last]
            per_frame = count_tokens("\n".join(sample)) / len(sample)
            frame_tokens += int(per_frame * frames)
    return count_tokens("\n".join(lines)) + frame_tokens


# -- browser_network_request ----------------------------------------------------------------------

_PARTS = ("request-headers", "request-body", "response-headers", "response-body")


#: Headers left out of the full-details view (``part`` shows every header).
ROUTINE_HEADERS = frozenset({
    "sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "user-agent", "accept-encoding", "accept-language",
    "connection", "host", "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "sec-fetch-user",
    "upgrade-insecure-requests", "date", "server", "keep-alive", "pragma", "priority", "dnt"})


def _headers_block(title: str, headers: dict[str, str], routine_hidden: str | None = None) -> str:
    if not headers:
        return f"{title}: (none)"
    shown = {k: v for k, v in headers.items() if not (routine_hidden and k.lower() in ROUTINE_HEADERS)}
    hidden = len(headers) - len(shown)
    note = f" ({hidden} routine hidden; part=\"{routine_hidden}\" shows all)" if hidden else ""
    return f"{title}{note}:\n" + "\n".join(f"  {k}: {v}" for k, v in shown.items())


def _summary_line(rec: RequestRecord, scrub: Callable[[str], str]) -> str:
    line = render_group([rec], base=None, scrub=scrub, url_chars=10_000)
    if rec.status is not None and rec.status_text and rec.status < 400:
        line = line.replace(f"→ {rec.status}", f"→ {rec.status} {rec.status_text}", 1)
    return line


def _fits(text: str, tokens: int) -> bool:
    if len(text) > tokens * CHARS_PER_TOKEN_BOUND:
        return False
    return count_tokens(text) <= tokens


def _render_body(text: str, mime: str, full_bytes: int | None, *, select: str | None, budget: int,
                 label: str, index: int, part: str) -> tuple[str, dict[str, Any]]:
    """Render a body: the selected part, the whole text, or (large JSON) its shape."""
    meta: dict[str, Any] = {}
    parsed: Any = None
    is_json = "json" in mime.lower() or text.lstrip()[:1] in ("{", "[")
    if is_json:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
            is_json = False
    size = f"{full_bytes:,} bytes" if full_bytes is not None else f"{len(text):,} chars"
    if select:
        if parsed is None:
            raise InvalidArgument(f"select needs a JSON body; the {label.lower()} of #{index} is "
                                  f"{mime or 'not JSON'}. Omit select to read it as text.")
        value = apply_select(parsed, select)
        meta["select"] = select
        out = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return out, meta
    if text == "":
        return f"{label}: empty", meta
    if parsed is not None and not _fits(text, budget):
        shape = json_shape(parsed)
        meta["shape"] = True
        return (f"{label} ({size}, {mime or 'JSON'}) is too large for this call; its shape:\n{shape}\n"
                f"Read one part exactly with select (e.g. select=\"$.{_first_key(parsed)}\"), or the whole body "
                f"with part=\"{part}\" select=\"$\" and offset to read on."), meta
    return (f"{label} ({size}, {mime or 'text'}):\n{text}" if part == "" else text), meta


def _first_key(parsed: Any) -> str:
    if isinstance(parsed, dict) and parsed:
        k = next(iter(parsed))
        return k if re.fullmatch(r"[A-Za-z_$][\w$]*", k) else "*"
    if isinstance(parsed, list):
        return "[0]".lstrip(".")
    return ""


async def network_request(call: ToolCall) -> Rendered:
    """Render one request: summary, headers and bodies, or only the ``part`` asked for."""
    ev, tab = await synced_events(call)
    args = call.args
    index = int(args["index"])
    part = args.get("part") or ""
    select = args.get("select")
    if part and part not in _PARTS:
        raise InvalidArgument(f"part must be one of {', '.join(_PARTS)} (got {part!r}).")
    if select and not part:
        part = "response-body"
    if select and part in ("request-headers", "response-headers"):
        raise InvalidArgument("select applies to a body: use it with part=\"response-body\" or \"request-body\".")
    rec = ev.record(index)
    scrub = ev.redactor.scrub
    budget = call.budget.reserve(LISTING_RESERVE).tokens
    meta: dict[str, Any] = {"index": index}
    blocks: list[str] = []
    if not part:
        blocks.append(_summary_line(rec, scrub))
        blocks.append(_headers_block("Request headers", rec.request_headers, "request-headers"))
        if rec.has_post_data:
            body = await ev.request_body(rec)
            if body.text is not None:
                shown = clip_end(scrub(body.text), REQUEST_BODY_CHARS, hint=READ_REQUEST_BODY)
                blocks.append(f"Request body ({body.full_bytes or 0:,} bytes):\n{shown}")
            else:
                blocks.append(f"Request body: not available: {body.missing}.")
        if rec.status is not None:
            blocks.append(_headers_block("Response headers", rec.response_headers, "response-headers"))
        head = "\n".join(blocks)  # each block is scrubbed already; the pipeline scrubs the whole result once more
        remaining = budget - count_tokens(head)
        body_text, body_meta = await _response_body_block(ev, rec, select=select, budget=remaining, part="")
        meta.update(body_meta)
        return Rendered(head + "\n" + body_text, meta=meta, tab=tab.id)
    if part == "request-headers":
        text = _headers_block(f"Request headers of #{index}", rec.request_headers)
    elif part == "response-headers":
        if rec.status is None:
            text = f"#{index} has no response headers ({rec.failure or 'no response yet'})."
        else:
            text = _headers_block(f"Response headers of #{index} ({rec.status} {rec.status_text})".rstrip(),
                                  rec.response_headers)
    elif part == "request-body":
        body = await ev.request_body(rec)
        if body.text is None:
            text = f"Request body of #{index}: not available: {body.missing}."
        else:
            meta["fullBytes"] = body.full_bytes
            text, extra = _render_body(scrub(body.text), _ctype(rec.request_headers), body.full_bytes,
                                       select=select, budget=budget, label="Request body", index=index,
                                       part="request-body")
            meta.update(extra)
    else:
        text, body_meta = await _response_body_block(ev, rec, select=select, budget=budget, part="response-body")
        meta.update(body_meta)
    return Rendered(text, meta=meta, tab=tab.id)  # bodies were scrubbed before rendering; the pipeline scrubs it all


async def _response_body_block(ev: EventCapture, rec: RequestRecord, *, select: str | None, budget: int,
                               part: str) -> tuple[str, dict[str, Any]]:
    meta: dict[str, Any] = {}
    if rec.resource_type in ("websocket", "eventsource") and rec.socket is not None:
        s = rec.socket
        frames = "\n".join(f"  {d} {ev.redactor.scrub(t)[:SOCKET_FRAME_CHARS]}" for d, t in s.last)
        kind = "WebSocket" if rec.resource_type == "websocket" else "EventSource"
        text = (f"{kind}: {'closed' if s.closed else 'open'}; sent {s.sent} ({s.sent_bytes:,} chars), "
                f"received {s.received} ({s.received_bytes:,} chars). No body is kept for a stream; "
                f"last frames:\n{frames or '  (none)'}")
        if select:
            raise InvalidArgument(f"#{rec.index} is a {kind}; it has no body to select from.")
        return text, meta
    body = await ev.response_body(rec)
    if body.full_bytes is not None:
        meta["fullBytes"] = body.full_bytes
    if body.missing:
        if select:
            raise InvalidArgument(f"The response body of #{rec.index} is not available: {body.missing}.")
        meta["bodyAvailable"] = False
        if body.unread:
            text = f"Response body: {body.missing}. {_refetch_offer(rec, ev.current_section.url)}"
        else:
            text = f"Response body: not available: {body.missing}."
        return text, meta
    if body.binary or body.text is None:
        if select:
            raise InvalidArgument(f"select needs a JSON body; #{rec.index} is binary ({rec.mime}).")
        return f"Response body: binary {rec.mime or 'data'}, {format_bytes(body.full_bytes)} (not shown).", meta
    if looks_binary(rec.mime):
        return f"Response body: binary {rec.mime}, {format_bytes(body.full_bytes)} (not shown).", meta
    text, extra = _render_body(ev.redactor.scrub(body.text), rec.mime, body.full_bytes, select=select,
                               budget=budget, label="Response body", index=rec.index, part=part)
    meta.update(extra)
    return text, meta


#: Characters left as they are in a URL put inside a quoted JavaScript string (no quotes, no backslash).
_URL_SAFE = "/:?&=#%[]@!$()*+,;~-._"
#: Methods whose request can be repeated to see a body the browser did not keep.
SAFE_METHODS = ("GET", "HEAD")


def _refetch_offer(rec: RequestRecord, page_url: str) -> str:
    """How to see a body the browser did not keep: fetch it again, for a safe method only."""
    if rec.method.upper() not in SAFE_METHODS:
        return (f"Re-fetching is not offered: repeating a {rec.method} could repeat its effect; reproduce "
                "the call in the page (browser_evaluate) if that is safe.")
    url = relative_url(rec.url, page_url)
    method = "" if rec.method.upper() == "GET" else f", {{method: '{rec.method.upper()}'}}"
    return (f"A {rec.method.upper()} is safe to repeat: browser_evaluate with function "
            f"\"() => fetch('{quote(url, safe=_URL_SAFE)}'{method}).then(r => r.text())\" fetches it again "
            "(cookies are sent; other secret headers are not, so the answer may differ).")


def _ctype(headers: dict[str, str]) -> str:
    for k, v in headers.items():
        if k.lower() == "content-type":
            return v
    return ""


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="browser_network_requests",
        description=("Requests of the current tab, one line each (#index, method, URL, status, type, size, ms), "
                     "repeats folded. all: earlier pages too."),
        properties={
            "filter": {"type": "string", "description": "Regex the URL must match"},
            "status": {"type": ["string", "integer"], "description": "e.g. 404, 4xx, >=400, 500-599 (comma = or)"},
            "failed": {"type": "boolean", "description": "Only network failures and HTTP errors"},
            "resourceTypes": {"type": "array", "items": {"type": "string"},
                              "description": "e.g. [\"fetch\",\"xhr\",\"websocket\"]"},
            "method": {"type": "string"},
            "static": {"type": "boolean", "description": "Include successful images, fonts, scripts, styles"},
            "since": SINCE,
            "limit": LIMIT,
            "all": ALL,
        },
        handler=network_requests,
        caps="debug",
    ),
    ToolSpec(
        name="browser_network_request",
        description=("Headers and body of one request (index from browser_network_requests), secrets redacted. "
                     "A large JSON body is shown as its shape; select (e.g. $.items[0].name, $.items[*].id, $ for "
                     "all) returns one part exactly."),
        properties={
            "index": {"type": "integer", "minimum": 1},
            "part": {"type": "string", "enum": list(_PARTS)},
            "select": {"type": "string", "description": "JSON path into the body"},
        },
        handler=network_request,
        required=("index",),
        caps="debug",
    ),
]
