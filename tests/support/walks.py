"""Walks as visible HTML (:func:`browser_ctx.core.tree.to_html`), the form ``docs/visible-html.md`` describes, so
tests can check what a walk holds with plain string and HTML-parser assertions."""

from __future__ import annotations

from typing import Any

from browser_ctx.browser.walk import Walk, walk_frame, walk_locator
from browser_ctx.core.tree import to_html

__all__ = ["html_of", "walked_html", "walked_parts"]


def html_of(walk: Walk, whole: bool = True) -> str:
    """A walk as visible HTML: the body element for a whole frame, the walked elements for a target."""
    if walk.empty:
        return ""
    return to_html(walk.doc.body) if whole else "".join(to_html(c) for c in walk.doc.body.children)


async def walked_html(frame: Any, **kw: Any) -> str:
    """:func:`walk_frame` of ``frame`` as visible HTML."""
    return html_of(await walk_frame(frame, **kw))


async def walked_parts(locator: Any, **kw: Any) -> list[str]:
    """:func:`walk_locator` of ``locator``, each match as visible HTML."""
    return [html_of(w, whole=False) for w in await walk_locator(locator, **kw)]
