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
    MIN_SECRET_CHARS,
    redact_header_value,
    redact_headers,
    redact_text,
    redact_url,
)


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
        """Scrub ``value`` from all later output (values under :data:`MIN_SECRET_CHARS` characters
        are ignored, and nothing more once :data:`MAX_REMEMBERED` forms are held). Its URL-encoded and
        JSON-escaped forms are remembered too."""
        if not self.enabled or not value:
            return
        value = value.strip()
        if len(value) < MIN_SECRET_CHARS or value == MARKER:
            return
        forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value, ensure_ascii=False)[1:-1]}
        new = {f for f in forms if len(f) >= MIN_SECRET_CHARS} - self._secrets
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

        Longer remembered secrets are replaced first, so a secret containing another is replaced
        whole. Identity when redaction is off.
        """
        if not self.enabled or not text:
            return text
        text = self._run(redact_text, text)
        if not self._secrets:
            return text
        if self._pattern is None:
            alts = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in alts))
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
