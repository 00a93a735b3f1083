"""Safe, compact rendering of a ``browser_evaluate`` result (pure: JSON text in, text out).

Two halves:

- ``browser/js/serialise.js`` is the in-page serialiser. It turns any JavaScript value into
  plain JSON, replacing what JSON cannot hold, or what would be huge, with *markers*:
  one-key objects whose key starts with ``$`` (see the table). It never throws (a getter
  that throws becomes a ``$threw`` marker), never follows a reference twice, and stops at
  fixed limits, so a 10 MB string or a million-item array costs a bounded amount to
  transfer.
- :func:`render_result` renders that JSON for the model: strings at the top level as
  they are, everything else as compact JSON-like text (one line when short, indented
  one space per level when long, so the capper can cut at line boundaries), markers as
  short readable forms; and a one-line summary of what was replaced.

Markers (``{"$kind": value}``; ``value`` shapes below):

=================  =========================================  ===========================
marker             meaning                                    rendered as
=================  =========================================  ===========================
``$undefined``     ``undefined``                              ``undefined``
``$number``        ``NaN``, ``Infinity``, ``-Infinity``, -0   the number as JS writes it
``$bigint``        a BigInt, as decimal digits                ``123n``
``$symbol``        a Symbol's description                     ``Symbol(x)``
``$function``      ``{name, source}`` (source ≤ 120 chars)    ``[Function name]``
``$node``          a DOM node: ``{tag, text}`` (≤ 80 chars)   ``<div#id.cls> "text"``
``$window``        a Window                                   ``[Window]``
``$ref``           a path already shown (cycle or shared)     ``[Circular $.a.b]``
``$string``        ``{head, length}``: a long string cut      ``"head…" (+N chars)``
``$more``          items/keys left out of a container         ``… N more``
``$depth``         nesting too deep, the value's type         ``[Object]``
``$date``          ISO date string                            ``Date(2024-…)``
``$regexp``        ``/source/flags``                          the regexp
``$error``         ``{name, message}``                        ``[TypeError: msg]``
``$map``/``$set``  entries / values (limited like arrays)     ``Map{k => v}``/``Set[…]``
``$typed``         ``{type, length}`` of a typed array/buffer ``Uint8Array(1024)``
``$promise``       an unresolved nested Promise               ``[Promise]``
``$threw``         a getter that threw: its message           ``[getter threw: msg]``
``$budget``        the total size limit was reached           ``… (output limit reached)``
=================  =========================================  ===========================

An object with a constructor other than ``Object`` carries ``"$class": "Name"`` as its
first key. A key that itself starts with ``$`` is escaped as ``$$key``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Limits", "RenderedResult", "render_result", "parse_result"]


@dataclass(frozen=True)
class Limits:
    """Bounds the in-page serialiser applies (units as named).

    Attributes:
        string_chars: characters of one string kept (100,000); the rest becomes ``$string``.
        items: array items / object keys / Map-Set entries kept per container (100).
        depth: nesting levels followed (12).
        total_chars: approximate characters of output after which everything left is
            replaced by ``$budget`` (400,000: ten times the per-call character ceiling, so
            ``offset`` can read well on).
    """

    string_chars: int = 100_000
    items: int = 100
    depth: int = 12
    total_chars: int = 400_000

    def as_js(self) -> dict[str, int]:
        """The limits as the serialiser's ``limits`` argument (camelCase)."""
        return {"stringChars": self.string_chars, "items": self.items, "depth": self.depth,
                "totalChars": self.total_chars}


@dataclass
class RenderedResult:
    """A rendered evaluate result.

    Attributes:
        text: the rendering (top-level strings as they are; everything else JSON-like).
        result_type: the JavaScript type of the top-level value (``string``, ``number``,
            ``object``, ``array``, ``undefined``, ``node``, ``function``, …).
        replaced: how many values of each marker kind were put in place of the real thing
            (e.g. ``{"ref": 1, "node": 3, "string": 1}``), for the summary line.
    """

    text: str
    result_type: str
    replaced: dict[str, int] = field(default_factory=dict)


_INLINE = 100  # a container whose one-line form is at most this many characters stays on one line


