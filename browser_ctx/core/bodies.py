"""Response and request bodies: JSON shape summaries, ``select`` expressions, binary detection.

``select`` expressions (a small, documented subset of JSONPath), applied to a parsed JSON body:

- ``$`` the whole value (optional at the start: ``items[0]`` = ``$.items[0]``);
- ``.name`` or ``["name"]`` an object key (quote keys with dots, spaces or brackets);
- ``[3]`` an array element, ``[-1]`` the last one;
- ``[2:5]`` a slice (end excluded; either side may be left out);
- ``[*]`` or ``.*`` every element (or every value of an object).

After ``[*]`` or a slice the rest of the path applies to each element: ``$.items[*].id`` is the list
of every item's id. A key that is missing, or an index out of range, raises :class:`InvalidArgument`
naming what is there instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._errors import InvalidArgument

__all__ = ["json_shape", "parse_select", "apply_select", "looks_binary", "SHAPE_KEYS"]

#: Keys shown per object in a shape summary before "… N more keys".
SHAPE_KEYS = 40
_SAMPLE = 20  # array elements examined to merge object shapes


def looks_binary(mime: str, text: str | None = None) -> bool:
    """Whether a body of MIME type ``mime`` is binary (images, audio, video, fonts, archives, octet
    streams, PDFs), or, for an unknown type, has NUL characters in ``text``."""
    m = (mime or "").lower().split(";")[0].strip()
    if m.startswith(("image/svg",)):
        return False
    if m.startswith(("image/", "audio/", "video/", "font/")) or m in (
            "application/octet-stream", "application/pdf", "application/zip", "application/gzip",
            "application/wasm", "application/x-protobuf", "application/vnd.ms-fontobject"):
        return True
    return text is not None and "\x00" in text[:2048]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "array"
    return "object"


def _merge_objects(items: list[dict[str, Any]]) -> tuple[dict[str, list[Any]], set[str]]:
    keys: dict[str, list[Any]] = {}
    for it in items:
        for k, v in it.items():
            keys.setdefault(k, []).append(v)
    optional = {k for k, vs in keys.items() if len(vs) < len(items)}
    return keys, optional


def _shape(values: list[Any], depth: int, indent: str, max_depth: int) -> str:
    """Shape of one or more sample values that sit at the same place."""
    kinds = sorted({_type_name(v) for v in values})
    if len(kinds) > 1:
        non_null = [k for k in kinds if k != "null"]
        if len(non_null) == 1 and non_null[0] not in ("array", "object"):
            return f"{non_null[0]}|null"
        if len(non_null) == 1:
            inner = _shape([v for v in values if v is not None], depth, indent, max_depth)
            return f"{inner}|null"
        return "|".join(kinds)
    kind = kinds[0] if kinds else "null"
    if kind == "array":
        lengths = [len(v) for v in values]
        n = lengths[0] if len(set(lengths)) == 1 else f"{min(lengths)}-{max(lengths)}"
        items = [x for v in values for x in v[:_SAMPLE]]
        if not items:
            return f"array[{n}]"
        return f"array[{n}] of {_shape(items, depth + 1, indent, max_depth)}"
    if kind == "object":
        if depth >= max_depth:
            count = len({k for v in values for k in v})
            return f"{{… {count} keys}}"
        keys, optional = _merge_objects(values)
        if not keys:
            return "{}"
        lines = []
        inner_indent = indent + "  "
        for i, (k, vs) in enumerate(keys.items()):
            if i >= SHAPE_KEYS:
                lines.append(f"{inner_indent}… {len(keys) - SHAPE_KEYS} more keys")
                break
            mark = "?" if k in optional else ""
            lines.append(f"{inner_indent}{json.dumps(k, ensure_ascii=False)}{mark}: "
                         f"{_shape(vs, depth + 1, inner_indent, max_depth)}")
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"
    if kind == "str":
        lengths = [len(v) for v in values]
        if max(lengths) > 40:
            lo, hi = min(lengths), max(lengths)
            return f"str ({lo} chars)" if lo == hi else f"str ({lo}-{hi} chars)"
    return kind


def json_shape(value: Any, max_depth: int = 6) -> str:
    """Describe a parsed JSON value by its shape: keys, types and array lengths, not values.

    Objects list their keys (``?`` marks keys missing from some array elements), arrays give their
    length and the merged shape of their first 20 elements, long strings their length in characters.
    Deeper than ``max_depth`` levels, objects show only their key count.

    Example: ``{"items": array[5000] of {"id": int, "name": str}, "total": int}`` (one key per line).
    """
    return _shape([value], 0, "", max_depth)


_STEP = re.compile(r"""\.(?P<name>[A-Za-z_$][\w$-]*)|\.(?P<star>\*)|"""
                   r"""\[\s*(?:(?P<idx>-?\d+)|(?P<slice>-?\d*\s*:\s*-?\d*)|"""
                   r"""(?P<all>\*)|"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^'\\]|\\.)*)')\s*\]""")


def parse_select(expr: str) -> list[tuple[str, Any]]:
    """Parse a ``select`` expression into steps ``("key", name)``, ``("index", n)``,
    ``("slice", (start, end))`` or ``("all", None)``.

    Raises:
        InvalidArgument: the expression does not follow the syntax in the module docstring.
    """
    s = expr.strip()
    if s.startswith("$"):
        s = s[1:]
    elif s and s[0] not in ".[":
        s = "." + s
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(s):
        m = _STEP.match(s, pos)
        if not m:
            at = pos + (1 if expr.strip().startswith("$") else 0)
            raise InvalidArgument(f"Invalid select {expr!r} at character {at}: "
                                  "use e.g. $.items[0].name, $.items[*].id, $.items[0:5] or $[\"odd key\"].")
        if m.group("name") is not None:
            steps.append(("key", m.group("name")))
        elif m.group("star") is not None or m.group("all") is not None:
            steps.append(("all", None))
        elif m.group("idx") is not None:
            steps.append(("index", int(m.group("idx"))))
        elif m.group("slice") is not None:
            a, b = (x.strip() for x in m.group("slice").split(":"))
            steps.append(("slice", (int(a) if a else None, int(b) if b else None)))
        else:
            raw = m.group("dq") if m.group("dq") is not None else m.group("sq")
            steps.append(("key", json.loads('"' + raw.replace("\\'", "'") + '"')))
        pos = m.end()
    return steps


def _describe_path(steps: list[tuple[str, Any]]) -> str:
    out = "$"
    for kind, arg in steps:
        if kind == "key":
            out += f".{arg}" if re.fullmatch(r"[A-Za-z_$][\w$-]*", str(arg)) else f"[{json.dumps(arg)}]"
        elif kind == "index":
            out += f"[{arg}]"
        elif kind == "slice":
            out += f"[{'' if arg[0] is None else arg[0]}:{'' if arg[1] is None else arg[1]}]"
        else:
            out += "[*]"
    return out


def apply_select(value: Any, expr: str) -> Any:
    """Return the part of ``value`` that ``expr`` selects (see the module docstring).

    Raises:
        InvalidArgument: bad syntax, a missing key, an index out of range, or a step applied to a
            value of the wrong type; the message says what is there instead.
    """
    steps = parse_select(expr)

    def walk(v: Any, i: int) -> Any:
        if i == len(steps):
            return v
        kind, arg = steps[i]
        here = _describe_path(steps[:i])
        if kind == "key":
            if not isinstance(v, dict):
                raise InvalidArgument(f"select {expr!r}: {here} is {_type_name(v)}, not an object; "
                                      f"cannot take key {arg!r}.")
            if arg not in v:
                keys = ", ".join(list(v)[:15]) + (", …" if len(v) > 15 else "")
                raise InvalidArgument(f"select {expr!r}: no key {arg!r} at {here}; keys there: {keys or '(none)'}.")
            return walk(v[arg], i + 1)
        if kind == "index":
            if not isinstance(v, list):
                raise InvalidArgument(f"select {expr!r}: {here} is {_type_name(v)}, not an array.")
            if not -len(v) <= arg < len(v):
                raise InvalidArgument(f"select {expr!r}: index {arg} out of range at {here} (length {len(v)}).")
            return walk(v[arg], i + 1)
        if kind == "slice":
            if not isinstance(v, list):
                raise InvalidArgument(f"select {expr!r}: {here} is {_type_name(v)}, not an array.")
            return [walk(x, i + 1) for x in v[arg[0]:arg[1]]]
        if isinstance(v, dict):
            return [walk(x, i + 1) for x in v.values()]
        if isinstance(v, list):
            return [walk(x, i + 1) for x in v]
        raise InvalidArgument(f"select {expr!r}: {here} is {_type_name(v)}; [*] needs an array or object.")

    return walk(value, 0)
