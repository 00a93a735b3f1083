"""Corpus figures for the pure core (no browser): ``python -m bench.core_corpus [CORPUS_DIR]`` (repository root).

For every page directory of the Readability test corpus (``source.html``, ``expected.html``),
prints:

- first-sentence hit rate of ``main_content`` + ``render_markdown`` on the raw source: the
  first ``<p>`` of ``expected.html`` with at least 60 characters (whitespace-normalised), its
  first 60 characters, searched in the whitespace-normalised output stripped of Markdown
  markup (``* _ # [ ] ` `` and ``](url)``);
- ``render_snapshot`` tokens (o200k) per page: median, p90, max;
- timings of the slowest page.

Pages whose expected.html has no such paragraph are not counted. The corpus is read only.

With ``--browser`` it also loads every page in Chromium (JavaScript off, every network
request aborted, so the figures are reproducible offline), reads it as visible HTML with
``browser_ctx.browser.walk`` and prints the same figures on that input, plus the ratio of
Playwright's ``aria_snapshot(mode="ai")`` tokens to ``render_snapshot`` tokens per page.
"""

from __future__ import annotations

import asyncio
import glob
import os
import re
import statistics
import sys
import time

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright
from selectolax.lexbor import LexborHTMLParser

from browser_ctx import BrowserCtxError
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.refs import FrameIds, register_ref_engine
from browser_ctx.browser.walk import Walk, walk_frame
from browser_ctx.core.main_content import main_content, main_part
from browser_ctx.core.markdown import render_markdown
from browser_ctx.core.snapshot import render_snapshot
from browser_ctx.core.tokens import count_tokens
from browser_ctx.settings import LaunchSettings

CORPUS = "/work/shared/corpus/readability"


def norm(text: str) -> str:
    return " ".join(text.split())


def strip_md(text: str) -> str:
    text = re.sub(r"\]\([^)]*\)", "", text)
    text = re.sub(r"[*_#\[\]`]", "", text)
    return norm(text)


def first_sentence(expected_html: str) -> str | None:
    tree = LexborHTMLParser(expected_html)
    for p in tree.css("p"):
        t = norm(p.text(deep=True) or "")
        if len(t) >= 60:
            return t[:60]
    return None


async def _visible_pages(dirs: list[str]) -> dict[str, tuple[Walk, int]]:
    """name -> (visible HTML, aria_snapshot(mode="ai") tokens), read in real Chromium."""
    settings = LaunchSettings(offline_external=True)
    out: dict[str, tuple[Walk, int]] = {}
    async with async_playwright() as pw:
        await register_ref_engine(pw)
        browser = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings))
        try:
            context = await browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
            await context.route("**/*", lambda route: route.abort())
            page = await context.new_page()
            for d in dirs:
                name = os.path.basename(os.path.dirname(d))
                src = open(os.path.join(d, "source.html"), encoding="utf-8", errors="replace").read()
                try:
                    await page.set_content(src, wait_until="domcontentloaded", timeout=30_000)
                    aria = await page.aria_snapshot(mode="ai", timeout=30_000)
                    html = await walk_frame(page.main_frame, frame_ids=FrameIds())
                except (PlaywrightError, BrowserCtxError) as exc:  # one odd page must not stop the bench
                    print(f"skip {name}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
                    continue
                out[name] = (html, count_tokens(aria))
        finally:
            await browser.close()
    return out


def browser_figures(corpus: str) -> None:
    dirs = [d for d in sorted(glob.glob(os.path.join(corpus, "*", "")))
            if os.path.exists(os.path.join(d, "source.html"))]
    pages = asyncio.run(_visible_pages(dirs))
    hits = total = 0
    ratios: list[float] = []
    ours: list[int] = []
    for d in dirs:
        name = os.path.basename(os.path.dirname(d))
        if name not in pages:
            continue
        html, aria = pages[name]
        snap = count_tokens(render_snapshot(html.doc, url="http://fakehost/test/page.html"))
        ours.append(snap)
        if aria >= 1000:
            ratios.append(aria / max(1, snap))
        exp_path = os.path.join(d, "expected.html")
        want = (first_sentence(open(exp_path, encoding="utf-8", errors="replace").read())
                if os.path.exists(exp_path) else None)
        if want is None:
            continue
        total += 1
        md = render_markdown(main_part(html.doc))
        hits += strip_md(want) in strip_md(md) or want in norm(md)
    ours.sort()
    ratios.sort()
    print(f"[visible HTML] first-sentence hit rate: {hits}/{total} = {hits / max(1, total):.1%}")
    print(f"[visible HTML] snapshot tokens over {len(ours)} pages: median {statistics.median(ours):,.0f}, "
          f"p90 {ours[int(0.9 * (len(ours) - 1))]:,}, max {ours[-1]:,}")
    print(f"[visible HTML] aria_snapshot(ai) / render_snapshot tokens, {len(ratios)} pages with ≥1,000 aria tokens: "
          f"median {statistics.median(ratios):.1f}x, p10 {ratios[len(ratios) // 10]:.1f}x, "
          f"p90 {ratios[int(0.9 * (len(ratios) - 1))]:.1f}x")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    corpus = args[0] if args else CORPUS
    verbose = "-v" in sys.argv
    hits = total = 0
    misses: list[str] = []
    toks: list[tuple[int, str]] = []
    times: list[tuple[float, float, int, str]] = []
    for d in sorted(glob.glob(os.path.join(corpus, "*", ""))):
        name = os.path.basename(os.path.dirname(d))
        src_path = os.path.join(d, "source.html")
        if not os.path.exists(src_path):
            continue
        src = open(src_path, encoding="utf-8", errors="replace").read()
        t0 = time.perf_counter()
        snap = render_snapshot(src, url="http://fakehost/test/page.html")
        t1 = time.perf_counter()
        toks.append((count_tokens(snap), name))
        exp_path = os.path.join(d, "expected.html")
        t2 = time.perf_counter()
        md = render_markdown(main_content(src))
        t3 = time.perf_counter()
        times.append((t1 - t0, t3 - t2, len(src), name))
        if not os.path.exists(exp_path):
            continue
        want = first_sentence(open(exp_path, encoding="utf-8", errors="replace").read())
        if want is None:
            continue
        total += 1
        if strip_md(want) in strip_md(md) or want in norm(md):
            hits += 1
        else:
            misses.append(name)
            if verbose:
                print(f"MISS {name}: {want!r}\n   got: {strip_md(md)[:200]!r}")
    print(f"first-sentence hit rate: {hits}/{total} = {hits / max(1, total):.1%}")
    if misses:
        print("misses:", " ".join(misses))
    values = sorted(t for t, _ in toks)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    print(f"snapshot tokens over {len(values)} pages: median {statistics.median(values):,.0f}, "
          f"p90 {p90:,}, max {values[-1]:,} ({max(toks)[1]})")
    slow = max(times)
    big = max(times, key=lambda t: t[2])
    print(f"slowest snapshot: {slow[0]*1000:.0f} ms ({slow[3]}, {slow[2]:,} bytes); "
          f"largest page {big[3]} ({big[2]:,} bytes): snapshot {big[0]*1000:.0f} ms, "
          f"main_content+markdown {big[1]*1000:.0f} ms")
    if "--browser" in sys.argv:
        browser_figures(corpus)


if __name__ == "__main__":
    main()
