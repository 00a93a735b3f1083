"""Network request records: filters, folding of repeated endpoints, one-line rendering.

Pure: :mod:`browser_ctx.browser.capture` builds :class:`RequestRecord` objects from CDP ``Network.*``
events (values already redacted by name) and this module filters and renders them.

Units: sizes are bytes (``encoded_bytes``: bytes on the wire), times are milliseconds.

Status filters (:func:`parse_status`), comma-separated alternatives of:
``404`` (exact), ``4xx`` (a class), ``>=400`` / ``>400`` / ``<=299`` / ``<300`` (comparisons),
``500-599`` (inclusive range). A request that got no response (network failure) has status 0.

Folding (:func:`fold_requests`): requests in the same section with the same method, resource
type, outcome (status or failure) and endpoint (origin, path with digit runs as ``#``, and the
*names* of the query parameters) are shown as one line with a count: ``#12…#311 ×300``.
"""

from __future__ import annotations

import operator
import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import parse_qsl, urlsplit

from .._errors import InvalidArgument
from .sections import origin_of, relative_url
from .urls import clip_end
from .urls import shorten_url as _shorten

__all__ = [
    "RequestRecord",
    "SocketInfo",
    "parse_status",
    "STATIC_TYPES",
    "select_requests",
    "fold_requests",
    "render_group",
    "endpoint_key",
    "format_bytes",
    "shorten_url",
    "URL_CHARS",
    "is_favicon",
    "browser_favicon",
    "FAVICON_NOTE",
]

#: URLs longer than this many characters are shortened in listings (the full URL is in
#: ``browser_network_request``).
URL_CHARS = 120
#: ``max_chars`` at or above this shows the whole URL (nothing shortened or dropped).
FULL_URL = 10_000
#: Resource types hidden from listings when they succeeded, unless ``static=true``.
STATIC_TYPES = frozenset({"image", "font", "stylesheet", "script", "media", "manifest", "texttrack", "other",
                          "ping", "cspviolationreport", "prefetch", "signedexchange"})
#: Frames / messages kept per WebSocket / EventSource.
LAST_FRAMES = 3
_FRAME_CHARS = 120

@dataclass
class SocketInfo:
    """A WebSocket's traffic (or an EventSource's messages).

    Attributes:
        sent / received: frames (or messages) in each direction.
        sent_bytes / received_bytes: payload characters in each direction.
        last: the last few frames as ``(direction, text)``, ``direction`` ``↑`` (sent) or ``↓`` (received).
        closed: the socket closed (or the stream ended).
        error: a frame error reported by the browser, if any.
    """

    sent: int = 0
    received: int = 0
    sent_bytes: int = 0
    received_bytes: int = 0
    last: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=LAST_FRAMES))
    closed: bool = False
    error: str | None = None

    def add(self, direction: str, payload: str) -> None:
        """Count one frame (``direction`` ``↑`` sent, ``↓`` received) and keep it among the last few."""
        if direction == "↑":
            self.sent += 1
            self.sent_bytes += len(payload)
        else:
            self.received += 1
            self.received_bytes += len(payload)
        self.last.append((direction, payload[:_FRAME_CHARS * 4]))


