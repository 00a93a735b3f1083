"""Read tools: ``browser_navigate``, ``browser_snapshot``, ``browser_text``.

Each handler fetches visible HTML from the live page (:mod:`browser_ctx.browser.reading`; loads through
:mod:`browser_ctx.browser.navigation`)
and renders it with the pure core; the pipeline caps the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ..._errors import PageError, PageNavigated
from ...browser import emulation, journal, navigation, reading, redirects
from ...browser.refs import page_version
from ...browser.session import Tab
from ...browser.settle import look
from ...browser.targets import prime_locators
from ...browser.walk import PageWalk, Walk
from ...core.capping import PARTIAL_KEY, collect_chars, partial_fields, partial_note
from ...core.fingerprint import PAGE_META_KEY, page_fingerprint
from ...core.journal import render_gone
from ...core.main_content import main_part
from ...core.markdown import render_markdown, render_text
from ...core.outline import outline, render_card
from ...core.snapshot import UNFOLDED, render_snapshot
from ...core.snapshot.folding import fold_target
from ...core.tree import Document, Node
from ..registry import TARGET, Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "SINCE_FINGERPRINT"]

#: Schema of ``since`` on the reads: a fingerprint from an earlier read with the same arguments; the
#: pipeline then answers only what changed since that read.
SINCE_FINGERPRINT = {"type": "string", "description": "Earlier fingerprint: send only changes"}


async def _journal_note(call: ToolCall, tab: Tab) -> None:
    """Drain the tab's transient-UI journal: what was shown and went since the last call becomes a note of
    this read (one line, capped; the pipeline scrubs it)."""
    line = render_gone(*await journal.drain_tab(tab))
    if line:
        call.session.add_note(line)


async def _after_journal(call: ToolCall, tab: Tab, read: Awaitable[PageWalk]) -> PageWalk:
    """``read`` (a walk of the page), with the journal drained (:func:`_journal_note`) at the same time: its note
    comes first, as when drained before, also when the walk fails."""
    drained = asyncio.ensure_future(journal.drain_tab(tab))
    try:
        return await read
    finally:
        line = render_gone(*await drained)
        if line:
            call.session.add_note(line)


def _join_matches(target: str, parts: list[str], total: int) -> str:
    if total == 1 and len(parts) == 1:
        return parts[0]
    text = "\n".join(f"--- match {i} of {total} for {target!r} ---\n{p}" for i, p in enumerate(parts, 1))
    if total > len(parts):
        text += (f"\n--- {total - len(parts)} more matches not read (reads stop at {len(parts)}); "
                 "use a narrower target ---")
    return text


#: Tokens of a call's budget a snapshot leaves to the structured content and notes; it fits the rest whole when it
#: can (``render_snapshot(max_tokens=…)``), and the pipeline's cap cuts what is still over.
SNAPSHOT_RESERVE_TOKENS = 120

#: Size of a walk (characters of the walker's JSON) above which rendering runs in a worker thread, so one large
#: read does not hold the event loop (and every other client of an HTTP server) while it condenses.
OFF_LOOP_CHARS = 200_000


async def _off_loop(render: Callable[[], str], size: int) -> str:
    """Run the pure ``render()`` of a walk of ``size`` characters: on the loop when small, in a worker
    thread when over :data:`OFF_LOOP_CHARS` characters."""
    if size > OFF_LOOP_CHARS:
        return await asyncio.to_thread(render)
    return render()


def _walked(parts: list[Walk], total: int) -> str:
    """The page fingerprint of a targeted read: the match count and what each match's walk saw."""
    return page_fingerprint([str(total), *(w for part in parts for w in (*part.wire, "\0"))])


def _stopped_in(doc: Document) -> str:
    """The target that reads on where a walk that stopped early left off: the container of the run it stopped in
    (the last element with several element children on the walk's last path), as fold lines name it."""
    node: Node = doc.body
    found: Node = doc.body
    while True:
        kids = [c for c in node.children if not c.is_text]
        if len(kids) >= 2:
            found = node
        if not kids:
            break
        node = kids[-1]
    return fold_target(found) or "body"


def _say_partial(call: ToolCall, read: PageWalk) -> dict[str, Any] | None:
    """If ``read`` is partial (walk stopped at its bound, or the page still loading), add the note saying so
    to the call's result and return the :data:`PARTIAL_KEY` field (with the target that reads on where the walk
    stopped); else ``None``."""
    target = _stopped_in(read.doc) if read.elements_left > 0 else ""
    partial = partial_fields(read.walked, read.elements_left, read.loading, target)
    if partial is not None:
        call.session.add_note(partial_note(read.elements_left, read.elements, read.loading, read.siblings_left))
    return partial


