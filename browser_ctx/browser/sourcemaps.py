"""Fetch the source maps of a tab's scripts, for source-mapped console locations (:mod:`browser_ctx.core.sourcemap`).

A script named in a console location, on the page's own origin (where an app's dev server or build
serves its code; other origins' scripts are libraries, and are never fetched from the server side), is
fetched once through the browser context's request client (``context.request``: the page's cookies and
HTTP credentials, and nothing added to the tab's network listing). Its map comes from the script's
last ``//# sourceMappingURL=`` (an inline ``data:`` URL, as the Vite dev server serves each module, or a
file beside it, as webpack and Vite builds do) or from its ``SourceMap``/``X-SourceMap`` header.
Results, failures included, are cached per tab (:attr:`~browser_ctx.browser.session.Tab.source_maps`),
at most :data:`MAX_MAPS` scripts.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ..core.console import ConsoleEntry
from ..core.sourcemap import (
    LoadedMap,
    MapFailure,
    decode_data_url,
    location_url,
    map_entry,
    map_url_of,
    parse_frame,
)

__all__ = ["SourceMaps", "MAX_MAPS", "MAX_BYTES", "FETCH_TIMEOUT_MS"]

log = logging.getLogger("browser_ctx")

#: Scripts whose map (or failure) a tab remembers; the least recently used is dropped first.
MAX_MAPS = 32
#: Largest script or map read (bytes); bigger ones are reported as not mapped.
MAX_BYTES = 20 * 1024 * 1024
#: The longest wait (ms) for one script or map.
FETCH_TIMEOUT_MS = 5_000


class SourceMaps:
    """The source maps of one tab's scripts, by absolute script URL: a :class:`LoadedMap`, a
    :class:`MapFailure` (why it could not be used), or ``None`` (the script declares no map)."""

    def __init__(self) -> None:
        self._maps: OrderedDict[str, LoadedMap | MapFailure | None] = OrderedDict()

    async def map_entry(self, page: Page, entry: ConsoleEntry) -> ConsoleEntry:
        """Return ``entry`` with its locations mapped to original sources (see
        :func:`~browser_ctx.core.sourcemap.map_entry`), fetching the maps it needs first. Never raises:
        a script or map that cannot be fetched is named in the entry as not source-mapped."""
        base = page.url
        wanted = {parsed[1] for parsed in (parse_frame(f) for f in entry.stack) if parsed}
        source_url = location_url(entry.source)
        if source_url:
            wanted.add(source_url)
        origin = _origin(base)
        absolute = {url: urljoin(base, url) for url in wanted}
        fetch = [url for url, full in absolute.items()  # "<anonymous>" (evaluated code) is no script URL
                 if origin and _origin(full) == origin and not url.startswith("<")]
        loaded = await asyncio.gather(*(self._load(page, absolute[url]) for url in fetch))
        found: dict[str, LoadedMap | MapFailure | None] = dict(zip(fetch, loaded, strict=True))
        return map_entry(entry, lambda url: found.get(url))

    async def maps_for(self, page: Page, urls: set[str]) -> dict[str, LoadedMap | MapFailure | None]:
        """The maps of the scripts at ``urls`` (absolute or relative to the page) on the page's origin, fetched
        once and cached like the console's; other origins' scripts are left out. Never raises."""
        origin = _origin(page.url)
        fetch = [url for url in urls if origin and _origin(urljoin(page.url, url)) == origin]
        loaded = await asyncio.gather(*(self._load(page, urljoin(page.url, url)) for url in fetch))
        return dict(zip(fetch, loaded, strict=True))

    async def _load(self, page: Page, url: str) -> LoadedMap | MapFailure | None:
        if url in self._maps:
            self._maps.move_to_end(url)
            return self._maps[url]
        result = await self._fetch_map(page, url)
        self._maps[url] = result
        while len(self._maps) > MAX_MAPS:
            self._maps.popitem(last=False)
        return result

    async def _fetch_map(self, page: Page, url: str) -> LoadedMap | MapFailure | None:
        got = await _get(page, url)
        if isinstance(got, MapFailure):
            return MapFailure(f"script {got}")
        body, headers = got
        script = body.decode("utf-8", "replace")
        where = map_url_of(script) or headers.get("sourcemap") or headers.get("x-sourcemap")
        if not where:
            return None
        data = decode_data_url(where)
        if data is None:
            if where.startswith("data:"):
                return MapFailure("inline source map unreadable")
            fetched = await _get(page, urljoin(url, where))
            if isinstance(fetched, MapFailure):
                return MapFailure(f"source map {fetched}")
            data = fetched[0]
        try:
            return LoadedMap(data, script)
        except ValueError as exc:
            return MapFailure(f"source map {exc}")


def _origin(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL, else ``None``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


async def _get(page: Page, url: str) -> tuple[bytes, dict[str, str]] | MapFailure:
    """The body and headers of ``url`` through the context's request client, or why not."""
    try:
        answer = await page.context.request.get(url, timeout=FETCH_TIMEOUT_MS)
    except PlaywrightError as exc:
        log.debug("source map fetch failed: %s", exc)
        return MapFailure("unreachable")
    try:
        if answer.status >= 400:
            return MapFailure(f"HTTP {answer.status}")
        length = int(answer.headers.get("content-length") or 0)
        if length > MAX_BYTES:
            return MapFailure(f"over {MAX_BYTES // (1024 * 1024)} MB")
        body = await answer.body()
        if len(body) > MAX_BYTES:
            return MapFailure(f"over {MAX_BYTES // (1024 * 1024)} MB")
        return body, dict(answer.headers)
    except (PlaywrightError, ValueError) as exc:
        log.debug("source map read failed: %s", exc)
        return MapFailure("unreadable")
    finally:
        await answer.dispose()
