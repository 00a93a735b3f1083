"""Cookies, ``localStorage`` and ``sessionStorage`` of a tab, scoped to an origin, as plain data.

The scope is the current page's origin unless one is given (``*`` = every origin, for cookies). Cookies come
from the browser context (the cookies a request to the origin would send, ``HttpOnly`` ones included); web
storage is read and written in a frame of the tab whose document has that origin, in our isolated world
(``js/web_storage.js``; storage is the origin's, so the page sees the change). ``localStorage`` of an origin no
frame shows is read from the context's storage state (read-only).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from .._errors import InvalidArgument, PageError
from ..core.sections import origin_of
from .scripts import script
from .session import Tab
from .worlds import in_frame

__all__ = ["scope_origin", "cookies_in_scope", "web_storage", "LIST_MAX", "VALUE_CHARS"]

#: Items a web-storage listing reads at most.
LIST_MAX = 200
#: Characters of each listed value read from the page (the listing shows fewer).
VALUE_CHARS = 400
ALL = "*"


def scope_origin(tab: Tab, origin: str | None) -> str:
    """The origin a call works on: ``origin`` (``scheme://host[:port]``, a URL is cut to its origin, ``*`` kept),
    else the current page's.

    Raises:
        InvalidArgument: ``origin`` is not an http(s) origin, or none was given and the page has none
            (``about:blank``).
    """
    if origin is not None:
        if origin.strip() == ALL:
            return ALL
        o = origin_of(origin.strip())
        if not o or urlsplit(o).scheme not in ("http", "https"):
            raise InvalidArgument(f"origin {origin!r} is not an http(s) origin such as http://localhost:3000 "
                                  "(or * for every origin).")
        return o
    o = origin_of(tab.page.url)
    if not o or urlsplit(o).scheme not in ("http", "https"):
        raise InvalidArgument(f"The page ({tab.page.url}) has no web origin; navigate first or pass origin.")
    return o


async def cookies_in_scope(tab: Tab, origin: str, *, domain: str | None = None,
                           path: str | None = None) -> list[dict[str, Any]]:
    """The cookies a request to ``origin`` would send (``*``: all), filtered as ``@playwright/mcp`` does:
    ``domain`` a substring of the cookie's domain, ``path`` a prefix of its path."""
    context = tab.page.context
    try:
        found = await context.cookies() if origin == ALL or domain else await context.cookies([origin + "/"])
    except PlaywrightError as exc:
        raise PageError(f"Could not read cookies: {str(exc).splitlines()[0]}") from exc
    out: list[dict[str, Any]] = [dict(c) for c in found]
    if domain:
        out = [c for c in out if domain in str(c.get("domain", ""))]
    if path:
        out = [c for c in out if str(c.get("path", "")).startswith(path)]
    return out


def _frame_of_origin(tab: Tab, origin: str) -> Frame | None:
    main = tab.page.main_frame
    if origin_of(main.url) == origin:
        return main
    return next((f for f in tab.page.frames if not f.is_detached() and origin_of(f.url) == origin), None)


async def web_storage(tab: Tab, area: str, op: str, origin: str, key: str | None = None,
                      value: str | None = None) -> dict[str, Any]:
    """Run ``op`` (``list``, ``get``, ``set``, ``delete``, ``clear``) on ``area`` (``local``/``session``) of
    ``origin``; see ``js/web_storage.js`` for the shapes returned.

    Raises:
        InvalidArgument: ``*`` as the origin; no frame of the tab shows ``origin`` (``localStorage`` list and
            get still answer, from the context's storage state).
        PageError: the page refuses storage (an opaque origin) or is navigating.
    """
    if origin == ALL:
        raise InvalidArgument("origin * is for cookies; web storage is per origin: give one, or omit it for "
                              "the current page's.")
    frame = _frame_of_origin(tab, origin)
    if frame is None:
        if area == "local" and op in ("list", "get"):
            return await _from_state(tab, origin, op, key)
        raise InvalidArgument(f"No frame of this tab shows {origin}; navigate there first (web storage is "
                              "read and written in a page of its origin).")
    try:
        return dict(await in_frame(tab.worlds, frame, script("web_storage"), {"area": area, "op": op, "key": key,
                                                                    "value": value, "max": LIST_MAX,
                                                                    "chars": VALUE_CHARS}))
    except PlaywrightError as exc:
        raise PageError(f"Could not use {area}Storage of {origin}: {str(exc).splitlines()[0]}") from exc


async def _from_state(tab: Tab, origin: str, op: str, key: str | None) -> dict[str, Any]:
    """``localStorage`` of an origin no frame shows, from the context's storage state."""
    try:
        state: dict[str, Any] = dict(await tab.page.context.storage_state())
    except PlaywrightError as exc:
        raise PageError(f"Could not read the storage state: {str(exc).splitlines()[0]}") from exc
    entry = next((o for o in state.get("origins", []) if o.get("origin") == origin), None)
    items = [(i["name"], i["value"]) for i in (entry or {}).get("localStorage", [])]
    if op == "get":
        return {"origin": origin, "value": next((v for k, v in items if k == key), None)}
    return {"origin": origin, "total": len(items),
            "items": [[k, v[:VALUE_CHARS], len(v)] for k, v in items[:LIST_MAX]]}
