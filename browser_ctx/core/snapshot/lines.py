"""The snapshot's lines: :class:`Line` (structured: kind, label, body, refs, character counts) and the
vocabulary every stage writes them in (:class:`LineMaker`: names, URLs, control lines, inline links).

A line is rendered to text only at the end (:attr:`Line.text`); the stages between (label dedupe, folding,
fitting the budget, the action record's diff) read its fields, never its text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..dom import Document, Node, accessible_name, collapse_ws, control_state, control_value, is_interactive, role_of
from ..roles import icon_form, name_token
from ..urls import shorten_url
from ..values import quote_value
from .options import SnapshotOptions

#: Characters of option names a select's line lists (``(N options: A, B, … K more)``).
OPTION_CHARS = 300

if TYPE_CHECKING:
    from .folding import Fold
    from .inline import Item

__all__ = ["Line", "LineMaker", "key_of", "cut", "cut_point", "ref_of", "dedupe_labels", "needs_label"]

_KEY_STRIP = re.compile(r"^[\s:*•·|–—-]+|[\s:*•·|–—-]+$")
_SENTENCE_END = re.compile(r"[.!?;:][\"')\]]?\s")


def key_of(text: str) -> str:
    """The dedupe key of a text: punctuation and bullets stripped at both ends, case-folded."""
    return _KEY_STRIP.sub("", text).casefold()


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a trailing ``…`` (names, cells, alts)."""
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def cut_point(text: str, limit: int) -> int:
    """Where :func:`browser_ctx.core.tree.cut_text` cuts ``text`` to about ``limit`` characters: after the last
    sentence end past 60% of it, else at the last space past half of it, else at ``limit``; ``len(text)`` when
    it fits."""
    if limit <= 0 or len(text) <= limit:
        return len(text)
    window = text[: limit + 1]
    at = -1
    for m in _SENTENCE_END.finditer(window):
        if m.end() - 1 >= limit * 0.6:
            at = m.end() - 1
    if at < 0:
        sp = window.rfind(" ", int(limit * 0.5))
        at = sp if sp > 0 else limit
    return at


#: How the other kinds of line start: a text line that starts so keeps its ``text:`` label.
_LINE_STARTS = ("- ", "… ", "(", "Page:")


def needs_label(body: str) -> bool:
    """Whether a text line showing ``body`` keeps its ``text:`` label: when it is empty, starts with a
    lower-case letter (as every role, container, heading, table and code line does: ``button "Save" [e3]``,
    ``list 3 items:``) or like a list item, a fold, a note or the page line (``- ``, ``… ``, ``(``, ``Page:``).
    Every other text line is shown bare."""
    return not body or body[0].islower() or body.startswith(_LINE_STARTS)


