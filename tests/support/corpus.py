"""The readability corpus check's ground truth: finding the pages, their expected title and
first sentence, and the text normalisation used to compare them with tool output.

Layout (Mozilla readability's test pages): ``<corpus>/NAME/source.html`` (the page as saved),
``expected.html`` (the article readability extracts) and ``expected-metadata.json``
(``title``, ``byline``, ``excerpt``, ...). The corpus lives outside the repository, at
``../shared/corpus/readability`` relative to the repo root; ``$BROWSER_CTX_CORPUS`` overrides it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from browser_ctx._http import serve_directory

__all__ = [
    "REPO_ROOT", "FIRST_SENTENCE_MIN", "FIRST_SENTENCE_CHARS", "TITLE_LONG", "TITLE_PREFIX",
    "CorpusPage", "corpus_dir", "list_pages", "first_sentence", "first_h1", "document_title", "normalise",
    "strip_markdown", "title_needle", "sentence_needle", "serve_corpus", "summarise",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
#: A paragraph qualifies as the "first sentence" source when it has at least this many characters
#: after whitespace normalisation...
FIRST_SENTENCE_MIN = 60
#: ...and the needle is its first this many characters.
FIRST_SENTENCE_CHARS = 60
#: Titles longer than this many characters are looked for by their first :data:`TITLE_PREFIX` characters
#: (a summary may shorten a very long title).
TITLE_LONG = 80
TITLE_PREFIX = 40


def corpus_dir() -> Path | None:
    """Return the corpus folder (``$BROWSER_CTX_CORPUS`` or ``<repo>/../shared/corpus/readability``), or
    ``None`` when it does not exist or holds no ``*/source.html``."""
    root = Path(os.environ.get("BROWSER_CTX_CORPUS") or REPO_ROOT.parent / "shared" / "corpus" / "readability")
    if root.is_dir() and any(root.glob("*/source.html")):
        return root
    return None


def normalise(text: str) -> str:
    """Collapse every run of whitespace (Unicode, incl. NBSP) to one space and strip the ends."""
    return " ".join(text.split())


_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_LINE_PREFIX = re.compile(r"^[ \t]*(?:(?:>[ \t]?)+|#{1,6}[ \t]+|(?:[-*+]|\d{1,9}[.)])[ \t]+)+", re.M)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.M)
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.M)


def strip_markdown(text: str) -> str:
    """Remove markdown markup from ``text`` and normalise its whitespace.

    Removes: ATX heading marks, blockquote ``>`` and list markers (``-``, ``*``, ``+``, ``1.``)
    at line starts, horizontal rules and table separator rows, ``[text](url)`` → ``text``
    (images ``![alt](src)`` → ``alt``), then every ``*``, ``_``, backtick and ``|`` left.
    Returns one line (see :func:`normalise`).
    """
    text = _LINK.sub(r"\1", text)
    text = _TABLE_RULE.sub(" ", text)
    text = _RULE.sub(" ", text)
    text = _LINE_PREFIX.sub("", text)
    text = re.sub(r"[*_`|]", " ", text)
    return normalise(text)


def _plain(text: str) -> str:
    """The needle side of a comparison, treated like the haystack (:func:`haystack`): markdown markup
    stripped (so a literal ``*``, ``_``, ``|`` or a leading ``+ `` in the source counts the same on both
    sides), normalised and case-folded (CSS ``text-transform`` changes what the live page shows)."""
    return strip_markdown(text).casefold()


def sentence_needle(sentence: str) -> str:
    """Comparable form of an expected first sentence (see :func:`_plain`)."""
    return _plain(sentence)


def title_needle(title: str) -> str:
    """Comparable form of a title: normalised, case-folded; a title over :data:`TITLE_LONG` characters
    is cut to its first :data:`TITLE_PREFIX`."""
    t = normalise(title)
    if len(t) > TITLE_LONG:
        t = t[:TITLE_PREFIX].rstrip()
    return _plain(t)


def haystack(tool_text: str) -> str:
    """Comparable form of a tool's returned text: markdown stripped, normalised, case-folded."""
    return strip_markdown(tool_text).casefold()


