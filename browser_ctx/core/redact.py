"""Secret redaction (placeholder until issue 3 lands).

``Redactor.scrub(text)`` is applied by the server to every result before it is
sent; ``remember(value)`` adds a secret to scrub from all later output.
"""

from __future__ import annotations


class Redactor:
    """Remembers secret values for the session and scrubs them from text."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._secrets: set[str] = set()

    def remember(self, value: str) -> None:
        """Scrub ``value`` from all later output (values under 4 characters are ignored)."""
        if self.enabled and value and len(value) >= 4:
            self._secrets.add(value)

    def scrub(self, text: str) -> str:
        """Return ``text`` with every remembered secret replaced by ``[redacted N chars]``."""
        if not self.enabled or not self._secrets:
            return text
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, f"[redacted {len(secret)} chars]")
        return text
