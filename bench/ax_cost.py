"""What semantics from Chromium's accessibility tree cost, per node, on a small and a huge page.

Prints figures (milliseconds, medians of ``--repeat`` runs); asserts nothing. For each page and each
node count N (50, 300, 2,000; nodes picked evenly through the page's spans/elements):

- ``handoff``: :func:`browser_ctx.browser.semantics.handoff`, turning a page-side array of N nodes
  (a Playwright handle, as a walker would return it) into CDP objectIds (store, evaluate,
  getProperties);
- ``partial``: :func:`browser_ctx.browser.semantics.fetch`, one ``Accessibility.getPartialAXTree
  {fetchRelatives: false}`` per node, all sent at once;
- ``partial+enable``: the same after ``Accessibility.enable`` (Chromium keeps its AX tree between calls);
- ``in page``: :func:`browser_ctx.browser.semantics.computed_semantics`, the roles and names of the N nodes
  read in the page (``Element.computedName``) while the session holds the tree, as a read does (the nodes
  stored for it under a token first, in the same figure);
- ``query``: one ``Accessibility.queryAXTree`` per node (the node and its subtree), all sent at once;
- ``noop``: N ``Runtime.evaluate {expression: "0"}`` sent at once: the round-trip cost of N CDP calls
  through Playwright, whatever they ask;
- ``backend``: ``partial`` keyed by backendNodeId (``DOM.describeNode`` of each objectId first, sent
  at once, timed separately as ``describe``);

and, on the small pages only, ``Accessibility.getFullAXTree`` (the whole tree) for comparison
(``--full-large`` also times it on the huge page: over a minute).

Pages: two small ones, ``fixtures/semantics/states.html`` and the component-library app
``fixtures/apps/shop`` (served from localhost; on a page with fewer than N elements, all are taken), and
a huge one generated in memory (``page.set_content``): 200,000 ``<span>`` in 2,000 paragraphs.

Usage: ``.venv/bin/python -m bench.ax_cost [--repeat 3] [--spans 200000] [--full-large]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import CDPSession, Page, async_playwright

from browser_ctx.browser import semantics
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.settings import LaunchSettings
from tests.support.site import FIXTURES, serve_directory

COUNTS = (50, 300, 2000)

#: Page-side picker: N elements spread evenly over every element matching the selector.
PICK = """([selector, n]) => {
  const all = document.querySelectorAll(selector);
  const step = Math.max(1, all.length / n);
  const out = [];
  for (let i = 0; out.length < n && Math.floor(i) < all.length; i += step) out.push(all[Math.floor(i)]);
  return out;
}"""


def huge_page(spans: int) -> str:
    """Return HTML of ``spans`` spans in paragraphs of 100, each with a few words."""
    rows = []
    for p in range(spans // 100):
        rows.append("<p>" + "".join(f"<span>item {p}-{i} </span>" for i in range(100)) + "</p>")
    return "<!doctype html><html><head><title>Huge</title></head><body><h1>Huge</h1>" + "".join(rows) + "</body></html>"


async def timed(repeat: int, fn: Callable[..., Awaitable[Any]], *args: Any) -> tuple[float, Any]:
    """Return (median milliseconds over ``repeat`` runs of ``fn(*args)``, the last result)."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = await fn(*args)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


async def send_each(cdp: CDPSession, method: str, object_ids: list[str]) -> list[dict[str, Any]]:
    """Send ``method`` for every objectId at once; return the answers in order."""
    return list(await asyncio.gather(*(cdp.send(method, {"objectId": o}) for o in object_ids)))


async def noop_each(cdp: CDPSession, n: int) -> list[dict[str, Any]]:
    """Send ``n`` trivial ``Runtime.evaluate`` calls at once (the transport's own cost)."""
    return list(await asyncio.gather(*(cdp.send("Runtime.evaluate", {"expression": "0"}) for _ in range(n))))


