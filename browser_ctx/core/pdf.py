"""Facts about a PDF file from its bytes, without a PDF library: how many pages it has."""

from __future__ import annotations

import re

__all__ = ["page_count"]

#: A page object's type entry (``/Type /Page``, not the page tree's ``/Type /Pages``).
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9])")
#: The page tree's ``/Count N``.
_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", re.S)


def page_count(data: bytes) -> int | None:
    """Return the number of pages of the PDF ``data``: its ``/Type /Page`` objects (Chromium writes them
    uncompressed), else the root page tree's ``/Count``; ``None`` when neither is found (object streams) or
    ``data`` is not a PDF."""
    if not data.startswith(b"%PDF-"):
        return None
    pages = len(_PAGE.findall(data))
    if pages:
        return pages
    counts = [int(a or b) for a, b in _COUNT.findall(data)]
    return max(counts) if counts else None