class Line:
    """One line of a snapshot.

    Attributes:
        depth: nesting level (two spaces each).
        kind: ``text`` (plain text or code: may fold into a paragraph count), ``textref`` (text holding refs),
            ``item`` (a list item's first line), ``control``, ``heading``, ``container``, ``fold``, ``other``.
        label: ``text``/``code`` for a text line (``code: …``; a text line is shown bare unless
            :func:`needs_label`), else ``""``.
        body: what the line shows after its label (a cut body ends with ``…``).
        refs: the refs the line shows, in order.
        chars: characters of the full content (the cut part included).
        cut: characters a cut left out (shown as ``(+N chars)``); 0 when whole.
        key: the dedupe key of the text or control name.
        scope: the element holding what the line shows (names a fold's one-call target).
        whole: text in an open dialog: never folded away.
        item: shown as a list item (``- body``; a ``text`` label is left out).
        opens: a container whose content follows (ends with ``:``).
        hidden_by: the folds that hide this line when one of them is applied (it lies in what they fold).
        shown_by: the fold whose line this is (shown only when that fold is applied); ``None`` for content.
        unit: for a text line, its inline items (:mod:`.inline`), from which its body is made again when a fold
            of some of its items, or its cut, is applied; ``None`` otherwise.
        cut_at: characters of text the line keeps when its cut is applied.
        cut_fold: the fold that cuts this line (``None``: never cut).
        short: for a code line, its cut form ``(body, cut)``; ``full`` its whole form.
        swaps: the folds a text line's body depends on; ``forms`` its bodies made so far, by their states.
    """

    __slots__ = ("depth", "kind", "label", "body", "refs", "chars", "cut", "key", "scope", "whole", "item",
                 "opens", "hidden_by", "shown_by", "unit", "cut_at", "cut_fold", "short", "full", "swaps", "forms")

    def __init__(self, depth: int, body: str, kind: str = "other", *, label: str = "", refs: list[str] | None = None,
                 chars: int | None = None, cut: int = 0, key: str = "", scope: Node | None = None,
                 opens: bool = False) -> None:
        self.depth = depth
        self.kind = kind
        self.label = label
        self.body = body
        self.refs = refs if refs is not None else []
        self.chars = len(body) if chars is None else chars
        self.cut = cut
        self.key = key
        self.scope = scope
        self.whole = False
        self.item = False
        self.opens = opens
        self.hidden_by: tuple[Fold, ...] = ()
        self.shown_by: Fold | None = None
        self.unit: list[Item] | None = None
        self.cut_at = 0
        self.cut_fold: Fold | None = None
        self.short: tuple[str, int] | None = None
        self.full: tuple[str, int] | None = None
        self.swaps: tuple[Fold, ...] = ()  # the folds its body depends on (its cut last)
        self.forms: dict[tuple[bool, ...], tuple[str, int, int, list[str]]] = {}  # body by their states

    @property
    def text(self) -> str:
        """The line as shown, without its indentation: a text line bare unless :func:`needs_label` says its
        ``text:`` label is needed."""
        label = self.label
        if label == "text" and (self.item or not needs_label(self.body)):
            label = ""
        label = label + ": " if label else ""
        out = ("- " if self.item else "") + label + self.body + (":" if self.opens else "")
        return out + f" (+{self.cut:,} chars)" if self.cut else out

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Line({self.depth}, {self.kind}, {self.text!r})"


#: Characters of an operable's text its whole name keeps (the walker makes one control of at most 300).
OPERABLE_TEXT_CHARS = 400


