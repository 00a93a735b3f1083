"""Tables: ``<table>`` and ARIA grids laid out on their column grid, and their snapshot lines.

A data grid of a component library (MUI X DataGrid, AG Grid, TanStack) is made of ``div``s with the roles
``grid``/``table``/``treegrid``, ``row``, ``columnheader``/``rowheader`` and ``gridcell``/``cell``, often
through wrappers (``rowgroup``, fillers with ``role="none"``). :func:`grid_rows` and :func:`row_cells` find
its rows and cells the way :func:`browser_ctx.core.dom.table_rows` finds those of a ``<table>``; :func:`place`
lays out spans, so markdown uses them too.

A grid that renders only part of its rows (paginated or virtualised) says how many there are with
``aria-rowcount`` and which ones are rendered with ``aria-rowindex`` (both 1-based and counting header rows,
per WAI-ARIA 1.2). :func:`row_range` turns them into "rows 1-25 of 200".

:func:`render_table` writes a table's lines: ``table|grid "name" C cols × R rows: header``, then its rows
(``row: a | b``), folded past ``table_rows`` rows when the table has more than ``table_rows_whole``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..dom import Node, collapse_ws, control_state, is_interactive, role_of, table_rows
from .folding import fold_hint
from .inline import inline_segments, nested_controls, text_outside_controls
from .lines import cut, key_of
from .options import FOLD_LEAST

if TYPE_CHECKING:
    from .render import Renderer

_WS = re.compile(r"\s+")

__all__ = ["TABLE_ROLES", "CELL_ROLES", "is_row", "is_cell", "is_header_cell", "grid_rows", "row_cells",
           "row_range", "place", "once_per_row", "header_labels", "is_data_table", "render_table"]

#: Roles that make an element a table (its rows and cells are laid out as one).
TABLE_ROLES = frozenset({"table", "grid", "treegrid"})
#: Roles of a table's cells.
CELL_ROLES = frozenset({"cell", "gridcell", "columnheader", "rowheader"})

def _explicit_role(node: Node) -> str:
    roles = (node.attrs.get("role") or "").strip().lower().split()
    return roles[0] if roles else ""


def is_row(node: Node) -> bool:
    """A table row: ``tr`` (unless its role says otherwise) or ``role="row"``."""
    role = _explicit_role(node)
    return role == "row" or (node.tag == "tr" and role in ("", "row"))


def is_cell(node: Node) -> bool:
    """A table cell: ``td``/``th`` (unless its role says otherwise) or a cell role (:data:`CELL_ROLES`)."""
    role = _explicit_role(node)
    return role in CELL_ROLES or (node.tag in ("td", "th") and role == "")


def is_header_cell(node: Node) -> bool:
    """A column header cell: ``th`` or ``role="columnheader"``."""
    role = _explicit_role(node)
    return role == "columnheader" or (node.tag == "th" and role in ("", "columnheader"))


def grid_rows(grid: Node) -> list[Node]:
    """The rows of ``grid`` in document order, through any wrappers (row groups, fillers), not descending
    into rows, cells or nested tables."""
    rows: list[Node] = []
    stack = list(reversed(grid.children))
    while stack:
        n = stack.pop()
        if n.is_text:
            continue
        if is_row(n):
            rows.append(n)
        elif not (is_cell(n) or n.tag in ("table", "caption") or _explicit_role(n) in TABLE_ROLES):
            stack.extend(reversed(n.children))
    return rows


def row_cells(row: Node) -> list[Node]:
    """The cells of ``row`` in document order, through wrappers, not descending into cells."""
    cells: list[Node] = []
    stack = list(reversed(row.children))
    while stack:
        n = stack.pop()
        if n.is_text:
            continue
        if is_cell(n):
            cells.append(n)
        elif not (is_row(n) or n.tag == "table" or _explicit_role(n) in TABLE_ROLES):
            stack.extend(reversed(n.children))
    return cells


def _span(cell: Node, attr: str, most: int) -> int:
    text = (cell.attrs.get(attr) or "").strip()
    return max(1, min(most, int(text))) if text.isdigit() else 1


def place(rows: list[Node]) -> list[list[Node | None]]:
    """Lay ``rows`` out on a grid the way a browser does: each row becomes one entry per column, a cell
    spanning columns (``colspan``, at most 50) or rows (``rowspan``, at most 500) standing in every slot it
    covers, ``None`` where no cell does. So a value sits in its own column in every row it spans.
    """
    grid: list[list[Node | None]] = []
    below: dict[int, tuple[Node, int]] = {}  # column -> (cell spanning down into it, rows still to cover)
    for row in rows:
        out: list[Node | None] = []
        for cell in row_cells(row):
            _take_below(out, below)
            down = _span(cell, "rowspan", 500)
            for _ in range(_span(cell, "colspan", 50)):
                if down > 1:
                    below[len(out)] = (cell, down - 1)
                out.append(cell)
        _take_below(out, below)
        while below and max(below) >= len(out):  # a column further right still covered from above
            if len(out) in below:
                _take_below(out, below)
            else:
                out.append(None)
        grid.append(out)
    return grid


def _take_below(out: list[Node | None], below: dict[int, tuple[Node, int]]) -> None:
    """Fill the next columns of ``out`` that a cell from a row above still covers."""
    while len(out) in below:
        cell, left = below.pop(len(out))
        if left > 1:
            below[len(out)] = (cell, left - 1)
        out.append(cell)


def once_per_row(placed_row: list[Node | None]) -> list[Node | None]:
    """A placed body row with a cell spanning columns shown once, in its first column (``None`` after it):
    "Total | " rather than "Total | Total"; a cell spanning rows still repeats in each row."""
    return [c if i == 0 or c is not placed_row[i - 1] else None for i, c in enumerate(placed_row)]


def header_labels(placed: list[list[str]]) -> list[str]:
    """One label per column from the placed texts of one or more header rows: the distinct texts top-down
    ("Q1 Units"; "Region" spanning both rows once)."""
    ncols = max((len(r) for r in placed), default=0)
    labels: list[str] = []
    for col in range(ncols):
        parts: list[str] = []
        for row in placed:
            text = row[col] if col < len(row) else ""
            if text and (not parts or parts[-1] != text):
                parts.append(text)
        labels.append(" ".join(parts))
    return labels


def _index(node: Node, attr: str) -> int | None:
    text = (node.attrs.get(attr) or "").strip()
    if text.lstrip("-").isdigit():
        return int(text)
    return None


def row_range(grid: Node, header_rows: list[Node], body: list[Node]) -> str:
    """Return ``"rows 1-25 of 200"`` for a grid with ``aria-rowcount``, or ``""`` when it has none.

    The range is that of the rendered body rows (by their ``aria-rowindex``, else counted from 1); the
    header rows are left out of both the range and the total when the page numbers them (a header row with
    an ``aria-rowindex``, as WAI-ARIA says every row counts). ``aria-rowcount="-1"`` (total unknown) reads
    "rows 1-20 of unknown"; an empty body reads "no rows of 1,000".
    """
    total = _index(grid, "aria-rowcount")
    if total is None:
        return ""
    numbered_header = sum(1 for r in header_rows if _index(r, "aria-rowindex") is not None)
    of = "unknown" if total < 0 else f"{max(0, total - numbered_header):,}"
    if not body:
        return f"no rows of {of}"
    first = _index(body[0], "aria-rowindex")
    last = _index(body[-1], "aria-rowindex")
    if first is None or last is None or last < first:
        start, end = 1, len(body)
    else:
        start, end = first - numbered_header, last - numbered_header
    return f"rows {start:,}-{end:,} of {of}"


# --------------------------------------------------------------------------- the snapshot's table lines

#: Controls shown per table cell; further ones are counted as "(+N more)".
CELL_CONTROLS = 3


def is_data_table(table: Node) -> bool:
    """Whether a ``<table>`` holds data (rendered as a table) rather than layout (rendered as its content)."""
    attrs = table.attrs
    if any(True for _ in table.elements("table")):
        return False
    role = (attrs.get("role") or "").lower()
    if role in ("table", "grid", "treegrid") or attrs.get("data-name") or attrs.get("aria-label"):
        return True
    if any(c.tag in ("caption", "thead") for c in table.children):
        return True
    rows = table_rows(table)
    if not rows:
        return False
    if any(c.tag == "th" for r in rows[:3] for c in r.children):
        return True
    if len(rows) >= 2:
        widths = {sum(1 for c in r.children if c.tag in ("td", "th")) for r in rows}
        return len(widths) == 1 and min(widths) >= 2
    return False


def cell_text(r: Renderer, cell: Node) -> tuple[str, list[str]]:
    """One table cell on one line, and the refs it shows: text cut to ``cell_chars``, at most
    :data:`CELL_CONTROLS` controls (the rest counted), ``|`` replaced by ``/``. A cell that is itself a control
    (a date picker's day, a selectable grid cell) is its control line."""
    if is_interactive(cell):
        ref = cell.attrs.get("data-ref")
        if ref and role_of(cell) in ("gridcell", "cell"):
            # A data grid's cell: its content and its ref ("Ada Lovelace [e14]"), unless its name says more
            # than its text (a date picker's "Choose Tuesday, December 15th" for "15").
            inner, refs = _cell_content(r, cell)
            name = collapse_ws(cell.attrs.get("data-name") or "")
            if not name or key_of(name) == key_of(text_outside_controls(cell)) or nested_controls(cell):
                states = " ".join(control_state(cell))
                return (f"{inner} [{ref}]" if inner else f"[{ref}]") + (f" {states}" if states else ""), \
                    [*refs, ref]
        return r.control_line(cell)[0].replace("|", "/"), [ref] if ref else []
    return _cell_content(r, cell)


def _cell_content(r: Renderer, cell: Node) -> tuple[str, list[str]]:
    segs: list[tuple[str, str, str]] = []
    inline_segments(cell, segs, r)
    out: list[str] = []
    refs: list[str] = []
    used = controls = dropped = 0
    cutting = False
    for kind, seg, ref in segs:
        if kind == "ctl":
            if controls < CELL_CONTROLS:
                out.append(" " + seg + " ")
                if ref:
                    refs.append(ref)
                controls += 1
            else:
                dropped += 1
            continue
        text = _WS.sub(" ", seg)
        if used + len(text) > r.o.cell_chars:
            room = max(0, r.o.cell_chars - used)
            if not cutting:
                out.append(text[:room].rstrip() + "…")
            cutting = True
            used = r.o.cell_chars
            continue
        used += len(text)
        out.append(text)
    text = collapse_ws("".join(out))
    if dropped:
        text += f" (+{dropped} more)"
    return text.replace("|", "/"), refs


def _row_head(row: Node, word: str) -> str:
    """``row: `` or, for a data grid's row that has a ref, ``row [e12]: `` (states after the ref)."""
    ref = row.attrs.get("data-ref")
    if not ref:
        return word + ": "
    states = " ".join(s for s in control_state(row) if s != "unselected")
    return f"{word} [{ref}]" + (f" {states}" if states else "") + ": "


def _cells_line(cells: list[str], max_cols: int) -> str:
    shown = cells[:max_cols]
    line = " | ".join(shown)
    if len(cells) > max_cols:
        line += " | …"
    return line


def render_table(r: Renderer, node: Node, depth: int) -> None:
    """A ``<table>`` or an ARIA grid (``role=grid|table|treegrid``: rows and cells found by role, through
    wrappers): ``table|grid "name" C cols × R rows: header``, or ``… C cols, rows 1-25 of 200: header``
    when the grid has ``aria-rowcount``; then its rows, all of them up to ``table_rows_whole``, else the
    first ``table_rows`` and a fold line naming the target whose snapshot shows them all."""
    o = r.o
    rows = table_rows(node) if node.tag == "table" else grid_rows(node)
    # Header rows: the leading rows in <thead> or made of header cells only ("Region | Q1 | Q2" over
    # "Units | Revenue | …"); every row laid out on the column grid, spans placed (place).
    nhead = 0
    while nhead < len(rows):
        row = rows[nhead]
        cells = row_cells(row)
        in_thead = row.parent is not None and row.parent.tag == "thead"
        if not cells or not (in_thead or all(is_header_cell(c) for c in cells)):
            break
        nhead += 1
    if nhead == len(rows) and nhead > 1:
        nhead = 1  # a table of header cells only: its first row heads the rest
    header_rows, body = rows[:nhead], rows[nhead:]
    placed = place(rows)
    texts: dict[int, tuple[str, list[str]]] = {}

    def text_of(c: Node) -> tuple[str, list[str]]:
        if id(c) not in texts:
            texts[id(c)] = cell_text(r, c)
        return texts[id(c)]

    def texts_of(index: int) -> tuple[list[str], list[str]]:
        out: list[str] = []
        refs: list[str] = []
        for c in placed[index] if index < nhead else once_per_row(placed[index]):
            if c is None:
                out.append("")
                continue
            text, cell_refs = text_of(c)
            out.append(text)
            refs.extend(x for x in cell_refs if x not in refs)
        return out, refs

    header_refs: list[str] = []
    if nhead > 1:
        head_rows = [texts_of(i) for i in range(nhead)]
        header = header_labels([texts for texts, _ in head_rows])
        for _, refs in head_rows:
            header_refs.extend(x for x in refs if x not in header_refs)
    elif nhead:
        header = []
        for c in once_per_row(placed[0]):
            text, cell_refs = cell_text(r, c) if c is not None else ("", [])
            header.append(text)
            header_refs.extend(cell_refs)
    else:
        header = []
    ncols = max([len(row) for row in placed] or [0])
    name = r.name_of_container(node)
    if not name:
        for c in node.children:
            if c.tag == "caption":
                name = cut(c.text_content(), o.name_chars)
    role = (node.attrs.get("role") or "").strip().lower().split()
    kind = role[0] if node.tag != "table" and role and role[0] in TABLE_ROLES else "table"
    span = row_range(node, header_rows, body)
    if span:
        size = f"{ncols} col{'s' if ncols != 1 else ''}, {span}"
    else:
        size = f"{ncols} col{'s' if ncols != 1 else ''} × {len(body):,} row{'s' if len(body) != 1 else ''}"
    head = kind + (f' "{name}"' if name else "") + f" {size}"
    if not any(h.strip() for h in header):
        header = []  # header cells whose text is hidden from the accessibility tree (a calendar's "Su Mo …")
        header_refs = []
    header_ref = header_rows[0].attrs.get("data-ref") if header_rows else None
    if header_ref:
        r.emit(depth, head, "container", opens=True)
        r.emit(depth + 1, _row_head(header_rows[0], "header") + _cells_line(header, o.table_cols), "other",
               refs=[header_ref, *header_refs])
    else:
        r.emit(depth, head + (": " + _cells_line(header, o.table_cols) if header else ""), "container",
               refs=header_refs)
    whole = o.grid_rows_whole if kind in ("grid", "treegrid") else o.table_rows_whole
    shown = len(body) if len(body) <= max(whole, o.table_rows + 1) else o.table_rows
    if len(body) - shown < FOLD_LEAST:
        shown = len(body)
    fold = r.fold("rows") if shown < len(body) else None
    outer = r.hiding
    for i, row in enumerate(body if fold is None or r.plan else body[:shown]):
        if i == shown and fold is not None:
            r.hiding = (*outer, fold)
        row_texts, refs = texts_of(nhead + i)
        row_ref = row.attrs.get("data-ref")
        r.emit(depth + 1, _row_head(row, "row") + _cells_line(row_texts, o.table_cols), "other",
               refs=[row_ref, *refs] if row_ref else refs)
    r.hiding = outer
    if fold is not None:
        r.emit(depth + 1, f"… {len(body) - shown:,} more rows{fold_hint(node)}", "fold", shown_by=fold)
