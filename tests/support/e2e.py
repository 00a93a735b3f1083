"""What only ``e2e`` tests may start (the guard in ``tests/conftest.py`` refuses it to the others)."""

from __future__ import annotations

from pathlib import Path

#: Modules whose ``python -m`` run starts a browser or the server: only ``e2e`` tests may run them.
E2E_MODULES = ("browser_ctx", "bench", "playwright")


def starts_browser_or_server(argv: list[str]) -> bool:
    """Whether a command line starts what only ``e2e`` tests may start: Playwright's driver
    (``… run-driver``), a Chrome/Chromium executable, the ``browser-ctx`` console script, or
    ``python -m browser_ctx|bench|playwright …``."""
    if not argv:
        return False
    program = Path(argv[0]).name.lower()
    if "chrom" in program or program == "browser-ctx" or "run-driver" in argv:
        return True
    return any(a == "-m" and i + 1 < len(argv) and argv[i + 1].split(".")[0] in E2E_MODULES
               for i, a in enumerate(argv))
