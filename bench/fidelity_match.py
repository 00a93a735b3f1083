"""Matching for the fidelity measure (pure: plain strings in, plain data out).

Each server's page read is parsed into ``(role, name, ref)`` items, and compared with the ground truth from
Chromium's accessibility tree (:mod:`bench.fidelity_truth`):

- an **interactive node** counts as present when the server's output has an item with the same canonical role
  (:func:`canonical_role`) and the same name (:func:`norm`: whitespace collapsed, zero-width/format and
  private-use characters removed, case-folded, since Chromium names CSS-uppercased text in capitals) **and a
  ref**; the comparison is a multiset (25 "Delete" buttons need 25 items with refs);
- a **static text** counts as present when its normalised form is a substring of the server's normalised output
  (:func:`haystack`; distinct texts, each counted once).

Formats parsed (:func:`parse_items`):

- ``browser-ctx``: ``button "Save" [e12] …`` anywhere on a line (``- `` list items and controls inside text
  lines too; ``password`` reads as ``textbox``, ``select`` as ``combobox``), a control inside a heading
  ``heading 3 "Shipping" button [e5]`` (named by the heading), links inside running text ``[text](e4)`` /
  ``[text](e4 → /u)``, and grid rows ``row [e12]: 1001 [e13] | Ada [e14]`` (a row and its cells);
- ``playwright-mcp`` (YAML): ``- button "Save" [pressed] [ref=e12]: …``, also a key wrapped in single quotes;
- ``chrome-devtools-mcp``: ``uid=1_2 button "Save" …`` (the uid is the ref).

Rows and grid cells are named by their content in Chromium; a server that shows one with a ref but no name, and
its content (browser-ctx's ``row [e12]: a | b``, @playwright/mcp's ``- row [ref=e5]:`` over its cells), is read as
naming it by that content (cells joined by spaces).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

__all__ = [
    "INTERACTIVE_ROLES", "Item", "Score", "canonical_role", "collapse", "haystack", "norm", "parse_items",
    "score", "FORMATS",
]

#: Roles counted as interactive (canonical names, see :func:`canonical_role`).
INTERACTIVE_ROLES = frozenset(
    "button link textbox combobox option tab menuitem menuitemcheckbox menuitemradio checkbox radio switch "
    "slider spinbutton gridcell row treeitem".split()
)

#: Chromium-internal, Playwright and browser-ctx role words that mean one of the canonical roles.
_ROLE_ALIASES = {
    "menulistoption": "option", "listboxoption": "option",
    "searchbox": "textbox", "password": "textbox", "textfield": "textbox", "textfieldwithcombobox": "combobox",
    "comboboxselect": "combobox", "comboboxmenubutton": "combobox", "comboboxgrouping": "combobox",
    "popupbutton": "combobox", "togglebutton": "button", "disclosuretriangle": "button", "select": "combobox",
}

#: Formats :func:`parse_items` reads, by server name.
FORMATS = ("browser-ctx", "playwright-mcp", "chrome-devtools-mcp")

_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad\ue000-\uf8ff]")
_WS = re.compile(r"\s+")


def canonical_role(role: str) -> str:
    """Lower-case ``role`` and map aliases (``MenuListOption`` → ``option``, ``searchbox`` → ``textbox``)."""
    r = (role or "").strip().lower()
    return _ROLE_ALIASES.get(r, r)


def collapse(text: str) -> str:
    """Drop zero-width, format and private-use characters, collapse whitespace (NBSP too), strip."""
    return _WS.sub(" ", _INVISIBLE.sub("", text or "")).strip()


def norm(text: str) -> str:
    """:func:`collapse`, then case-fold: the form names and texts are compared in."""
    return collapse(text).casefold()


@dataclass(frozen=True)
class Item:
    """One element of a server's output: canonical role, name as shown (unescaped), ref (``""`` when none)."""

    role: str
    name: str
    ref: str = ""


