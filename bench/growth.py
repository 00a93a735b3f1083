"""Read time against page size, for all three servers (issue 15, "growth in time").

Generated pages of 1k, 10k, 50k and 200k elements (:mod:`bench.large_pages`, served from memory on localhost) are
loaded by each server in turn (``navigate``), then read with its snapshot tool and, for browser-ctx, also with
``browser_text``; each call's wall time (s, from the stdio client) and o200k tokens (everything the client
receives) are reported. The reference row is plain Playwright in the same Chromium: time to DOMContentLoaded, to
``load`` of the same page, and until the loaded page first answers a script that reads its layout (*readable*: a large
page is laid out after ``load``, and nothing can read what is visible before that; a navigate that returns a card
of visible headings cannot beat it).

Usage: ``python -m bench.growth [--servers browser-ctx,playwright-mcp,chrome-devtools-mcp] [--sizes 1000,10000,…]
[--json FILE]``. A call gets ``--timeout`` s (default 180) before it counts as timed out. Prints a markdown table;
figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from bench.client import connect
from bench.large_pages import SIZES, large_page
from bench.servers import SERVER_NAMES, build_specs
from browser_ctx._http import serve_directory
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.settings import LaunchSettings
from tests.support.site import FIXTURES

__all__ = ["main"]


def _routes(sizes: tuple[int, ...]) -> dict[str, Any]:
    def route(n: int):
        body = large_page(n).encode()

        def send(handler: Any) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        return send
    return {f"/large/spans-{n}.html": route(n) for n in sizes}


async def plain_playwright(site: str, sizes: tuple[int, ...]) -> dict[int, dict[str, float]]:
    """Seconds plain Playwright takes to reach DOMContentLoaded, ``load``, and the first answer of a script reading
    layout after ``load`` (*readable*), for each page (fresh page each; nothing is evaluated before ``load``, which
    would hold ``load`` back on a large page)."""
    settings = LaunchSettings(offline_external=True)
    out: dict[int, dict[str, float]] = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings))
        try:
            for n in sizes:
                page = await browser.new_page()
                t = time.perf_counter()
                await page.goto(f"{site}/large/spans-{n}.html", wait_until="domcontentloaded", timeout=180_000)
                dcl = time.perf_counter() - t
                await page.wait_for_load_state("load", timeout=180_000)
                load = time.perf_counter() - t
                await page.evaluate("() => document.body.getBoundingClientRect().height")
                out[n] = {"domcontentloaded": dcl, "load": load, "readable": time.perf_counter() - t}
                await page.close()
        finally:
            await browser.close()
    return out


async def one_server(spec: Any, site: str, sizes: tuple[int, ...], timeout: float) -> dict[int, dict[str, Any]]:
    """Navigate, snapshot (and browser-ctx's text) of each page: ``{size: {call: {seconds, tokens, error}}}``."""
    out: dict[int, dict[str, Any]] = {}
    async with connect(spec) as conn:
        tool, args = spec.navigate_call(f"{site}/index.html")
        await conn.call(tool, args, timeout=timeout)  # launch the browser before timing
        for n in sizes:
            row: dict[str, Any] = {}
            calls = [("navigate", *spec.navigate_call(f"{site}/large/spans-{n}.html")), ("snapshot", spec.snapshot, {})]
            if spec.name == "browser-ctx":
                calls.append(("text", "browser_text", {}))
            for label, name, call_args in calls:
                rec = await conn.call(name, call_args, timeout=timeout)
                row[label] = {"seconds": round(rec.seconds, 3), "tokens": rec.tokens,
                              "error": rec.error if rec.is_error else None}
            out[n] = row
    spec.cleanup()
    return out


def markdown(result: dict[str, Any]) -> str:
    """The growth table: one row per server and call, one column per page size."""
    sizes = result["sizes"]
    head = "| server | call | " + " | ".join(f"{n:,} el." for n in sizes) + " |"
    lines = [head, "|---|---|" + "---:|" * len(sizes)]
    ref = result["playwright"]
    lines.append("| plain Playwright | DOMContentLoaded / load / readable s | "
                 + " | ".join(f"{ref[str(n)]['domcontentloaded']:.2f} / {ref[str(n)]['load']:.2f} / "
                              f"{ref[str(n)].get('readable', float('nan')):.2f}" for n in sizes)
                 + " |")
    for server, rows in result["servers"].items():
        for call in ("navigate", "snapshot", "text"):
            cells = []
            for n in sizes:
                got = rows.get(str(n), {}).get(call)
                if got is None:
                    cells.append("")
                elif got["error"]:
                    cells.append(f"error ({got['seconds']:.1f} s)")
                else:
                    cells.append(f"{got['seconds']:.2f} s, {got['tokens']:,} t")
            if any(cells):
                lines.append(f"| {server} | {call} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    sizes = tuple(int(s) for s in args.sizes.split(","))
    specs = build_specs([s for s in args.servers.split(",") if s])
    with serve_directory(FIXTURES, routes=_routes(sizes)) as port:
        site = f"http://127.0.0.1:{port}"
        reference = await plain_playwright(site, sizes)
        servers = {}
        for spec in specs:
            got = await one_server(spec, site, sizes, args.timeout)
            servers[f"{spec.name} {spec.version}"] = {str(n): v for n, v in got.items()}
    return {"sizes": list(sizes), "playwright": {str(n): v for n, v in reference.items()}, "servers": servers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default=",".join(SERVER_NAMES))
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per call")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    print(markdown(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
