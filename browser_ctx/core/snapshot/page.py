"""A page's snapshot: render its lines (:mod:`.render`), fit them to the budget (:mod:`.fit`), join them."""

from __future__ import annotations

import re

from ..dom import Document, as_document, collapse_ws
from ..tokens import count_tokens
from ..urls import shorten_url, strip_tracking
from .fit import Fitter
from .lines import Line, dedupe_labels
from .options import DEFAULTS, SnapshotOptions
from .render import Renderer

__all__ = ["render_lines", "render_snapshot", "coverage", "EXACT_CHARS_PER_TOKEN", "SAMPLE_CHARS", "REFIT_ROUNDS"]

_URL_IN_TEXT = re.compile(r"https?://[^\s)\]\"'<>]+\?[^\s)\]\"'<>]+")

#: A whole view up to this many characters per token of the budget is counted exactly before it is fitted; a
#: longer one (it cannot fit) is measured on a sample of its lines.
EXACT_CHARS_PER_TOKEN = 12
#: Characters of the lines counted to find a long rendering's characters per token.
SAMPLE_CHARS = 20_000
#: Rounds of fitting after the first, each with the ratio the exact count of the last one gave.
REFIT_ROUNDS = 3


def render_lines(html: str | Document, *, url: str = "", options: SnapshotOptions = DEFAULTS,
                 max_tokens: int | None = None) -> list[Line]:
    """The lines of a snapshot, before they are joined into text (format in :mod:`browser_ctx.core.snapshot`).

    Args:
        html: a walked tree or raw HTML, as for :func:`render_snapshot`.
        url: the page URL (links on its origin are shown relative to it).
        options: :class:`SnapshotOptions`.
        max_tokens: o200k tokens the joined lines may take: the whole view when it fits, else folded and cut
            where that saves the most until it fits (everything folded when even that is over). ``None``: fold
            and cut everything the options fold (today's condensed view).
    """
    doc = as_document(html)
    condensed = _render(doc, url, options, plan=False)
    lines = condensed.shown()
    if max_tokens is not None and condensed.folded and _fits(lines, max_tokens):
        fitter = _render(doc, url, options, plan=True)
        _fit(fitter, max_tokens)
        lines = fitter.shown()
    for line in lines:  # URLs quoted in visible text (a link named by its own URL, say) lose their trackers too
        if "?" in line.body:
            line.body = _URL_IN_TEXT.sub(lambda m: strip_tracking(m.group(0)), line.body)
    return lines


def _render(doc: Document, url: str, options: SnapshotOptions, *, plan: bool) -> Fitter:
    """Render ``doc``: with ``plan`` every fold left to choose, else every fold applied."""
    r = Renderer(doc, options, url, plan=plan)
    r.render_children(doc.body, 0)
    r.flush(0)
    fitter = Fitter(dedupe_labels(r.lines), r.folds, options.prose_show)
    if not plan:
        fitter.apply_all()
    return fitter


def _fits(lines: list[Line], max_tokens: int) -> bool:
    """Whether the condensed ``lines`` fit in ``max_tokens`` tokens (then the whole view may, too)."""
    chars = sum(2 * x.depth + len(x.text) + 1 for x in lines)
    return chars <= max_tokens * EXACT_CHARS_PER_TOKEN and count_tokens(_join(lines)) <= max_tokens


def _join(lines: list[Line]) -> str:
    return "\n".join("  " * line.depth + line.text for line in lines)


def _fit(fitter: Fitter, max_tokens: int) -> None:
    """Apply the fewest folds that bring the lines within ``max_tokens`` tokens: choose on characters at the
    rendering's own characters per token, count the result exactly, and choose again while it is over."""
    shown = fitter.shown()
    chars = sum(2 * x.depth + len(x.text) + 1 for x in shown)
    if chars <= max_tokens * EXACT_CHARS_PER_TOKEN:
        tokens = count_tokens(_join(shown))
        if tokens <= max_tokens:
            return
    else:
        step = max(1, chars // SAMPLE_CHARS)
        sample = shown[::step]
        tokens = count_tokens(_join(sample)) * chars // max(1, sum(2 * x.depth + len(x.text) + 1 for x in sample))
    for _ in range(REFIT_ROUNDS + 1):
        per_token = chars / max(1, tokens)
        fitted = fitter.fit(max_tokens * per_token)
        shown = fitter.shown()
        chars = sum(2 * x.depth + len(x.text) + 1 for x in shown)
        tokens = count_tokens(_join(shown))
        if tokens <= max_tokens or not fitted:
            return


def coverage(complete: bool, elements_left: int = 0, siblings_left: int = 0) -> str:
    """What the page line says about the read: ``(whole document)``, or ``(part of the document: about 1,200
    more elements not read, 300 of them further items of the list where it stopped)``."""
    if complete or elements_left <= 0:
        return "(whole document)"
    where = f", {siblings_left:,} of them further items of the list where it stopped" if siblings_left > 1 else ""
    return f"(part of the document: about {elements_left:,} more elements not read{where})"


def render_snapshot(html: str | Document, *, title: str = "", url: str = "",
                    options: SnapshotOptions = DEFAULTS, page_line: bool = True, max_tokens: int | None = None,
                    read: tuple[bool, int, int] | None = None, empty: str = "(empty page)") -> str:
    """Return the condensed summary of a page (format in :mod:`browser_ctx.core.snapshot`).

    Args:
        html: a walked tree (:class:`~browser_ctx.core.tree.Document`), or raw HTML (hidden content and
            noise are dropped as in :func:`browser_ctx.core.dom.parse_html`). Child frames are
            ``bc-frame`` elements (``data-frame=ID data-url=URL``) with their content inside.
        title: page title for the first line (``Page: title — url``); the line is left
            out when both ``title`` and ``url`` are empty.
        url: page URL; links on the same origin are shown relative to it.
        options: :class:`SnapshotOptions`.
        page_line: start with the ``Page: title — url`` line (default ``True``); ``False`` for a part of a
            page whose caller prints that line once (a targeted snapshot).
        max_tokens: o200k tokens the whole text may take (page line included): the whole view (nothing folded
            or cut) when it fits, else folded and cut where that saves the most until it fits; ``None``: fold
            and cut all the options fold.
        read: what the walk covered, ``(complete, elements_left, siblings_left)``, said on the page line
            (:func:`coverage`); ``None`` says nothing.
        empty: what is said when nothing visible remains (a targeted snapshot: ``an element without text``).

    Returns:
        Lines joined with ``\\n`` (no trailing newline); deterministic for the same input.
        ``empty`` (``"(empty page)"``) follows the title line when nothing visible remains.
    """
    out: list[str] = []
    if page_line and (title or url):
        head = "Page: " + (collapse_ws(title) or "(untitled)")
        if url:
            head += " — " + shorten_url(url, limit=200)
        if read is not None:
            head += " " + coverage(*read)
        out.append(head)
    budget = None if max_tokens is None else max(1, max_tokens - (count_tokens(out[0]) + 1 if out else 0))
    lines = render_lines(html, url=url, options=options, max_tokens=budget)
    if not lines:
        out.append(empty)
    out.extend("  " * line.depth + line.text for line in lines)
    return "\n".join(out)