_BC_ROLES = "|".join(sorted({*INTERACTIVE_ROLES, "password", "searchbox", "select"}, key=len, reverse=True))
_BC_CONTROL = re.compile(
    rf'(?:(?<=^)|(?<=[\s(:\-]))(?P<role>{_BC_ROLES}) "(?P<name>[^\n]*?)" \[(?P<ref>(?:f\d+)?e\d+)\]', re.M)
_BC_HEADING = re.compile(
    rf'heading \d "(?P<name>[^\n]*?)" (?P<role>{_BC_ROLES}) \[(?P<ref>(?:f\d+)?e\d+)\]', re.M)
_BC_INLINE = re.compile(r"\[(?P<name>[^\]\n]+)\]\((?P<ref>(?:f\d+)?e\d+)(?: → [^)\n]*)?\)")
_PW_LINE = re.compile(r'^(?P<role>[a-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)')
_PW_REF = re.compile(r"\[ref=([^\]]+)\]")
_DT_LINE = re.compile(r'^\s*uid=(?P<ref>\S+) (?P<role>[A-Za-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?', re.M)


def _unescape(quoted: str) -> str:
    """Undo JSON-style escapes in a double-quoted name (``\\"`` → ``"``); leave it as is if it is not JSON."""
    try:
        return json.loads(f'"{quoted}"')
    except ValueError:
        return quoted.replace('\\"', '"')


def _yaml_entry(line: str) -> tuple[str, str]:
    """The key of a YAML list line ``- key: value`` / ``- 'quoted key': value``, unquoted (``''`` → ``'``), and
    what follows it (``": value"`` or ``":"`` or ``""``)."""
    body = line.strip()
    if not body.startswith("- "):
        return "", ""
    body = body[2:]
    if body.startswith("'"):
        m = re.match(r"'((?:[^']|'')*)'", body)
        return (m.group(1).replace("''", "'"), body[m.end():]) if m else (body, "")
    return body, ""


#: Roles whose name comes from their content: a server showing them without a name but with their content
#: (a grid row as its cells) is read as naming them by that content.
_NAME_FROM_CONTENT = frozenset({"row", "gridcell"})
_BC_ROW = re.compile(r"^[ \t]*(?P<kind>row|header) \[(?P<ref>(?:f\d+)?e\d+)\][^:\n]*: (?P<cells>[^\n]*)$", re.M)
_BC_CELL = re.compile(r"^(?P<body>.*?) \[(?P<ref>(?:f\d+)?e\d+)\]$")


def _bc_rows(text: str) -> list[Item]:
    """browser-ctx's grid rows ``row [e12]: 1001 [e13] | Ada [e14] | button "Delete" [e16] [e15]``: a row named by
    its cells (as Chromium names it), each cell with a ref a gridcell named by its text (a control in a cell reads
    as its name); ``header [e11]: Order | Customer`` is a row too (its cells are column headers, not scored)."""
    items: list[Item] = []
    for m in _BC_ROW.finditer(text):
        shown: list[str] = []
        for cell in m["cells"].split(" | "):
            c = _BC_CELL.match(cell.strip())
            body = c["body"] if c else cell.strip()
            body = _BC_CONTROL.sub(lambda x: x["name"], body)
            shown.append(body)
            if c and m["kind"] == "row":
                items.append(Item("gridcell", body, c["ref"]))
        items.append(Item("row", " ".join(shown), m["ref"]))
    return items


def _pw_items(text: str) -> list[Item]:
    """@playwright/mcp's YAML, with unnamed rows and grid cells named by what they hold (see
    :data:`_NAME_FROM_CONTENT`)."""
    nodes: list[tuple[int, str, str, str, str]] = []  # indent, role, name, ref, inline text
    for line in text.splitlines():
        key, rest = _yaml_entry(line)
        m = _PW_LINE.match(key)
        if not m:
            continue
        tail = (key[m.end():] + rest).strip()
        inline = tail[1:].strip() if tail.startswith(":") else ""
        if inline.startswith('"') and inline.endswith('"') and len(inline) > 1:
            inline = _unescape(inline[1:-1])
        ref = _PW_REF.search(m["attrs"] or "")
        indent = len(line) - len(line.lstrip())
        nodes.append((indent, canonical_role(m["role"]), _unescape(m["name"] or ""), ref.group(1) if ref else "",
                      inline))

    def content(i: int) -> str:
        indent, _role, name, _ref, inline = nodes[i]
        if name or inline:
            return name or inline
        parts, j = [], i + 1
        child = nodes[j][0] if j < len(nodes) else 0
        while j < len(nodes) and nodes[j][0] > indent:
            if nodes[j][0] == child:  # direct children only; each gives its name, text or content
                parts.append(content(j))
            j += 1
        return " ".join(p for p in parts if p)

    items = []
    for i, node in enumerate(nodes):
        role, name = node[1], node[2]
        if not name and role in _NAME_FROM_CONTENT:
            name = content(i)
        items.append(Item(role, name, node[3]))
    return items


