"""``browser-ctx demo``: serve the built-in demo site and show what each read tool returns, and its cost.

For every demo page it runs ``browser_navigate``, ``browser_snapshot`` and ``browser_text``
in-process through the same pipeline the MCP server uses (so the figures are what a
client would receive), and prints each result's o200k tokens beside the tokens of
Playwright's full ``aria_snapshot(mode="ai")`` of the same page.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from typing import Any

from ..browser.session import BrowserSession
from ..core.tokens import count_tokens
from ..server.app import all_tools
from ..server.pipeline import call_tool
from ..settings import Settings
from . import serve_demo

__all__ = ["run_demo", "DEMO_PAGES"]

#: Demo pages shown, relative to the demo site's root.
DEMO_PAGES = ("index.html", "article.html", "docs.html", "login.html", "broken.html")


def _tokens(result: Any) -> int:
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    meta = result.structured_content
    return count_tokens(text) + (count_tokens(json.dumps(meta, separators=(",", ":"))) if meta else 0)


def _show(name: str, result: Any, limit: int = 1200) -> None:
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    more = f"\n[demo display stops here; the tool returned {len(text) - limit} more characters]"
    shown = text if len(text) <= limit else text[:limit] + more
    print(f"\n── {name} · {_tokens(result)} tokens{' · ERROR' if result.is_error else ''}")
    print(shown)


async def _run(settings: Settings, base: str, pages: tuple[str, ...]) -> list[dict[str, Any]]:
    specs = {t.name: t for t in all_tools()}
    rows = []
    async with BrowserSession(settings) as session:
        for page in pages:
            url = f"{base}/{page}"
            print(f"\n════ {url}")
            row: dict[str, Any] = {"page": page}
            for name, args in (("browser_navigate", {"url": url}), ("browser_snapshot", {}), ("browser_text", {})):
                result = await call_tool(specs[name], args, session, settings)
                _show(name, result)
                row[name] = _tokens(result)
            tab = await session.current_tab()
            aria = await tab.page.locator("body").aria_snapshot(mode="ai")
            row["aria"] = count_tokens(aria)
            rows.append(row)
    return rows


def run_demo(settings: Settings, pages: tuple[str, ...] = DEMO_PAGES) -> int:
    """Serve the demo site, run the read tools on each page, print outputs and a token table. Returns 0."""
    settings = replace(settings, launch=replace(settings.launch, offline_external=True))
    with serve_demo() as base:
        rows = asyncio.run(_run(settings, base, pages))
    print("\n════ tokens per call (o200k, everything the client receives)")
    print(f"{'page':<16}{'navigate':>10}{'snapshot':>10}{'text':>8}{'Playwright aria snapshot':>26}")
    for r in rows:
        print(f"{r['page']:<16}{r['browser_navigate']:>10}{r['browser_snapshot']:>10}{r['browser_text']:>8}"
              f"{r['aria']:>26}")
    sys.stdout.flush()
    return 0
