"""Corpus figures for the pure core (no browser): run ``python bench/core_corpus.py [CORPUS_DIR]``.

For every page directory of the Readability test corpus (``source.html``, ``expected.html``),
prints:

- first-sentence hit rate of ``main_content`` + ``render_markdown`` on the raw source: the
  first ``<p>`` of ``expected.html`` with at least 60 characters (whitespace-normalised), its
  first 60 characters, searched in the whitespace-normalised output stripped of Markdown
  markup (``* _ # [ ] ` `` and ``](url)``);
- ``render_snapshot`` tokens (o200k) per page: median, p90, max;
- timings of the slowest page.

Pages whose expected.html has no such paragraph are not counted. The corpus is read only.
"""

from __future__ import annotations

import glob
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from selectolax.lexbor import LexborHTMLParser  # noqa: E402

from browser_ctx.core.main_content import main_content  # noqa: E402
from browser_ctx.core.markdown import render_markdown  # noqa: E402
from browser_ctx.core.snapshot import render_snapshot  # noqa: E402
from browser_ctx.core.tokens import count_tokens  # noqa: E402

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


if __name__ == "__main__":
    main()
