"""Condense a V8 heap snapshot and the page's memory counters (``browser_memory``); pure.

:func:`aggregate` groups a snapshot's nodes as DevTools' Summary view does (objects by constructor or native class
name, detached DOM nodes as ``Detached <class>``, the rest as ``(string)``, ``(closure)``, ``(array)``,
``(compiled code)``, ``(system)``, …) with their count and summed self size (bytes). :func:`render` gives the
JS heap, DOM counters and the largest groups, and, given the previous measure, what grew since.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Measure", "aggregate", "render", "TOP", "GROWN"]

#: Groups listed by self size, and grown groups listed.
TOP, GROWN = 8, 6
_TYPE_GROUPS = {"string": "(string)", "concatenated string": "(string)", "sliced string": "(string)",
                "closure": "(closure)", "array": "(array)", "code": "(compiled code)", "hidden": "(system)",
                "regexp": "(regexp)", "number": "(number)", "heap number": "(number)", "symbol": "(symbol)",
                "bigint": "(bigint)", "object shape": "(object shape)", "extra native bytes": "(native bytes)"}
#: Prefixes of groups that are the engine's own (listed after the page's types in what grew).
_INTERNAL = ("(", "system /", "blink::", "cppgc", "v8::", "InternalNode", "V8")


@dataclass
class Measure:
    """One ``browser_memory`` measure: ``used``/``total`` JS heap (bytes), ``counters`` (``documents``, ``nodes``,
    ``jsEventListeners`` from ``Memory.getDOMCounters``), ``groups`` (name -> [count, self size]), the snapshot's
    ``nodes`` and summed ``self_size``, and where the snapshot was saved."""

    used: int
    total: int
    counters: dict[str, int]
    groups: dict[str, list[int]] = field(default_factory=dict)
    nodes: int = 0
    self_size: int = 0
    path: str = ""


def aggregate(snapshot: Mapping[str, Any]) -> tuple[dict[str, list[int]], int, int]:
    """``(groups, node count, summed self size)`` of a parsed ``.heapsnapshot`` (see the module docstring).

    Raises:
        ValueError: the snapshot lacks its ``snapshot.meta`` node fields, ``nodes`` or ``strings``.
    """
    try:
        meta = snapshot["snapshot"]["meta"]
        fields = list(meta["node_fields"])
        types = list(meta["node_types"][0])
        nodes, strings = snapshot["nodes"], snapshot["strings"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"not a heap snapshot (missing {exc})") from exc
    width = len(fields)
    i_type, i_name, i_size = fields.index("type"), fields.index("name"), fields.index("self_size")
    i_detached = fields.index("detachedness") if "detachedness" in fields else -1
    counts: dict[tuple[int, int, bool], list[int]] = {}
    total = 0
    for at in range(0, len(nodes) - width + 1, width):
        kind = nodes[at + i_type]
        type_name = types[kind] if 0 <= kind < len(types) else "?"
        if type_name == "synthetic":
            continue
        size = nodes[at + i_size]
        total += size
        detached = i_detached >= 0 and nodes[at + i_detached] == 2
        key = (kind, nodes[at + i_name] if type_name in ("object", "native") else -1, detached)
        slot = counts.get(key)
        if slot is None:
            counts[key] = [1, size]
        else:
            slot[0] += 1
            slot[1] += size
    groups: dict[str, list[int]] = {}
    for (kind, name_index, detached), (count, size) in counts.items():
        type_name = types[kind] if 0 <= kind < len(types) else "?"
        if name_index >= 0:
            name = strings[name_index] if 0 <= name_index < len(strings) else "?"
            if detached and not name.startswith("Detached "):
                name = f"Detached {name}"
        else:
            name = _TYPE_GROUPS.get(type_name, f"({type_name})")
        name = name if len(name) <= 60 else name[:59] + "…"
        slot = groups.setdefault(name, [0, 0])
        slot[0] += count
        slot[1] += size
    return groups, len(nodes) // width if width else 0, total


def _rank(name: str) -> int:
    """Order of grown groups: detached DOM first, then the page's own types, then the engine's internals."""
    if name.startswith("Detached "):
        return 0
    return 2 if name.startswith(_INTERNAL) else 1


def _kb(n: float) -> str:
    sign = "+" if n > 0 else ""
    return f"{sign}{n / 1024:,.1f} kB" if abs(n) < 1024 * 1024 else f"{sign}{n / 1048576:,.1f} MB"


def _plain_kb(n: float) -> str:
    return _kb(n).lstrip("+")


def render(now: Measure, before: Measure | None) -> str:
    """The memory report: JS heap, DOM counters, the largest groups by self size, the snapshot's path and, with
    ``before`` (the tab's previous measure), what grew since (counts and sizes)."""
    c = now.counters
    lines = [f"JS heap: {_plain_kb(now.used)} used of {_plain_kb(now.total)}; DOM: {c.get('nodes', 0):,} nodes, "
             f"{c.get('jsEventListeners', 0):,} event listeners, {c.get('documents', 0):,} documents"]
    top = sorted(now.groups.items(), key=lambda kv: -kv[1][1])[:TOP]
    lines.append(f"Largest by self size ({now.nodes:,} heap objects, {_plain_kb(now.self_size)}): "
                 + "; ".join(f"{name} ×{count:,} {_plain_kb(size)}" for name, (count, size) in top))
    detached = sorted(((n, v) for n, v in now.groups.items() if n.startswith("Detached ")), key=lambda kv: -kv[1][0])
    if detached:
        lines.append(f"Detached DOM: {sum(v[0] for _, v in detached):,} nodes held by scripts ("
                     + ", ".join(f"{n[9:]} ×{v[0]:,}" for n, v in detached[:4]) + ")")
    if before is not None:
        grown = []
        for name, (count, size) in now.groups.items():
            old = before.groups.get(name, [0, 0])
            if count - old[0] > 0 and size - old[1] > 0:
                grown.append((name, count - old[0], size - old[1]))
        grown.sort(key=lambda g: (_rank(g[0]), -g[2]))
        bc = before.counters
        delta = (f"Since the last measure: JS heap {_kb(now.used - before.used)}; DOM nodes "
                 f"{c.get('nodes', 0) - bc.get('nodes', 0):+,}, listeners "
                 f"{c.get('jsEventListeners', 0) - bc.get('jsEventListeners', 0):+,}")
        lines.append(delta)
        if grown:
            lines.append("Grew: " + "; ".join(f"{n} +{d:,} ({_kb(s)})" for n, d, s in grown[:GROWN]))
            leaked = [(n, d) for n, d, _s in grown if n.startswith("Detached ")]
            if leaked:
                lines.append("Leak suspect: " + ", ".join(f"{n} +{d:,}" for n, d in leaked[:3])
                             + ": nodes removed from the page but still referenced by a script (the snapshot's "
                               "Retainers in DevTools show by what)")
        else:
            lines.append("Grew: nothing (no group gained objects)")
    else:
        lines.append("Call browser_memory again after repeating an action to see what grew.")
    if now.path:
        lines.append(f"Snapshot for DevTools' Memory panel: {now.path}")
    return "\n".join(lines)
