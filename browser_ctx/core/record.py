"""Render the record of one action: what happened between the action and the page settling.

Pure: :func:`render_record` takes an :class:`ActionRecord` (plain data filled in by
:mod:`browser_ctx.browser.actions`) and returns a short text, most important first::

    Clicked "Add" (e5).
    Navigated: http://a/ → http://b/ "New title"        (a route of the same document: URL changed to /b#x)
    Dialog confirm "Delete?" → dismissed (default)
    New tab [1]: "Popup" http://a/popup
    Download: report.csv, 1.2 KB, saved to /tmp/…/report.csv
    Console errors: 1 new — TypeError: x is undefined
    Failed requests: 1 new — GET http://a/api → 500
    Mocked requests: 1 new — GET http://a/api/items → 200 (mocked)
    Shown and gone: toast "Saved" (1.5 s)
    Settled in 620 ms; network never went quiet (EventSource http://a/events open).
    + listitem "Buy milk" [e14]
    - "Nothing to do"

An action that caused nothing says ``<action>. No visible change.`` and nothing else.
Sizes are bytes (rendered as B/KB/MB); times are milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .delta import NO_CHANGE
from .values import quote_value

__all__ = ["ActionRecord", "DialogInfo", "PopupInfo", "DownloadInfo", "render_record", "human_size",
           "EVENT_LINES"]

#: How many console errors / failed requests are shown by name (the rest are counted).
EVENT_LINES = 3


def human_size(n: int | None) -> str:
    """Return ``n`` bytes as ``"512 B"``, ``"1.2 KB"``, ``"3.4 MB"`` (1 KB = 1,024 bytes); ``"?"`` if unknown."""
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of an http(s) URL, else ``""``."""
    m = re.match(r"https?://[^/?#]+", url)
    return m.group(0) if m else ""


