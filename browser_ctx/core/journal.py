"""Transient UI: what was shown and went between two calls, as the page-side journal reported it, and what
appeared after the last call and is still shown.

Pure. :class:`Gone` is one entry (role, text, how long it was shown; ``shown`` when it is still there);
:func:`render_gone` makes the lines that action records, ``browser_wait_for`` and the next read carry::

    Shown and gone: status "Saved after retry" (1.5 s); toast "Order placed" (1.5 s)
    Appeared since the last call: toast "Settings saved"

each capped at :data:`GONE_SHOWN` entries (the rest counted) and :data:`GONE_TEXT_CHARS` characters of text each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Gone", "parse_entries", "render_gone", "GONE_SHOWN", "GONE_TEXT_CHARS", "GONE_LABEL", "SHOWN_LABEL"]

#: Entries named in one line; the rest are counted.
GONE_SHOWN = 5
#: Characters of one entry's text in the line.
GONE_TEXT_CHARS = 80
#: How the line starts.
GONE_LABEL = "Shown and gone"
#: How the line of what appeared after the last call (and is still shown) starts.
SHOWN_LABEL = "Appeared since the last call"


@dataclass(frozen=True)
class Gone:
    """UI that was shown and went.

    Attributes:
        role: ``status``, ``alert``, ``log``, ``dialog``, ``alertdialog``, ``toast`` or ``live region``.
        text: its text (a dialog: its name), as the page showed it (not scrubbed: the caller scrubs).
        ms: how long it was shown, in milliseconds.
        frame: the frame id it was in (``''`` main frame, ``'f1'``…).
        shown: it appeared since the last drain and is still shown (not gone).
    """

    role: str
    text: str
    ms: float
    frame: str = ""
    shown: bool = False


def parse_entries(raw: Any, frame: str = "") -> tuple[list[Gone], int]:
    """Turn one frame's ``drain()`` answer (``{entries: [{role, text, ms}], dropped, shown: [...]}``) into
    entries (gone ones first, then the still shown ones) and the count the page dropped; anything malformed
    is skipped (the page can overwrite what we read)."""
    if not isinstance(raw, dict):
        return [], 0
    out = []
    for key in ("entries", "shown"):
        items = raw.get(key)
        for e in items if isinstance(items, list) else []:
            if isinstance(e, dict) and isinstance(e.get("text"), str) and e["text"].strip():
                ms = e.get("ms")
                out.append(Gone(str(e.get("role") or "element")[:40], e["text"],
                                float(ms) if isinstance(ms, (int, float)) else 0.0, frame, shown=key == "shown"))
    dropped = raw.get("dropped")
    return out, int(dropped) if isinstance(dropped, int) and dropped > 0 else 0


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 100 else f"{ms:.0f} ms"


def _text(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > GONE_TEXT_CHARS:
        text = text[:GONE_TEXT_CHARS - 1] + "…"
    return '"' + text.replace('"', "'") + '"'


def _line(label: str, entries: list[Gone], dropped: int, timed: bool) -> str | None:
    if not entries and not dropped:
        return None
    folded: dict[tuple[str, str, str], list[Gone]] = {}
    for e in entries:
        folded.setdefault((e.role, " ".join(e.text.split()), e.frame), []).append(e)
    parts = []
    for (role, text, frame), group in list(folded.items())[:GONE_SHOWN]:
        where = f" in frame {frame}" if frame else ""
        times = f" ×{len(group)}" if len(group) > 1 else ""
        shown = f" ({_seconds(group[-1].ms)})" if timed else ""
        parts.append(f"{role} {_text(text)}{where}{shown}{times}")
    more = max(0, len(folded) - GONE_SHOWN) + dropped
    tail = f" (+{more} more)" if more else ""
    return f"{label}: " + "; ".join(parts) + tail


def render_gone(entries: list[Gone], dropped: int = 0) -> str | None:
    """The report of ``entries`` (and ``dropped`` more the page could not keep), or ``None`` when there is
    nothing: one line of what was shown and went, one of what appeared and is still shown (a text that also
    went is left out of it); repeats of the same role and text are counted (``×3``)."""
    gone = [e for e in entries if not e.shown]
    went = {(e.role, " ".join(e.text.split()), e.frame) for e in gone}
    shown = [e for e in entries if e.shown and (e.role, " ".join(e.text.split()), e.frame) not in went]
    lines = [_line(GONE_LABEL, gone, dropped, True), _line(SHOWN_LABEL, shown, 0, False)]
    return "\n".join(x for x in lines if x) or None
