"""The ``storage`` caps: cookies, ``localStorage``/``sessionStorage`` items, and storage state (a saved login).

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``browser_cookie_list {domain?, path?}``,
``browser_cookie_get {name}``, ``browser_cookie_set {name, value, domain?, path?, expires?, httpOnly?, secure?,
sameSite?}``, ``browser_cookie_delete {name}``, ``browser_cookie_clear``, ``browser_localstorage_*`` and
``browser_sessionstorage_*`` ``{key?, value?}``, ``browser_storage_state {filename?}``,
``browser_set_storage_state {filename}``). Ours: every cookie and web-storage tool works on the current page's
origin unless ``origin`` is given (``*``: every origin, cookies only; see :mod:`browser_ctx.browser.storage`).

Secrets: a listing never shows a cookie's value (``[redacted]``; cookies are credentials by the ``Cookie`` header
rule) and shows web-storage values redacted by the session's rules (a secret-named key, secrets by shape, JSON
fields named like secrets), cut to :data:`LIST_VALUE_CHARS` characters. A value is shown only by a ``get`` that
names it, and even then the pipeline scrubs values the session already knows as secrets. ``--no-redact`` shows
everything. State files are saved only under ``--output-dir`` (:func:`browser_ctx.files.output_path`) and loaded
from there or from ``--allowed-roots``.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import InvalidArgument, PageError
from ...browser.storage import ALL, cookies_in_scope, scope_origin, web_storage
from ...core.redact import MARKER, is_secret_name
from ...core.urls import clip_end
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "LIST_VALUE_CHARS"]

#: Characters of a web-storage value a listing shows (after redaction).
LIST_VALUE_CHARS = 80
_SAME_SITE = ("Strict", "Lax", "None")


def _done(text: str, **meta: Any) -> Rendered:
    return Rendered(text, meta=meta)  # kept for offset only by the pageable lists and gets


def _flags(c: dict[str, Any]) -> str:
    bits = [f"{c.get('domain', '')}{c.get('path', '')}"]
    bits += [f for f, on in (("HttpOnly", c.get("httpOnly")), ("Secure", c.get("secure"))) if on]
    if c.get("sameSite"):
        bits.append(f"SameSite={c['sameSite']}")
    expires = float(c.get("expires") or -1)
    bits.append("session" if expires < 0 else "expires " + datetime.fromtimestamp(expires, UTC).strftime(
        "%Y-%m-%d %H:%M UTC"))
    return "; ".join(bits)


def _where(origin: str) -> str:
    return "every origin" if origin == ALL else origin


async def cookie_list(call: ToolCall) -> Rendered:
    """Cookies of the origin (``domain``/``path`` filter as ``@playwright/mcp``), values never shown."""
    a = call.args
    tab = await call.session.current_tab()
    origin = scope_origin(tab, a.get("origin")) if not a.get("domain") else ALL
    found = await cookies_in_scope(tab, origin, domain=a.get("domain"), path=a.get("path"))
    red = call.session.redactor
    if not found:
        return _done(f"No cookies for {_where(origin)}.", count=0)
    lines = [f"{len(found)} cookie{'s' if len(found) != 1 else ''} for {_where(origin)} (values: "
             f"browser_cookie_get name):"]
    lines += [f"- {c['name']}={MARKER if red.enabled else c.get('value', '')} ({_flags(c)})" for c in found]
    return _done("\n".join(lines), count=len(found))


async def cookie_get(call: ToolCall) -> Rendered:
    """The cookie(s) named ``name`` in scope, with their values (known secrets stay scrubbed)."""
    a = call.args
    tab = await call.session.current_tab()
    origin = scope_origin(tab, a.get("origin"))
    found = [c for c in await cookies_in_scope(tab, origin) if c["name"] == a["name"]]
    if not found:
        return _done(f"No cookie {a['name']!r} for {_where(origin)}.")
    red = call.session.redactor
    lines = []
    for c in found:
        value = str(c.get("value", ""))
        hidden = " (a secret this session redacts everywhere)" if red.scrub(value) != value else ""
        lines.append(f"{c['name']}={value} ({_flags(c)}){hidden}")
    return _done("\n".join(lines))


async def cookie_set(call: ToolCall) -> Rendered:
    """Add or replace a cookie: for ``domain``/``path`` when given, else for the origin (path ``/``)."""
    a = call.args
    tab = await call.session.current_tab()
    cookie: dict[str, Any] = {"name": a["name"], "value": a["value"]}
    if not a["name"].strip():
        raise InvalidArgument("name is empty; give the cookie's name.")
    if a.get("domain"):
        cookie.update(domain=a["domain"], path=a.get("path") or "/")
    else:
        origin = scope_origin(tab, a.get("origin"))
        if origin == ALL:
            raise InvalidArgument("origin * does not say where to set the cookie; give an origin or a domain.")
        cookie["url"] = origin + (a.get("path") or "/")
    if a.get("sameSite") is not None and a["sameSite"] not in _SAME_SITE:
        raise InvalidArgument(f"sameSite must be one of {', '.join(_SAME_SITE)} (got {a['sameSite']!r}).")
    for key in ("expires", "httpOnly", "secure", "sameSite"):
        if a.get(key) is not None:
            cookie[key] = a[key]
    try:
        await tab.page.context.add_cookies([cookie])  # type: ignore[list-item]
    except PlaywrightError as exc:
        raise InvalidArgument(f"Could not set cookie {a['name']!r}: {str(exc).splitlines()[0]}") from exc
    where = cookie.get("url") or f"{cookie['domain']}{cookie['path']}"
    return _done(f"Set cookie {a['name']!r} for {where} ({len(a['value'])} characters).")


async def _clear(call: ToolCall, name: str | None) -> Rendered:
    a = call.args
    tab = await call.session.current_tab()
    origin = scope_origin(tab, a.get("origin"))
    found = [c for c in await cookies_in_scope(tab, origin) if name is None or c["name"] == name]
    try:
        if origin == ALL and name is None:
            await tab.page.context.clear_cookies()
        else:
            for c in found:
                await tab.page.context.clear_cookies(name=c["name"], domain=c["domain"], path=c["path"])
    except PlaywrightError as exc:
        raise PageError(f"Could not delete cookies: {str(exc).splitlines()[0]}") from exc
    what = f"cookie {name!r}" if name else "cookies"
    n = len(found)
    text = f"Deleted {n} {what} for {_where(origin)}." if n else f"No {what} for {_where(origin)}."
    return _done(text, count=n)


async def cookie_delete(call: ToolCall) -> Rendered:
    """Delete the cookie(s) named ``name`` in scope."""
    return await _clear(call, call.args["name"])


async def cookie_clear(call: ToolCall) -> Rendered:
    """Delete every cookie in scope (``origin: "*"``: all of the browser's)."""
    return await _clear(call, None)


def _shown(call: ToolCall, key: str, value: str, length: int) -> str:
    """A listed web-storage value, redacted by the session's rules and cut."""
    red = call.session.redactor
    if not red.enabled:
        shown = value
    elif is_secret_name(key):
        shown = MARKER
    else:
        try:
            parsed = json.loads(value) if value[:1] in "{[" and length == len(value) else None
        except ValueError:
            parsed = None
        shown = json.dumps(red.json(parsed), ensure_ascii=False) if parsed is not None else red.text(value)
    cut = clip_end(" ".join(shown.split()), LIST_VALUE_CHARS)
    return cut + (f" ({length:,} characters)" if cut != shown or length > len(value) else "")


def _web(area: str, op: str) -> Any:
    label = f"{area}Storage"

    async def handler(call: ToolCall) -> Rendered:
        a = call.args
        tab = await call.session.current_tab()
        origin = scope_origin(tab, a.get("origin"))
        key = a.get("key")
        got = await web_storage(tab, area, op, origin, key, a.get("value"))
        if op == "list":
            items = got["items"]
            if not items:
                return _done(f"No {label} items on {origin}.", count=0)
            more = got["total"] - len(items)
            lines = [f"{got['total']} {label} item{'s' if got['total'] != 1 else ''} on {origin} (values redacted "
                     f"by the secret rules; one whole: browser_{area}storage_get key):"]
            lines += [f"- {k} = {_shown(call, k, v, n)}" for k, v, n in items]
            return _done("\n".join(lines + ([f"… {more} more not listed."] if more > 0 else [])),
                         count=got["total"])
        if op == "get":
            if got["value"] is None:
                return _done(f"{label} key {key!r} is not set on {origin}.")
            return _done(f"{key} = {got['value']}")
        if op == "set":
            return _done(f"Set {label} {key!r} on {origin} ({len(a['value'])} characters; {got['count']} "
                               "items now).")
        if op == "delete":
            return _done(f"Deleted {label} {key!r} on {origin}." if got["existed"] else
                         f"{label} key {key!r} was not set on {origin}.")
        return _done(f"Cleared {label} on {origin} ({got['existed']} items).")

    handler.__doc__ = f"{op} on {label} of the origin (``origin``, default the current page's)."
    return handler


async def storage_state(call: ToolCall) -> Rendered:
    """Save the context's cookies and ``localStorage`` (a login) as a Playwright storage-state JSON file under
    ``--output-dir`` (``filename``, default ``storage-state-<epoch s>.json``); values are never shown."""
    tab = await call.session.current_tab()
    path = files.output_path(call.settings, call.args.get("filename") or f"storage-state-{int(time.time())}.json")
    try:
        state = await tab.page.context.storage_state()
    except PlaywrightError as exc:
        raise PageError(f"Could not read the storage state: {str(exc).splitlines()[0]}") from exc
    data = json.dumps(state, indent=2).encode()
    files.save(path, data)
    origins = [o["origin"] for o in state.get("origins", [])]
    n = len(state.get("cookies", []))
    return _done(f"Saved {n} cookie{'s' if n != 1 else ''} and localStorage of {len(origins)} origin"
                       f"{'s' if len(origins) != 1 else ''} ({', '.join(origins[:5]) or 'none'}) to {path}, "
                       f"{len(data):,} bytes. Load it with browser_set_storage_state or --storage-state.",
                 path=str(path), cookies=n, origins=len(origins), bytes=len(data))


async def set_storage_state(call: ToolCall) -> Rendered:
    """Replace the context's cookies and ``localStorage`` with a storage-state file's (``filename``: under
    ``--output-dir``, else within ``--allowed-roots``); the page sees them on its next load."""
    raw = call.args["filename"]
    path = files.output_path(call.settings, raw) if not raw.startswith("/") else None
    if path is None or not path.is_file():
        path = files.upload_path(call.settings, raw)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        cookies, origins = state["cookies"], state["origins"]
        assert isinstance(cookies, list) and isinstance(origins, list)
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as exc:
        raise InvalidArgument(f"{raw} is not a Playwright storage-state file (JSON with cookies and origins); "
                              "save one with browser_storage_state.") from exc
    tab = await call.session.current_tab()
    try:
        await tab.page.context.set_storage_state(state)
    except PlaywrightError as exc:
        raise InvalidArgument(f"Could not load {raw}: {str(exc).splitlines()[0]}") from exc
    return _done(f"Loaded {len(cookies)} cookie{'s' if len(cookies) != 1 else ''} and localStorage of "
                       f"{len(origins)} origin{'s' if len(origins) != 1 else ''} from {path} (what was set before "
                       "is cleared). Navigate or reload to use them.", cookies=len(cookies), origins=len(origins))


_STR: dict[str, Any] = {"type": "string"}
_O = {"origin": _STR}


def _spec(name: str, description: str, properties: dict, handler: Any, required: tuple[str, ...] = (),
          read_only: bool = False) -> ToolSpec:
    return ToolSpec(name=name, description=description, properties=properties, handler=handler,
                    required=required, pageable=name.endswith(("_list", "_get")),
                    caps="storage", read_only=read_only)


def _web_specs(area: str) -> list[ToolSpec]:
    n = f"browser_{area}storage"
    return [
        _spec(f"{n}_list", f"List {area}Storage items (values redacted).", _O, _web(area, "list"), read_only=True),
        _spec(f"{n}_get", f"Get a {area}Storage item.", {"key": _STR, **_O}, _web(area, "get"), ("key",), True),
        _spec(f"{n}_set", f"Set a {area}Storage item.", {"key": _STR, "value": _STR, **_O}, _web(area, "set"),
              ("key", "value")),
        _spec(f"{n}_delete", f"Delete a {area}Storage item.", {"key": _STR, **_O}, _web(area, "delete"), ("key",)),
        _spec(f"{n}_clear", f"Clear {area}Storage.", _O, _web(area, "clear")),
    ]


TOOLS = [
    _spec("browser_cookie_list", "List cookies of the page's origin (or origin, * all; domain/path filter); "
          "values redacted.", {**_O, "domain": _STR, "path": _STR}, cookie_list, read_only=True),
    _spec("browser_cookie_get", "Get cookies named name.", {"name": _STR, **_O}, cookie_get, ("name",), True),
    _spec("browser_cookie_set", "Set a cookie (default: for the page's origin).",
          {"name": _STR, "value": _STR, **_O, "domain": _STR, "path": _STR, "expires": {"type": "number"},
           "httpOnly": {"type": "boolean"}, "secure": {"type": "boolean"}, "sameSite": {"enum": list(_SAME_SITE)}},
          cookie_set, ("name", "value")),
    _spec("browser_cookie_delete", "Delete cookies named name.", {"name": _STR, **_O}, cookie_delete, ("name",)),
    _spec("browser_cookie_clear", "Delete the origin's cookies (origin * all).", _O, cookie_clear),
    *_web_specs("local"),
    *_web_specs("session"),
    _spec("browser_storage_state", "Save cookies and localStorage (a login) to filename under the output dir.",
          {"filename": _STR}, storage_state, read_only=True),
    _spec("browser_set_storage_state", "Load a saved storage state, replacing cookies and localStorage.",
          {"filename": _STR}, set_storage_state, ("filename",)),
]
