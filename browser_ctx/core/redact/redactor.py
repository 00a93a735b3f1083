"""The session's :class:`Redactor`: redacts by name and shape, remembers what it redacted, and scrubs
those values from every later output (see :mod:`browser_ctx.core.redact`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from .bodies import redact_body, redact_event, redact_frame, redact_json
from .rules import (
    MARKER,
    MAX_REMEMBERED,
    redact_header_value,
    redact_headers,
    redact_text,
    redact_url,
)
from .secretlike import looks_like_secret


def _whole_tokens(secrets: Iterable[str]) -> re.Pattern[str]:
    """One pattern matching any of ``secrets`` as a whole token: not right after or before a letter or digit
    where the secret's own first or last character is one (``name`` is not found in ``Rename``). Longer ones
    are tried first. Secrets that start with a letter or digit share one look-behind (cheap: it rules out every
    position inside a word before any secret is tried); the others cannot match at the same positions."""
    def alt(secret: str) -> str:
        return re.escape(secret) + (r"(?![^\W_])" if secret[-1].isalnum() else "")
    ordered = sorted(secrets, key=len, reverse=True)
    word_start = [alt(s) for s in ordered if s[0].isalnum()]
    other = [alt(s) for s in ordered if not s[0].isalnum()]
    groups = ([r"(?<![^\W_])(?:" + "|".join(word_start) + ")"] if word_start else []) + other
    return re.compile("|".join(groups))


class Redactor:
    """Remembers secret values for the session and scrubs them from text.

    One instance is shared by a whole MCP session: the event capture redacts by name and
    remembers what it redacted; the server pipeline calls :meth:`scrub` on every result.
    ``enabled=False`` (``--no-redact``) turns every layer off.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    @property
    def secrets_count(self) -> int:
        """How many distinct secret values (and their encoded forms) are remembered."""
        return len(self._secrets)

    def remember(self, value: str) -> None:
        """Scrub ``value`` from all later output when it looks like a secret (:func:`looks_like_secret`: a
        word, an identifier, a number or a short value is only redacted where it was found), until
        :data:`MAX_REMEMBERED` forms are held. Its URL-encoded and JSON-escaped forms are remembered too."""
        if not self.enabled or not value:
            return
        value = value.strip()
        if value == MARKER or not looks_like_secret(value):
            return
        forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value, ensure_ascii=False)[1:-1]}
        new = forms - self._secrets
        if new and len(self._secrets) + len(new) <= MAX_REMEMBERED:
            self._secrets |= new
            self._pattern = None

    def remember_all(self, values: Iterable[str]) -> None:
        """:meth:`remember` each of ``values``."""
        for v in values:
            self.remember(v)

    def scrub(self, text: str) -> str:
        """Return ``text`` with secrets replaced by :data:`MARKER`: those recognised by shape or
        position (:func:`redact_text`, remembered from now on), then every remembered one.

        Remembered secrets are replaced as whole tokens (never inside a longer run of letters and digits),
        longer ones first, so a secret containing another is replaced whole. Identity when redaction is off.
        """
        if not self.enabled or not text:
            return text
        text = self._run(redact_text, text)
        if not self._secrets:
            return text
        if self._pattern is None:
            self._pattern = _whole_tokens(self._secrets)
        return self._pattern.sub(MARKER, text)

    # -- redact by name or shape, and remember ---------------------------------------------

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

    def text(self, text: str) -> str:
        """:func:`redact_text`, remembering what was redacted (identity when disabled)."""
        return self._run(redact_text, text)

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

    def frame(self, payload: str) -> str:
        """:func:`redact_frame` for a WebSocket text frame, remembering what was redacted."""
        return self._run(redact_frame, payload)

    def event(self, event: str | None, data: str) -> str:
        """:func:`redact_event` for one server-sent event, remembering what was redacted."""
        if not self.enabled:
            return data
        found: list[str] = []
        result = redact_event(event, data, found)
        self.remember_all(found)
        return result
