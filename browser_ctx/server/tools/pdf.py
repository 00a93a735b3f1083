"""PDF (``--caps pdf``): ``browser_pdf_save {filename?}`` saves the current page as PDF under ``--output-dir``.

Name and parameter follow ``@playwright/mcp`` 0.0.83; without ``filename`` the file is ``page-<time>.pdf`` as
there. Chromium prints only when headless (Playwright's ``page.pdf``), with the print stylesheet.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import ActionTimeout, InvalidArgument, translate
from ...core.pdf import page_count
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "pdf_save", "stamp"]


def stamp() -> str:
    """Local time for default file names: ``2025-03-15T14-05-09`` (no colons, so it is valid everywhere)."""
    return time.strftime("%Y-%m-%dT%H-%M-%S")


async def pdf_save(call: ToolCall) -> Rendered:
    """Save the page as PDF at ``filename`` (:func:`browser_ctx.files.output_path`; default ``page-<time>.pdf``).

    Returns the path, page count and size in bytes (also ``path``, ``pages``, ``bytes`` in ``meta``).

    Raises:
        InvalidArgument: a filename outside the output folder; a headed browser (Chromium prints only headless).
        ActionTimeout: printing took longer than the navigation timeout.
    """
    path = files.output_path(call.settings, call.args.get("filename") or f"page-{stamp()}.pdf")
    if not call.settings.launch.headless:
        raise InvalidArgument("Chromium saves PDFs only when headless; restart the server without --headed.")
    tab = await call.session.current_tab()
    limit_ms = call.settings.timeouts.navigation_ms
    try:
        data = await asyncio.wait_for(tab.page.pdf(), limit_ms / 1000)
    except TimeoutError as exc:
        raise ActionTimeout(f"Printing the page to PDF took over {limit_ms:.0f} ms; try a shorter page.") from exc
    except PlaywrightError as exc:
        raise translate(exc, action="save the page as PDF") from exc
    files.save(path, data)
    pages = page_count(data)
    counted = f"{pages} page{'s' if pages != 1 else ''}" if pages is not None else "pages not counted"
    text = f"Saved {tab.page.url} as PDF to {path}: {counted}, {len(data):,} bytes."
    return Rendered(text, meta={"path": str(path), "pages": pages, "bytes": len(data)}, capture=False, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(
        name="browser_pdf_save",
        description="Save the page as PDF (filename under the output dir).",
        properties={"filename": _STR},
        handler=pdf_save,
        pageable=False,
        caps="pdf",
    ),
]
