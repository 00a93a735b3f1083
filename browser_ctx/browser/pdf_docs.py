"""Which PDF document a page shows, and its size: for an action's record (a click that opened a PDF).

A tab's capture has its document's response. A popup's capture attaches after its first response, so a popup is
asked its ``document.contentType`` and a PDF's size comes from a ``HEAD`` request (no page script runs in a PDF).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..core.network import RequestRecord
    from .session import BrowserSession, Tab

__all__ = ["PDF", "shown_pdf"]

PDF = "application/pdf"


#: Seconds a popup's PDF check (its content type, then a HEAD request) may take.
POPUP_CHECK_S = 2.0


def pdf_shown(session: BrowserSession, page: Page) -> tuple[Tab, RequestRecord] | None:
    """The PDF document ``page`` shows, from its tab's capture; ``None`` when it shows no PDF or the capture has
    not its document (a popup's first: :func:`shown_pdf` then asks the page)."""
    tab = next((t for t in session.tabs if t.page is page), None)
    if tab is not None:
        url = session.redactor.url(page.url)  # the capture holds redacted URLs
        for rec in reversed(tab.events.records()):
            if rec.url == url and rec.resource_type == "document" and rec.status is not None:
                if rec.mime.lower() == PDF:
                    return tab, rec
                break
    return None


async def shown_pdf(session: BrowserSession, page: Page) -> tuple[bool, int | None]:
    """Whether ``page`` shows a PDF document, and its size in bytes (``None`` when unknown): from its tab's capture
    (:func:`pdf_shown`, :func:`pdf_size`), else (a popup's first document, or a response the capture has not
    yet) :func:`_asked`. Never raises."""
    found = pdf_shown(session, page)
    if found is not None:
        try:
            return True, await pdf_size(found)
        except PlaywrightError:
            return True, None
    return await _asked(page)


async def _asked(page: Page) -> tuple[bool, int | None]:
    """Whether ``page`` shows a PDF document (``document.contentType``) and its size in bytes (the
    Content-Length of a ``HEAD`` request of its URL; ``None`` when not given). Never raises."""
    try:
        if await asyncio.wait_for(page.evaluate("document.contentType"), POPUP_CHECK_S) != PDF:
            return False, None
        head = await page.context.request.head(page.url, timeout=POPUP_CHECK_S * 1000)
    except (PlaywrightError, TimeoutError):
        return False, None
    length = head.headers.get("content-length") or ""
    return True, int(length) if length.isdigit() else None


async def pdf_size(found: tuple[Tab, RequestRecord]) -> int | None:
    """Size in bytes of a PDF document (:func:`pdf_shown`): its Content-Length, else its body's size (``None`` if
    unknown)."""
    tab, rec = found
    length = next((v for k, v in rec.response_headers.items() if k.lower() == "content-length"), "")
    if length.isdigit():
        return int(length)
    return (await tab.events.response_body(rec)).full_bytes