def _q(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return '"' + text.replace('"', "'") + '"'


@dataclass
class DialogInfo:
    """A dialog the page opened.

    Attributes:
        type: ``alert``, ``confirm``, ``prompt`` or ``beforeunload``.
        message: its message.
        accepted: whether it was accepted (else dismissed).
        by: ``"default"`` (the policy) or ``"browser_handle_dialog"`` (armed by the caller).
        prompt_text: text entered into a prompt, if any.
    """

    type: str
    message: str
    accepted: bool
    by: str = "default"
    prompt_text: str | None = None


@dataclass
class PopupInfo:
    """A tab or popup that opened during the action.

    Attributes:
        index: its index in ``browser_tabs`` (``None`` once closed).
        url: its URL (``about:blank`` if it had not loaded yet).
        title: its title.
        closed: it closed itself before the action settled.
        pdf: it shows a PDF (Chromium's viewer); ``size`` is then the PDF's size in bytes.
        size: bytes, when known.
    """

    index: int | None
    url: str
    title: str = ""
    closed: bool = False
    pdf: bool = False
    size: int | None = None


@dataclass
class DownloadInfo:
    """A download the action started.

    Attributes:
        name: the suggested file name.
        size: bytes (``None`` if it did not finish).
        path: where it was saved (``None`` when not saved).
        error: why it was not saved (failed, over the size cap, still running), else ``None``.
    """

    name: str
    size: int | None = None
    path: str | None = None
    error: str | None = None


@dataclass
class ActionRecord:
    """Everything an action caused, as plain data.

    Attributes:
        action: what was done, e.g. ``'Clicked "Add" (e5)'`` (no trailing period).
        url_before / url_after: the tab's URL before and after.
        title_before / title_after: its title before and after.
        new_document: the main frame loaded a new document (a navigation, not a same-page route change).
        page_card: for a new document, a short outline of the new page (rendered by the caller).
        dialogs, popups, downloads: what opened.
        console_errors: new console errors (already rendered one per line); ``console_error_count`` the total.
        failed_requests: new failed requests, one per line; ``failed_request_count`` the total.
        mocked_requests: other new requests a ``browser_route`` mock answered, one per line.
        settle_ms: how long settling took, in ms.
        settle_note: why settling stopped early or late (e.g. the network never went quiet), else ``None``.
        shown_and_gone: the transient-UI journal's line (:func:`browser_ctx.core.journal.render_gone`): what
            was shown and went since the previous call, during the action included; ``None`` when nothing.
        readback: what the target shows after typing (``browser_type``), else ``None``.
        delta: the rendered DOM delta (:func:`browser_ctx.core.delta.render_delta`), ``None`` if not computed.
        notes: other one-line notes.
    """

    action: str
    url_before: str = ""
    url_after: str = ""
    title_before: str = ""
    title_after: str = ""
    new_document: bool = False
    page_card: str | None = None
    dialogs: list[DialogInfo] = field(default_factory=list)
    popups: list[PopupInfo] = field(default_factory=list)
    downloads: list[DownloadInfo] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    console_error_count: int = 0
    failed_requests: list[str] = field(default_factory=list)
    failed_request_count: int = 0
    mocked_requests: list[str] = field(default_factory=list)
    settle_ms: float = 0
    settle_note: str | None = None
    shown_and_gone: str | None = None
    readback: str | None = None
    delta: str | None = None
    notes: list[str] = field(default_factory=list)


def _events(label: str, lines: list[str], count: int) -> str | None:
    if count <= 0:
        return None
    shown = [" ".join(x.split())[:200] for x in lines[:EVENT_LINES]]
    more = count - len(shown)
    tail = f" (+{more} more)" if more > 0 else ""
    return f"{label}: {count} new — " + " | ".join(shown) + tail


def render_record(rec: ActionRecord) -> str:
    """Render ``rec`` (see the module docstring for the shape).

    Returns:
        One line per fact, most important first; the DOM delta last. When nothing happened at all,
        the single line ``<action>. No visible change.``
    """
    head = rec.action.rstrip(".") + "."
    lines: list[str] = []
    if rec.url_after and rec.url_after != rec.url_before and not rec.new_document:
        # the same document (a route, a fragment): where it went, on the same origin as a path
        origin = _origin(rec.url_before)
        where = rec.url_after[len(origin):] if origin and _origin(rec.url_after) == origin else rec.url_after
        title = f" {_q(rec.title_after)}" if rec.title_after and rec.title_after != rec.title_before else ""
        lines.append(f"URL changed to {where or '/'}{title}")
    elif rec.url_after and rec.url_after != rec.url_before:
        title = f" {_q(rec.title_after)}" if rec.title_after else ""
        lines.append(f"Navigated: {rec.url_before} → {rec.url_after}{title}")
    elif rec.new_document:
        title = f" {_q(rec.title_after)}" if rec.title_after else ""
        lines.append(f"Page reloaded: {rec.url_after}{title}")
    elif rec.title_after != rec.title_before:
        lines.append(f"Title: {_q(rec.title_before)} → {_q(rec.title_after)}")
    for d in rec.dialogs:
        how = "accepted" if d.accepted else "dismissed"
        if d.prompt_text is not None and d.accepted:
            how += f" with {_q(d.prompt_text, 60)}"
        who = "browser_handle_dialog" if d.by != "default" else "default policy"
        hint = ""
        if d.by == "default" and d.type in ("confirm", "prompt"):
            hint = "; to accept, call browser_handle_dialog then repeat the action"
        lines.append(f"Dialog {d.type} {_q(d.message)} → {how} ({who}{hint})")
    for p in rec.popups:
        what = "PDF" if p.pdf else "tab"
        size = f", {human_size(p.size)}" if p.pdf and p.size is not None else ""
        title = f" {_q(p.title, 80)}" if p.title else ""
        if p.closed:
            lines.append(f"Popup opened and closed itself: {p.url}{title}")
        else:
            lines.append(f"New {what} [{p.index}]{title} {p.url}{size} (browser_tabs select to use it)")
    for dl in rec.downloads:
        if dl.error:
            size = f", {human_size(dl.size)}" if dl.size is not None else ""
            lines.append(f"Download {dl.name}{size}: not saved ({dl.error})")
        else:
            lines.append(f"Download: {dl.name}, {human_size(dl.size)}, saved to {dl.path}")
    for item in (_events("Console errors", rec.console_errors, rec.console_error_count),
                 _events("Failed requests", rec.failed_requests, rec.failed_request_count),
                 _events("Mocked requests", rec.mocked_requests, len(rec.mocked_requests))):
        if item:
            lines.append(item)
    if rec.shown_and_gone:
        lines.append(rec.shown_and_gone)
    if rec.readback is not None:
        shown = _q(rec.readback) if rec.readback in ("(filled)", "(empty)") else quote_value(rec.readback, 300)
        lines.append(f"It now shows: {shown}")  # exactly: a trailing space or a line break is part of the value
    lines.extend(rec.notes)
    if rec.settle_note:
        lines.append(rec.settle_note)
    if rec.page_card:
        lines.append(rec.page_card.rstrip())
    delta = rec.delta
    if not lines and (delta is None or delta == NO_CHANGE):
        return f"{head} No visible change."
    said = rec.readback is not None or any(n.startswith(("Now shows:", "Selected:")) for n in rec.notes)
    if delta is not None and not rec.page_card and not (delta == NO_CHANGE and said):
        lines.append("No visible change." if delta == NO_CHANGE else delta)  # (a read-back says what changed)
    return "\n".join([head, *lines])
