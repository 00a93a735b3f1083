"""Start ``browser-ctx serve`` as a subprocess and talk to it with the mcp SDK's stdio client."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from browser_ctx.core.tokens import count_tokens

#: Flags every test server gets: no lookups of external hosts (saved pages name many).
TEST_SERVER_ARGS = ["--offline-external"]


@contextlib.asynccontextmanager
async def mcp_session(*extra_args: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """Yield an initialised :class:`ClientSession` to a fresh ``browser-ctx serve`` subprocess."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "browser_ctx", "serve", *TEST_SERVER_ARGS, *extra_args],
        env={**os.environ, **(env or {})},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def result_text(result: Any) -> str:
    """Join the text parts of a CallToolResult."""
    return "\n".join(getattr(c, "text", "") for c in result.content if getattr(c, "type", "") == "text")


def result_tokens(result: Any) -> int:
    """o200k tokens of everything the client received: every text part plus the structured content."""
    total = sum(count_tokens(getattr(c, "text", "")) for c in result.content if getattr(c, "type", "") == "text")
    if result.structured_content is not None:
        total += count_tokens(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")))
    return total


async def call_text(session: ClientSession, tool: str, ok: bool = True, **args: Any) -> str:
    """Call ``tool`` with ``args`` and return its text; fails the test unless the result is an error exactly
    when ``ok`` is false."""
    result = await session.call_tool(tool, args)
    text = result_text(result)
    assert bool(result.is_error) is (not ok), f"{tool} {args}: {text}"
    return text


def ref_on(text: str, pattern: str) -> str:
    """The ref (``e12``, ``f1e3``) on the first line where the regex ``pattern`` is followed by ``[ref]``."""
    m = re.search(pattern + r"[^\n]*?\[((?:f\d+)?e\d+)\]", text)
    assert m, (pattern, text)
    return m.group(1)
