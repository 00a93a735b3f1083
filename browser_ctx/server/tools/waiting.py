"""``browser_wait_for``'s handler: wait for text to appear or go, a target to reach a state, or a plain pause,
and return a record of what changed meanwhile."""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError

from ..._errors import ActionTimeout, BrowserCtxError, InvalidArgument, timed_out
from ...browser import targets
from ...browser.actions import action_error, ensure_open, perform
from ...browser.verify import wait_visible_text
from ...core.record import render_record
from ..registry import Rendered, ToolCall

__all__ = ["wait_for", "WAIT_MAX_S", "WAIT_DEFAULT_S"]

#: Longest browser_wait_for, seconds (as @playwright/mcp).
WAIT_MAX_S = 30
#: browser_wait_for's default wait for text/textGone/target, seconds.
WAIT_DEFAULT_S = 10


async def wait_for(call: ToolCall) -> Rendered:
    """Wait for ``text`` to appear, ``textGone`` to go, ``target`` to reach ``state``, or ``time`` seconds.

    With a condition, ``time`` is the most to wait (default 10 s, at most 30); alone, it is a plain pause.
    Returns a record of what changed while waiting.

    Raises:
        ActionTimeout: the condition did not happen in time (names it).
    """
    a = call.args
    tab = await call.session.current_tab()
    ensure_open(tab)
    conds = [k for k in ("text", "textGone", "target") if a.get(k) is not None]
    if "state" in a and not a.get("target"):
        raise InvalidArgument("state needs a target.")
    if not conds and a.get("time") is None:
        raise InvalidArgument("Pass time (seconds), text, textGone or target.")
    seconds = min(max(0.0, float(a.get("time") or (WAIT_DEFAULT_S if conds else 0))), WAIT_MAX_S)
    timeout_ms = seconds * 1000
    waited: list[str] = []

    async def run() -> str | None:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        if not conds:
            await asyncio.sleep(seconds)
            return None
        try:
            if a.get("text") is not None:
                what = f"text {a['text']!r} to appear"
                if not await wait_visible_text(tab, call.settings, a["text"], timeout_ms):
                    raise ActionTimeout(f"Timed out after {seconds:g} s waiting for {what}.")
                waited.append(f"text {a['text']!r} appeared")
            if a.get("textGone") is not None:
                what = f"text {a['textGone']!r} to disappear"
                left = max(1.0, timeout_ms - (loop.time() - t0) * 1000)
                if not await wait_visible_text(tab, call.settings, a["textGone"], left, gone=True):
                    raise ActionTimeout(f"Timed out after {seconds:g} s waiting for {what}.")
                waited.append(f"text {a['textGone']!r} is gone")
            if a.get("target"):
                state = a.get("state", "visible")
                what = f"{a['target']!r} to be {state}"
                loc = targets.locator_for(tab, a["target"])
                left = max(1.0, timeout_ms - (loop.time() - t0) * 1000)
                await loc.wait_for(state=state, timeout=left)
                waited.append(f"{a['target']} is {state}")
        except (PlaywrightError, BrowserCtxError, TimeoutError) as exc:  # our own ActionTimeout gets the hint too
            if timed_out(exc):
                raise ActionTimeout(f"Timed out after {seconds:g} s waiting for {what}. Raise time (max "
                                    f"{WAIT_MAX_S}) or check with browser_snapshot.") from exc
            raise action_error(exc, verb="wait for", target=a.get("target") or "", timeout_ms=timeout_ms) from exc
        return f"Waited {loop.time() - t0:.1f} s: " + "; ".join(waited)

    record = await perform(call.session, tab, call.settings, f"Waited {seconds:g} s", run, settle=False,
                           budget=call.budget)
    if conds and record.notes:
        record.action = record.notes.pop(0)
    return Rendered(render_record(record), capture=False, tab=tab.id)
