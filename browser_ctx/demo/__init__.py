"""The demo site shipped inside the package, and a helper that serves it on localhost.

Pages (under :data:`DEMO_ROOT`):

* ``index.html``: home page with site nav and a 40-product grid (plus an off-screen menu
  and an opacity-0 promo that a good summary leaves out);
* ``article.html``: a short journal article with headings, a quote and a list;
* ``docs.html``: API docs with a table and a code sample;
* ``login.html``: a sign-in form whose password field is filled by script;
* ``broken.html``: logs a console error after its ``fetch("/missing.json")`` answers 404.

``browser-ctx demo`` (see :mod:`browser_ctx.demo.run`) runs the read tools on these pages.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from .._http import serve_directory

__all__ = ["DEMO_ROOT", "DEMO_PAGE_FILES", "serve_demo"]

#: Folder holding the demo site's files (HTML pages and ``style.css``).
DEMO_ROOT: Path = Path(__file__).resolve().parent / "site"

#: The demo's HTML pages, relative to :data:`DEMO_ROOT`, home page first.
DEMO_PAGE_FILES: tuple[str, ...] = ("index.html", "article.html", "docs.html", "login.html", "broken.html")


@contextlib.contextmanager
def serve_demo(host: str = "127.0.0.1") -> Iterator[str]:
    """Serve the demo site on an ephemeral localhost port; yield its base URL.

    The base URL has no trailing slash, e.g. ``"http://127.0.0.1:43117"``; pages are at
    ``f"{base}/index.html"``. The server stops (port closed) when the ``with`` block exits.

    Raises:
        FileNotFoundError: the package was installed without its demo files.
    """
    with serve_directory(DEMO_ROOT, host=host) as port:
        yield f"http://{host}:{port}"
