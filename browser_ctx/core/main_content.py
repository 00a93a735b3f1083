"""Find the main content of a page (what ``browser_text`` reads when given no target).

:func:`main_content` returns the outer HTML of one element of the page (cleaned as in
:func:`browser_ctx.core.dom.parse_html`), chosen like this:

1. **A single ``<main>``** (or ``[role=main]``; the one with most text when there are
   several) when it holds at least half of the page's *good text* (defined below), or when
   the page has no good text at all but the ``<main>`` has text.
2. Else **the ``<article>``** (``[role=article]`` too) holding the most good text, when that
   is at least half of the page's; when several articles each hold a comparable share (a
   list of posts), their closest common ancestor instead.
3. Else **the densest element**, a small Readability-style score: every block's inline text
   (text reachable without crossing another block) is *good* when it has at least
   :data:`MIN_GOOD_CHARS` (25) characters, less than 50% of it is link text, and it is not
   inside boilerplate (``nav``, ``aside``, ``form``, ARIA landmarks
   ``navigation``/``complementary``/``banner``/``contentinfo``/``search``, or an element whose
   class (or short id) says comment/sidebar/footer/menu/share/related/ad… and not
   article/content/post/main…); link text of blocks that are not good is *bad*. Each element
   scores ``good - 0.5 × (all text - good) - 1.0 × bad link text``; the highest score wins.
4. Else ``<body>`` (also when the page has under :data:`MIN_PAGE_GOOD` characters of good
   text, so a small page loses nothing).

Whatever steps 1-3 chose is then widened the way Readability does, so the article's first
paragraph is not lost: the choice climbs to its parent while the parent scores at least as
well, and siblings that are clearly content (at least :data:`SIBLING_MIN_CHARS` characters of
good text making up 80% of their text, or an ``h1``/``h2``) join it; the result is then a
``<div>`` wrapping those siblings in document order.

Navigation landmarks inside the chosen element are removed (a Wikipedia navbox, a
breadcrumb), unless that would leave nothing. Lengths are characters.
"""

from __future__ import annotations

import re

from .dom import BLOCK_TAGS, Document, Node, as_document, heading_level, landmark_of, to_html

__all__ = ["main_content", "MIN_GOOD_CHARS", "MIN_PAGE_GOOD", "SIBLING_MIN_CHARS", "BAD_LINK_WEIGHT"]

#: A block's inline text shorter than this (characters) is never "good" text.
MIN_GOOD_CHARS = 25
#: Extra penalty per character of link text in blocks that are not good text (menus, TOCs).
BAD_LINK_WEIGHT = 1.0
#: Below this much good text on the whole page (characters), the density step is skipped
#: and ``<body>`` is returned: a tiny page has nothing to strip safely.
MIN_PAGE_GOOD = 300
#: A sibling of the chosen element joins it when it has this much good text (characters)
#: making up at least 80% of its text.
SIBLING_MIN_CHARS = 80

_NEG = re.compile(
    r"(?<![a-z])(?:comment|sidebar|side|footer|footnote|masthead|menu|nav|navigation|share|sharing|social|related|"
    r"promo|advert|advertisement|ad|ads|sponsor|sponsored|banner|breadcrumb|breadcrumbs|widget|popup|modal|cookie|"
    r"newsletter|subscribe|subscription|signup|disqus|outbrain|taboola|skip|toolbar|pagination|pager|recommend|"
    r"recommended|trending|popular|tags)"
    r"(?:s|bar|box|list|links|area|block|section|wrapper|container|buttons|tools|nav)?(?![a-z])",
    re.I,
)
_POS = re.compile(r"(?<![a-z])(?:article|content|post|entry|main|story|body|text|blog|prose|hentry)", re.I)
_BOILER_LANDMARKS = frozenset(("navigation", "complementary", "banner", "contentinfo", "search"))
_BOILER_TAGS = frozenset(("nav", "aside", "form"))
_BLOCKS = BLOCK_TAGS | {"li", "dt", "dd", "td", "th"}