def parse_items(text: str, fmt: str) -> list[Item]:
    """Parse a server's output into :class:`Item` s (only lines that name a role; see the module doc).

    Raises:
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    items: list[Item] = []
    if fmt == "browser-ctx":
        for m in _BC_CONTROL.finditer(text):
            items.append(Item(canonical_role(m["role"]), m["name"], m["ref"]))
        for m in _BC_HEADING.finditer(text):  # heading 3 "Shipping" button [e5]: a control named by its heading
            items.append(Item(canonical_role(m["role"]), m["name"], m["ref"]))
        for m in _BC_INLINE.finditer(text):
            items.append(Item("link", m["name"], m["ref"]))
        items += _bc_rows(text)
    elif fmt == "playwright-mcp":
        items += _pw_items(text)
    elif fmt == "chrome-devtools-mcp":
        for m in _DT_LINE.finditer(text):
            items.append(Item(canonical_role(m["role"]), _unescape(m["name"] or ""), m["ref"]))
    else:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    return items


def haystack(texts: list[str]) -> str:
    """The servers' outputs joined and normalised for the static-text check (``\\"`` and ``\\\\`` unescaped)."""
    joined = "\n".join(texts).replace('\\"', '"').replace("\\\\", "\\")
    return norm(joined)


@dataclass
class Score:
    """One server on one page state.

    Attributes:
        interactive_total / interactive_found: ground-truth interactive nodes, and how many the output had
            with the same role and name and a ref (multiset match).
        text_total / text_found: distinct visible static texts, and how many appear in the output.
        missing_nodes: ``(role, name, count missing)``; ``missing_text``: the texts not found.
    """

    interactive_total: int = 0
    interactive_found: int = 0
    text_total: int = 0
    text_found: int = 0
    missing_nodes: list[tuple[str, str, int]] | None = None
    missing_text: list[str] | None = None

    @property
    def interactive_pct(self) -> float:
        """Share of interactive nodes found, in percent (100 when there were none)."""
        return 100.0 * self.interactive_found / self.interactive_total if self.interactive_total else 100.0

    @property
    def text_pct(self) -> float:
        """Share of distinct static texts found, in percent (100 when there were none)."""
        return 100.0 * self.text_found / self.text_total if self.text_total else 100.0


def score(truth_nodes: list[tuple[str, str]], truth_text: list[str], outputs: list[str], fmt: str) -> Score:
    """Compare ground truth with a server's outputs (its ≤ 2 page reads) in format ``fmt``."""
    want = Counter((canonical_role(r), norm(n)) for r, n in truth_nodes)
    have = Counter((i.role, norm(i.name)) for text in outputs for i in parse_items(text, fmt) if i.ref)
    shown = {(canonical_role(r), norm(n)): collapse(n) for r, n in truth_nodes}
    missing = [(key[0], shown[key], n - have[key]) for key, n in want.items() if have[key] < n]
    hay = haystack(outputs)
    texts: dict[str, str] = {}
    for t in truth_text:
        key = norm(t)
        if key:
            texts.setdefault(key, collapse(t))
    lost = [shown_text for key, shown_text in texts.items() if key not in hay]
    return Score(
        interactive_total=sum(want.values()),
        interactive_found=sum(min(n, have[key]) for key, n in want.items()),
        text_total=len(texts), text_found=len(texts) - len(lost),
        missing_nodes=missing, missing_text=lost,
    )
