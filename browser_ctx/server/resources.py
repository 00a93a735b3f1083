"""MCP resources for captures: every kept result can be read (and paged) without another browser round trip.

A tool result the pipeline keeps as a capture (see :class:`browser_ctx.browser.session.Capture`;
the last ``CapSettings.captures_per_tab`` per tab) is listed as a resource::

    browser-ctx://tab/{tab}/capture/{n}

``tab`` is the tab id, ``n`` a number given to each capture the first time it is listed or read
(1, 2, 3 … per tab, never reused; a re-render of the same tool call is a new capture with a new
number). Reading takes the same paging as tools, as query parameters::

    browser-ctx://tab/1/capture/7?offset=4000&maxTokens=1000

``offset`` is in characters, ``maxTokens`` in o200k tokens (default and bounds as for tools); the
text is cut by :func:`browser_ctx.core.capping.cap` and ends with a marker naming the URI to read
on; the resource's ``_meta`` carries the same fields as a tool's structured content
(``truncated``, ``fullLength``, ``fullTokens``, ``nextOffset``, and ``pageChanged`` when the page
changed since the capture).

Wiring (in :func:`browser_ctx.server.app.create_server`)::

    Server(..., on_list_resources=lambda ctx, params: list_resources(<session of ctx>),
                on_read_resource=lambda ctx, params: read_resource(<session of ctx>, params.uri, settings))
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import mcp_types as types

from .._errors import InvalidArgument
from ..browser.session import BrowserSession, Capture, Tab
from ..core.budget import Budget
from ..settings import Settings
from .pipeline import cap_capture, page_changed

__all__ = ["SCHEME", "capture_uri", "list_resources", "read_resource", "PER_TAB"]

#: URI scheme of browser-ctx resources.
SCHEME = "browser-ctx"
#: Captures listed per tab (newest first); older ones kept by the tab can still be read by URI.
PER_TAB = 5

#: Characters of a capture's arguments shown in its resource description (longer ones are cut with "…").
DESCRIBED_ARGS_CHARS = 120
#: Tokens kept free when capping a resource read: its end marker names the URI to read on, a little
#: longer than the tool marker that :func:`browser_ctx.core.capping.cap` counts.
MARKER_RESERVE = 20

_URI = re.compile(r"^browser-ctx://tab/(\d+)/capture/(\d+)$")


def _number(tab: Tab, capture: Capture) -> int:
    """``capture``'s resource number, given on first use (``Tab.last_capture_number`` + 1; never reused)."""
    if not capture.number:
        tab.last_capture_number += 1
        capture.number = tab.last_capture_number
    return capture.number


def capture_uri(tab: Tab, capture: Capture) -> str:
    """Return the resource URI of ``capture`` (kept by ``tab``), numbering it on first use."""
    return f"{SCHEME}://tab/{tab.id}/capture/{_number(tab, capture)}"


def _describe(key: str) -> tuple[str, str]:
    """Split a capture key (tool name + JSON arguments) into the tool and a short argument string."""
    brace = key.find("{")
    tool, args = (key[:brace], key[brace:]) if brace >= 0 else (key, "")
    if args in ("{}", ""):
        return tool, ""
    return tool, args if len(args) <= DESCRIBED_ARGS_CHARS else args[:DESCRIBED_ARGS_CHARS - 1] + "…"


def list_resources(session: BrowserSession, per_tab: int = PER_TAB) -> types.ListResourcesResult:
    """List the last ``per_tab`` captures of every open tab, newest first (never launches the browser).

    Each resource: ``uri``, ``name`` (``tab 1 capture 7``), ``description`` (tool, arguments, tokens
    and characters of the whole result), ``mimeType`` ``text/plain``, ``size`` (bytes, UTF-8).
    """
    resources: list[types.Resource] = []
    for tab in session.tabs:
        kept = list(tab.captures.items())
        uris = [capture_uri(tab, c) for _, c in kept]  # numbered oldest first
        for (key, capture), uri in reversed(list(zip(kept, uris, strict=True))[-per_tab:]):
            tool, args = _describe(key)
            n = uri.rsplit("/", 1)[1]
            resources.append(types.Resource(
                uri=uri, name=f"tab {tab.id} capture {n}",
                description=f"{tool}{' ' + args if args else ''}: {capture.full_tokens:,} tokens, "
                            f"{len(capture.text):,} chars",
                mime_type="text/plain", size=len(capture.text.encode("utf-8", "surrogatepass"))))
    return types.ListResourcesResult(resources=resources)


def _find(session: BrowserSession, tab_id: int, n: int) -> tuple[Tab, Capture]:
    tab = next((t for t in session.tabs if t.id == tab_id), None)
    if tab is None:
        raise InvalidArgument(f"No tab {tab_id}; it was closed. List resources again.")
    for capture in tab.captures.values():  # make sure every kept capture has its number
        _number(tab, capture)
    found = next((c for c in tab.captures.values() if c.number == n), None)
    if found is None:
        raise InvalidArgument(f"Capture {n} of tab {tab_id} is no longer kept (only the last few results per tab "
                              "are); list resources again or call the tool again.")
    return tab, found


def _int_param(query: dict[str, list[str]], name: str) -> int | None:
    if name not in query:
        return None
    try:
        value = int(query[name][-1])
    except ValueError:
        raise InvalidArgument(f"{name} must be an integer (got {query[name][-1]!r}).") from None
    if value < 0:
        raise InvalidArgument(f"{name} must be >= 0 (got {value}).")
    return value


async def read_resource(session: BrowserSession, uri: str, settings: Settings) -> types.ReadResourceResult:
    """Read one capture, paged like a tool result.

    Args:
        session: the client's browser session.
        uri: ``browser-ctx://tab/{tab}/capture/{n}``, optionally with ``?offset=N&maxTokens=M``.
        settings: for the cap defaults and ceilings.

    Returns:
        One ``TextResourceContents`` (``text/plain``) whose ``_meta`` holds the truncation fields.

    Raises:
        InvalidArgument: a malformed URI, a bad parameter, a closed tab or a capture no longer kept.
    """
    parts = urlsplit(str(uri))
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    m = _URI.match(base)
    if m is None:
        raise InvalidArgument(f"Unknown resource {uri!r}; expected {SCHEME}://tab/N/capture/M (list resources).")
    query = parse_qs(parts.query)
    caps = settings.caps
    offset = _int_param(query, "offset") or 0
    requested = _int_param(query, "maxTokens")
    budget = Budget.from_request(requested, caps).reserve(MARKER_RESERVE)
    tab, capture = _find(session, int(m.group(1)), int(m.group(2)))
    extra: dict[str, Any] = {}
    async with session.lock:
        if await page_changed(tab, capture):
            extra["pageChanged"] = True
    capped = cap_capture(capture.text, capture.full_tokens, budget, offset, extra)
    text = capped.text
    if capped.truncated:
        # The tool marker says "call again with offset=N"; for a resource, name the URI to read.
        head, sep, _ = text.rpartition("; call again with offset=")
        if sep:
            text = f"{head}; read {base}?offset={capped.next_offset} to read on."
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=str(uri), mime_type="text/plain", text=text, _meta=capped.meta)])
