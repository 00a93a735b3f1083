"""Secret redaction: by name where secrets are captured, by value everywhere after.

Two layers:

1. **By name**, at capture time: request/response headers (:data:`SECRET_HEADERS` and any
   header whose name contains ``token``, ``secret``, ``session`` or ``auth``), query
   parameters and JSON / form body fields named like a secret (:func:`is_secret_name`),
   and the password of ``user:pass@`` URLs. A redacted value is shown as
   ``[redacted N chars]`` (N = characters of the value).
2. **By value**, at output time: every value redacted by name is remembered for the session
   (:meth:`Redactor.remember`) and :meth:`Redactor.scrub` replaces it in *every* later output of
   every tool (console text, response bodies, page text, script source), so a secret seen in
   two places leaks from neither. The server pipeline scrubs every result.

Values shorter than :data:`MIN_SECRET_CHARS` characters are redacted by name but not
remembered (scrubbing ``"1"`` or ``"yes"`` everywhere would wreck all output).

The module functions are pure and never remember anything; the :class:`Redactor` methods of the
same names redact *and* remember, and do nothing when redaction is off (``--no-redact``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlsplit, urlunsplit

__all__ = [
    "Redactor",
    "placeholder",
    "is_secret_header",
    "is_secret_name",
    "SECRET_HEADERS",
    "MIN_SECRET_CHARS",
    "redact_header_value",
    "redact_headers",
    "redact_url",
    "redact_query",
    "redact_form",
    "redact_json",
    "redact_body",
]

#: Values shorter than this are redacted by name but not scrubbed by value.
MIN_SECRET_CHARS = 4

#: Header names (lower case) whose values are always redacted.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})
_HEADER_WORDS = ("token", "secret", "session", "auth")

#: Field / parameter names (lower case, ``-`` and ``_`` removed) redacted wherever they appear in them.
_NAME_WORDS = ("password", "passwd", "passphrase", "token", "secret", "apikey", "session", "sessid", "credential",
               "privatekey", "signature")
#: Names redacted only when they are the whole name (normalised).
_NAME_EXACT = frozenset({"pwd", "pass", "sid", "auth", "authorization", "cookie", "key", "sig", "jwt", "otp"})

_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/@?#\s]*):([^/@?#\s]*)@")


def placeholder(value: str) -> str:
    """Return ``[redacted N chars]`` for ``value`` (N = its length in characters)."""
    return f"[redacted {len(value)} chars]"


def _norm(name: str) -> str:
    return re.sub(r"[-_.\s]", "", name.lower())


def is_secret_name(name: str) -> bool:
    """Whether a query parameter or body field called ``name`` holds a secret.

    Matches (case-insensitive, ignoring ``-``/``_``/``.``) names containing password, passwd, token,
    secret, api_key, session, credential, … (so ``access_token``, ``client_secret``, ``sessionId``),
    and the exact names pwd, pass, sid, auth, key, sig, jwt, otp.
    """
    n = _norm(name)
    return bool(n) and (n in _NAME_EXACT or any(w in n for w in _NAME_WORDS))


def is_secret_header(name: str) -> bool:
    """Whether header ``name`` holds a secret: :data:`SECRET_HEADERS`, or a name containing
    token, secret, session or auth (case-insensitive)."""
    low = name.lower().strip()
    return low in SECRET_HEADERS or any(w in low for w in _HEADER_WORDS)


def _secret_parts(name: str, value: str) -> list[str]:
    """The values worth remembering from a redacted header: the whole value and its meaningful parts."""
    low = name.lower()
    parts = [value]
    if low in ("cookie",):
        for item in value.split(";"):
            if "=" in item:
                parts.append(item.split("=", 1)[1].strip())
    elif low == "set-cookie":
        for line in value.split("\n"):  # CDP joins several Set-Cookie headers with newlines
            first = line.split(";", 1)[0]
            if "=" in first:
                parts.append(first.split("=", 1)[1].strip())
            parts.append(line)
    elif " " in value.strip():
        # "Bearer abc", "Basic dXNlcjpwYXNz": the credential after the scheme.
        parts.append(value.strip().split(None, 1)[1].strip())
    return parts


def redact_header_value(name: str, value: str, found: list[str] | None = None) -> str:
    """Return the value to show for header ``name``.

    Secret headers become ``[redacted N chars]``; URL-valued headers (``Referer``, ``Location``,
    …) have their query secrets and userinfo passwords redacted (:func:`redact_url`); others are
    returned unchanged. Secret values found are appended to ``found`` when given.
    """
    if is_secret_header(name):
        if found is not None:
            found.extend(_secret_parts(name, value))
        return placeholder(value)
    if "://" in value or name.lower() in ("location", "referer", "content-location"):
        return redact_url(value, found)
    return value


def redact_headers(headers: dict[str, Any] | Iterable[tuple[str, Any]],
                   found: list[str] | None = None) -> dict[str, str]:
    """Return a new ``{name: value}`` dict with :func:`redact_header_value` applied to each value."""
    items = headers.items() if isinstance(headers, dict) else headers
    return {str(k): redact_header_value(str(k), str(v), found) for k, v in items}


def redact_query(query: str, found: list[str] | None = None) -> str:
    """Redact secret-named parameters of a query string (without ``?``), keeping its layout.

    ``a=1&access_token=abc`` → ``a=1&access_token=[redacted 3 chars]`` (N counts the decoded value).
    """
    if not query:
        return query
    out = []
    for piece in query.split("&"):
        if "=" in piece:
            k, v = piece.split("=", 1)
            if is_secret_name(unquote_plus(k)) and v:
                decoded = unquote_plus(v)
                if found is not None:
                    found.extend({decoded, v})
                piece = f"{k}={placeholder(decoded)}"
        out.append(piece)
    return "&".join(out)


def redact_url(url: str, found: list[str] | None = None) -> str:
    """Redact the ``user:pass@`` password and secret-named query parameters of ``url``.

    ``url`` is one URL; anything without ``://`` is returned unchanged. Secret values found are
    appended to ``found`` when given.
    """
    if not url or "://" not in url:
        return url
    m = _USERINFO.match(url)
    if m and m.group(3):
        password = m.group(3)
        if found is not None:
            found.extend({password, unquote(password)})
        url = f"{m.group(1)}{m.group(2)}:{placeholder(unquote(password))}@{url[m.end():]}"
    if "?" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    query = redact_query(parts.query, found)
    if query == parts.query:
        return url
    return urlunsplit(parts._replace(query=query))


def redact_form(body: str, found: list[str] | None = None) -> str:
    """Redact secret-named fields of an ``application/x-www-form-urlencoded`` body."""
    return redact_query(body, found)


def _walk(value: Any, found: list[str] | None, secret: bool = False) -> Any:
    if secret:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if value is None or value == "":
            return value
        if found is not None:
            found.append(text)
        return placeholder(text)
    if isinstance(value, dict):
        return {k: _walk(v, found, is_secret_name(str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, found) for v in value]
    if isinstance(value, str) and "://" in value:
        return redact_url(value, found)
    return value


def redact_json(value: Any, found: list[str] | None = None) -> Any:
    """Return a copy of a parsed JSON value with secret-named fields (at any depth) redacted.

    A secret field's value, whatever its type, becomes the string ``[redacted N chars]`` (N counts
    its JSON text when it is not a string); URL strings go through :func:`redact_url`.
    """
    return _walk(value, found)


_JSON_FIELD = re.compile(r'"([^"\\]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)"')


def redact_body(text: str, mime: str | None = None, found: list[str] | None = None) -> str:
    """Redact a request or response body by field names.

    JSON (by MIME type or shape) is parsed and re-serialised compactly with :func:`redact_json`;
    form bodies go through :func:`redact_form`. JSON that does not parse is redacted field by field
    with a pattern (``"password": "…"``). Other bodies are returned unchanged (the value layer still
    scrubs remembered secrets from them).
    """
    if not text:
        return text
    mime = (mime or "").lower()
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
            if found is not None:
                found.extend(local)
            return json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))

        def field(m: re.Match[str]) -> str:
            if is_secret_name(m.group(1)) and m.group(2):
                if found is not None:
                    found.append(m.group(2))
                return f'"{m.group(1)}":"{placeholder(m.group(2))}"'
            return m.group(0)
        return _JSON_FIELD.sub(field, text)
    if "x-www-form-urlencoded" in mime or (not mime and re.fullmatch(r"[^\s=&]+=[^\s&]*(&[^\s=&]+=[^\s&]*)*", text)):
        return redact_form(text, found)
    return text


class Redactor:
    """Remembers secret values for the session and scrubs them from text.

    One instance is shared by a whole MCP session: the event capture redacts by name and
    remembers what it redacted; the server pipeline calls :meth:`scrub` on every result.
    ``enabled=False`` (``--no-redact``) turns both layers off.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    @property
    def secrets_count(self) -> int:
        """How many distinct secret values are remembered."""
        return len(self._secrets)

    def remember(self, value: str) -> None:
        """Scrub ``value`` from all later output (values under :data:`MIN_SECRET_CHARS` characters
        are ignored). Its URL-encoded and JSON-escaped forms are remembered too."""
        if not self.enabled or not value:
            return
        value = value.strip()
        if len(value) < MIN_SECRET_CHARS:
            return
        forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value, ensure_ascii=False)[1:-1]}
        new = {f for f in forms if len(f) >= MIN_SECRET_CHARS} - self._secrets
        if new:
            self._secrets |= new
            self._pattern = None

    def remember_all(self, values: Iterable[str]) -> None:
        """:meth:`remember` each of ``values``."""
        for v in values:
            self.remember(v)

    def scrub(self, text: str) -> str:
        """Return ``text`` with every remembered secret replaced by ``[redacted N chars]``.

        Longer secrets are replaced first, so a secret containing another is replaced whole.
        """
        if not self.enabled or not self._secrets or not text:
            return text
        if self._pattern is None:
            alts = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in alts))
        return self._pattern.sub(lambda m: placeholder(m.group(0)), text)

    # -- redact by name, and remember -------------------------------------------------

    def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if not self.enabled:
            return args[-1]
        found: list[str] = []
        result = fn(*args, found)
        self.remember_all(found)
        return result

    def header(self, name: str, value: str) -> str:
        """:func:`redact_header_value`, remembering what was redacted (identity when disabled)."""
        return self._run(redact_header_value, name, value)

    def headers(self, headers: dict[str, Any] | Iterable[tuple[str, Any]]) -> dict[str, str]:
        """:func:`redact_headers`, remembering what was redacted (a plain copy when disabled)."""
        if not self.enabled:
            items = headers.items() if isinstance(headers, dict) else headers
            return {str(k): str(v) for k, v in items}
        found: list[str] = []
        result = redact_headers(headers, found)
        self.remember_all(found)
        return result

    def url(self, url: str) -> str:
        """:func:`redact_url`, remembering what was redacted (identity when disabled)."""
        return self._run(redact_url, url)

    def body(self, text: str, mime: str | None = None) -> str:
        """:func:`redact_body`, remembering what was redacted (identity when disabled)."""
        if not self.enabled:
            return text
        found: list[str] = []
        result = redact_body(text, mime, found)
        self.remember_all(found)
        return result

    def json(self, value: Any) -> Any:
        """:func:`redact_json`, remembering what was redacted (identity when disabled)."""
        return self._run(redact_json, value)
