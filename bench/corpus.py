"""Corpus pages, their ground-truth questions, and the text normalisation used to check answers.

A corpus is a folder of ``NAME/source.html`` (the readability test corpus layout, with optional
``expected-metadata.json`` and ``expected.html`` beside it) or of plain ``NAME.html`` files.

Questions (measure 3) come from the ground truth:

- ``title``: ``expected-metadata.json`` ``title``;
- ``byline``: its ``byline`` when non-empty;
- ``first``: the first ``<p>`` in ``expected.html`` whose whitespace-normalised text has at least 60 characters,
  its first 60 characters;
- ``middle``: the same rule applied to the middle such ``<p>`` (index ``len // 2``), when it differs from the first.

A page without ``expected-metadata.json``/``expected.html`` simply has fewer questions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

__all__ = ["Page", "Question", "discover", "normalise", "normalise_loose", "extract_reading", "answered"]

#: Characters of the first/middle paragraph used as a question.
SENTENCE_CHARS = 60


@dataclass
class Question:
    """One scripted question: ``kind`` (title/byline/first/middle) and the ground-truth ``answer`` string."""

    kind: str
    answer: str


@dataclass
class Page:
    """One corpus page.

    Attributes:
        name: folder name (or file stem).
        path: the HTML file served.
        url_path: its path on the corpus server, e.g. ``/aclu/source.html``.
        html_bytes: size of the HTML file in bytes.
        questions: ground-truth questions (may be empty).
    """

    name: str
    path: Path
    url_path: str
    html_bytes: int
    questions: list[Question] = field(default_factory=list)


_WS = re.compile(r"\s+")


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _paragraph_questions(expected_html: str) -> list[Question]:
    tree = LexborHTMLParser(expected_html)
    long = [t for t in (_collapse(p.text(deep=True)) for p in tree.css("p")) if len(t) >= SENTENCE_CHARS]
    if not long:
        return []
    out = [Question("first", long[0][:SENTENCE_CHARS])]
    mid = long[len(long) // 2][:SENTENCE_CHARS]
    if len(long) >= 2 and mid != out[0].answer:
        out.append(Question("middle", mid))
    return out


def load_questions(folder: Path) -> list[Question]:
    """Return the questions for a ``NAME/`` page folder (empty if it has no ground truth)."""
    questions: list[Question] = []
    meta_file = folder / "expected-metadata.json"
    if meta_file.is_file():
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except ValueError:
            meta = {}
        for kind in ("title", "byline"):
            value = meta.get(kind)
            if isinstance(value, str) and _collapse(value):
                questions.append(Question(kind, _collapse(value)))
    expected = folder / "expected.html"
    if expected.is_file():
        questions += _paragraph_questions(expected.read_text(encoding="utf-8", errors="replace"))
    return questions


def discover(root: Path) -> list[Page]:
    """Return the corpus pages under ``root``, sorted by name.

    ``NAME/source.html`` folders win; if there are none, every ``*.html`` directly in ``root`` is a page.

    Raises:
        FileNotFoundError: ``root`` is not a directory or holds no pages.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus folder {root} does not exist; pass --corpus DIR")
    pages = [
        Page(name=d.name, path=d / "source.html", url_path=f"/{d.name}/source.html",
             html_bytes=(d / "source.html").stat().st_size, questions=load_questions(d))
        for d in sorted(root.iterdir()) if (d / "source.html").is_file()
    ]
    if not pages:
        pages = [Page(name=f.stem, path=f, url_path=f"/{f.name}", html_bytes=f.stat().st_size)
                 for f in sorted(root.glob("*.html"))]
    if not pages:
        raise FileNotFoundError(f"no */source.html or *.html pages in {root}")
    return pages


# ---------------------------------------------------------------------------------------------- normalisation

_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)+", re.M)
_MD_MARKS = re.compile(r"(\*\*|__|\*|_|`+|~~)")
_MD_TABLE = re.compile(r"\s*\|\s*")


def normalise(text: str) -> str:
    """Strict normalisation (the issue's rule): markdown markup stripped, whitespace collapsed, case-folded.

    Markup stripped: ``[text](url)`` and ``![alt](url)`` become their text, line-leading heading/quote/list markers,
    ``*``, ``_``, backticks, ``~~`` and table pipes are removed.
    """
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_LINE_PREFIX.sub("", text)
    text = _MD_MARKS.sub("", text)
    text = _MD_TABLE.sub(" ", text)
    return _collapse(text).casefold()


