"""The fixtures site for tests: a thin wrapper over :mod:`browser_ctx._http`.

Serves files from ``fixtures/`` and routes registered in :data:`ROUTES`. The same
server answers on ``127.0.0.1`` and ``localhost``, which are different origins, so
a page on one can embed a truly cross-origin frame from the other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

from browser_ctx import _http

__all__ = ["FIXTURES", "ROUTES", "serve_directory"]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

#: Dynamic routes: path (without query) -> function(handler) that writes the whole response.
#: Add routes from a test module at import time, e.g. ``ROUTES["/api"] = my_handler``.
#: Read on every request, so routes added after the server started work too.
ROUTES: dict[str, Callable[[SimpleHTTPRequestHandler], None]] = {}


@contextlib.contextmanager
def serve_directory(root: Path, *, routes: Mapping[str, Callable] | None = None) -> Iterator[int]:
    """Serve ``root`` plus :data:`ROUTES` (or ``routes`` if given) on 127.0.0.1/localhost; yield the port."""
    with _http.serve_directory(root, routes=ROUTES if routes is None else routes) as port:
        yield port
