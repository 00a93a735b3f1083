"""One owner of CDP per tab: :mod:`browser_ctx.browser.page_cdp` is the only module that opens a CDP session, and
the isolated worlds are passed explicitly (no ambient ``ContextVar``). Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "browser_ctx"
OWNER = PACKAGE / "browser" / "page_cdp.py"


def _sites(name: str) -> list[str]:
    """``path:line`` of every attribute or name ``name`` in the package (a call, a reference, a getattr string)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = ((isinstance(node, ast.Attribute) and node.attr == name)
                     or (isinstance(node, ast.Name) and node.id == name)
                     or (isinstance(node, ast.Constant) and node.value == name))
            if named:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}")
    return found


def test_only_page_cdp_opens_cdp_sessions() -> None:
    sites = _sites("new_cdp_session")
    owner = str(OWNER.relative_to(PACKAGE.parent))
    assert sites and all(s.startswith(owner + ":") for s in sites), (
        f"CDP sessions are opened only by {owner} (PageCDP); take the tab's session from it: {sites}")
    assert len(sites) == 1, sites  # PageCDP._attach: the shared sessions and a caller's own go through it


def test_worlds_are_passed_not_ambient() -> None:
    assert _sites("ContextVar") == [], "pass the tab's Worlds explicitly (on_element(worlds, …), in_frame(worlds, …))"
