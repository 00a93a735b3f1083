"""Folding: runs of similar siblings, runs of paragraphs, and the target that shows what a fold left out.

A run of similar siblings (:func:`similar` of their :func:`signature`) folds after its first ``fold_show`` items;
a run of plain paragraphs after its first ``prose_show`` (:func:`fold_prose`). Every fold line names the element
whose targeted snapshot shows the rest (:func:`fold_hint`): a targeted snapshot folds nothing inside its
matches, so one call shows what was folded.
"""

from __future__ import annotations

import re

from ..dom import Node, collapse_ws, is_interactive, role_of
from .lines import Line

__all__ = ["FORMATTING", "Fold", "signature", "similar", "prose_folds", "prose_line", "common_ancestor", "fold_target",
           "fold_hint"]

#: Inline formatting tags, left out of a node's child-tag shape.
FORMATTING = frozenset("b i em strong small sup sub abbr br wbr mark u s q cite font tt big del ins dfn var kbd "
                       "samp".split())

#: An ``id`` that ``#id`` selects as it is (no escaping needed).
_CSS_ID = re.compile(r"[A-Za-z][\w-]{0,63}")
#: Roles Playwright's ``role=`` selector finds by name, for containers that fold.
_NAMED_ROLES = frozenset({"table", "grid", "treegrid", "list", "listbox", "menu", "menubar", "tree", "tablist",
                          "navigation", "region", "form", "dialog", "alertdialog", "group", "feed", "radiogroup",
                          "toolbar", "complementary", "search", "banner", "contentinfo", "main", "article"})


def signature(node: Node) -> tuple:
    """What makes siblings similar: tag, class tokens and their stems, role, child-tag shape, interactivity."""
    shape: list[str] = []
    for c in node.children:
        if c.is_text or c.tag in FORMATTING:
            continue
        if not shape or shape[-1] != c.tag:
            shape.append(c.tag)
    classes = (node.attrs.get("class") or "").split()[:3]
    return (node.tag, frozenset(classes), frozenset(_class_stem(c) for c in classes),
            node.attrs.get("role") or "", tuple(shape), is_interactive(node))


def _class_stem(token: str) -> str:
    """``nav-item-news`` → ``nav-item``; ``card3`` → ``card``: per-item variations of one class."""
    stem = token.rstrip("0123456789")
    for sep in ("--", "-", "_"):
        if sep in stem[1:]:
            return stem.rsplit(sep, 1)[0]
    return stem


def similar(a: tuple, b: tuple) -> bool:
    """Sibling similarity for folding: same tag, role, child-tag shape and interactivity, and
    class lists that are equal, share a token, or share a stem (``orb-nav-news``/``orb-nav-sport``)."""
    if a[0] != b[0] or a[3:] != b[3:]:
        return False
    if a[1] == b[1]:
        return True
    if not a[1] or not b[1]:
        return False
    return bool(a[1] & b[1]) or bool(a[2] & b[2])


class Fold:
    """One condensation the budget may apply (:mod:`.fit`): a folded run of similar siblings (``run``), a
    table's rows past the first few (``rows``), a run of paragraphs past the first few (``prose``), or a long
    text line cut (``cut``).

    Attributes:
        kind: ``run``, ``rows``, ``prose`` or ``cut``.
        applied: whether the rendering applies it.
        hides: the lines it hides when applied (their ``hidden_by`` holds it).
        shows: the lines shown only when it is applied (its fold line).
        refresh: the text lines whose body changes with it (inline items it folds, or its cut).
        anchor: for ``prose``, the last line of its run, after which its fold line goes.
        gen: for ``prose``, the round of the fitting it was found in (older ones are stale).
        count: for ``run``/``rows``, the items it folds; ``hint`` the end of its fold line (:func:`fold_hint`).
    """

    __slots__ = ("kind", "applied", "hides", "shows", "refresh", "anchor", "gen", "count", "hint")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.applied = False
        self.hides: list[Line] = []
        self.shows: list[Line] = []
        self.refresh: list[Line] = []
        self.anchor: Line | None = None
        self.gen = 0
        self.count = 0
        self.hint = ""


def prose_folds(lines: list[Line], show: int, least: int, gen: int) -> list[Fold]:
    """The paragraph folds of ``lines`` (the lines shown): each run of plain text lines at one depth, outside
    open dialogs, with more than ``show`` lines and at least ``least`` past them, folds after its first
    ``show``."""
    if show <= 0:
        return []
    out: list[Fold] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.kind != "text" or line.whole:
            i += 1
            continue
        j = i
        while j < n and lines[j].kind == "text" and lines[j].depth == line.depth and not lines[j].whole:
            j += 1
        if j - i - show >= max(1, least):
            fold = Fold("prose")
            fold.hides = lines[i + show:j]
            fold.anchor = lines[j - 1]
            fold.gen = gen
            out.append(fold)
        i = j
    return out


def prose_line(fold: Fold, hidden: list[Line]) -> Line:
    """The line of an applied paragraph fold hiding ``hidden``: ``… N more paragraphs (M chars)`` and the call
    that shows them."""
    chars = sum(x.chars for x in hidden)
    hint = fold_hint(common_ancestor([x.scope for x in hidden]))
    depth = fold.anchor.depth if fold.anchor is not None else 0
    return Line(depth, f"… {len(hidden):,} more paragraphs ({chars:,} chars){hint}", "fold")


def common_ancestor(nodes: list[Node | None]) -> Node | None:
    """The nearest element holding every node of ``nodes`` (``None`` when one is unknown)."""
    if not nodes or any(n is None for n in nodes):
        return None
    chain: list[Node] = []
    up = nodes[0]
    while up is not None:
        chain.append(up)
        up = up.parent
    depth_of = {id(n): i for i, n in enumerate(chain)}
    best = 0
    for node in nodes[1:]:
        up = node
        while up is not None and id(up) not in depth_of:
            up = up.parent
        if up is None:
            return None
        best = max(best, depth_of[id(up)])
    return chain[best]


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
    found = node.id_target()
    if found:
        return found
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