@dataclass
class RequestRecord:
    """One request (redirect hops folded into it), with values already redacted by name.

    Attributes:
        index: 1-based per tab, never reused (what ``browser_network_request`` takes).
        request_id: the CDP ``requestId`` (used to fetch the body lazily).
        section / route: the page section and client-side route it was made in.
        method, url: the final method and URL.
        chain: earlier redirect hops as ``(url, status)``, first hop first.
        resource_type: lower-case CDP type (``document``, ``xhr``, ``fetch``, ``websocket``, ``eventsource``, …).
        status / status_text: HTTP status of the final response (``None`` until it arrives).
        mime: response MIME type.
        failure: the browser's failure text (``net::ERR_…``) if the request failed.
        canceled: the page aborted it.
        blocked: why it was blocked (``cors MissingAllowOriginHeader``, ``mixed-content``, …).
        from_service_worker / from_cache: where the response came from.
        start / end: CDP monotonic timestamps, seconds (``end`` ``None`` while pending).
        response_at: CDP timestamp of the response headers (timing falls back to it when the body
            was never read to the end).
        wall_time: when it started, seconds since the epoch.
        encoded_bytes: bytes received on the wire (``None`` while pending).
        body_bytes: decoded body bytes seen arrive so far.
        request_headers / response_headers: redacted headers.
        post_data: the redacted request body (kept up to :data:`POST_KEEP` characters), ``None`` if none.
        post_length: characters of the whole request body.
        has_post_data: the request had a body (even if not kept).
        socket: WebSocket frames or EventSource messages.
        worker: made by one of the page's dedicated workers (listed with "(worker)").
        mocked: answered by a ``browser_route`` mock, not the network (listed with "(mocked)").
        cut_by_navigation: still in flight when its document was replaced; closed then ("cancelled
            by navigation", ``end`` the time of the new document's commit as last seen).
        seq: update sequence number (bumped on every change; ``since`` cursors compare it).
    """

    index: int
    request_id: str
    section: int = 1
    route: str | None = None
    method: str = "GET"
    url: str = ""
    chain: list[tuple[str, int]] = field(default_factory=list)
    resource_type: str = "other"
    status: int | None = None
    status_text: str = ""
    mime: str = ""
    failure: str | None = None
    canceled: bool = False
    blocked: str | None = None
    from_service_worker: bool = False
    from_cache: bool = False
    start: float = 0.0
    end: float | None = None
    response_at: float | None = None
    wall_time: float = 0.0
    encoded_bytes: int | None = None
    body_bytes: int = 0
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    post_data: str | None = None
    post_length: int = 0
    has_post_data: bool = False
    socket: SocketInfo | None = None
    worker: bool = False
    mocked: bool = False
    cut_by_navigation: bool = False
    seq: int = 0

    @property
    def duration_ms(self) -> float | None:
        """Milliseconds from request start to the end of loading, else to the response headers
        (``None`` while neither arrived)."""
        end = self.end if self.end is not None else self.response_at
        return None if end is None or not self.start else max(0.0, (end - self.start) * 1000)

    @property
    def aborted_after_response(self) -> bool:
        """Answered with a status below 400, then reported aborted (``net::ERR_ABORTED`` or canceled): a
        keepalive request, a body the page stopped reading, a navigation. The status is what happened."""
        return (self.status is not None and self.status < 400 and not self.blocked and bool(self.failure)
                and ("ERR_ABORTED" in (self.failure or "") or self.canceled))

    @property
    def failed(self) -> bool:
        """A network failure, a blocked request, or an HTTP status of 400 or more; a request answered below
        400 and then aborted is not one (:attr:`aborted_after_response`)."""
        if self.aborted_after_response:
            return False
        return bool(self.failure or self.blocked) or (self.status or 0) >= 400

    @property
    def pending(self) -> bool:
        """Neither finished nor failed yet (open WebSockets and EventSources stay pending)."""
        return self.end is None and self.failure is None

    @property
    def status_code(self) -> int:
        """The status, or 0 when no response arrived."""
        return self.status or 0


POST_KEEP = 16_384


#: Said once, on the request line of the browser's own failed favicon fetch (listed, never counted as the
#: page's failure; its console line says nothing more).
FAVICON_NOTE = "(browser's own favicon fetch; not counted)"


def is_favicon(url: str) -> bool:
    """Whether ``url`` is a ``/favicon.ico`` (query and fragment ignored)."""
    return url.split("?", 1)[0].split("#", 1)[0].endswith("/favicon.ico")