class _Stats:
    """Per-element counts (characters): all text, good text, boilerplate/link-heavy link text,
    and the element's own inline text and inline link text."""

    __slots__ = ("text", "good", "bad_links", "inline_text", "inline_links")

    def __init__(self) -> None:
        self.text = 0
        self.good = 0
        self.bad_links = 0
        self.inline_text = 0
        self.inline_links = 0


def _is_boiler(node: Node) -> bool:
    if node.tag in _BOILER_TAGS:
        return True
    lm = landmark_of(node)
    if lm in _BOILER_LANDMARKS:
        return True
    ident = node.attrs.get("id") or ""
    if len(re.split(r"[\W_]+", ident)) > 2:
        ident = ""  # long ids are usually slugs of heading text ("sharing-with-a-developer")
    hint = (node.attrs.get("class") or "") + " " + ident
    if hint.strip() and node.tag not in ("body", "html", "main", "article"):
        if _NEG.search(hint) and not _POS.search(hint):
            return True
    return False


def _score_tree(root: Node) -> dict[int, _Stats]:
    """Post-order pass: per element, total text chars, good chars, boilerplate link chars."""
    stats: dict[int, _Stats] = {}
    # Inline text of each block: accumulate text and link text until a block boundary.
    order: list[tuple[Node, bool, bool]] = []  # (node, in_boiler, in_link) in pre-order
    stack: list[tuple[Node, bool, bool]] = [(root, False, False)]
    while stack:
        node, boiler, in_link = stack.pop()
        if node.is_text:
            continue
        boiler = boiler or _is_boiler(node)
        link = in_link or (node.tag == "a" and "href" in node.attrs)
        order.append((node, boiler, link))
        for c in reversed(node.children):
            if not c.is_text:
                stack.append((c, boiler, link))
    # Per element: inline text (reachable without crossing a block) flows up to the nearest
    # block, which judges it good (long enough, few links, not boilerplate) or not.
    for node, boiler, in_link in reversed(order):
        st = _Stats()
        inline_text = 0
        inline_links = 0
        for c in node.children:
            if c.is_text:
                n = len(" ".join(c.text.split()))
                st.text += n
                inline_text += n
                if in_link:
                    inline_links += n
                continue
            cs = stats[id(c)]
            st.text += cs.text
            st.good += cs.good
            st.bad_links += cs.bad_links
            if c.tag not in _BLOCKS:
                inline_text += cs.inline_text
                inline_links += cs.inline_links
        if node.tag in _BLOCKS or node is root:
            if inline_text >= MIN_GOOD_CHARS and inline_links < 0.5 * inline_text and not boiler:
                st.good += inline_text
            else:
                st.bad_links += inline_links
            inline_text = inline_links = 0
        st.inline_text = inline_text
        st.inline_links = inline_links
        stats[id(node)] = st
    return stats


def main_content(html: str) -> str:
    """Return the outer HTML of the main content of raw HTML ``html`` (:func:`main_part`, serialised): cleaned
    HTML (scripts, hidden content, comments removed; attributes limited to those the core reads). ``""`` for
    an input with no body content. Never raises on malformed HTML.
    """
    part = main_part(as_document(html))
    return to_html(part.body.children[0]) if part.body.children else ""


def main_part(doc: Document) -> Document:
    """Return a document whose body holds the main content of ``doc`` (a walked tree or parsed HTML), for
    :func:`browser_ctx.core.markdown.render_markdown`; see the module docstring for how it is chosen. The nodes
    are ``doc``'s own (navigation inside the content is taken out of ``doc``). An empty body when ``doc`` has
    no body content.
    """
    body = doc.body
    html = Node("html", {})
    out = Node("body", {}, html)
    html.children.append(out)
    if not body.children:
        return Document(html, out, doc.by_id, doc.label_for)
    chosen = _choose(body)
    _drop_nav(chosen)
    for node in chosen.iter():
        node._tc = None
    chosen.parent = out
    out.children.append(chosen)
    return Document(html, out, doc.by_id, doc.label_for)


