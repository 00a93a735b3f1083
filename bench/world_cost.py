"""What running our page-side code in an isolated world costs (``browser/worlds.py``), against the main world.

Prints figures (milliseconds, medians of ``--repeat`` runs, the two ways interleaved on the same loaded page in
one Chromium); asserts nothing. For each page of the readability corpus (``--corpus`` pages; the fixtures'
article when the corpus is not there):

- *read*: :func:`browser_ctx.browser.walk.walk_page` (a bounded read of 32,000 characters, child frames
  and accessibility-tree names included), in the main world (``worlds=None``) and in the isolated world;
- *version*: :func:`browser_ctx.browser.refs.page_version`, the smallest call, in both worlds.

Usage: ``python -m bench.world_cost [--repeat 15] [--corpus 6]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.refs import FrameIds, page_version, register_ref_engine
from browser_ctx.browser.walk import walk_page
from browser_ctx.browser.worlds import Worlds
from browser_ctx.settings import LaunchSettings
from tests.support.site import FIXTURES, serve_directory

CORPUS = Path("/work/shared/corpus/readability")
#: Pages tried first (varied sizes and frame counts), then the rest of the corpus in name order.
PREFERRED = ("bbc-1", "cnn", "engadget", "nytimes-1", "wikipedia", "medium-1")
READ_CHARS = 32_000


async def _ms(call: Awaitable[Any]) -> float:
    started = time.perf_counter()
    await call
    return (time.perf_counter() - started) * 1000


def _pages(count: int) -> tuple[Path, list[str]]:
    if not CORPUS.is_dir():
        return FIXTURES, ["article.html"]
    names = [n for n in PREFERRED if (CORPUS / n / "source.html").is_file()]
    names += sorted(p.parent.name for p in CORPUS.glob("*/source.html") if p.parent.name not in names)
    return CORPUS, [f"{n}/source.html" for n in names[:count]]


async def run(repeat: int, corpus: int) -> None:
    root, pages = _pages(corpus)
    settings = LaunchSettings(offline_external=True)
    print("| page | frames | read, main world | read, isolated | difference | version, main | version, isolated |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with serve_directory(root) as port:
        async with async_playwright() as pw:
            await register_ref_engine(pw)
            browser = await pw.chromium.launch(executable_path=find_executable(settings),
                                               args=chromium_args(settings), headless=True)
            try:
                page = await browser.new_page()
                for path in pages:
                    await page.goto(f"http://127.0.0.1:{port}/{path}", wait_until="load")
                    worlds, main_ids, own_ids = Worlds(page), FrameIds(), FrameIds()
                    await walk_page(page.main_frame, frame_ids=main_ids, max_chars=READ_CHARS)  # warm both
                    await walk_page(page.main_frame, frame_ids=own_ids, max_chars=READ_CHARS, worlds=worlds)
                    main, own, main_v, own_v = [], [], [], []
                    for _ in range(repeat):
                        main.append(await _ms(walk_page(page.main_frame, frame_ids=main_ids, max_chars=READ_CHARS)))
                        own.append(await _ms(walk_page(page.main_frame, frame_ids=own_ids, max_chars=READ_CHARS,
                                                       worlds=worlds)))
                        main_v.append(await _ms(page_version(page)))
                        own_v.append(await _ms(page_version(page, worlds=worlds)))
                    m, o = statistics.median(main), statistics.median(own)
                    print(f"| {path.split('/')[0]} | {len(page.frames)} | {m:.1f} | {o:.1f} | {o - m:+.1f} | "
                          f"{statistics.median(main_v):.2f} | {statistics.median(own_v):.2f} |", flush=True)
                    await worlds.close()
            finally:
                await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--corpus", type=int, default=6)
    args = parser.parse_args()
    asyncio.run(run(args.repeat, args.corpus))


if __name__ == "__main__":
    main()