def browser_favicon(r: RequestRecord) -> bool:
    """Whether ``r`` is the browser's own ``/favicon.ico`` fetch (type ``other``, not the page's): its
    failure is listed but left out of failure counts and action records."""
    return r.resource_type == "other" and is_favicon(r.url)


# -- filters -------------------------------------------------------------------------------------

_STATUS_TERM = re.compile(r"^\s*(?:(?P<cls>[1-5])xx|(?P<op>>=|<=|>|<|=|!=)?\s*(?P<n>\d{1,3})"
                          r"(?:\s*-\s*(?P<hi>\d{1,3}))?)\s*$", re.I)


def parse_status(expr: str) -> Callable[[int], bool]:
    """Parse a status filter into a predicate on a status code (0 = no response).

    Accepts comma-separated alternatives: ``404``, ``4xx``, ``>=400``, ``>400``, ``<300``, ``<=299``,
    ``!=200``, ``500-599``. Raises :class:`InvalidArgument` on anything else.
    """
    tests: list[Callable[[int], bool]] = []
    for term in expr.split(","):
        m = _STATUS_TERM.match(term)
        if not m or not term.strip():
            raise InvalidArgument(f"Invalid status filter {expr!r}: use e.g. 404, 4xx, >=400 or 500-599 "
                                  "(comma-separated for several).")
        if m.group("cls"):
            c = int(m.group("cls"))
            tests.append(partial(_between, c * 100, c * 100 + 99))
            continue
        n = int(m.group("n"))
        op = m.group("op") or "="
        if m.group("hi") is not None:
            hi = int(m.group("hi"))
            if m.group("op") or hi < n:
                raise InvalidArgument(f"Invalid status range {term.strip()!r}: write LOW-HIGH with LOW <= HIGH, "
                                      "e.g. 500-599.")
            tests.append(partial(_between, n, hi))
            continue
        tests.append(partial(_compare, _OPS[op], n))
    return partial(_any_of, tuple(tests))


_OPS: dict[str, Callable[[int, int], bool]] = {"=": operator.eq, "!=": operator.ne, ">=": operator.ge,
                                               "<=": operator.le, ">": operator.gt, "<": operator.lt}


def _between(lo: int, hi: int, status: int) -> bool:
    return lo <= status <= hi


def _compare(op: Callable[[int, int], bool], n: int, status: int) -> bool:
    return op(status, n)


def _any_of(tests: tuple[Callable[[int], bool], ...], status: int) -> bool:
    return any(t(status) for t in tests)


def select_requests(records: Iterable[RequestRecord], *, url_pattern: re.Pattern[str] | None = None,
                    status: Callable[[int], bool] | None = None, failed: bool | None = None,
                    resource_types: Iterable[str] | None = None, method: str | None = None,
                    since: int | None = None, include_static: bool = True,
                    scrub: Callable[[str], str] | None = None) -> tuple[list[RequestRecord], int]:
    """Filter records; return ``(kept, hidden_static)``.

    ``url_pattern`` is searched in the (redacted, scrubbed) URL and redirect URLs; ``failed=True``
    keeps network failures, blocked requests and HTTP errors (``False`` keeps the others);
    ``resource_types`` and ``method`` compare case-insensitively; ``since`` keeps records updated
    after that cursor. ``include_static=False`` hides *successful* requests of :data:`STATIC_TYPES`
    (unless ``resource_types`` asks for them) and counts them in ``hidden_static``.
    """
    types = {t.lower() for t in resource_types} if resource_types else None
    method_u = method.upper() if method else None
    out: list[RequestRecord] = []
    hidden = 0
    for r in records:
        if since is not None and r.seq <= since:
            continue
        if types is not None and r.resource_type not in types:
            continue
        if method_u and r.method.upper() != method_u:
            continue
        if status is not None and not status(r.status_code):
            continue
        if failed is not None and r.failed != failed:
            continue
        if url_pattern is not None:
            urls = [r.url] + [u for u, _ in r.chain]
            if scrub:
                urls = [scrub(u) for u in urls]
            if not any(url_pattern.search(u) for u in urls):
                continue
        if not include_static and types is None and r.resource_type in STATIC_TYPES and not r.failed \
                and not r.pending:
            hidden += 1
            continue
        out.append(r)
    return out, hidden


