"""Whether a redacted value looks like a secret, and so is remembered and scrubbed from every later output
(see :mod:`browser_ctx.core.redact`). Every value is still redacted where it was found.

A value looks like a secret (:func:`looks_like_secret`) when it is at least :data:`MIN_SECRET_CHARS` characters
with no white space, mixes two of lower case, upper case and digits, is not number-like (a number, a date, a
version, ``100px``), is not mostly made of dictionary words (``ascending``, ``primary_key``, ``sortStateKey``,
``Ctrl-Alt-ArrowDown``: :func:`word_share`) and carries at least :data:`MIN_SECRET_BITS` bits of Shannon entropy
(:func:`entropy_bits`). The word list is zxcvbn's (the password-strength estimator's frequency lists: English
Wikipedia, US film and TV, names, surnames, common passwords) plus a few web words.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter

from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

#: Values shorter than this (characters) are never remembered.
MIN_SECRET_CHARS = 12
#: Least Shannon entropy of the whole value (bits per character times its length) to be remembered.
MIN_SECRET_BITS = 30.0
#: A value whose letters in dictionary words of 3+ letters make up this share of its characters is words.
MAX_WORD_SHARE = 0.5

#: Words of identifiers and markup that the frequency lists lack.
_WEB_WORDS = ("alt", "api", "app", "args", "ascii", "async", "attr", "auth", "btn", "cdn", "cmd", "config", "csrf",
              "css", "ctrl", "dom", "esc", "func", "href", "html", "http", "https", "img", "init", "json", "jwt",
              "localhost", "mod", "nav", "oauth", "param", "params", "png", "prev", "readonly", "rgba", "src", "svg",
              "sso", "uri", "url", "utf", "uuid", "webp", "www", "xml", "xsrf")
#: Runs of letters as an identifier is read: ``sortState`` → sort, State; ``HTMLParser`` → HTML, Parser.
_LETTER_RUNS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
#: Numbers (``-1,234.5e10``, ``0x1F``, ``100px``, ``12.5%``), dates and times (``2026-10-18T10:00:00.000Z``,
#: ``18/10/2026``) and versions (``v1.2.3-beta.4``).
_NUMBER_LIKE = re.compile(
    r"[+-]?(?:0x[0-9a-f]+|\d[\d,._]*(?:e[+-]?\d+)?(?:px|r?em|pt|vh|vw|ms|s|%|k|m|g|kb|mb|gb)?)"
    r"|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?"
    r"|v?\d+(?:\.\d+)+(?:[-+][\w.]+)?", re.IGNORECASE)
#: Longest word looked for inside a run of letters.
_MAX_WORD = 20


@functools.cache
def _words() -> frozenset[str]:
    """The dictionary: zxcvbn's alphabetic entries of 3 or more letters (about 82,000), lower case."""
    words = {w for entries in FREQUENCY_LISTS.values() for w in entries if len(w) >= 3 and w.isalpha()}
    return frozenset(words.union(_WEB_WORDS))


def _covered(run: str, words: frozenset[str]) -> int:
    """Most letters of ``run`` (lower case) that a split into dictionary words covers (dynamic programming)."""
    best = [0] * (len(run) + 1)
    for end in range(1, len(run) + 1):
        b = best[end - 1]
        for start in range(max(0, end - _MAX_WORD), end - 2):
            if best[start] + end - start > b and run[start:end] in words:
                b = best[start] + end - start
        best[end] = b
    return best[-1]


def word_share(value: str) -> float:
    """The share (0-1) of ``value``'s characters that are letters of dictionary words of 3+ letters, its letter
    runs read as an identifier's (``primary_key`` 0.91, ``LEAKPAGEFRAGMENT`` 1.0, a random token about 0.1)."""
    if not value:
        return 0.0
    words = _words()
    covered = sum(_covered(run.lower(), words) for run in _LETTER_RUNS.findall(value) if len(run) <= 64)
    return covered / len(value)


def entropy_bits(value: str) -> float:
    """Shannon entropy of ``value``'s characters, in bits per character, times its length."""
    n = len(value)
    if not n:
        return 0.0
    return -sum(c * math.log2(c / n) for c in Counter(value).values())


@functools.lru_cache(maxsize=8192)
def looks_like_secret(value: str) -> bool:
    """Whether ``value`` looks like a secret rather than a word, an identifier, a number or a boolean (see the
    module's rule). ``"ascending"``, ``"name"``, ``"primary_key"``, ``"something"``, ``"2026-10-18"``,
    ``"true"`` do not; a 32-character random token, a UUID, a JWT, ``"Tr0ub4dor&3x"`` do."""
    if len(value) < MIN_SECRET_CHARS or any(c.isspace() for c in value):
        return False
    classes = any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
    if classes < 2 or _NUMBER_LIKE.fullmatch(value):
        return False
    return word_share(value) < MAX_WORD_SHARE and entropy_bits(value) >= MIN_SECRET_BITS