class LineMaker:
    """Names, URLs and the line forms of controls, shared by every stage of one rendering."""

    def __init__(self, doc: Document, opts: SnapshotOptions, base: str) -> None:
        self.doc = doc
        self.o = opts
        self.base = base or None
        self._names: dict[int, str] = {}

    def name(self, node: Node) -> str:
        """``node``'s accessible name, cut to ``name_chars`` (cached)."""
        k = id(node)
        name = self._names.get(k)
        if name is None:
            name = self._names[k] = accessible_name(node, self.doc, self.o.name_chars)
        return name

    def whole_name(self, node: Node) -> str:
        """The name of a control the walker found operable without ARIA (``data-op``), named from its text: that
        text whole (at most :data:`OPERABLE_TEXT_CHARS`; a terminal's lines, a card's text), when
        :meth:`name` cut it; else :meth:`name`."""
        name = self.name(node)
        if not name.endswith("…") or not node.attrs.get("data-op") or node.attrs.get("role"):
            return name
        text = collapse_ws(node.text_content())
        if len(text) < len(name) or not text.startswith(name[:-1].rstrip()):
            return name
        return cut(text, OPERABLE_TEXT_CHARS)

    def url(self, href: str) -> str:
        return shorten_url(href, base=self.base, limit=self.o.url_limit)

    def control_line(self, node: Node, *, named: bool = True, whole: bool = False) -> tuple[str, str]:
        """A control's full form (``role "name" [ref] states = "value" → url``; without the name part when
        not ``named``), and its dedupe key (its name). The value is JSON-quoted as the field holds it (spaces
        kept, ``\\n``, ``\\t``), cut past ``value_chars`` unless ``whole``; a value the walker cut says so. With
        ``whole`` an operable's name is its whole text (:meth:`whole_name`)."""
        role = role_of(node) or ("clickable" if "data-ref" in node.attrs else node.tag)
        name = self.whole_name(node) if whole else self.name(node)
        parts = ["file input" if role == "file" else role]
        if name:
            if named:
                parts.append(name_token(node) or f'"{name}"')
        elif node.attrs.get("name") and node.tag in ("input", "select", "textarea"):
            parts.append(f"(name={cut(node.attrs['name'], 40)})")
        if node.attrs.get("data-via") == "label":  # hidden, reached through its label (the walker)
            parts.append("(via label)")
        ref = node.attrs.get("data-ref")
        if ref:
            parts.append(f"[{ref}]")
        parts.extend(control_state(node))
        if name and not node.attrs.get("data-name-from"):
            parts.extend(icons_inside(node))  # menuitem "Save" [e4] img .ui-icon-disk
        if role == "password" or (node.tag == "input" and ((node.attrs.get("type") or "").lower() == "password"
                                                          or "data-filled" in node.attrs)):
            filled = (node.attrs.get("data-filled") or "").lower()
            parts.append("(filled)" if filled in ("yes", "true", "1") else "(empty)")
        else:
            value = control_value(node)
            if value is not None and value != "" and value != name:
                parts.append("= " + quote_value(value, 0 if whole else self.o.value_chars,
                                                cut="data-value-hash" in node.attrs))
            if node.tag == "select":
                parts.append(option_list(node))
        href = node.attrs.get("href")
        if href is not None and role == "link" and (self.o.link_urls or not name):
            parts.append("→ " + self.url(href))
        return " ".join(parts), key_of(name)

    def inline_control(self, node: Node) -> str:
        """Short form of a link inside running text: ``[text](ref)``."""
        name = self.name(node)
        if not name:
            href = node.attrs.get("href")
            name = f"→ {self.url(href)}" if href is not None else (role_of(node) or "link")
        ref = node.attrs.get("data-ref") or ""
        if self.o.inline_link_urls and node.attrs.get("href") is not None:
            target = f"{ref} → {self.url(node.attrs['href'])}".strip()
            return f"[{name}]({target})"
        if ref:
            return f"[{name}]({ref})"
        href = node.attrs.get("href")
        return f"[{name}]({self.url(href)})" if href is not None else f"[{name}]"


def option_list(select: Node) -> str:
    """``(N options: A, B, C)``: a select's option names, each cut at 40 characters, as many as
    :data:`OPTION_CHARS` holds (then ``… K more``); a select a trigger stands for lists them in its states."""
    options = list(select.elements("option"))
    if not options or select.attrs.get("data-trigger"):
        return f"({len(options)} options)"
    shown: list[str] = []
    used = 0
    for o in options:
        name = cut(collapse_ws(o.text_content()), 40)
        if shown and used + len(name) > OPTION_CHARS:
            break
        shown.append(name)
        used += len(name) + 2
    more = f", … {len(options) - len(shown)} more" if len(shown) < len(options) else ""
    return f"({len(options)} options: {', '.join(shown)}{more})"


def icons_inside(node: Node, most: int = 2) -> list[str]:
    """``img .token`` for the first ``most`` sprite icons inside a control (not inside a control within it)."""
    out: list[str] = []
    stack = list(reversed(node.children))
    while stack and len(out) < most:
        n = stack.pop()
        if n.is_text or is_interactive(n):
            continue
        if n.tag == "img":
            if form := icon_form(n):
                out.append("img " + form)
            continue
        stack.extend(reversed(n.children))
    return out


def ref_of(node: Node) -> list[str]:
    """``[node's ref]``, or ``[]``."""
    ref = node.attrs.get("data-ref")
    return [ref] if ref else []


def dedupe_labels(lines: list[Line]) -> list[Line]:
    """Drop a ``text:`` line that only repeats the name of the control right before/after it."""
    out: list[Line] = []
    n = len(lines)
    for i, line in enumerate(lines):
        if line.kind == "text" and line.key and len(line.key) <= 80:
            dup = False
            for j in (i - 1, i + 1):
                if 0 <= j < n and lines[j].kind == "control" and lines[j].depth == line.depth and lines[j].key:
                    k = lines[j].key
                    if line.key == k or (len(line.key) >= 3 and line.key in k):
                        dup = True
            if dup:
                continue
        out.append(line)
    return out
