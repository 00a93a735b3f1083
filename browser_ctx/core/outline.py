"""The page card: a few-hundred-token overview returned by ``browser_navigate``.

:func:`outline` counts a page's structure (headings, landmarks, interactive elements)
from visible HTML or raw HTML; :func:`render_card` formats it with the load facts
(final URL, HTTP status, title, console errors, failed requests).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dom import LANDMARK_ROLES, Document, as_document, collapse_ws, heading_level, is_interactive, landmark_of, role_of
from .record import DialogInfo
from .urls import shorten_url

__all__ = ["Outline", "Hop", "outline", "render_card", "MAX_HEADINGS", "HEADING_CHARS", "HOP_URL_CHARS"]

#: Headings kept in :attr:`Outline.headings`.
MAX_HEADINGS = 12
#: Characters kept of each heading's text (longer ones end with "…").
HEADING_CHARS = 80

#: Characters of each URL shown in the card's redirect chain (cut in the middle).
HOP_URL_CHARS = 120
#: Characters of a dialog's message shown in the card.
DIALOG_CHARS = 120

INTERACTIVE_KINDS = ("links", "buttons", "textboxes", "checkboxes", "radios", "selects", "comboboxes", "other")

_KIND_OF_ROLE = {
    "link": "links",
    "button": "buttons", "summary": "buttons",
    "textbox": "textboxes", "searchbox": "textboxes", "password": "textboxes", "spinbutton": "textboxes",
    "date": "textboxes", "datetime": "textboxes", "month": "textboxes", "week": "textboxes", "time": "textboxes",
    "checkbox": "checkboxes", "switch": "checkboxes", "menuitemcheckbox": "checkboxes",
    "radio": "radios", "menuitemradio": "radios",
    "select": "selects", "combobox": "comboboxes", "listbox": "comboboxes",  # native <select> apart from ARIA widgets
}


@dataclass(frozen=True)
class Outline:
    """Structure counts of one page (or frame).

    Attributes:
        headings: the first :data:`MAX_HEADINGS` headings in document order, each
            ``(level 1-6, text)`` with text whitespace-collapsed and cut to
            :data:`HEADING_CHARS` characters.
        landmarks: landmark role → count, only roles present, keys among ``banner``,
            ``navigation``, ``main``, ``complementary``, ``contentinfo``, ``search``, ``form``,
            ``region`` (from tags and ``role`` attributes), in that order.
        interactive: kind → count, only kinds present, keys among ``links``, ``buttons``,
            ``textboxes``, ``checkboxes``, ``radios``, ``selects`` (native ``<select>``), ``comboboxes``
            (ARIA comboboxes and listboxes), ``other``, in that order.
        total_headings: number of headings on the page (may exceed ``len(headings)``).
    """

    headings: tuple[tuple[int, str], ...] = ()
    landmarks: dict[str, int] = field(default_factory=dict)
    interactive: dict[str, int] = field(default_factory=dict)
    total_headings: int = 0


@dataclass(frozen=True)
class Hop:
    """One page a navigation passed through before the final one.

    Attributes:
        url: the URL that was left.
        status: its HTTP status (``None`` when unknown, e.g. a document replaced before it answered).
        how: how it was left: ``HTTP 302`` (a server redirect), ``meta refresh`` or ``script``.
    """

    url: str
    status: int | None
    how: str


def outline(html: str | Document) -> Outline:
    """Return the :class:`Outline` of ``html`` (visible HTML or raw HTML; hidden content and
    noise are dropped first, as in :func:`browser_ctx.core.dom.parse_html`)."""
    doc = as_document(html)
    headings: list[tuple[int, str]] = []
    total = 0
    landmarks = {k: 0 for k in LANDMARK_ROLES}
    kinds = {k: 0 for k in INTERACTIVE_KINDS}
    for node in doc.root.iter():
        if node.is_text:
            continue
        level = heading_level(node)
        if level is not None:
            text = node.text_content()
            if text:
                total += 1
                if len(headings) < MAX_HEADINGS:
                    if len(text) > HEADING_CHARS:
                        text = text[: HEADING_CHARS - 1].rstrip() + "…"
                    headings.append((level, text))
        lm = landmark_of(node)
        if lm is not None:
            landmarks[lm] += 1
        if is_interactive(node):
            kinds[_KIND_OF_ROLE.get(role_of(node) or "", "other")] += 1
    return Outline(
        headings=tuple(headings),
        landmarks={k: v for k, v in landmarks.items() if v},
        interactive={k: v for k, v in kinds.items() if v},
        total_headings=total,
    )


def _hop(hop: Hop) -> str:
    """``url (HTTP 302)`` for a server redirect, ``url (HTTP 200, script)`` for a client one."""
    code = f"HTTP {hop.status}" if hop.status is not None else "HTTP status unknown"
    how = "" if hop.how == code else f", {hop.how}"
    return f"{shorten_url(hop.url, limit=HOP_URL_CHARS)} ({code}{how})"


def _dialog(d: DialogInfo) -> str:
    """``alert "text" → accepted (default policy)``, as in action records."""
    text = collapse_ws(d.message)
    if len(text) > DIALOG_CHARS:
        text = text[: DIALOG_CHARS - 1] + "…"
    how = "accepted" if d.accepted else "dismissed"
    if d.prompt_text is not None:
        how += f" with {d.prompt_text!r}"
    who = "default policy" if d.by == "default" else d.by
    return f'{d.type} "{text}" → {how} ({who})'


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def render_card(
    *,
    url: str,
    status: int | None,
    title: str,
    outline: Outline,
    console_errors: int = 0,
    failed_requests: int = 0,
    notes: tuple[str, ...] = (),
    chain: tuple[Hop, ...] = (),
    dialogs: tuple[DialogInfo, ...] = (),
    emulation: str = "",
) -> str:
    """Return the compact page card (plain text, one fact per line, a few hundred tokens at most).

    Args:
        url: the final URL after redirects (tracking parameters removed, cut to 200 chars).
        status: HTTP status of the main document, or ``None`` when unknown (e.g. ``file:``).
        title: the document title (cut to 150 chars; ``(none)`` when empty).
        outline: the page's :class:`Outline`.
        console_errors: console errors logged during load.
        failed_requests: requests that failed during load.
        notes: extra one-line notes, each shown as ``Note: …`` (cut to 200 chars each).
        chain: the pages passed through before ``url`` (server and client redirects), first first;
            shown as one ``Redirects:`` line, each URL cut to :data:`HOP_URL_CHARS` characters.
        dialogs: dialogs opened while the pages loaded, one ``Dialog during load:`` line each with its
            type, message (cut to :data:`DIALOG_CHARS` characters) and how it was answered.
        emulation: the emulation in force on the tab (``browser_emulate``: throttling, geolocation …), shown as
            an ``Emulation:`` line so load figures are never read without it; ``""``: none.

    Example::

        Page: Example Domain — https://example.com/ (HTTP 200)
        Redirects: http://example.com/ (HTTP 301) → https://example.com/start (HTTP 200, script) → final page
        Dialog during load: alert "Welcome" → accepted (default policy)
        Headings (2 of 2):
          h1 Example Domain
          h2 More
        Landmarks: main 1, navigation 2
        Interactive: 12 links, 1 button
        Load: no console errors, no failed requests
    """
    title = collapse_ws(title or "") or "(none)"
    if len(title) > 150:
        title = title[:149].rstrip() + "…"
    status_text = f"HTTP {status}" if status is not None else "HTTP status unknown"
    lines = [f"Page: {title} — {shorten_url(url, limit=200)} ({status_text})"]
    if chain:
        lines.append("Redirects: " + " → ".join(_hop(h) for h in chain) + " → final page")
    lines.extend(f"Dialog during load: {_dialog(d)}" for d in dialogs)
    o = outline
    if o.headings:
        lines.append(f"Headings ({len(o.headings)} of {o.total_headings:,}):")
        lines.extend(f"  h{level} {text}" for level, text in o.headings)
    else:
        lines.append("Headings: none")
    lm = ", ".join(f"{k} {v:,}" for k, v in o.landmarks.items())
    lines.append(f"Landmarks: {lm or 'none'}")
    singular = {"links": "link", "buttons": "button", "textboxes": "textbox", "checkboxes": "checkbox",
                "radios": "radio", "selects": "select", "comboboxes": "combobox", "other": "other control"}
    inter = ", ".join(f"{v:,} {k if v != 1 else singular[k]}" if k != "other" else _plural(v, "other control")
                      for k, v in o.interactive.items())
    lines.append(f"Interactive: {inter or 'none'}")
    errs = _plural(console_errors, "console error") if console_errors else "no console errors"
    fails = _plural(failed_requests, "failed request") if failed_requests else "no failed requests"
    lines.append(f"Load: {errs}, {fails}")
    if emulation:
        lines.append(f"Emulation: {emulation}")
    for note in notes[:5]:
        note = collapse_ws(note)
        lines.append("Note: " + (note if len(note) <= 200 else note[:199] + "…"))
    return "\n".join(lines)
