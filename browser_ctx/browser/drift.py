"""Values that change by themselves (timers, clocks, relative times): learned from walks with no action between.

A line's shape (:func:`~browser_ctx.core.delta.drift_shape`) counts as changing by itself once it was seen
changing between two walks with no action of ours :data:`DRIFT_SEEN` times, or once when the settle probe saw
an element holding that text change by itself again and again (:attr:`.settle.Look.recurring`: a clock ticking
while the agent read the snapshot). Once could otherwise be the page doing something (a late reaction).
"""

from __future__ import annotations

from ..core.delta import diff_renderings, drift_shape, drifted, ticking
from ..core.snapshot import Line
from .tab import Tab

__all__ = ["learn", "learn_behind", "label", "note", "DRIFT_KEPT", "DRIFT_SEEN"]

#: Most shapes of self-changing values a document keeps.
DRIFT_KEPT = 20
#: Intervals between calls in which a value must be seen changing with no action of ours before it counts as
#: one that changes by itself (without the probe's word for it).
DRIFT_SEEN = 2


def learn(tab: Tab, stale: list[Line] | None, lines: list[Line], recurring: tuple[str, ...] = ()) -> list[str]:
    """Count the values that changed between ``stale`` (the tab's last walk) and ``lines`` (a walk of the same
    document, no action of ours between) in ``tab.drift_seen``; return the shapes that now count as changing by
    themselves for the first time (added to ``tab.drifting``). ``recurring``: the probe's texts."""
    if stale is None or len(tab.drift_seen) >= DRIFT_KEPT:
        return []
    new = []
    for shape in drifted(stale, lines):
        tab.drift_seen[shape] = seen = tab.drift_seen.get(shape, 0) + 1
        if (seen >= DRIFT_SEEN or ticking(shape, recurring)) and shape not in tab.drifting:
            tab.drifting.add(shape)
            new.append(shape)
    return new


def label(shape: str) -> str:
    """How a note names a value that changes by itself: its line's text without the ``text:`` label and digits."""
    text = shape.split(": ", 1)[1] if shape.startswith(("text: ", "code: ")) else shape
    return text.split("#", 1)[0].strip(" :/-")[:40] or text.replace("#", "").strip()[:40]


def note(shapes: list[str]) -> str | None:
    """The record's note naming ``shapes`` (``1 value changes by itself: "Time left"``); ``None`` for none."""
    if not shapes:
        return None
    names = ", ".join(f'"{label(s)}"' for s in shapes[:3])
    n = len(shapes)
    return f"{n} value{'s' if n != 1 else ''} change{'' if n != 1 else 's'} by itself: {names}"


def learn_behind(tab: Tab, behind: list[Line], lines: list[Line], recurring: tuple[str, ...]) -> list[str]:
    """The values that differ between ``behind`` (the tab's last walk, an action's before though the page changed
    since where the settle probe counts no change) and ``lines`` (the walk after the action) and that the probe
    saw changing by themselves (``recurring``): they count as changing by themselves at once (added to
    ``tab.drifting``); returns those new."""
    delta = diff_renderings(behind, lines)
    shapes = [drift_shape(b) for _, b in delta.changed]
    new = [s for s in dict.fromkeys(shapes) if ticking(s, recurring) and s not in tab.drifting]
    new = new[:max(0, DRIFT_KEPT - len(tab.drifting))]
    tab.drifting.update(new)
    return new