def _choose(body: Node) -> Node:
    stats = _score_tree(body)
    chosen = _pick(body, stats)
    # Climb while an ancestor scores at least as well (it adds good text, e.g. a lead
    # paragraph or photo caption beside the article, without adding more boilerplate).
    node = chosen
    while node.parent is not None and node.parent is not body and node.parent.tag != "html":
        if _score(stats[id(node.parent)]) >= _score(stats[id(node)]):
            node = node.parent
        else:
            break
    return _with_siblings(node, stats)


def _with_siblings(node: Node, stats: dict[int, _Stats]) -> Node:
    """Add the siblings of ``node`` that are clearly content too (a lead paragraph, a photo
    caption, the title heading), as Readability does; returns ``node`` itself when none are."""
    parent = node.parent
    if parent is None or node.tag in ("body", "html"):
        return node
    kept: list[Node] = []
    for c in parent.children:
        if c is node:
            kept.append(c)
        elif c.is_text:
            if len(c.text.strip()) >= SIBLING_MIN_CHARS:
                kept.append(c)
        elif heading_level(c) in (1, 2) and not _is_boiler(c):
            kept.append(c)
        else:
            st = stats[id(c)]
            if st.good >= SIBLING_MIN_CHARS and st.good >= 0.8 * st.text and not _is_boiler(c):
                kept.append(c)
    if len(kept) == 1:
        return node
    wrapper = Node("div", {}, None)
    wrapper.children = kept
    for c in kept:
        c.parent = wrapper
    return wrapper


def _pick(body: Node, stats: dict[int, _Stats]) -> Node:
    page_good = stats[id(body)].good

    def good(n: Node) -> int:
        return stats[id(n)].good

    mains = _outermost([n for n in body.elements()
                        if n.tag == "main" or (n.attrs.get("role") or "").strip().lower() == "main"])
    if mains:
        best = max(mains, key=lambda n: (good(n), stats[id(n)].text))
        if (page_good and good(best) >= 0.5 * page_good) or (not page_good and stats[id(best)].text):
            return best
    articles = _outermost([n for n in body.elements()
                           if n.tag == "article" or (n.attrs.get("role") or "").strip().lower() == "article"])
    if articles and page_good:
        ranked = sorted(articles, key=lambda n: -good(n))
        top = ranked[0]
        if len(ranked) > 1 and good(ranked[1]) >= 0.5 * good(top):
            parent = _common_ancestor(ranked)
            if parent is not None and good(parent) >= 0.5 * page_good:
                return parent
        if good(top) >= 0.5 * page_good:
            return top
    if page_good < MIN_PAGE_GOOD:
        return body  # too little prose to tell content from chrome: keep everything
    best_node = body
    best_score = _score(stats[id(body)])
    for node in body.elements():
        if node.is_text:
            continue
        sc = _score(stats[id(node)])
        if sc > best_score:
            best_score = sc
            best_node = node
    return best_node


def _score(st: _Stats) -> float:
    return st.good - 0.5 * (st.text - st.good) - BAD_LINK_WEIGHT * st.bad_links


def _outermost(nodes: list[Node]) -> list[Node]:
    ids = {id(n) for n in nodes}
    return [n for n in nodes if not any(id(a) in ids for a in n.ancestors())]


def _common_ancestor(nodes: list[Node]) -> Node | None:
    paths = []
    for n in nodes:
        chain = [n] + list(n.ancestors())
        paths.append(list(reversed(chain)))
    common: Node | None = None
    for level in zip(*paths, strict=False):  # paths differ in depth; stop at the shortest
        first = level[0]
        if all(x is first for x in level):
            common = first
        else:
            break
    return common


def _drop_nav(root: Node) -> None:
    """Remove navigation landmarks below ``root`` (never ``root`` itself, never all content)."""
    victims = [n for n in root.elements()
               if n.tag == "nav" or (n.attrs.get("role") or "").strip().lower() == "navigation"]
    victims = _outermost(victims)
    if not victims:
        return
    removed = sum(len(v.text_content()) for v in victims)
    if removed >= len(root.text_content()) * 0.9:
        return
    for v in victims:
        if v.parent is not None:
            v.parent.children = [c for c in v.parent.children if c is not v]