def parse_result(text: str, limits: Limits | None = None) -> Any:
    """Parse what ``browser/js/evaluate.js`` returns (``None`` for an empty string): the serialiser's JSON
    output, or a tagged primitive, error or CSP report (``"\\0s"`` + a string …; see ``evaluate.js``), made
    into the values the serialiser would have given (markers included, a long string cut at
    ``limits.string_chars``, default :class:`Limits`).

    Raises:
        ValueError: the text is neither JSON nor a known tag.
    """
    if not text:
        return None
    if text[0] == "\0":
        return _tagged(text[1:], limits or Limits())
    return json.loads(text)


_NUMBER_MARKERS = frozenset({"NaN", "Infinity", "-Infinity", "-0"})


def _thrown(rest: str) -> dict[str, str]:
    name, _, message = rest.partition("\0")
    return {"name": name or "Error", "message": message}


def _tagged(text: str, limits: Limits) -> Any:
    """One tagged result of ``evaluate.js`` as the serialiser's value (see :func:`parse_result`)."""
    tag, rest = text[:1], text[1:]
    if tag == "s":
        if len(rest) > limits.string_chars:
            return {"$string": {"head": rest[:limits.string_chars], "length": len(rest)}}
        return rest
    if tag == "n":
        if rest in _NUMBER_MARKERS:
            return {"$number": rest}
        number = float(rest)
        return int(number) if number.is_integer() and abs(number) < 2 ** 53 else number
    if tag == "b" and rest in ("t", "f"):
        return rest == "t"
    if tag == "l":
        return None
    if tag == "u":
        return {"$undefined": True}
    if tag == "i":
        return {"$bigint": rest}
    if tag == "t":
        return {"$thrown": _thrown(rest)}
    if tag == "c":
        listed, _, thrown = rest.partition("\0")
        blocked = list(dict.fromkeys(b for b in listed.split("\1") if b))
        return {"$csp": {"blocked": blocked, "thrown": _thrown(thrown) if thrown else None}}
    raise ValueError(f"unknown evaluate result tag {tag!r}")


def _is_marker(v: Any) -> str | None:
    if isinstance(v, dict) and v:
        first = next(iter(v))
        if first.startswith("$") and not first.startswith("$$") and first != "$class":
            if len(v) == 1 or first in ("$budget",):
                return first[1:]
    return None


def _key(k: str) -> str:
    k = k[1:] if k.startswith("$$") else k
    return json.dumps(k, ensure_ascii=False)


