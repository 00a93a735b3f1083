"""Redaction of captured payloads: JSON values, request and response bodies (JSON, form, multipart,
GraphQL), WebSocket frames and server-sent events (see :mod:`browser_ctx.core.redact`)."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from .. import multipart
from .rules import MARKER, _note, is_secret_field, is_secret_name, redact_form, redact_text

# GraphQL: an argument or input field given a variable ("password: $pw").
_GRAPHQL_VAR_ARG = re.compile(r"(?<![\w$])([A-Za-z_]\w{0,63})\s*:\s*\$([A-Za-z_]\w{0,63})")
# socket.io over engine.io: packet type digits, an optional "/namespace,", an optional ack id, then JSON.
_SOCKET_IO = re.compile(r"^(\d{1,3})(/[^,\[{]{0,200},)?(\d{0,12})(?=[\[{])")


def _graphql_secret_variables(query: str) -> set[str]:
    """Names of the variables a GraphQL document passes to secret-named arguments or input fields
    (``login(password: $pw)`` → ``{"pw"}``)."""
    return {var for arg, var in _GRAPHQL_VAR_ARG.findall(query) if is_secret_name(arg)}


def _leaves(value: Any) -> Iterable[str]:
    """The scalar values inside a JSON value, as text (what to remember of a hidden container)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def _hide(value: Any, found: list[str] | None) -> Any:
    """A secret field's value: :data:`MARKER`, whatever its type (``None`` and ``""`` stay). Its
    text, and every scalar inside it when it is an object or array, go to ``found``."""
    if value is None or value == "":
        return value
    if isinstance(value, str):
        _note(found, value)
    else:
        _note(found, json.dumps(value, ensure_ascii=False), *_leaves(value))
    return MARKER


def _walk(value: Any, found: list[str] | None, parent: str = "") -> Any:
    """``value`` redacted; ``parent`` is the name of the field holding it (an array passes its own on)."""
    if isinstance(value, dict):
        secret_vars: set[str] = set()
        query = value.get("query")
        if isinstance(query, str) and isinstance(value.get("variables"), dict):
            secret_vars = _graphql_secret_variables(query)
        out = {}
        for k, v in value.items():
            if is_secret_field(str(k), parent):
                out[k] = _hide(v, found)
            elif k == "variables" and secret_vars and isinstance(v, dict):
                out[k] = {vk: _hide(vv, found) if vk in secret_vars else _walk(vv, found, vk)
                          for vk, vv in v.items()}
            else:
                out[k] = _walk(v, found, str(k))
        return out
    if isinstance(value, list):
        return [_walk(v, found, parent) for v in value]
    if isinstance(value, str):
        return redact_text(value, found)
    return value


def redact_json(value: Any, found: list[str] | None = None) -> Any:
    """Return a copy of a parsed JSON value with its secrets redacted.

    Secret-named fields at any depth (:func:`is_secret_field`: ``key`` only under an auth-like parent; inside
    arrays too) become
    :data:`MARKER` whatever their type; in a GraphQL request (an object with a ``query`` string and
    a ``variables`` object) the variables the query passes to secret-named arguments
    (``login(password: $pw)``) too; every other string goes through :func:`redact_text` (JWTs,
    ``Bearer …``, URLs, inline GraphQL arguments ``login(password: "…")``).
    """
    return _walk(value, found)


_JSON_FIELD = re.compile(r'"([^"\\]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _multipart_field(found: list[str] | None) -> Callable[[str, str, str | None], str]:
    def field(name: str, value: str, content_type: str | None) -> str:
        if is_secret_name(name):
            _note(found, value)
            return MARKER
        return redact_body(value, content_type, found)
    return field


def _multipart(text: str, mime: str, found: list[str] | None) -> str:
    """A multipart body summarised part by part (:func:`browser_ctx.core.multipart.summarise`). A
    body handed over as base64 (CDP does that for bodies with binary parts) is decoded first."""
    boundary = multipart.boundary_of(mime)
    body: bytes | str = text
    if boundary and boundary not in text:
        compact = "".join(text.split())
        try:
            decoded = base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if boundary.encode("utf-8", "surrogateescape") in decoded:
            body = decoded
    return multipart.summarise(body, mime, _multipart_field(found))


def redact_body(text: str, mime: str | None = None, found: list[str] | None = None) -> str:
    """Redact a request or response body.

    - ``multipart/…`` (by MIME type, which carries the boundary): summarised part by part, credential
      fields redacted, files shown by name, type and size only, never their bytes or base64
      (:mod:`browser_ctx.core.multipart`);
    - JSON (by MIME type or shape): parsed and re-serialised compactly with :func:`redact_json` (kept
      byte for byte when nothing was secret); JSON that does not parse is redacted field by field
      with a pattern (``"password": "…"``) and by shape;
    - form bodies: :func:`redact_form`;
    - anything else: by shape (:func:`redact_text`).
    """
    if not text:
        return text
    original_mime = (mime or "").strip()  # the boundary parameter is case-sensitive
    mime = original_mime.lower()
    if mime.startswith("multipart/"):
        return _multipart(text, original_mime, found)
    stripped = text.lstrip()
    if "json" in mime or stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            local: list[str] = []
            redacted = redact_json(parsed, local)
            if not local and redacted == parsed:
                return text  # nothing secret: keep the original text byte for byte
            _note(found, *local)
            return json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))

        def field(m: re.Match[str]) -> str:
            if is_secret_name(m.group(1)) and m.group(2):
                _note(found, m.group(2))
                return f'"{m.group(1)}":"{MARKER}"'
            return m.group(0)
        return redact_text(_JSON_FIELD.sub(field, text), found)
    if "x-www-form-urlencoded" in mime or (not mime and re.fullmatch(r"[^\s=&]+=[^\s&]*(&[^\s=&]+=[^\s&]*)*", text)):
        return redact_form(text, found)
    return redact_text(text, found)


def redact_frame(payload: str, found: list[str] | None = None) -> str:
    """Redact one WebSocket text frame.

    A socket.io packet (``42["auth",{"token":"…"}]``, ``42/chat,7["login","…"]``: engine.io/socket.io
    type digits, namespace and ack id before JSON) has its JSON redacted; an event whose name is
    secret (``auth``, ``token``, …) has all its arguments redacted. Plain JSON goes through
    :func:`redact_json`; anything else through :func:`redact_text`.
    """
    if not payload:
        return payload
    m = _SOCKET_IO.match(payload)
    prefix, body = (payload[:m.end()], payload[m.end():]) if m else ("", payload)
    if body[:1] in ("{", "["):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and parsed and isinstance(parsed[0], str) and is_secret_name(parsed[0]):
            return prefix + json.dumps([parsed[0], *(_hide(a, found) for a in parsed[1:])], ensure_ascii=False,
                                       separators=(",", ":"))
        if isinstance(parsed, (dict, list)):
            return prefix + redact_body(body, "application/json", found)
    return prefix + redact_text(body, found)


def redact_event(event: str | None, data: str, found: list[str] | None = None) -> str:
    """Redact the data of one server-sent event named ``event`` (``None``/``"message"`` for unnamed).

    An event with a secret name (``token``, ``session``, …) has its whole data redacted; other data is
    redacted as a body (JSON by shape, else by :func:`redact_text`).
    """
    if event and event != "message" and is_secret_name(event) and data:
        _note(found, data)
        return MARKER
    return redact_body(data, None, found)
