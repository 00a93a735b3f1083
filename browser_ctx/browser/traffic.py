"""What the network of one tab did since a mark, read from the tab's own capture (``tab.events``).

The action watcher (:mod:`.actions`) marks the capture's request count before acting, then reads the
newer :class:`~browser_ctx.core.network.RequestRecord` s while the page settles: requests still waiting
for an answer, long-lived connections, polling, failures. It adds no listener of its own: the capture
(CDP) is the one network observer of a tab.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..core.network import RequestRecord, browser_favicon
from ..core.urls import shorten_url

__all__ = ["Traffic", "LONG_LIVED", "POLL_REPEATS", "URL_CHARS", "short_url", "stream_label"]

#: A URL requested this many times while settling counts as polling.
POLL_REPEATS = 3
#: Characters of a URL shown in a record line.
URL_CHARS = 100
#: Resource types of long-lived connections, which settling does not wait for.
LONG_LIVED = ("eventsource", "websocket")


def short_url(url: str) -> str:
    """``url`` cut to :data:`URL_CHARS` characters for a record line (:func:`~browser_ctx.core.urls.shorten_url`)."""
    return shorten_url(url, limit=URL_CHARS)


def _internal(url: str) -> bool:
    """The browser's own requests (the PDF viewer's chrome-extension:, data:, blob:), not the page's."""
    return url.startswith(("chrome-extension:", "chrome:", "data:", "blob:", "about:"))


def _poll_key(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}{p.path}"


def stream_label(rec: RequestRecord) -> str:
    """``EventSource <url>`` or ``WebSocket <url>`` for a long-lived connection's record."""
    return f"{'EventSource' if rec.resource_type == 'eventsource' else 'WebSocket'} {short_url(rec.url)}"


@dataclass
class Traffic:
    """This tab's requests since the action started, read from its capture's records (``tab.events``).

    Attributes:
        base: the capture's request count when the action started; newer records are the action's.
        inflight: URLs of requests still waiting for an answer (a response counts as done: Chromium
            reports a request finished only once the page read its body, which an unread ``fetch()``
            body never is), long-lived connections and polling left out.
        long_lived: labels of EventSource/WebSocket connections opened.
        poll_counts: requests per URL (scheme, host, path).
        failed: one line per failed request or HTTP error (status >= 400); a mocked one ends ``(mocked)``.
        mocked: one line per other request a ``browser_route`` mock answered, ``GET /api → 200 (mocked)``.
        activity: a figure that changes whenever a counted request starts, is answered, finishes or fails.
    """

    base: int = 0
    inflight: list[str] = field(default_factory=list)
    long_lived: list[str] = field(default_factory=list)
    poll_counts: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    mocked: list[str] = field(default_factory=list)
    activity: int = 0

    def read(self, records: list[RequestRecord]) -> bool:
        """Recount from the capture's ``records``; return whether anything changed since the last read."""
        new = [r for r in records if r.index > self.base]
        self.inflight, self.long_lived, self.poll_counts, self.failed, self.mocked = [], [], {}, [], []
        activity = 0  # changes whenever a counted request starts, is answered, finishes or fails
        for rec in new:
            if _internal(rec.url) or browser_favicon(rec):  # the browser's own favicon fetch is not the page's
                continue
            if rec.resource_type in LONG_LIVED:
                self.long_lived.append(stream_label(rec))
                continue
            key = _poll_key(rec.url)
            self.poll_counts[key] = self.poll_counts.get(key, 0) + 1
            mark = " (mocked)" if rec.mocked else ""
            if rec.status is not None and rec.status >= 400:
                self.failed.append(f"{rec.method} {short_url(rec.url)} → {rec.status}{mark}")
            elif rec.failed and not ("ERR_ABORTED" in (rec.failure or "") and rec.resource_type == "document"):
                # (answered then aborted, e.g. a keepalive PUT's 204, is not failed; neither is an aborted
                # document: a navigation replaced by another one, or a download)
                self.failed.append(f"{rec.method} {short_url(rec.url)} → {rec.failure or rec.blocked}")
            elif rec.mocked:
                self.mocked.append(f"{rec.method} {short_url(rec.url)} → {rec.status}{mark}")
            if self.poll_counts[key] >= POLL_REPEATS:
                continue  # polling: neither waited for nor counted as activity
            activity += rec.seq + 1
            if rec.status is None and rec.end is None:
                self.inflight.append(rec.url)
        changed, self.activity = activity != self.activity, activity
        return changed
