"""Readable text of a page: Markdown (:func:`render_markdown`) or plain text (:func:`render_text`).

Both take visible HTML (or raw HTML, cleaned as in :func:`browser_ctx.core.dom.parse_html`:
hidden content, scripts, styles, comments and ``data:`` payloads never appear) and
normalise whitespace: runs collapse to one space outside ``pre``, no trailing spaces, no
runs of blank lines, no leading or trailing blank lines.
"""

from __future__ import annotations

import re

from .dom import BLOCK_TAGS, Document, Node, as_document, collapse_ws, control_value, heading_level, table_rows
from .snapshot.tables import TABLE_ROLES, grid_rows, header_labels, is_header_cell, once_per_row, place, row_cells
from .urls import shorten_url

__all__ = ["render_markdown", "render_text", "LINK_URL_LIMIT"]

#: Longest URL shown by ``render_markdown(links=True)`` (characters, see ``shorten_url``).
LINK_URL_LIMIT = 100

_BR = "\x00"  # line-break sentinel inside inline text
_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_SKIP = frozenset(("select", "textarea", "input", "option", "optgroup", "datalist", "iframe", "frame", "legend"))
_LISTS = frozenset(("ul", "ol", "menu", "dir"))


def _norm_inline(text: str) -> str:
    """Collapse whitespace of inline text; sentinel line breaks become real ones."""
    lines = [_WS.sub(" ", part).strip() for part in text.split(_BR)]
    return "\n".join(line for line in lines if line)


