"""Where a read's time goes, and each tool's latency through the stdio client (issue 15 item 2).

**Breakdown** (in process, one Chromium launched as the server launches it, pages served from localhost): for each
page, the stages of a default ``browser_snapshot`` (``maxTokens`` 2,000), median of ``--repeat`` runs, in ms:

- *walk*: the page-side walk (``browser/js/walk.js``), timed inside the page with ``performance.now()``;
- *transfer*: the read's wall time without the accessibility tree less the walk (CDP, the walker's JSON, building
  the core's tree from it);
- *semantics*: what asking Chromium's accessibility tree about the walk's named nodes adds (``walk_page`` with
  and without it: the kept nodes, their names read in the page, the graft);
- *parse*: building the core's tree from the walker's JSON (``core.tree.from_wire``; part of *transfer*, shown
  apart);
- *render*: ``render_snapshot`` of the walked tree;
- *tokens*: counting the result's o200k tokens and cutting it to the cap (``count_tokens`` + ``cap``);
- *version*: a separate page-version evaluate (``refs.page_version``), the round trip the read now folds into
  its walk (shown for what it cost; a read no longer makes it).

Pages: the fixtures (article, listing, wide table), the first ``--corpus`` pages of the readability corpus when
it is there, and generated pages of 10k and 200k elements (:mod:`bench.large_pages`).

**Per tool**: median and p90 wall time of each tool over ``--calls`` calls through the real MCP stdio client on the
fixtures site (navigate, snapshot, text, click, type, console, network).

Usage: ``python -m bench.latency [--repeat 5] [--calls 10] [--corpus 5] [--json FILE]``. Prints markdown tables;
figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from bench.large_pages import large_page
from browser_ctx._http import serve_directory
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.refs import FrameIds, page_version, register_ref_engine
from browser_ctx.browser.scripts import bundle
from browser_ctx.browser.walk import MAX_VALUE_CHARS, walk_page
from browser_ctx.core.capping import cap, collect_chars
from browser_ctx.core.snapshot import render_snapshot
from browser_ctx.core.tokens import count_tokens
from browser_ctx.core.tree import from_wire
from browser_ctx.settings import CapSettings, LaunchSettings
from tests.support.client import mcp_session
from tests.support.site import FIXTURES

__all__ = ["breakdown", "tool_latency", "main"]

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "readability"
STAGES = ("walk", "transfer", "semantics", "parse", "render", "tokens", "version")


def _timed_walk_source() -> str:
    """The walker wrapped to also return its own in-page time (ms): ``[ms, result]``."""
    return ("(a) => { const t0 = performance.now(); const r = (" + bundle("walk") + ")(a); "
            "return [performance.now() - t0, r]; }")


def _large_routes() -> dict[str, Any]:
    def route(n: int):
        body = large_page(n).encode()

        def send(handler: Any) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        return send
    return {f"/large/spans-{n}.html": route(n) for n in (10_000, 200_000)}


def _pages(corpus: int) -> list[str]:
    pages = ["article.html", "listing.html", "wide-table.html"]
    if corpus and CORPUS.is_dir():
        pages += [f"corpus/{p.parent.name}/source.html" for p in sorted(CORPUS.glob("*/source.html"))[:corpus]]
    return pages + ["large/spans-10000.html", "large/spans-200000.html"]


async def breakdown(site: str, pages: list[str], repeat: int) -> dict[str, dict[str, float]]:
    """Median ms per stage of a default snapshot of each page (see the module docstring)."""
    caps = CapSettings()
    limit = collect_chars(caps.default_max_tokens, caps.ceiling_chars)
    settings = LaunchSettings(offline_external=True)
    timed = _timed_walk_source()
    out: dict[str, dict[str, float]] = {}
    async with async_playwright() as pw:
        await register_ref_engine(pw)
        browser = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings))
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            for name in pages:
                url = f"{site}/{name}"
                await page.goto(url, wait_until="load", timeout=120_000)
                ids = FrameIds()
                runs: dict[str, list[float]] = {s: [] for s in (*STAGES, "total")}
                size = 0
                for _ in range(repeat):
                    opts = {"framePrefix": "", "maxValueChars": MAX_VALUE_CHARS, "maxChars": limit,
                            "withCounter": True, "withFacts": True}
                    walk_ms, _ = await page.main_frame.evaluate(timed, opts)
                    t = time.perf_counter()
                    await walk_page(page.main_frame, frame_ids=ids, max_chars=limit, timeout_ms=120_000,
                                    with_semantics=False)
                    bare = (time.perf_counter() - t) * 1000
                    t = time.perf_counter()
                    read = await walk_page(page.main_frame, frame_ids=ids, max_chars=limit, timeout_ms=120_000)
                    wall = (time.perf_counter() - t) * 1000
                    size = read.size
                    t = time.perf_counter()
                    for wire in read.wire:
                        from_wire(wire)
                    parse = (time.perf_counter() - t) * 1000
                    t = time.perf_counter()
                    text = render_snapshot(read.doc, title="t", url=url)
                    render = (time.perf_counter() - t) * 1000
                    t = time.perf_counter()
                    cap(text, max_tokens=caps.default_max_tokens, max_chars=caps.ceiling_chars,
                        full_tokens=count_tokens(text))
                    tokens = (time.perf_counter() - t) * 1000
                    t = time.perf_counter()
                    await page_version(page)
                    version = (time.perf_counter() - t) * 1000
                    stage = {"walk": walk_ms, "transfer": max(0.0, bare - walk_ms), "semantics": max(0.0, wall - bare),
                             "parse": parse,
                             "render": max(0.0, render), "tokens": tokens, "version": version}
                    for k, v in stage.items():
                        runs[k].append(v)
                    runs["total"].append(sum(v for k, v in stage.items() if k != "version"))
                out[name] = {k: statistics.median(v) for k, v in runs.items()}
                out[name]["wireChars"] = size
                out[name]["elements"] = read.elements
        finally:
            await browser.close()
    return out


TOOL_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("browser_navigate", {}, "index.html"),
    ("browser_snapshot", {"force": True}, "index.html"),
    ("browser_text", {"force": True}, "article.html"),
    ("browser_type", {"target": "#user", "text": "ada"}, "login.html"),
    ("browser_click", {"target": "#remember"}, "login.html"),
    ("browser_console_messages", {}, "index.html"),
    ("browser_network_requests", {}, "index.html"),
]


async def tool_latency(site: str, calls: int) -> dict[str, dict[str, float]]:
    """Median and p90 seconds of each tool in :data:`TOOL_CALLS` through the stdio client."""
    times: dict[str, list[float]] = {tool: [] for tool, _, _ in TOOL_CALLS}
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/index.html"})  # launch the browser first
        for _ in range(calls):
            for tool, args, page in TOOL_CALLS:
                call_args = {"url": f"{site}/{page}"} if tool == "browser_navigate" else args
                if tool != "browser_navigate":
                    await s.call_tool("browser_navigate", {"url": f"{site}/{page}"})
                t = time.perf_counter()
                r = await s.call_tool(tool, call_args)
                times[tool].append(time.perf_counter() - t)
                if r.is_error:
                    print(f"{tool}: error {getattr(r.content[0], 'text', '')[:100]}")
    return {tool: {"median": statistics.median(v), "p90": sorted(v)[max(0, int(len(v) * 0.9) - 1)]}
            for tool, v in times.items()}


def markdown(stages: dict[str, dict[str, float]], tools: dict[str, dict[str, float]]) -> str:
    """Both tables as markdown."""
    head = "| page | elements | walk JSON chars | " + " | ".join(STAGES) + " | total (no version) |"
    lines = [head, "|---|" + "---:|" * (len(STAGES) + 3)]
    for name, s in stages.items():
        cells = " | ".join(f"{s[k]:.1f}" for k in STAGES)
        lines.append(f"| {name} | {int(s['elements']):,} | {int(s['wireChars']):,} | {cells} | {s['total']:.1f} |")
    lines += ["", "| tool | median s | p90 s |", "|---|---:|---:|"]
    lines += [f"| {tool} | {v['median']:.3f} | {v['p90']:.3f} |" for tool, v in tools.items()]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    routes = _large_routes()
    with serve_directory(FIXTURES, routes=routes) as port:
        site = f"http://127.0.0.1:{port}"
        pages = _pages(args.corpus)
        if args.corpus and CORPUS.is_dir():
            with serve_directory(CORPUS.parent, routes=routes) as cport:
                corpus_site = f"http://127.0.0.1:{cport}"
                stages = await breakdown(site, [p for p in pages if not p.startswith("corpus/")], args.repeat)
                corp = [p.replace("corpus/", "readability/", 1) for p in pages if p.startswith("corpus/")]
                stages.update(await breakdown(corpus_site, corp, args.repeat))
        else:
            stages = await breakdown(site, pages, args.repeat)
        tools = await tool_latency(site, args.calls) if args.calls else {}
    return {"stagesMs": stages, "tools": tools}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per page for the breakdown medians")
    parser.add_argument("--calls", type=int, default=10, help="calls per tool for the latency table (0: skip)")
    parser.add_argument("--corpus", type=int, default=5, help="readability corpus pages in the breakdown")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    print(markdown(result["stagesMs"], result["tools"]))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