async def in_page(cdp: CDPSession, handle: Any, token: str) -> Any:
    """Keep the nodes of ``handle`` under ``token`` as a walk does, then read their names in the page."""
    await handle.evaluate("(nodes, t) => { window.__browserCtx = {axToken: t, axKept: nodes}; }", token)
    array = await semantics.kept_array(cdp, token)
    return await semantics.computed_semantics(cdp, array) if array is not None else None


async def measure(page: Page, label: str, selector: str, repeat: int, full: bool) -> None:
    """Print the figures for one loaded page."""
    total = await page.evaluate("(s) => document.querySelectorAll(s).length", selector)
    elements = await page.evaluate("document.getElementsByTagName('*').length")
    print(f"\n## {label}: {elements:,} elements, picking from {total:,} `{selector}`")
    print("| N | handoff ms | partial ms (per node) | partial+enable ms | in page ms | query ms | describe ms "
          "| backend ms | noop ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted({min(n, total) for n in COUNTS}):
        cdp: CDPSession = await page.context.new_cdp_session(page)
        try:
            handle = await page.evaluate_handle(PICK, [selector, n])
            t_handoff, ids = await timed(1, semantics.handoff, page, handle, cdp)
            keys = [k for k in ids if k]
            t_partial, answers = await timed(repeat, semantics.fetch, cdp, keys)
            assert sum(a is not None for a in answers) == len(keys)
            t_query, _ = await timed(repeat, send_each, cdp, "Accessibility.queryAXTree", keys)
            t_describe, described = await timed(1, send_each, cdp, "DOM.describeNode", keys)
            backend = [d["node"]["backendNodeId"] for d in described]
            t_backend, _ = await timed(repeat, semantics.fetch, cdp, backend)
            t_noop, _ = await timed(repeat, noop_each, cdp, len(keys))
            await cdp.send("Accessibility.enable")
            t_enabled, _ = await timed(repeat, semantics.fetch, cdp, keys)
            t_in_page, read = await timed(repeat, in_page, cdp, handle, "bench-token")
            assert read is not None and len(read[1]) == len(keys), "names not read in the page"
            await cdp.send("Accessibility.disable")
            await handle.dispose()
            await semantics.release(cdp)
        finally:
            await cdp.detach()
        print(f"| {n:,} | {t_handoff:.1f} | {t_partial:.1f} ({t_partial / n:.2f}) | {t_enabled:.1f} | "
              f"{t_in_page:.1f} | {t_query:.1f} | {t_describe:.1f} | {t_backend:.1f} | {t_noop:.1f} |")
    if full:
        cdp = await page.context.new_cdp_session(page)
        try:
            t_full, tree = await timed(repeat if total < 10_000 else 1, cdp.send, "Accessibility.getFullAXTree")
        finally:
            await cdp.detach()
        print(f"\n`Accessibility.getFullAXTree`: {t_full:.1f} ms, {len(tree['nodes']):,} AX nodes")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median), default 3")
    parser.add_argument("--spans", type=int, default=200_000, help="spans on the huge page, default 200,000")
    parser.add_argument("--full-large", action="store_true", help="also time getFullAXTree on the huge page")
    args = parser.parse_args()
    settings = LaunchSettings(offline_external=True)
    with serve_directory(FIXTURES) as port:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=find_executable(settings),
                                               args=chromium_args(settings), headless=True)
            try:
                page = await browser.new_page()
                print(f"Chromium {browser.version}")
                await page.goto(f"http://127.0.0.1:{port}/semantics/states.html")
                await measure(page, "small page (fixtures/semantics/states.html)", "*", args.repeat, full=True)
                await page.goto(f"http://127.0.0.1:{port}/apps/shop/dist/index.html", wait_until="networkidle")
                await measure(page, "component-library app (fixtures/apps/shop)", "*", args.repeat, full=True)
                start = time.perf_counter()
                await page.set_content(huge_page(args.spans), timeout=300_000)
                print(f"\n(huge page loaded in {time.perf_counter() - start:.1f} s)")
                await measure(page, f"huge page ({args.spans:,} spans)", "span", args.repeat, full=args.full_large)
            finally:
                await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