class _Writer:
    def __init__(self, *, plain: bool, links: bool, base: str = "") -> None:
        self.plain = plain
        self.links = links and not plain
        self.base = base or None

    # ----------------------------------------------------------------- blocks
    def blocks(self, node: Node) -> list[str]:
        """Render the children of ``node`` as a list of blocks (strings, no blank lines inside
        except in code blocks)."""
        out: list[str] = []
        acc: list[str] = []
        self._walk_children(node, out, acc)
        self._flush(out, acc)
        return out

    def _flush(self, out: list[str], acc: list[str]) -> None:
        if acc:
            text = _norm_inline("".join(acc))
            acc.clear()
            if text:
                out.append(text)

    def _walk_children(self, node: Node, out: list[str], acc: list[str]) -> None:
        for child in node.children:
            self._walk(child, out, acc)

    def _walk(self, node: Node, out: list[str], acc: list[str]) -> None:
        if node.is_text:
            acc.append(node.text)
            return
        tag = node.tag
        if tag in _SKIP:
            return
        level = heading_level(node)
        if level is not None:
            self._flush(out, acc)
            text = _norm_inline(self.inline(node)).replace("\n", " ")
            if text:
                out.append(text if self.plain else "#" * level + " " + text)
            return
        if tag in _LISTS or (node.attrs.get("role") or "").strip().lower() == "list":
            self._flush(out, acc)
            block = self.list_block(node, ordered=tag == "ol")
            if block:
                out.append(block)
            return
        if tag == "pre":
            self._flush(out, acc)
            block = self.code_block(node)
            if block:
                out.append(block)
            return
        if tag == "table" or (_role(node) in TABLE_ROLES and grid_rows(node)):
            self._flush(out, acc)
            out.extend(self.table_blocks(node))
            return
        if tag == "blockquote":
            self._flush(out, acc)
            inner = self.blocks(node)
            if inner:
                if self.plain:
                    out.extend(inner)
                else:
                    text = "\n\n".join(inner)
                    out.append("\n".join("> " + line if line else ">" for line in text.split("\n")))
            return
        if tag == "hr":
            self._flush(out, acc)
            if not self.plain:
                out.append("---")
            return
        if tag == "bc-frame":
            self._flush(out, acc)
            ident = node.attrs.get("data-frame") or ""
            url = node.attrs.get("data-url") or ""
            where = f" ({shorten_url(url, limit=LINK_URL_LIMIT)})" if url else ""
            head = "--- frame" + (f" {ident}" if ident else "") + where + " ---"
            out.append(head)
            out.extend(self.blocks(node))
            return
        if tag == "br":
            acc.append(_BR)
            return
        if tag in BLOCK_TAGS or tag in ("li", "dt", "dd"):
            self._flush(out, acc)
            self._walk_children(node, out, acc)
            self._flush(out, acc)
            return
        acc.append(self.inline(node))

    # ----------------------------------------------------------------- inline
    def inline(self, node: Node) -> str:
        """Inline rendering of ``node`` itself (text, links, images, code), line breaks as the
        sentinel. Block descendants are treated as inline (separated by spaces)."""
        tag = node.tag
        if node.is_text:
            return node.text
        if tag in _SKIP:
            return ""
        if tag == "img":
            alt = collapse_ws(node.attrs.get("alt") or "")
            return f"[{alt}]" if alt else ""
        if tag == "br":
            return _BR
        inner = "".join(self.inline(c) for c in node.children)
        if tag in BLOCK_TAGS or tag in ("li", "td", "th", "dt", "dd") or tag in _SEPARATE or _role(node) in _SEPARATE:
            inner = f" {inner} "  # side-by-side buttons, tabs or fields are separate words ("Order Orders Help")
        if tag == "code" and not self.plain:
            text = _WS.sub(" ", inner.replace(_BR, " "))
            core = text.strip()
            if not core:
                return text
            fence = "``" if "`" in core else "`"
            lead = " " if text[:1] == " " else ""
            trail = " " if text[-1:] == " " else ""
            return f"{lead}{fence}{core}{fence}{trail}"
        if tag == "a" and self.links:
            href = node.attrs.get("href")
            text = _WS.sub(" ", inner.replace(_BR, " "))
            core = text.strip()
            if href and core and href not in ("javascript:", "data:"):
                lead = " " if text[:1] == " " else ""
                trail = " " if text[-1:] == " " else ""
                return f"{lead}[{core}]({shorten_url(href, base=self.base, limit=LINK_URL_LIMIT)}){trail}"
        return inner

    # ----------------------------------------------------------------- lists
    def list_block(self, node: Node, ordered: bool) -> str:
        lines: list[str] = []
        number = 1
        start = node.attrs.get("start")
        if ordered and start and start.lstrip("-").isdigit():
            number = int(start)
        for child in node.children:
            if child.is_text:
                if child.text.strip():
                    lines.append(("" if self.plain else "- ") + collapse_ws(child.text))
                continue
            if child.tag not in ("li",) and (child.attrs.get("role") or "") != "listitem":
                inner = self.blocks_of(child)
                lines.extend(inner)
                continue
            inner = self.blocks(child)
            if not inner:
                continue
            if self.plain:
                lines.extend(inner)
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            pad = " " * len(marker)
            text = "\n".join(inner)
            item_lines = text.split("\n")
            lines.append(marker + item_lines[0])
            lines.extend(pad + line if line else "" for line in item_lines[1:])
        return "\n".join(lines)

    def blocks_of(self, node: Node) -> list[str]:
        out: list[str] = []
        acc: list[str] = []
        self._walk(node, out, acc)
        self._flush(out, acc)
        return out

    # ----------------------------------------------------------------- code
    def code_block(self, node: Node) -> str:
        text = self._pre_text(node)
        text = text.replace("\r\n", "\n").replace("\u00a0", " ")
        lines = [line.rstrip() for line in text.split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            return ""
        # No runs of blank lines, even in code.
        kept: list[str] = []
        for line in lines:
            if not line and kept and not kept[-1]:
                continue
            kept.append(line)
        body = "\n".join(kept)
        if self.plain:
            return body
        lang = ""
        for cls in ((node.attrs.get("class") or "") + " " + " ".join(
                (c.attrs.get("class") or "") for c in node.children if c.tag == "code")).split():
            for prefix in ("language-", "lang-"):
                if cls.startswith(prefix) and len(cls) > len(prefix):
                    lang = cls[len(prefix):]
                    break
            if lang:
                break
        fence = "~~~" if "```" in body else "```"
        return f"{fence}{lang}\n{body}\n{fence}"

    def _pre_text(self, node: Node) -> str:
        parts: list[str] = []
        stack = [node]
        while stack:
            n = stack.pop()
            if n.is_text:
                parts.append(n.text)
            elif n.tag == "br":
                parts.append("\n")
            else:
                stack.extend(reversed(n.children))
        return "".join(parts)

    # ----------------------------------------------------------------- tables
    def _is_layout(self, table: Node, rows: list[Node]) -> bool:
        if (table.attrs.get("role") or "").lower() in ("presentation", "none"):
            return True
        if any(True for _ in table.elements("table")):
            return True
        for r in rows:
            for c in r.children:
                if c.tag in ("td", "th"):
                    for d in c.elements():
                        if d.tag in ("p", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote") or \
                                heading_level(d) is not None:
                            return True
        return not rows

    def table_blocks(self, table: Node) -> list[str]:
        """A ``<table>`` or an ARIA grid (rows and cells by role, through wrappers) as a pipe table."""
        aria = table.tag != "table"
        rows = grid_rows(table) if aria else table_rows(table)
        caption = next((c for c in table.children if c.tag == "caption"), None)
        if not aria and self._is_layout(table, rows):
            out: list[str] = []
            for n in table.children:
                if n.tag == "caption":
                    continue
                out.extend(self.blocks_of(n) if n.tag not in ("thead", "tbody", "tfoot", "tr") else self._layout(n))
            return out
        # Spans placed (grids.place): a value spanning rows or columns sits in each column it covers, and
        # leading header rows (<thead>, or <th> only) merge into one header ("Q1 Units").
        texts: dict[int, str] = {}

        def text_of(c: Node | None) -> str:
            if c is None:
                return ""
            if id(c) not in texts:
                text = _norm_inline(self.inline(c)).replace("\n", " ")
                texts[id(c)] = text.replace("|", "\\|") if not self.plain else text
            return texts[id(c)]

        nhead = 0
        while nhead < len(rows) - 1 and (_in_thead(rows[nhead])
                                         or all(is_header_cell(c) for c in row_cells(rows[nhead]))):
            nhead += 1
        laid = place(rows)
        placed = [[text_of(c) for c in (r if i < nhead else once_per_row(r))] for i, r in enumerate(laid)]
        if nhead > 1:
            placed = [header_labels(placed[:nhead])] + placed[nhead:]
        elif nhead == 1:
            placed[0] = [text_of(c) for c in once_per_row(laid[0])]
        grid = [cells for cells in placed if any(cells)]
        out = []
        if caption is not None:
            cap = _norm_inline(self.inline(caption)).replace("\n", " ")
            if cap:
                out.append(cap)
        if not grid:
            return out
        if self.plain:
            out.append("\n".join(" | ".join(c for c in row if c) for row in grid))
            return out
        # Columns past the last one holding any text (left by colspans) are dropped.
        ncols = max(max((i + 1 for i, c in enumerate(r) if c), default=1) for r in grid)
        grid = [(r + [""] * ncols)[:ncols] for r in grid]

        def row_line(cells: list[str]) -> str:
            return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"

        lines = [row_line(grid[0]), "|" + "|".join([" --- "] * ncols) + "|"]
        lines.extend(row_line(r) for r in grid[1:])
        out.append("\n".join(lines))
        return out

    def _layout(self, node: Node) -> list[str]:
        out: list[str] = []
        if node.tag == "tr":
            for c in node.children:
                if c.tag in ("td", "th"):
                    out.extend(self.blocks(c))
            return out
        for c in node.children:
            if not c.is_text:
                out.extend(self._layout(c))
        return out


#: Tags and roles whose text never runs into a neighbour's (boxes of their own, read as separate items).
_SEPARATE = frozenset({"button", "select", "textarea", "tab", "menuitem", "option", "gridcell", "cell",
                       "columnheader", "rowheader", "treeitem", "switch", "checkbox", "radio"})


def _role(node: Node) -> str:
    roles = (node.attrs.get("role") or "").strip().lower().split()
    return roles[0] if roles else ""


def _in_thead(row: Node) -> bool:
    return row.parent is not None and row.parent.tag == "thead"


_BLANKS = re.compile(r"\n{3,}")


def _finish(blocks: list[str], sep: str) -> str:
    text = sep.join(b.strip("\n") for b in blocks if b.strip())
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", text).strip("\n")


#: Form controls whose own text is their value.
_FIELDS = frozenset(("textarea", "input", "select"))


def _lone_field(body: Node) -> Node | None:
    """The form control that is all of ``body`` (a read whose target is a field), else ``None``."""
    kids = [c for c in body.children if not (c.is_text and not c.text.strip())]
    if len(kids) == 1 and not kids[0].is_text and (kids[0].tag in _FIELDS or (
            kids[0].attrs.get("contenteditable") not in (None, "false") or "data-value" in kids[0].attrs)):
        return kids[0]
    return None


def render_markdown(html: str | Document, *, links: bool = False, url: str = "") -> str:
    """Return the visible content of ``html`` as Markdown.

    Format: ATX headings (``#`` × level); paragraphs separated by one blank line; lists with
    ``- `` or ``1. `` (nested items indented under their marker); emphasis dropped; inline
    ``code`` in backticks and ``pre`` as fenced blocks (language from a ``language-*`` class);
    blockquotes with ``> ``; data tables as GitHub pipe tables (layout tables, i.e. nested or
    holding headings/paragraphs/lists, are rendered as their content); images as ``[alt]``
    (dropped when there is no alt); form fields dropped (button text kept). Links are their
    text, or ``[text](url)`` when ``links`` is true, URLs shortened by
    :func:`browser_ctx.core.urls.shorten_url` (tracking removed, at most
    :data:`LINK_URL_LIMIT` characters; relative to ``url``, the page URL, when it is given and
    the link is on the same origin). A ``bc-frame`` is introduced by a line
    ``--- frame <id> (<url>) ---`` followed by its content. A field read alone (a target that is a textarea,
    input, select or editor) is its value, exactly as the field holds it (a password's never).

    Returns ``""`` when nothing visible remains.
    """
    doc = as_document(html)
    field = _lone_field(doc.body)
    if field is not None:
        return control_value(field) or ""
    return _finish(_Writer(plain=False, links=links, base=url).blocks(doc.body), "\n\n")


def render_text(html: str | Document) -> str:
    """Return the visible text of ``html`` as plain text: one block per line (headings,
    paragraphs, list items, table rows as ``cell | cell``, ``pre`` lines as they are), no
    markup, no blank lines; a field read alone is its value, as in :func:`render_markdown`. Returns ``""`` when
    nothing visible remains."""
    doc = as_document(html)
    field = _lone_field(doc.body)
    if field is not None:
        return control_value(field) or ""
    return _finish(_Writer(plain=True, links=False).blocks(doc.body), "\n")
