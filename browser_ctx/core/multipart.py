"""``multipart/form-data`` bodies: parse them into parts, and summarise them without their files.

A multipart request body (a form with a file input, ``fetch`` with ``FormData``) is shown to the
model as one line per part, never as raw bytes or base64::

    multipart/form-data: 3 parts, 6,835 bytes
    user = "ann"
    password = "[redacted]"
    avatar: file "photo.png", image/png, 6,500 bytes

Text parts show their value (cut in the middle to ``value_chars`` characters) after the caller's
``redact_field`` has had its say; file parts (a ``filename`` in their ``Content-Disposition``) and
binary parts show only their name, file name, content type and size in bytes. Names and file names
are quoted and cut, so a hostile name cannot forge lines.

The module is pure and knows nothing of secrets: :func:`summarise` takes the redaction as a
function, which :mod:`browser_ctx.core.redact` supplies (it decides what a credential field is).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from .urls import clip_middle

__all__ = ["Part", "boundary_of", "parse", "summarise", "VALUE_CHARS", "NAME_CHARS"]

#: Characters of a text part's value shown (cut in the middle beyond this).
VALUE_CHARS = 200
#: Characters of a part's name or file name shown (cut in the middle beyond this).
NAME_CHARS = 80

_PARAM = re.compile(r';\s*([A-Za-z0-9_*-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


@dataclass(frozen=True)
class Part:
    """One part of a multipart body.

    Attributes:
        name: the ``name`` of its ``Content-Disposition`` (the form field), ``None`` if absent.
        filename: the ``filename`` (``filename*`` decoded), ``None`` for a plain field.
        content_type: its ``Content-Type`` header, ``None`` if absent.
        data: its content, in bytes.
        complete: ``False`` when the body ended inside this part (a body cut short).
    """

    name: str | None
    filename: str | None
    content_type: str | None
    data: bytes
    complete: bool = True

    @property
    def size(self) -> int:
        """Bytes of the part's content."""
        return len(self.data)

    @property
    def is_file(self) -> bool:
        """Whether the part is an uploaded file (it has a ``filename``, possibly empty)."""
        return self.filename is not None