def _calls(call: ToolCall) -> int:
    """Calls of the session recorded so far (this one not yet)."""
    return sum(t.calls for t in call.session.ledger.tools.values())


async def navigate(call: ToolCall) -> Rendered:
    """Load ``url`` and return the page card (not a snapshot).

    Args (from ``call.args``): ``url`` (str; no scheme means https, or http for localhost).

    Returns:
        A :class:`Rendered` page card: final URL, HTTP status, title, the redirect chain (server and
        client-side: meta refresh, script), dialogs answered during the load, outline (top headings,
        landmark and interactive-element counts), console errors and failed requests during load.
        Structured fields: ``url``, ``status``, ``title``; ``redirects`` (``[{url, status, how}]``) and
        ``dialogs`` (``[{type, message, accepted}]``) when there were any.

    Raises:
        SchemeRefused, NavigationError, ActionTimeout.
    """
    url = navigation.normalise_url(call.args["url"], call.settings.allowed_schemes)
    tab = await call.session.current_tab()
    tab.card_walk = None
    bound = collect_chars(call.budget.tokens, call.budget.chars)

    async def card_read() -> PageWalk:  # with Chromium's names: a snapshot called next reads this walk
        # the capture's sync (what the load logged) goes beside it: after the walk it would queue behind the
        # walk's letting go of its accessibility tree
        walk, _ = await asyncio.gather(reading.walk_tab_page(tab, call.settings, bound), tab.events.sync())
        return walk

    nav = await navigation.navigate(tab, url, call.settings, call.session.dialogs, read=card_read)
    for attempt in range(4):  # the page moved on while we read it: follow it, then read where it went
        try:
            read = nav.read.result() if nav.read is not None else await card_read()
        except PageError as exc:
            if attempt == 3 or not isinstance(exc, PageNavigated):
                raise
            nav = await redirects.follow_client_redirect(tab, replace(nav, read=None), call.settings)
            continue
        if tab.page.url == nav.url or attempt == 3:
            break
        nav = await redirects.follow_client_redirect(tab, replace(nav, read=None), call.settings)
    nav = replace(nav, title=read.title or nav.title)
    prime_locators(call.session, tab)
    tab.card_walk = (bound, _calls(call), read) if read.version is not None and not read.loading else None
    _say_partial(call, read)
    page_outline = outline(read.doc)
    summary = tab.events.load_summary()
    card = render_card(url=nav.url, status=nav.status, title=nav.title, outline=page_outline,
                       console_errors=summary.get("consoleErrors", 0),
                       failed_requests=summary.get("failedRequests", 0), notes=nav.notes, chain=nav.chain,
                       dialogs=nav.dialogs, emulation=emulation.summary(tab))
    meta: dict[str, object] = {"url": nav.url, "status": nav.status, "title": nav.title}
    if nav.chain:
        meta["redirects"] = [{"url": h.url, "status": h.status, "how": h.how} for h in nav.chain]
    if nav.dialogs:
        meta["dialogs"] = [{"type": d.type, "message": d.message, "accepted": d.accepted} for d in nav.dialogs]
    return Rendered(card, meta=meta, capture=False, version=read.version, tab=tab.id)


