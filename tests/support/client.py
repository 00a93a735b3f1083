"""Start ``browser-ctx serve`` as a subprocess and talk to it with the mcp SDK's stdio client."""

from __future__ import annotations

import contextlib
import json
import os
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