def first_sentence(expected_html: str) -> str | None:
    """The first ``<p>`` of ``expected_html`` with at least :data:`FIRST_SENTENCE_MIN` characters after
    whitespace normalisation, cut to its first :data:`FIRST_SENTENCE_CHARS` characters; ``None`` if none.

    The paragraph's text is its text nodes joined as rendered: ``<br>`` counts as a space, script/style
    content does not count."""
    tree = LexborHTMLParser(expected_html)
    tree.strip_tags(["script", "style", "noscript", "template"])  # their text is not rendered
    for br in tree.css("br"):
        br.replace_with(" ")  # a line break renders as whitespace, not as nothing
    for p in tree.css("p"):
        text = normalise(p.text(deep=True, separator=""))
        if len(text) >= FIRST_SENTENCE_MIN:
            return text[:FIRST_SENTENCE_CHARS]
    return None


def document_title(source_html: str) -> str | None:
    """Normalised text of the first ``<title>`` in ``<head>`` of ``source_html`` (what
    ``document.title`` gives before scripts run), or ``None`` when absent or empty."""
    tree = LexborHTMLParser(source_html)
    node = tree.css_first("head > title") or tree.css_first("title")
    text = normalise(node.text(deep=True)) if node is not None else ""
    return text or None


def first_h1(source_html: str) -> str | None:
    """Normalised text of the first non-empty ``<h1>`` of ``source_html``, or ``None``."""
    tree = LexborHTMLParser(source_html)
    for h in tree.css("h1"):
        text = normalise(h.text(deep=True, separator=" "))
        if text:
            return text
    return None


@dataclass(frozen=True)
class CorpusPage:
    """One corpus page. ``name`` is its folder name; ``path`` is the URL path below the served root."""

    name: str
    folder: Path

    @property
    def path(self) -> str:
        return f"/{self.name}/source.html"

    @cached_property
    def metadata(self) -> dict:
        """``expected-metadata.json`` as a dict (``{}`` when absent)."""
        f = self.folder / "expected-metadata.json"
        return json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}

    @property
    def title(self) -> str | None:
        """Expected title (metadata ``title``), else the source's first ``h1``, else ``None``."""
        title = normalise(self.metadata.get("title") or "")
        if title:
            return title
        return first_h1(self._read("source.html") or "")

    @cached_property
    def titles(self) -> tuple[str, ...]:
        """Every acceptable title, best first: the metadata title, then the document's own ``<title>``
        or, when the document has none, its first ``h1``. Readability's metadata title often comes
        from ``og:title``/Dublin Core/Parsely tags and differs from the title the page shows."""
        source = self._read("source.html") or ""
        shown = document_title(source) or first_h1(source)
        found = [t for t in (normalise(self.metadata.get("title") or ""), shown) if t]
        return tuple(dict.fromkeys(found))

    @cached_property
    def first_sentence(self) -> str | None:
        """See :func:`first_sentence`; ``None`` without ``expected.html`` or a long enough ``<p>``."""
        html = self._read("expected.html")
        return first_sentence(html) if html else None

    def _read(self, name: str) -> str | None:
        f = self.folder / name
        return f.read_text(encoding="utf-8", errors="replace") if f.is_file() else None


def list_pages(root: Path) -> list[CorpusPage]:
    """Every ``root/NAME/source.html`` as a :class:`CorpusPage`, sorted by name."""
    return [CorpusPage(f.parent.name, f.parent) for f in sorted(root.glob("*/source.html"))]


@contextlib.contextmanager
def serve_corpus(root: Path) -> Iterator[str]:
    """Serve the corpus folder on localhost; yield the base URL (``http://127.0.0.1:PORT``, no slash).

    A page's URL is ``base + page.path``. Its relative sub-resources that the corpus lacks answer 404.
    Pages are sent as ``text/html; charset=utf-8``: the corpus files are stored as UTF-8 (as the
    original sites sent them), whatever their ``<meta charset>`` says.
    """
    with serve_directory(root, charset="utf-8") as port:
        yield f"http://127.0.0.1:{port}"


def summarise(values: Sequence[float]) -> dict[str, float | int | None]:
    """``{"n", "median", "p90", "max"}`` of ``values`` (p90 by nearest rank); ``None`` entries if empty."""
    if not values:
        return {"n": 0, "median": None, "p90": None, "max": None}
    ordered = sorted(values)
    p90 = ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]
    return {"n": len(ordered), "median": statistics.median(ordered), "p90": p90, "max": ordered[-1]}
