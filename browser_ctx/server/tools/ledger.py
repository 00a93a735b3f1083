"""The session ledger: ``browser_ctx_stats``, plus what prices calls for it.

- :func:`measure_baseline`: the pipeline calls it for tools with a ``ToolSpec.baseline`` (reads) to
  price them against a full ``aria_snapshot(mode="ai")`` of the same page.
- :func:`settle_baselines`: waits for those measurements (run in the background, kept in
  ``BrowserSession.baseline_tasks``); :func:`drop_waiting_baselines` gives up those not yet started.
- :func:`tools_list_tokens`: what the tool definitions cost (stored in ``Ledger.definition_tokens``).
"""

from __future__ import annotations

import asyncio
import json

import mcp_types as types
from playwright.async_api import Error as PlaywrightError

from ..._errors import BrowserCtxError
from ...browser.refs import page_version
from ...browser.session import BrowserSession
from ...browser.targets import locator_for
from ...core.tokens import count_tokens
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "stats", "measure_baseline", "settle_baselines", "drop_waiting_baselines", "tools_list_tokens",
           "BASELINE_MAX_ELEMENTS"]

#: Pages with more elements than this get no measured baseline: a full ``aria_snapshot`` there costs
#: seconds of renderer time (a 15,000-element listing: ~40 s), which would delay the next call.
BASELINE_MAX_ELEMENTS = 3000
#: Seconds the element count before a measurement may take (a busy page gets no baseline).
COUNT_TIMEOUT_S = 2
#: Milliseconds one baseline ``aria_snapshot`` may take.
SNAPSHOT_TIMEOUT_MS = 20_000
#: Seconds ``browser_ctx_stats`` waits for pending measurements.
SETTLE_TIMEOUT_S = 30.0
#: A baseline's ``aria_snapshot`` starts only once the session has had no call for this long (s), so it never
#: competes with the agent's next call for the renderer: run at once, it made the snapshot that follows a
#: navigate 2x slower (median 0.08 -> 0.19 s on 20 corpus pages). ``browser_ctx_stats`` starts the waiting ones
#: at once and waits for them (:func:`settle_baselines`); a call that may change the page gives up those still
#: waiting (:func:`drop_waiting_baselines`: those reads stay unmeasured, and the ledger says how many were
#: measured). An agent thinks for seconds between calls, so its reads are measured; a script calling back to
#: back is never slowed down (waiting for them cost every navigation of the corpus bench 0.12 s, median).
BASELINE_IDLE_S = 1.0


async def stats(call: ToolCall) -> Rendered:
    """Render the session ledger (:class:`browser_ctx.core.ledger.Ledger`): per tool, calls, tokens
    returned, baseline and saving; totals; and the tool definitions' tokens when the server set them.
    Never launches the browser."""
    await settle_baselines(call.session)
    ledger = call.session.ledger
    return Rendered(ledger.render(), meta=ledger.summary(), capture=False)


def tools_list_tokens(tools: list[types.Tool]) -> int:
    """o200k tokens of a ``tools/list`` result holding ``tools`` (MCP ``Tool`` objects), serialised as sent.

    The server stores this in ``session.ledger.definition_tokens`` so ``browser_ctx_stats`` reports it.
    """
    body = {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]}
    return count_tokens(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


async def measure_baseline(session: BrowserSession, target: str | None,
                           version: str | None) -> int | None | asyncio.Future[int | None]:
    """Price a read for the ledger: the tokens of a full ``aria_snapshot(mode="ai")`` of the current page
    (what ``@playwright/mcp`` returns for a snapshot or a navigation), or of ``target``'s first match.

    Cost on the call's path: none when the read gave its page version (else one page-version evaluate) and a
    cache lookup. The rest runs in a background task that starts when the session is idle
    (:data:`BASELINE_IDLE_S`): the read is unmeasured if the page moved to another URL or changed by then, or
    has more than :data:`BASELINE_MAX_ELEMENTS` elements; otherwise one ``aria_snapshot`` (typically 0.1-1 s
    of renderer time on an ordinary page; the very first in a browser takes a few seconds more) whose token
    count settles the ledger when done. Results are cached by tab, URL, page version and target, so
    re-reading an unchanged page measures nothing. ``browser_ctx_stats`` waits for pending measurements
    (:func:`settle_baselines`); a call that may change the page drops those not started
    (:func:`drop_waiting_baselines`).

    Returns:
        The cached token count; a task that yields it (``None`` when unmeasured); or ``None`` when the page
        is gone (the ledger then assumes no saving).
    """
    tab = session.peek_tab()
    if tab is None:
        return None
    page = tab.page
    if version is None:
        version = await page_version(page, worlds=tab.worlds)  # None mid-navigation or closed: nothing is cached
    key = (tab.id, page.url, version, target) if version else None
    if key is not None:
        cached = session.ledger.cached_baseline(key)
        if cached is not None:
            return cached
    url = page.url

    async def measure() -> int | None:
        await session.until_idle(BASELINE_IDLE_S, session.baselines_due)
        session.baselines_waiting.discard(task)
        try:
            if page.url != url or (version and await page_version(page, worlds=tab.worlds) != version):
                return None  # the page moved on or changed before the session went idle: that read is not measured
            elements = await asyncio.wait_for(page.evaluate("() => document.getElementsByTagName('*').length"),
                                              COUNT_TIMEOUT_S)
            if elements > BASELINE_MAX_ELEMENTS:
                return None
            if target:
                snap = await locator_for(tab, target).first.aria_snapshot(mode="ai", timeout=SNAPSHOT_TIMEOUT_MS)
            else:
                snap = await page.aria_snapshot(mode="ai", timeout=SNAPSHOT_TIMEOUT_MS)
        except (TimeoutError, PlaywrightError, BrowserCtxError):  # best-effort: unmeasured, no saving claimed
            return None
        tokens = count_tokens(snap)
        if key is not None:
            session.ledger.remember_baseline(key, tokens)
        return tokens

    task = asyncio.ensure_future(measure())
    pending = session.baseline_tasks
    pending.add(task)
    session.baselines_waiting.add(task)
    task.add_done_callback(pending.discard)
    task.add_done_callback(session.baselines_waiting.discard)
    return task


def drop_waiting_baselines(session: BrowserSession) -> int:
    """Cancel the session's baseline measurements still waiting for an idle session (their reads stay
    unmeasured: the ledger counts them at what they returned); those already measuring go on. Returns how
    many were dropped. Never waits."""
    waiting = list(session.baselines_waiting)
    for task in waiting:
        task.cancel()
    session.baselines_waiting.clear()
    return len(waiting)


async def settle_baselines(session: BrowserSession, timeout: float = SETTLE_TIMEOUT_S) -> None:
    """Start the session's waiting baseline measurements now and wait (at most ``timeout`` seconds) for them."""
    pending = list(session.baseline_tasks)
    if pending:
        session.baselines_due.set()
        try:
            await asyncio.wait(pending, timeout=timeout)
        finally:
            session.baselines_due.clear()
    await asyncio.sleep(0)  # let the ledger's done-callbacks run


TOOLS = [
    ToolSpec(
        name="browser_ctx_stats",
        description="Tokens returned per tool vs full snapshots.",
        properties={},
        handler=stats,
        pageable=False,
    ),
]