class _Renderer:
    def __init__(self) -> None:
        self.replaced: dict[str, int] = {}

    def count(self, kind: str) -> None:
        self.replaced[kind] = self.replaced.get(kind, 0) + 1

    def marker(self, kind: str, v: Any) -> str:
        self.count(kind)
        if kind == "undefined":
            self.replaced.pop("undefined")  # not a loss: JSON just cannot say it
            return "undefined"
        if kind == "number":
            self.replaced.pop("number")
            return str(v)
        if kind == "bigint":
            self.replaced.pop("bigint")
            return f"{v}n"
        if kind == "symbol":
            return f"Symbol({v})"
        if kind == "function":
            return f"[Function {v.get('name') or '(anonymous)'}]"
        if kind == "node":
            text = v.get("text") or ""
            return f"<{v.get('tag', 'node')}>" + (f" {json.dumps(text, ensure_ascii=False)}" if text else "")
        if kind == "window":
            return "[Window]"
        if kind == "ref":
            return f"[Circular {v}]"
        if kind == "string":
            head, length = v.get("head", ""), int(v.get("length", 0))
            return f"{json.dumps(head, ensure_ascii=False)}… (+{length - len(head):,} more chars of {length:,})"
        if kind == "more":
            return f"… {int(v):,} more"
        if kind == "depth":
            return f"[{v}]"
        if kind == "date":
            self.replaced.pop("date")
            return f"Date({v})"
        if kind == "regexp":
            self.replaced.pop("regexp")
            return str(v)
        if kind == "error":
            return f"[{v.get('name', 'Error')}: {v.get('message', '')}]"
        if kind == "typed":
            return f"{v.get('type', 'TypedArray')}({v.get('length', '?')})"
        if kind == "promise":
            return "[Promise]"
        if kind == "threw":
            return f"[getter threw: {v}]"
        if kind == "budget":
            return "… (output limit reached)"
        return json.dumps(v, ensure_ascii=False)

    def value(self, v: Any, level: int) -> str:
        kind = _is_marker(v)
        if kind is not None:
            if kind in ("map", "set"):
                return self.container(v["$" + kind], "Map{" if kind == "map" else "Set[",
                                      "}" if kind == "map" else "]", level, pairs=kind == "map")
            return self.marker(kind, v["$" + kind])
        if isinstance(v, dict):
            return self.container(v, "{", "}", level)
        if isinstance(v, list):
            return self.container(v, "[", "]", level)
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return str(v)
        return json.dumps(v, ensure_ascii=False)

    def container(self, v: Any, open_: str, close: str, level: int, *, pairs: bool = False) -> str:
        parts: list[str] = []
        if isinstance(v, dict):
            for k, item in v.items():
                if k == "$class":
                    open_ = f"{item} {open_}"
                    continue
                if k == "$more":
                    parts.append(self.marker("more", item))
                    continue
                if k == "$budget":
                    parts.append(self.marker("budget", True))
                    continue
                parts.append(f"{_key(k)}: {self.value(item, level + 1)}")
        else:
            for item in v:
                if pairs and isinstance(item, list) and len(item) == 2:
                    parts.append(f"{self.value(item[0], level + 1)} => {self.value(item[1], level + 1)}")
                else:
                    parts.append(self.value(item, level + 1))
        inline = open_ + ", ".join(parts) + close
        if len(inline) <= _INLINE and "\n" not in inline:
            return inline
        pad = " " * (level + 1)
        if all(len(p) <= 40 and "\n" not in p for p in parts):
            # Short items (numbers, short strings): pack several to a line.
            lines: list[str] = []
            line = ""
            for p in parts:
                if line and len(line) + len(p) + 2 > _INLINE:
                    lines.append(line + ",")
                    line = ""
                line = f"{line}, {p}" if line else p
            lines.append(line)
            return open_ + "\n" + "\n".join(pad + ln for ln in lines) + "\n" + " " * level + close
        return open_ + "\n" + ",\n".join(pad + p for p in parts) + "\n" + " " * level + close


def _top_type(v: Any) -> str:
    kind = _is_marker(v)
    if kind is not None:
        return {"string": "string", "number": "number", "bigint": "bigint", "undefined": "undefined",
                "symbol": "symbol", "function": "function", "node": "node", "window": "window",
                "date": "date", "regexp": "regexp", "error": "error", "map": "map", "set": "set",
                "typed": "typedarray", "promise": "promise"}.get(kind, "object")
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


_KIND_WORDS = {
    "ref": "circular/repeated reference", "node": "DOM node", "function": "function", "string": "long string cut",
    "more": "container cut", "depth": "too deep", "error": "Error object", "typed": "typed array",
    "promise": "promise", "threw": "throwing getter", "budget": "output limit", "window": "window", "symbol": "symbol",
}


def render_result(value: Any) -> RenderedResult:
    """Render a parsed serialiser result (see ``browser/js/serialise.js``) for the model.

    A top-level string is returned as it is (no quotes); a top-level ``$string`` marker as its
    head plus a line saying how many characters were left out; anything else as JSON-like
    text. When markers replaced something, a first line summarises them, e.g.
    ``(replaced: 1 circular/repeated reference, 2 DOM nodes)``.

    Args:
        value: the result of :func:`parse_result`.

    Returns:
        :class:`RenderedResult`.
    """
    r = _Renderer()
    top = _top_type(value)
    if isinstance(value, str):
        return RenderedResult(value, "string", {})
    kind = _is_marker(value)
    if kind == "string":
        head, length = value["$string"].get("head", ""), int(value["$string"].get("length", 0))
        note = f"\n… (string of {length:,} chars; only the first {len(head):,} were fetched from the page)"
        return RenderedResult(head + note, "string", {"string": 1})
    body = r.value(value, 0)
    if r.replaced:
        summary = ", ".join(f"{n} {_KIND_WORDS.get(k, k)}{'s' if n > 1 and not k == 'more' else ''}"
                            for k, n in sorted(r.replaced.items()))
        body = f"({summary} shown as markers)\n{body}"
    return RenderedResult(body, top, dict(r.replaced))