# -- folding -------------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")


def endpoint_key(url: str) -> str:
    """The endpoint of ``url`` for folding: origin, path with digit runs as ``#``, sorted query names."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _DIGITS.sub("#", url)
    names = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    q = ("?" + "&".join(n + "=" for n in names)) if names else ""
    return f"{parts.scheme}://{parts.netloc}{_DIGITS.sub('#', parts.path)}{q}"


def _fold_key(r: RequestRecord) -> tuple:
    if r.resource_type in ("websocket", "eventsource", "document") or r.chain:
        return ("single", r.index)
    outcome = (f"{r.status} canceled" if r.aborted_after_response
               else r.failure or r.blocked or r.status or ("pending" if r.pending else "?"))
    if r.cut_by_navigation:
        outcome = f"cut {outcome}"
    return (r.section, r.method, r.resource_type, endpoint_key(r.url), outcome, r.from_service_worker, r.worker,
            r.mocked)


def fold_requests(records: list[RequestRecord], min_count: int = 2) -> list[list[RequestRecord]]:
    """Group repeated requests to the same endpoint with the same outcome.

    Returns groups in order of their first request; groups smaller than ``min_count`` are split
    into single-record groups. Documents, redirects, WebSockets and EventSources never fold.
    """
    groups: dict[tuple, list[RequestRecord]] = {}
    order: list[tuple] = []
    for r in records:
        key = _fold_key(r)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(r)
    out: list[list[RequestRecord]] = []
    for key in order:
        g = groups[key]
        if len(g) >= min_count:
            out.append(g)
        else:
            out.extend([r] for r in g)
    out.sort(key=lambda g: g[0].index)
    return out


# -- rendering -----------------------------------------------------------------------------------

def format_bytes(n: int | None) -> str:
    """``812 B``, ``4.2 kB``, ``3.1 MB`` (decimal units); empty for ``None``."""
    if n is None:
        return ""
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"


def shorten_url(url: str, base: str | None = None, max_chars: int = URL_CHARS) -> str:
    """Return ``url`` relative to ``base``'s origin when same-origin, cut to ``max_chars`` characters
    with ``…`` marking the cut (:func:`browser_ctx.core.urls.shorten_url`, which also drops tracking
    parameters); from :data:`FULL_URL` characters on, the whole URL (only made relative)."""
    if max_chars >= FULL_URL:
        return relative_url(url, base)
    return _shorten(url, base=base, limit=max_chars)


#: How a request cut off by its document's navigation is listed.
CUT_BY_NAVIGATION = "✗ cancelled by navigation"


def _outcome(r: RequestRecord) -> str:
    if r.cut_by_navigation:
        return (f"→ {r.status} " if r.status is not None else "") + CUT_BY_NAVIGATION
    if r.status is not None and r.status >= 400 and r.failure and not r.blocked:
        # An error response whose body load the browser then cancelled (a 404 module chunk): the
        # status is what happened, not the cancel.
        return f"→ {r.status}" + (f" {r.status_text}" if r.status_text else "")
    if r.aborted_after_response:
        return f"→ {r.status} (canceled after the response)"
    if r.failure or r.blocked:
        bits = ["✗", r.failure or "blocked"]
        if r.canceled:
            bits.append("(canceled)")
        if r.blocked:
            bits.append(r.blocked)
        if r.status:
            bits.insert(1, str(r.status))
        return " ".join(bits)
    if r.status is None:
        return "… pending" if r.resource_type not in ("websocket", "eventsource") else ""
    text = f"→ {r.status}"
    if r.status >= 400 and r.status_text:
        text += f" {r.status_text}"
    return text


def _ms(values: list[float]) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    if round(lo) == round(hi):
        return f"{lo:.0f}ms"
    return f"{lo:.0f}–{hi:.0f}ms"


def _frame_text(text: str) -> str:
    return clip_end(text.replace("\n", " ↵ "), _FRAME_CHARS)


def _socket_text(r: RequestRecord, scrub: Callable[[str], str]) -> str:
    s = r.socket or SocketInfo()
    state = "closed" if (s.closed or r.end is not None or r.failure) else "open"
    if r.resource_type == "websocket":
        bits = [state, f"↑{s.sent} ↓{s.received} frames"]
    else:
        bits = [state, f"{s.received} messages"]
    if s.error:
        bits.append(f"error: {s.error}")
    if s.last:
        bits.append("last: " + " ".join(f'{d}"{_frame_text(scrub(t))}"' for d, t in s.last))
    return ", ".join(bits)


def render_group(group: list[RequestRecord], *, base: str | None = None,
                 scrub: Callable[[str], str] | None = None, url_chars: int = URL_CHARS) -> str:
    """Render one folded group (or a single request) as one line.

    ``#7 GET /api/items → 200 fetch application/json 3.1 MB 45ms``;
    ``#12…#311 ×300 GET /poll?n=300 → 200 fetch 2–9ms``; failures as ``✗ net::ERR_… (canceled)``;
    redirects as ``/a →302 /b → 200``; sockets with frame counts and the last frames.
    """
    sc = scrub or (lambda t: t)
    r = group[-1]
    first = group[0]
    if len(group) > 1:
        head = f"#{first.index}…#{r.index} ×{len(group)}"
    else:
        head = f"#{r.index}"
    method = "WS" if r.resource_type == "websocket" else r.method

    def short(u: str) -> str:
        return shorten_url(sc(u), base, url_chars)

    if r.chain:
        hops = [f"{short(u)} →{st}" for u, st in r.chain]
        if len(hops) > 3:
            hops = hops[:1] + [f"… {len(hops) - 2} more redirects …"] + hops[-1:]
        url = " ".join(hops) + " " + short(r.url)
    else:
        url = short(r.url)
    parts = [head, method, url]
    if len(group) == 1 and r.failed and browser_favicon(r):
        return " ".join([*parts, f"→ {r.status}" if r.status else _outcome(r), FAVICON_NOTE])
    outcome = _outcome(r)
    if outcome:
        parts.append(outcome)
    if r.resource_type not in ("websocket",):
        parts.append(r.resource_type)
    if r.resource_type in ("websocket", "eventsource"):
        parts.append(_socket_text(r, sc))
        if r.cut_by_navigation and r.duration_ms is not None:
            parts.append(_ms([r.duration_ms]))
    else:
        if r.mime and len(group) == 1 and not r.failure and r.status and r.status != 204 \
                and r.resource_type not in ("document", "script", "stylesheet", "image", "font"):
            parts.append(r.mime)
        if len(group) == 1:
            size = format_bytes(r.encoded_bytes) if r.encoded_bytes else ""
            if size:
                parts.append(size)
        durations = [g.duration_ms for g in group if g.duration_ms is not None]
        timing = _ms(durations)
        if timing:
            parts.append(timing)
    parts.extend(flag for on, flag in ((r.worker, "(worker)"), (r.mocked, "(mocked)")) if on)
    if r.from_service_worker:
        parts.append("(service worker)")
    elif r.from_cache and len(group) == 1:
        parts.append("(cache)")
    if r.route:
        parts.append(f"@{sc(r.route)}")
    return " ".join(p for p in parts if p)


def same_origin(url: str, base: str | None) -> bool:
    """Whether ``url`` has the origin of ``base``."""
    return bool(base) and origin_of(url) == origin_of(base or "")