_QUOTES = re.compile("[\"\u201c\u201d\u00ab\u00bb]")


def normalise_loose(text: str) -> str:
    """:func:`normalise`, then every whitespace character and double-quote mark removed.

    Used after :func:`extract_reading`, where inline pieces of one paragraph (text runs, link names) sit on
    separate lines of a snapshot tree and the spaces between them are not reliable.
    """
    return _WS.sub("", _QUOTES.sub("", normalise(text)))


# Playwright aria snapshot (YAML): "- role "name" [attr] [attr]: inline text" / "- text: ..." / "- /url: ..."
_PW_LINE = re.compile(
    r'^\s*-\s+(?P<role>[A-Za-z][\w-]*|"(?:[^"\\]|\\.)*")(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?'
    r'(?P<attrs>(?:\s+\[[^\]]*\])*)\s*(?::\s*(?P<rest>.*))?$'
)
_PW_PROP = re.compile(r"^\s*-\s+/[\w-]+:")

# chrome-devtools-mcp take_snapshot: 'uid=1_2 role "name" attr="..."' or 'uid=1_5 "text"'
_CD_NODE = re.compile(r"\n(?=[ \t]*uid=\S+)")
_CD_ATTRS = re.compile(
    r'(?:\s+(?:url|description|value|level|focusable|focused|checked|expandable|expanded|selected|disabled|'
    r'haspopup|multiline|multiselectable|readonly|required|roledescription|valuemin|valuemax|valuetext|'
    r'autocomplete|keyshortcuts|live|atomic|relevant|busy|modal|orientation|pressed|invalid|settable|editable|'
    r'hidden|visited|errormessage|details|ignored)(?:="[^"]*")?)+\s*$'
)


def _yaml_unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] == '"':
        try:
            return json.loads(s)
        except ValueError:
            return s[1:-1]
    if len(s) >= 2 and s[0] == s[-1] == "'":
        return s[1:-1].replace("''", "'")
    return s


def _extract_aria_yaml(text: str) -> str:
    out: list[str] = []
    for line in text.splitlines():
        if _PW_PROP.match(line):
            continue  # /url:, /placeholder: ... properties, not page text
        m = _PW_LINE.match(line)
        if not m:
            out.append(line)
            continue
        role, name, rest = m.group("role"), m.group("name"), m.group("rest")
        if role.startswith('"'):  # a bare quoted text node
            out.append(_yaml_unquote(role))
            continue
        if name is not None:
            out.append(_yaml_unquote(f'"{name}"'))
        if rest:
            out.append(_yaml_unquote(rest))
    return "\n".join(out)


def _extract_cdp(text: str) -> str:
    out: list[str] = []
    for chunk in _CD_NODE.split(text):
        m = re.match(r"\s*uid=\S+\s*(?:[A-Za-z]\w*\s*)?", chunk)
        if not m:
            out.append(chunk)
            continue
        rest = _CD_ATTRS.sub("", chunk[m.end():])
        if rest.startswith('"') and rest.endswith('"') and len(rest) >= 2:
            rest = rest[1:-1]
        out.append(rest)
    return "\n".join(out)


def extract_reading(text: str, fmt: str) -> str:
    """Return the page text a reader gets from a result, without the structure of its format.

    ``fmt``: ``"markdown"`` (returned as is), ``"aria-yaml"`` (@playwright/mcp snapshots: roles, refs, ``/url``
    properties and YAML quoting removed, names and inline text kept) or ``"cdp-a11y"`` (chrome-devtools-mcp
    snapshots: ``uid=``, roles, ``url=``/``description=``… attributes and quotes removed).
    """
    if fmt == "aria-yaml":
        return _extract_aria_yaml(text)
    if fmt == "cdp-a11y":
        return _extract_cdp(text)
    return text


def answered(question: Question, strict_haystack: str, loose_haystack: str) -> tuple[bool, bool]:
    """Return ``(strict, loose)``: whether the normalised answer is in each pre-normalised haystack.

    ``strict_haystack`` must come from :func:`normalise` of the raw results, ``loose_haystack`` from
    :func:`normalise_loose` of :func:`extract_reading` of them.
    """
    strict = normalise(question.answer)
    loose = normalise_loose(question.answer)
    return (bool(strict) and strict in strict_haystack, bool(loose) and loose in loose_haystack)
