"""Page sections: the events of one full navigation of a tab, and the routes it went through.

A full navigation (a new document in the main frame) starts a new :class:`Section`;
a client-side navigation (``history.pushState``, hash change) stays in the same section and
appends a route. Console entries and network requests carry the id of the section they were
captured in and the route in force, so listings can group and label them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["Section", "relative_url", "origin_of"]


@dataclass
class Section:
    """One full navigation.

    Attributes:
        id: 1-based, increasing per tab.
        url: the document URL (already redacted).
        started: wall-clock time the navigation started (seconds since the epoch).
        routes: URLs of client-side navigations within the section, in order (redacted).
        loader: the browser's loader id of the document, if known (requests carry it).
    """

    id: int
    url: str
    started: float
    routes: list[str] = field(default_factory=list)
    loader: str | None = None

    @property
    def route(self) -> str | None:
        """The latest client-side route, or ``None`` if the section never changed route."""
        return self.routes[-1] if self.routes else None


def origin_of(url: str) -> str:
    """Return ``scheme://host[:port]`` of ``url`` (empty string if it has none)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if not parts.scheme or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def relative_url(url: str, base: str | None) -> str:
    """Return ``url`` without its origin when it has the same origin as ``base`` (``/path?query``)."""
    if not base or not url:
        return url
    origin = origin_of(base)
    if origin and url.startswith(origin) and (len(url) == len(origin) or url[len(origin)] in "/?#"):
        rest = url[len(origin):]
        return rest or "/"
    return url