def _params(header_value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, raw in _PARAM.findall(header_value):
        value = raw.strip()
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out[key.lower()] = value
    return out


def boundary_of(content_type: str | None) -> str | None:
    """The ``boundary`` parameter of a ``multipart/…`` Content-Type value, ``None`` if it has none
    (or the type is not multipart)."""
    if not content_type or "multipart/" not in content_type.lower():
        return None
    return _params(content_type).get("boundary") or None


def _decode_ext(value: str) -> str:
    """An RFC 5987 ``filename*`` value (``UTF-8''na%C3%AFve.txt``) decoded; anything else unchanged."""
    charset, sep, rest = value.partition("''")
    if not sep:
        return value
    try:
        return unquote(rest, encoding=charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name: read it as UTF-8
        return unquote(rest, errors="replace")


def _part(chunk: bytes, complete: bool) -> Part:
    if chunk.startswith(b"\r\n"):
        chunk = chunk[2:]
    elif chunk.startswith(b"\n"):
        chunk = chunk[1:]
    head, sep, content = chunk.partition(b"\r\n\r\n")
    if not sep:
        head, sep, content = chunk.partition(b"\n\n")
    if not sep:  # no blank line: all headers, no content
        head, content = chunk, b""
    if complete:
        if content.endswith(b"\r\n"):
            content = content[:-2]
        elif content.endswith(b"\n"):
            content = content[:-1]
    name = filename = ctype = None
    for line in head.decode("utf-8", "replace").splitlines():
        key, colon, value = line.partition(":")
        if not colon:
            continue
        key = key.strip().lower()
        if key == "content-disposition":
            params = _params(value)
            name = params.get("name")
            if "filename*" in params:
                filename = _decode_ext(params["filename*"])
            elif "filename" in params:
                filename = params["filename"]
        elif key == "content-type":
            ctype = value.strip()
    return Part(name, filename, ctype, content, complete)


def parse(body: bytes, boundary: str) -> list[Part]:
    """Split a multipart ``body`` on ``boundary`` into its parts, in order.

    The preamble and epilogue are ignored. A body cut short (no closing ``--boundary--``) keeps its
    last part with ``complete=False``. Raises ``ValueError`` when ``boundary`` does not occur in
    ``body`` (not a multipart body, or the wrong boundary).
    """
    delimiter = b"--" + boundary.encode("utf-8", "surrogateescape")
    chunks = body.split(delimiter)
    if len(chunks) < 2:
        raise ValueError("the boundary does not occur in the body")
    parts: list[Part] = []
    for i, chunk in enumerate(chunks[1:], start=1):
        if chunk.startswith(b"--"):
            return parts  # the closing delimiter
        parts.append(_part(chunk, complete=i < len(chunks) - 1))
    return parts


def _quote(text: str) -> str:
    return json.dumps(clip_middle(text, NAME_CHARS), ensure_ascii=False)


def _is_text(part: Part) -> bool:
    if part.is_file:
        return False
    ctype = (part.content_type or "text/plain").lower()
    if not (ctype.startswith("text/") or "json" in ctype or "xml" in ctype or "urlencoded" in ctype):
        return False
    if b"\x00" in part.data[:2048]:
        return False
    try:
        part.data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _file_line(part: Part, label: str) -> str:
    kind = "file " + _quote(part.filename or "") if part.is_file else "binary"
    cut = "" if part.complete else " (cut short)"
    return f"{label}: {kind}, {part.content_type or 'no type'}, {part.size:,} bytes{cut}"


def summarise(body: bytes | str, content_type: str, redact_field: Callable[[str, str, str | None], str], *,
              value_chars: int = VALUE_CHARS) -> str:
    """Return a multipart body as one header line and one line per part (see the module docstring).

    Args:
        body: the body as sent; a ``str`` (what CDP hands over) is encoded back to UTF-8 first
            (lone surrogates kept), so sizes are in bytes of that encoding.
        content_type: the request's ``Content-Type`` value, with its ``boundary`` parameter.
        redact_field: ``(name, value, content_type) -> value to show`` for every text part; it decides
            which fields are credentials (:func:`browser_ctx.core.redact.redact_body` passes one that
            hides them and redacts secrets by shape in the others).
        value_chars: characters of a text value shown, cut in the middle beyond that (at least 60).

    Files and binary parts show file name, content type and size in bytes, never their content. A
    body that cannot be read as multipart (no boundary, or the boundary not in it) is described in
    one line with its size and not shown.
    """
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    mime = content_type.split(";", 1)[0].strip().lower() or "multipart/form-data"
    boundary = boundary_of(content_type)
    if boundary is None:
        return f"{mime} body of {len(data):,} bytes without a boundary in its Content-Type; not shown."
    try:
        parts = parse(data, boundary)
    except ValueError:
        return f"{mime} body of {len(data):,} bytes that does not contain its boundary; not shown."
    lines = [f"{mime}: {len(parts):,} part{'' if len(parts) == 1 else 's'}, {len(data):,} bytes"]
    for part in parts:
        label = _quote(part.name) if part.name is not None else "(no name)"
        if label.startswith('"') and re.fullmatch(r'"[A-Za-z0-9_.\[\]-]+"', label):
            label = label[1:-1]  # a plain field name reads better unquoted
        if not _is_text(part):
            lines.append(_file_line(part, label))
            continue
        value = redact_field(part.name or "", part.data.decode("utf-8"), part.content_type)
        cut = "" if part.complete else " (cut short)"
        lines.append(f"{label} = {json.dumps(clip_middle(value, value_chars), ensure_ascii=False)}{cut}")
    return "\n".join(lines)
