"""Console tool: ``browser_console_messages``.

Tool and parameter names follow ``@playwright/mcp`` 0.0.83 where it has them
(``browser_console_messages {level, all}``); the rest are ours, camelCase. Entries come from the
tab's capture (:mod:`browser_ctx.browser.capture`): console calls, uncaught errors and the browser's
own messages, folded (×N); the listing budgets itself (:mod:`.listing`).
"""

from __future__ import annotations

from ..._errors import InvalidArgument
from ...core.console import (
    KEEP_CHARS,
    KEEP_FRAMES,
    LEVELS,
    STACK_FRAMES,
    clip_url,
    level_included,
    order_entries,
    render_entry,
    section_header,
    select_entries,
)
from ...core.listing import compile_pattern, cursor_after
from ..registry import Rendered, ToolCall, ToolSpec
from .listing import ALL, LIMIT, SINCE, line_budget, synced_events

__all__ = ["TOOLS"]


async def console_messages(call: ToolCall) -> Rendered:
    """Render the tab's console entries: filtered, folded, errors first, within the call's budget.

    Args (from ``call.args``): ``level`` (least severe level, default ``info``), ``pattern`` (regex on
    the text, stack and source; a match past a message's cut shows the window around it), ``since``
    (a cursor), ``limit`` (entries), ``all`` (earlier pages too). When ``pattern`` or ``limit=1`` leaves
    one entry, it is shown whole: its text as kept (:data:`~browser_ctx.core.console.KEEP_CHARS`
    characters) and its kept stack; ``offset`` reads on past the call's cap.

    Locations of scripts with source maps are shown in their original sources, library frames collapsed
    into a count (:mod:`browser_ctx.browser.sourcemaps`).

    Returns:
        A :class:`Rendered` listing; structured fields ``cursor``, ``shown``, ``matched``; its baseline
        is the raw listing's tokens (every occurrence on its own line, nothing cut).

    Raises:
        InvalidArgument: an unknown level or an invalid regex.
    """
    ev, tab = await synced_events(call)
    args = call.args
    level = args.get("level") or "info"
    if level not in LEVELS:
        raise InvalidArgument(f"level must be one of {', '.join(LEVELS)} (got {level!r}).")
    pattern = compile_pattern(args.get("pattern"), "pattern")
    since = args.get("since")
    limit = args.get("limit")
    show_all = bool(args.get("all"))
    scrub = ev.redactor.scrub
    current = ev.current_section
    held = ev.console.entries()
    if not show_all:
        held = [e for e in held if e.section == current.id]
    memory = ev.console_shown
    skip = memory.skip(since)
    matched = order_entries(e for e in select_entries(held, level=level, pattern=pattern, since=since, scrub=scrub)
                            if e.last_seq > skip.get(e.first_seq, 0))
    budget = line_budget(call)
    where = "all pages of this tab" if show_all else f"current page {clip_url(current.url)}"
    occurrences = sum(e.count for e in matched)
    head = f"Console, {where}"
    if since is not None:
        head += f", since cursor {since}"
    if matched:
        head += (f": {len(matched)} entr{'y' if len(matched) == 1 else 'ies'}"
                 f" ({occurrences:,} message{'s' if occurrences != 1 else ''}), level {level} and above, errors first.")
    else:
        head += f": no messages at level {level} or above"
        head += (f" matching {args.get('pattern')!r}" if pattern else "") + "."
        lower = [e for e in held if since is None or e.last_seq > since]
        hidden = sum(e.count for e in lower if not level_included(e.level, level))
        if hidden:
            head += f" {hidden:,} lower-level message(s) hidden; level=debug shows them."
    if ev.console.evicted_entries:
        head += (f" {ev.console.evicted_entries:,} older entries ({ev.console.evicted_messages:,} messages) "
                 "were evicted from this tab's buffer.")
    budget.add(scrub(head), force=True)
    shown: set[int] = set()
    shown_items: dict[int, int] = {}
    last_section = None
    multi = show_all and len({e.section for e in matched}) > 1
    stopped = None
    # One entry asked for (a pattern or limit=1 that leaves one): shown whole, as far as it is kept.
    whole = len(matched) == 1 and (pattern is not None or limit == 1)
    message_chars = KEEP_CHARS if whole else call.settings.events.message_chars
    frames = KEEP_FRAMES if whole else STACK_FRAMES
    for e in matched:
        if limit is not None and len(shown) >= limit:
            stopped = f"limit={limit}"
            break
        shown_entry = await tab.source_maps.map_entry(tab.page, e)  # original sources where maps exist
        block = render_entry(shown_entry, message_chars=message_chars, scrub=scrub, since=since, frames=frames,
                             focus=pattern)
        if multi and e.section != last_section:
            block = section_header(ev.section(e.section), e.section, current.id) + "\n" + block
        if not budget.add(block, force=not shown):
            stopped = "maxTokens"
            break
        last_section = e.section
        shown.add(e.last_seq)
        shown_items[e.first_seq] = e.last_seq
    cursor = cursor_after([e.last_seq for e in matched], shown, ev.console.seq)
    memory.remember(cursor, since, shown_items)
    rest = len(matched) - len(shown)
    if rest:
        budget.add(f"… {rest} more entr{'y' if rest == 1 else 'ies'} not shown ({stopped}); call again with "
                   f"since={cursor} to read them and anything newer.", force=True)
    meta = {"cursor": cursor, "shown": len(shown), "matched": len(matched)}
    scope = ev.console.entries() if show_all else [e for e in ev.console.entries() if e.section == current.id]
    baseline = sum(e.raw_tokens for e in scope) + (ev.console.evicted_raw_tokens if show_all else 0)
    return Rendered("\n".join(budget.lines), meta=meta, tab=tab.id, baseline_tokens=baseline)


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="browser_console_messages",
        description=("Console messages and uncaught errors of the current tab: errors first, repeats folded "
                     "(×N), long messages and stacks cut. all: earlier pages too."),
        properties={
            "level": {"type": "string", "enum": list(LEVELS), "default": "info",
                      "description": "Least severe level returned"},
            "pattern": {"type": "string", "description": "Regex the message text must match"},
            "since": SINCE,
            "limit": LIMIT,
            "all": ALL,
        },
        handler=console_messages,
        caps="debug",
    ),
]
