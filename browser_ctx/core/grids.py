"""Tables built from ARIA roles, row ranges and the targets that unfold a fold (pure; used by the snapshot).

A data grid of a component library (MUI X DataGrid, AG Grid, TanStack) is made of ``div``s with the roles
``grid``/``table``/``treegrid``, ``row``, ``columnheader``/``rowheader`` and ``gridcell``/``cell``, often
through wrappers (``rowgroup``, fillers with ``role="none"``). :func:`grid_rows` and :func:`row_cells` find
its rows and cells the way :func:`browser_ctx.core.dom.table_rows` finds those of a ``<table>``.

A grid that renders only part of its rows (paginated or virtualised) says how many there are with
``aria-rowcount`` and which ones are rendered with ``aria-rowindex`` (both 1-based and counting header rows,
per WAI-ARIA 1.2). :func:`row_range` turns them into "rows 1-25 of 200".

:func:`fold_target` names the element whose targeted snapshot shows what a fold line left out: a targeted
snapshot does not fold the content of its matches, so one call shows the rest.
"""

from __future__ import annotations

import re

from .dom import Node, collapse_ws, role_of

__all__ = ["TABLE_ROLES", "CELL_ROLES", "is_row", "is_cell", "is_header_cell", "grid_rows", "row_cells",
           "row_range", "place", "once_per_row", "header_labels", "fold_target", "fold_hint"]

#: Roles that make an element a table (its rows and cells are laid out as one).
TABLE_ROLES = frozenset({"table", "grid", "treegrid"})
#: Roles of a table's cells.
CELL_ROLES = frozenset({"cell", "gridcell", "columnheader", "rowheader"})

#: An ``id`` that ``#id`` selects as it is (no escaping needed).
_CSS_ID = re.compile(r"[A-Za-z][\w-]{0,63}")
#: Roles Playwright's ``role=`` selector finds by name, for containers that fold.
_NAMED_ROLES = frozenset({"table", "grid", "treegrid", "list", "listbox", "menu", "menubar", "tree", "tablist",
                          "navigation", "region", "form", "dialog", "alertdialog", "group", "feed", "radiogroup",
                          "toolbar", "complementary", "search", "banner", "contentinfo", "main", "article"})


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


def _container_name(node: Node) -> str:
    for key in ("data-name", "aria-label"):
        value = collapse_ws(node.attrs.get(key) or "")
        if value:
            return value
    return ""


def _own_target(node: Node, framed: bool) -> str:
    """``node``'s ref, ``#id`` or ``role=…[name="…"]`` (only its ref inside a frame), else ``""``."""
    ref = node.attrs.get("data-ref")
    if ref:
        return ref
    if framed:
        return ""
    ident = node.attrs.get("data-id") or node.attrs.get("id") or ""  # data-id: the walker's copy of an id
    if _CSS_ID.fullmatch(ident):
        return "#" + ident
    role = role_of(node) or ("table" if node.tag == "table" else "list" if node.tag in ("ul", "ol") else "")
    name = _container_name(node)
    if role in _NAMED_ROLES and name and len(name) <= 80 and not name.endswith("…") \
            and '"' not in name and "\\" not in name:
        return f'role={role}[name="{name}"]'
    return ""


def _class_selector(node: Node) -> str:
    """``ol.references`` / ``.navbox-list`` (a ``div``/``span`` may stand for another tag in visible HTML, so
    it is left out), from the class tokens the walker kept that need no escaping; ``""`` when none does."""
    classes = [c for c in (node.attrs.get("class") or "").split() if _CSS_ID.fullmatch(c)]
    if not classes:
        return ""
    tag = "" if node.tag in ("div", "span") else node.tag
    return tag + "".join("." + c for c in classes)


def fold_target(node: Node | None) -> str:
    """Return a ``target`` for ``browser_snapshot`` that selects ``node`` (the container of a folded run), or
    ``""`` when nothing can name it.

    In order: its ref (``e12``, ``f1e3``); ``#id``; ``role=list[name="Sizes"]`` for a named container of
    :data:`_NAMED_ROLES` (a name cut with ``…`` or holding a quote is not used); its tag and classes under
    the nearest ancestor named so (``#content >> ol.references``: every match is shown, so a class shared
    by a few lists still shows this one); else the nearest ancestor named so; else its tag under the nearest
    landmark, that landmark, or ``body`` (:func:`_tag_target`). Inside a frame (``bc-frame``) only refs are used:
    a CSS or role selector is resolved in the top document.
    """
    if node is None:
        return ""
    framed = False
    up: Node | None = node
    while up is not None:
        if up.tag == "bc-frame":
            framed = True
            break
        up = up.parent
    own = _own_target(node, framed)
    if own:
        return own
    by_class = "" if framed else _class_selector(node)
    n = node.parent
    while n is not None and n.tag not in ("body", "html", "bc-frame"):
        anchor = _own_target(n, framed)
        if anchor:
            if by_class:
                return by_class if anchor.startswith(("e", "f")) and anchor[1:2].isdigit() \
                    else f"{anchor} >> {by_class}"
            return anchor
        n = n.parent
    if by_class or framed:
        return by_class
    return _tag_target(node)


#: Tags the walker keeps as they are in the page, so a selector may name them (a ``div``/``span`` may stand for
#: another element); and the landmarks among them a fold's container is looked for under.
_KEPT_TAGS = frozenset(("table", "ul", "ol", "dl", "main", "article", "nav", "aside", "header", "footer", "form"))
_LANDMARK_TAGS = frozenset(("main", "article", "nav", "aside", "header", "footer", "form"))


def _tag_target(node: Node) -> str:
    """The last resort of :func:`fold_target` for a container nothing names: its tag under the nearest landmark
    (``main >> table``: every match is shown, this one among them), the landmark itself when its own tag says
    nothing (a ``div`` of paragraphs), else ``body`` (a targeted snapshot folds nothing)."""
    landmark = node.parent
    while landmark is not None and landmark.tag not in _LANDMARK_TAGS:
        landmark = landmark.parent
    if node.tag in _KEPT_TAGS:
        return f"{landmark.tag} >> {node.tag}" if landmark is not None else node.tag
    return landmark.tag if landmark is not None else "body"


def fold_hint(node: Node | None) -> str:
    """Return the end of a fold line saying how to see what it folded in one call:
    ``" (all: browser_snapshot target='role=grid[name="Orders"]')"``, or ``""`` when nothing names it."""
    target = fold_target(node)
    return f" (all: browser_snapshot target='{target}')" if target else ""
