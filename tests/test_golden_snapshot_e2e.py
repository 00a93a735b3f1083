"""The golden examples of docs/snapshot-format.md are what the server renders (issue 23, item 7).

Every case of :data:`tests.support.golden.CASES` is rendered through the real MCP stdio client and a real
Chromium, each in a new tab of one server session (so its refs count from ``e1``), and compared exactly with
its files under ``tests/golden/snapshot/``; a mismatch prints a unified diff. ``BROWSER_CTX_UPDATE_GOLDEN=1``
writes the files instead and refreshes the doc's marked blocks from them (read the diff before committing).
"""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text
from tests.support.golden import CASES, GOLDEN_DIR, NEXT_OFFSET, REGENERATE, UPDATE_ENV, Case, result_files, sync_doc

pytestmark = [pytest.mark.e2e]

UPDATE = os.environ.get(UPDATE_ENV) == "1"


async def _render_all(site: str) -> dict[str, dict[str, str]]:
    """Each case's golden files as rendered now: name -> {suffix: content}."""
    out: dict[str, dict[str, str]] = {}
    async with mcp_session() as s:

        async def call(tool: str, args: dict[str, Any]) -> Any:
            result = await s.call_tool(tool, args)
            assert not result.is_error, f"{tool} {args}: {result_text(result)}"
            return result

        for case in CASES:
            await call("browser_tabs", {"action": "new"})
            await call("browser_tabs", {"action": "close", "index": 0})  # one tab at a time, refs from e1
            await call("browser_navigate", {"url": f"{site}/{case.page}"})
            result: Any = None
            for tool, args in case.calls:
                if args.get("offset") == NEXT_OFFSET:  # the nextOffset of the call before
                    args = {**args, "offset": (result.structured_content or {})["nextOffset"]}
                result = await call(tool, args)
            out[case.name] = result_files(result)
    return out


@pytest.fixture(scope="module")
def rendered(site: str) -> Iterator[dict[str, dict[str, str]]]:
    """Every case rendered once for the module (one server session)."""
    yield asyncio.run(_render_all(site))
    if UPDATE:
        sync_doc()


def _diff(expected: str, got: str, name: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                        f"golden/{name}", f"rendered/{name}"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rendering_matches_its_golden_file(rendered: dict[str, dict[str, str]], case: Case) -> None:
    files = rendered[case.name]
    problems: list[str] = []
    for suffix in (".txt", ".json"):
        path = GOLDEN_DIR / f"{case.name}{suffix}"
        got = files.get(suffix)
        if UPDATE:
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            if got is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(got, encoding="utf-8")
            continue
        expected = path.read_text(encoding="utf-8") if path.exists() else None
        if expected == got:
            continue
        if expected is None:
            problems.append(f"{path.name} is missing; the server renders:\n{got}")
        elif got is None:
            problems.append(f"{path.name} exists but the result has no structured fields besides fingerprint")
        else:
            problems.append(_diff(expected, got, path.name))
    assert not problems, (f"{case.name} ({case.shows}) differs from its golden files; if the change is meant, "
                          f"regenerate with: {REGENERATE}\n" + "\n".join(problems))
