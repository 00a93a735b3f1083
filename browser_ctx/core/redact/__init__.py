"""Secret redaction: by name where secrets are captured, by shape in any text, by value everywhere after.

Three layers:

1. **By name**, at capture time: request/response headers (:data:`SECRET_HEADERS` and any header
   whose name contains ``token``, ``secret``, ``session``, ``auth``, ``key``, ``password``,
   ``credential``, ``signature`` or ``cookie``: :func:`is_secret_header`), query and fragment
   parameters (``#access_token=…``, ``?code=…``: :func:`is_secret_param`), JSON fields at any depth
   and form / multipart fields named like a secret (:func:`is_secret_name`), GraphQL variables passed
   to a secret-named argument, named SSE events and socket.io events (``42["auth",{…}]``).
2. **By shape**, in any text (:func:`redact_text`): JSON Web Tokens anywhere (a path segment
   included), keys of a known format (``ghp_…``, ``sk_live_…``, ``AKIA…``, ``AIza…``, PEM private
   keys), ``Bearer …`` / ``Basic …`` credentials, the password of ``scheme://user:pass@host``
   (``postgres://admin:…@db.internal`` in an error message), every URL's secret parameters, and the
   value in a credential position: after a secret name and ``=`` (``token=…``), after a secret name
   and ``:`` when quoted (``"apiKey": "…"``, ``password: "…"`` in a console object or a GraphQL
   argument), or unquoted when it looks random (:func:`looks_random`), and the second item of a
   ``["auth", "…"]`` pair. The event capture applies it to console text as it arrives.
3. **By value**, at output time: every value redacted by the layers above that looks like a secret
   (:func:`looks_like_secret`: at least :data:`MIN_SECRET_CHARS` characters, two of lower case, upper
   case and digits, enough entropy, not mostly dictionary words, not a number or a date) is remembered
   for the session (:meth:`Redactor.remember`) and :meth:`Redactor.scrub` replaces it, as a whole token,
   in *every* later output of every tool (console text, response bodies, page text, script source,
   errors), so a secret seen in two places leaks from neither. :meth:`Redactor.scrub` applies layer 2
   too; the server pipeline passes every result through it once.

A redacted value is shown as :data:`MARKER` (``[redacted]``), which says nothing of its length. A value
that does not look like a secret (``"name"`` under ``"key"``, ``something`` in ``password=something``,
``primary_key``, ``123456``) is redacted where it was found but not remembered: scrubbing it everywhere
would wreck all output (``Re[redacted] Notebook``).

The module functions are pure and never remember anything (each takes an optional ``found`` list to
which it appends the secret values it redacted); the :class:`Redactor` methods of the same names
redact *and* remember, and do nothing when redaction is off (``--no-redact``).
"""

from __future__ import annotations

from .bodies import redact_body, redact_event, redact_frame, redact_json
from .redactor import Redactor
from .rules import (
    MARKER,
    MAX_REMEMBERED,
    SECRET_HEADERS,
    is_secret_field,
    is_secret_header,
    is_secret_name,
    is_secret_param,
    looks_random,
    placeholder,
    redact_form,
    redact_header_value,
    redact_headers,
    redact_query,
    redact_text,
    redact_url,
)
from .secretlike import MIN_SECRET_CHARS, entropy_bits, looks_like_secret, word_share

__all__ = [
    "Redactor",
    "MARKER",
    "placeholder",
    "is_secret_field",
    "is_secret_header",
    "is_secret_name",
    "is_secret_param",
    "looks_random",
    "looks_like_secret",
    "word_share",
    "entropy_bits",
    "SECRET_HEADERS",
    "MIN_SECRET_CHARS",
    "MAX_REMEMBERED",
    "redact_header_value",
    "redact_headers",
    "redact_url",
    "redact_query",
    "redact_form",
    "redact_json",
    "redact_text",
    "redact_body",
    "redact_frame",
    "redact_event",
]
