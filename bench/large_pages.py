"""Generated large pages: ``fixtures/large/`` holds none of them in git; they are built when needed.

``large_page(n)`` returns an HTML document of about ``n`` elements: a header, a heading, an intro paragraph,
then rows of ``<div class="row"><span>Item i</span></div>`` (two elements each) and a footer whose text
("End of the large page") shows whether a read reached the end. 200,000 elements is about 9 MB of HTML.

``python -m bench.large_pages [DIR]`` writes ``spans-1000.html`` … ``spans-200000.html`` into ``DIR``
(default ``fixtures/large/``, whose ``.gitignore`` keeps them out of git); tests serve them from memory.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["SIZES", "large_page", "write_pages", "FOOTER_TEXT"]

#: Element counts of the generated pages (the growth bench and the bounded-read tests use these).
SIZES = (1_000, 10_000, 50_000, 200_000)
#: The text of the last element of every generated page.
FOOTER_TEXT = "End of the large page"


def large_page(elements: int) -> str:
    """Return an HTML document of about ``elements`` elements (see the module docstring)."""
    rows = max(1, (elements - 12) // 2)
    head = (f"<!doctype html><html><head><meta charset=utf-8><title>Large page {elements:,}</title></head><body>"
            f"<header><nav><a href='#top'>Top</a> <a href='#end'>End</a></nav></header>"
            f"<main><h1>Large page of {elements:,} elements</h1><p>Rows of similar items follow.</p><div id=rows>")
    body = "".join(f"<div class=row><span>Item {i}</span></div>" for i in range(rows))
    tail = f"</div></main><footer id=end><p>{FOOTER_TEXT}</p></footer></body></html>"
    return head + body + tail


def write_pages(directory: Path, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    """Write ``spans-<n>.html`` for each size into ``directory``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in sizes:
        path = directory / f"spans-{n}.html"
        path.write_text(large_page(n), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "fixtures" / "large"
    for p in write_pages(target):
        print(p, p.stat().st_size, "bytes")