async def snapshot(call: ToolCall) -> Rendered:
    """Return the condensed DOM summary of the page or of the elements ``target`` matches.

    Data comes from the live page (visible content only; shadow roots and frames included)
    and is rendered by :func:`browser_ctx.core.snapshot.render_snapshot`.

    ``meta`` carries the page fingerprint of everything walked (taken out by the pipeline, which answers
    "Unchanged since" and ``since: <fingerprint>`` from it); UI shown and gone since the last call (the
    transient-UI journal) becomes a note.

    Raises:
        SelectorError, StaleRefError, ActionTimeout.
    """
    tab = await call.session.current_tab()
    page = tab.page
    target = call.args.get("target")
    if target:
        await _journal_note(call, tab)
        title = await reading.page_title(tab, call.settings)
        parts = await reading.walk_target(tab, target, call.settings)
        total = max(len(parts), await reading.count_matches(tab, target))
        fit = max(1, call.budget.tokens - SNAPSHOT_RESERVE_TOKENS)
        rendered = [render_snapshot(p.doc, url=page.url, page_line=False, options=UNFOLDED, max_tokens=fit,
                                    empty="an element without text") for p in parts]
        text = f"Page: {title} — {page.url}\n" + _join_matches(target, rendered, total)
        meta: dict[str, object] = {"matches": total, PAGE_META_KEY: _walked(parts, total)}
    else:
        bound = collect_chars(call.budget.tokens, call.budget.chars)
        probe = asyncio.ensure_future(look(tab))  # the settle probe watches from here what changes by itself
        try:
            read = await _after_journal(call, tab, reading.walk_after_card(tab, call.settings, bound, _calls(call)))
        finally:
            await probe
        reading.remember(tab, bound, read)
        prime_locators(call.session, tab)
        title = read.title
        fit = max(1, call.budget.tokens - SNAPSHOT_RESERVE_TOKENS)
        text = await _off_loop(lambda: render_snapshot(read.doc, title=title, url=page.url, max_tokens=fit,
                                                       read=(read.complete, read.elements_left, read.siblings_left)),
                               read.size)
        meta = {PAGE_META_KEY: page_fingerprint([*read.wire, read.rest])}
        version = read.version
        if read.walker_names:
            call.session.add_note(f"names from the page's markup: with {read.elements:,} elements, Chromium's "
                                  "accessibility tree is not asked (it would take seconds); a read with a "
                                  "target asks it")
        partial = _say_partial(call, read)
        if partial:
            meta[PARTIAL_KEY] = partial
    if target:
        version = await page_version(tab.page, worlds=tab.worlds)
    return Rendered(text, meta=meta, version=version, tab=tab.id)


async def text(call: ToolCall) -> Rendered:
    """Return the visible text inside ``target`` (all matches), or the page's main content.

    With no target, the main content is detected by :func:`browser_ctx.core.main_content.main_content`
    (a single ``main``/``[role=main]``, else the largest ``article``, else the densest block of
    paragraph text), falling back to ``body``. ``format`` is ``markdown`` (default) or ``text``;
    ``links: true`` keeps link URLs in markdown.
    Fingerprint, ``since`` and the journal's note as for :func:`snapshot`.

    Raises:
        SelectorError, StaleRefError, ActionTimeout.
    """
    tab = await call.session.current_tab()
    fmt = call.args.get("format", "markdown")
    links = bool(call.args.get("links", False))

    def render(doc: Document) -> str:
        return render_markdown(doc, links=links, url=tab.page.url) if fmt == "markdown" else render_text(doc)

    target = call.args.get("target")
    if target:
        await _journal_note(call, tab)
        parts = await reading.walk_target(tab, target, call.settings)
        total = max(len(parts), await reading.count_matches(tab, target))
        body = _join_matches(target, [render(p.doc) for p in parts], total)
        meta: dict[str, object] = {"matches": total, PAGE_META_KEY: _walked(parts, total)}
    else:
        # markdown and plain text show no accessible names: the walker's serve, without the accessibility tree
        read = await _after_journal(call, tab, reading.walk_tab_page(
            tab, call.settings, collect_chars(call.budget.tokens, call.budget.chars), with_semantics=False))
        body = await _off_loop(lambda: render(main_part(read.doc)), read.size)
        meta = {PAGE_META_KEY: page_fingerprint([*read.wire, read.rest])}
        partial = _say_partial(call, read)
        if partial:
            meta[PARTIAL_KEY] = partial
        return Rendered(body, meta=meta, version=read.version, tab=tab.id)
    return Rendered(body, meta=meta, version=await page_version(tab.page, worlds=tab.worlds), tab=tab.id)


TOOLS = [
    ToolSpec(
        name="browser_navigate",
        description="Open a URL in the current tab. Returns a page card (URL, status, title, outline, "
                    "load errors), not a snapshot.",
        properties={"url": {"type": "string", "description": "http(s) URL"}},
        required=("url",),
        handler=navigate,
        pageable=False,
        read_only=False,
        baseline="page",
    ),
    ToolSpec(
        name="browser_snapshot",
        description="Condensed summary of the page or target: outline, text, interactive elements with "
                    "refs, forms, tables; folded only to fit.",
        properties={"target": TARGET, "since": SINCE_FINGERPRINT},
        handler=snapshot,
        fingerprinted=True,
        baseline="target",
    ),
    ToolSpec(
        name="browser_text",
        description="Visible text of target (all matches), or of the page's main content.",
        properties={
            "target": TARGET,
            "format": {"type": "string", "enum": ["markdown", "text"]},
            "links": {"type": "boolean", "description": "Keep link URLs (markdown)"},
            "since": SINCE_FINGERPRINT,
        },
        handler=text,
        fingerprinted=True,
        baseline="page",
    ),
]
