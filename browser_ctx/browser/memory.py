"""Measure a tab's memory (``browser_memory``): a heap snapshot streamed to a file, the JS heap and DOM counters.

On the tab's capture session (one CDP session per tab): ``HeapProfiler.takeHeapSnapshot`` (which collects garbage
first, so what remains is held) sends the snapshot in chunks, each written straight to
``<output dir>/heap/heap-….heapsnapshot`` (Chrome DevTools' Memory panel loads it); then ``Runtime.getHeapUsage``
and ``Memory.getDOMCounters``. The file is read back and condensed by :func:`browser_ctx.core.heap.aggregate`;
the tab keeps its last measure (``Tab.family_state["memory"]``) so the next call says what grew.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .. import files
from .._errors import PageError, translate
from ..core.heap import Measure, aggregate

if TYPE_CHECKING:
    from ..settings import Settings
    from .session import Tab

__all__ = ["measure", "MAX_SNAPSHOT_BYTES"]

#: A snapshot larger than this (bytes) is saved but not summarised here (the report gives the counters only).
MAX_SNAPSHOT_BYTES = 300 * 1024 * 1024


async def measure(tab: Tab, settings: Settings) -> tuple[Measure, Measure | None, str]:
    """Take a measure of ``tab``: ``(this measure, the previous one or None, a note or "")``.

    Raises:
        PageError: no CDP session (not Chromium).
    """
    cdp = tab.events.cdp
    if cdp is None:
        raise PageError("This tab has no CDP session (not a Chromium page, or it is closing); memory measures "
                        "need Chromium.")
    path = files.artifact_dir(settings, "heap") / f"heap-{time.strftime('%Y%m%d-%H%M%S')}-tab{tab.id}.heapsnapshot"
    written = 0
    with path.open("w", encoding="utf-8") as out:
        def chunk(params: dict[str, Any]) -> None:
            nonlocal written
            text = str(params.get("chunk") or "")
            written += len(text)
            out.write(text)

        cdp.on("HeapProfiler.addHeapSnapshotChunk", chunk)
        try:
            await cdp.send("HeapProfiler.enable")
            await cdp.send("HeapProfiler.takeHeapSnapshot", {"reportProgress": False, "captureNumericValue": False})
        except PlaywrightError as exc:
            raise translate(exc, action="take a heap snapshot") from exc
        finally:
            cdp.remove_listener("HeapProfiler.addHeapSnapshotChunk", chunk)
            try:
                await cdp.send("HeapProfiler.disable")
            except PlaywrightError:
                pass  # the page went away: nothing left to disable
    try:
        usage = await cdp.send("Runtime.getHeapUsage")
        counters = await cdp.send("Memory.getDOMCounters")
    except PlaywrightError as exc:
        raise translate(exc, action="read the page's memory counters") from exc
    now = Measure(int(usage.get("usedSize") or 0), int(usage.get("totalSize") or 0),
                  {k: int(counters.get(k) or 0) for k in ("documents", "nodes", "jsEventListeners")}, path=str(path))
    note = ""
    if written > MAX_SNAPSHOT_BYTES:
        note = f"the snapshot is {written / 1048576:,.0f} MB; open it in DevTools for its objects"
    else:
        try:
            with path.open("rb") as fh:
                now.groups, now.nodes, now.self_size = aggregate(json.load(fh))
        except (OSError, ValueError) as exc:
            note = f"the snapshot could not be read ({exc})"
    url = tab.page.url
    before = tab.family_state.get("memory")
    previous = before[1] if isinstance(before, tuple) and before[0] == url else None
    if previous is None and isinstance(before, tuple):
        note = note or "the last measure was of another page, so nothing is compared"
    tab.family_state["memory"] = (url, now)
    return now, previous, note
