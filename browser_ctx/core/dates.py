"""Values for native date and time inputs: ISO forms as the browser wants them, from what people type.

Pure. :func:`input_value` turns a value for an ``<input type=date|time|datetime-local|month|week>``
into the ISO form the input takes (``2025-03-15``, ``14:30``, ``2025-03-15T14:30``, ``2025-03``,
``2025-W11``), converting common locale forms where they are unambiguous:

- ISO itself (``2025-03-15``, ``2025/03/15``);
- ``03/15/2025`` and ``15/03/2025`` (slash: month first as in the US, unless the first number is over
  12; ``03/04/2025`` is ambiguous and refused); ``15.03.2025`` (dots: day first);
- ``March 15, 2025``, ``15 March 2025``, ``Mar 15 2025``;
- times ``14:30``, ``14:30:15``, ``2:30 PM``, ``2 pm``;
- ``datetime-local``: a date and a time separated by ``T``, a space or ``,``;
- ``month``: ``2025-03``, ``03/2025``, ``March 2025``; ``week``: ``2025-W11``, ``2025 W11``.

Anything else raises :class:`~browser_ctx._errors.InvalidArgument` naming the expected format, before
the field is touched (so its value is never erased).
"""

from __future__ import annotations

import re
from datetime import date

from .._errors import InvalidArgument

__all__ = ["input_value", "DATE_TYPES", "EXPECTED"]

#: The input types this module converts values for.
DATE_TYPES = ("date", "time", "datetime-local", "month", "week")
#: The format each type takes, as error messages name it.
EXPECTED = {"date": "YYYY-MM-DD", "time": "HH:MM (24-hour) or HH:MM:SS", "datetime-local": "YYYY-MM-DDTHH:MM",
            "month": "YYYY-MM", "week": "YYYY-Www (e.g. 2025-W11)"}

_MONTHS = {name: i + 1 for i, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"))}


def _month_number(word: str) -> int | None:
    word = word.lower().rstrip(".")
    if len(word) < 3:
        return None
    return next((n for name, n in _MONTHS.items() if name.startswith(word)), None)


def _valid(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _date(text: str) -> str | None:
    """``YYYY-MM-DD`` for ``text``, ``None`` if it is not a date, ``""`` if it is an ambiguous one."""
    s = text.strip()
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", s)
    if m:
        return _valid(int(m[1]), int(m[2]), int(m[3]))
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", s)
    if m:
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        if a > 12:
            return _valid(y, b, a)
        if b > 12 or a == b:
            return _valid(y, a, b)
        return ""  # 03/04/2025: March 4 or 3 April
    m = re.fullmatch(r"(\d{1,2})[.-](\d{1,2})[.-](\d{4})", s)
    if m:
        return _valid(int(m[3]), int(m[2]), int(m[1]))
    m = re.fullmatch(r"([A-Za-z]+\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", s)
    if m and _month_number(m[1]):
        return _valid(int(m[3]), _month_number(m[1]) or 0, int(m[2]))
    m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+\.?),?\s+(\d{4})", s)
    if m and _month_number(m[2]):
        return _valid(int(m[3]), _month_number(m[2]) or 0, int(m[1]))
    return None


def _time(text: str) -> str | None:
    s = text.strip().lower()
    m = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?m\.?", s)
    if m:
        h, mi, sec = int(m[1]), int(m[2] or 0), m[3]
        if not 1 <= h <= 12 or mi > 59:
            return None
        h = h % 12 + (12 if m[4] == "p" else 0)
        return f"{h:02d}:{mi:02d}" + (f":{sec}" if sec and int(sec) < 60 else "")
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?", s)
    if m and int(m[1]) < 24 and int(m[2]) < 60 and (m[3] is None or int(m[3]) < 60):
        return f"{int(m[1]):02d}:{m[2]}" + (f":{m[3]}{m[4] or ''}" if m[3] else "")
    return None


def _month(text: str) -> str | None:
    s = text.strip()
    m = re.fullmatch(r"(\d{4})[-/](\d{1,2})", s) or None
    if m and 1 <= int(m[2]) <= 12:
        return f"{m[1]}-{int(m[2]):02d}"
    m = re.fullmatch(r"(\d{1,2})/(\d{4})", s)
    if m and 1 <= int(m[1]) <= 12:
        return f"{m[2]}-{int(m[1]):02d}"
    m = re.fullmatch(r"([A-Za-z]+\.?),?\s+(\d{4})", s)
    if m and _month_number(m[1]):
        return f"{m[2]}-{_month_number(m[1]):02d}"
    return None


def _week(text: str) -> str | None:
    m = re.fullmatch(r"(\d{4})[-\s]?W(\d{1,2})", text.strip(), re.I)
    if m and 1 <= int(m[2]) <= 53:
        return f"{m[1]}-W{int(m[2]):02d}"
    return None


def input_value(input_type: str, value: str) -> str:
    """Return ``value`` in the ISO form an ``<input type=input_type>`` takes; ``""`` stays ``""`` (clears).

    Args:
        input_type: one of :data:`DATE_TYPES`.
        value: what the caller gave (ISO, or a locale form listed in the module docstring).

    Raises:
        InvalidArgument: the value is not a valid date/time of that type, or is ambiguous (``03/04/2025``);
            the message names the expected format.
    """
    if not value.strip():
        return ""
    if input_type == "date":
        got = _date(value)
    elif input_type == "time":
        got = _time(value)
    elif input_type == "month":
        got = _month(value)
    elif input_type == "week":
        got = _week(value)
    elif input_type == "datetime-local":
        got = None
        m = re.fullmatch(r"(.+?)(?:T|,\s*|\s+)(\d{1,2}(?::\d{2}){0,2}(?:\.\d{1,3})?\s*(?:[ap]\.?m\.?)?)", value.strip(),
                         re.I)
        if m:
            d, t = _date(m[1]), _time(m[2])
            got = "" if d == "" else (f"{d}T{t}" if d and t else None)
    else:
        raise InvalidArgument(f"Not a date or time input type: {input_type!r}.")
    if got == "":
        raise InvalidArgument(f"{value!r} is ambiguous (day and month could be swapped); give the "
                              f"{input_type} as {EXPECTED[input_type]}.")
    if got is None:
        raise InvalidArgument(f"{value!r} is not a valid {input_type}; give it as {EXPECTED[input_type]}. "
                              "The field was left as it was.")
    return got
