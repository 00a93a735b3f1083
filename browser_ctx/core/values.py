"""Field values shown exactly, and where two values differ only in whitespace (pure).

A value is shown as the field holds it: JSON-quoted (``json.dumps``, non-ASCII kept), so leading and trailing
spaces stay inside the quotes, a line break reads ``\\n`` and a tab ``\\t``. Lengths are characters.
"""

from __future__ import annotations

import json
import unicodedata

__all__ = ["quote_value", "whitespace_difference", "describe_char"]

#: Names of the whitespace characters a difference is told in.
_NAMES = {" ": "space", "\n": "newline", "\t": "tab", "\r": "carriage return", "\u00a0": "no-break space",
          "\u2009": "thin space", "\u202f": "narrow no-break space", "\u3000": "ideographic space"}


def quote_value(value: str, limit: int = 0, *, cut: bool = False) -> str:
    """``value`` JSON-quoted; past ``limit`` characters (0: none) it is cut, the quote closed and followed by
    ``… (+N chars)``. ``cut``: the value was already cut where it was read (the walker's 200 characters, whose
    last is its ``…``): the rest is said to be unread (``"…"… (more not read)``)."""
    more = ""
    if cut:
        value = value[:-1] if value.endswith("…") else value
        more = " (more not read)"
    if limit and len(value) > limit:
        more = more or f" (+{len(value) - limit:,} chars)"
        value = value[:limit]
        return json.dumps(value, ensure_ascii=False) + "…" + more
    return json.dumps(value, ensure_ascii=False) + ("…" + more if cut else "")


def describe_char(text: str, index: int) -> str:
    """The character at ``index`` of ``text`` as a difference names it: ``" " (space)``, ``"\\t" (tab)``,
    ``"a"``, ``end of text``."""
    if index >= len(text):
        return "end of text"
    ch = text[index]
    quoted = json.dumps(ch, ensure_ascii=False)
    name = _NAMES.get(ch)
    if name is None and ch.isspace():
        name = unicodedata.name(ch, f"U+{ord(ch):04X}").lower()
    return f"{quoted} ({name})" if name else quoted


def whitespace_difference(expected: str, got: str) -> str | None:
    """When ``expected`` and ``got`` differ only in whitespace, say where: ``differs at character 39: expected " "
    (space), got end of text`` (characters counted from 1); ``None`` when they are equal or differ otherwise."""
    if expected == got or "".join(expected.split()) != "".join(got.split()):
        return None
    i = 0
    while i < len(expected) and i < len(got) and expected[i] == got[i]:
        i += 1
    return f"differs at character {i + 1}: expected {describe_char(expected, i)}, got {describe_char(got, i)}"
