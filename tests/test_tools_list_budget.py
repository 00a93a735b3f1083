"""The tool definitions are paid for by the model on every turn: the default set's ``tools/list`` result,
exactly as the client receives it over stdio, must cost at most 2,000 o200k tokens.

Counted like docs/reference/README.md counts @playwright/mcp (4,415 tokens) and chrome-devtools-mcp (5,953):
``count_tokens`` over the JSON-RPC ``result`` object received, re-serialised compactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from browser_ctx.core.tokens import count_tokens
from tests.support.client import TEST_SERVER_ARGS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: The ceiling for the default set.
DEFAULT_SET_BUDGET = 2000
#: Measured in docs/reference (tools/list result, o200k tokens).
PLAYWRIGHT_MCP, CHROME_DEVTOOLS_MCP = 4415, 5953
#: @playwright/mcp 0.0.83's tools/list with ``--caps vision,storage,network,pdf,devtools,testing`` (71 tools), and
#: what its vision, storage, network, pdf, devtools and testing caps each add to its default 25 tools (measured as
#: docs/reference does; devtools adds 13 tools, testing 5).
PLAYWRIGHT_MCP_ALL = 10_000
PLAYWRIGHT_MCP_ADDS = {"vision": 730, "storage": 1716, "network": 531, "pdf": 119, "devtools": 1770, "testing": 719}


@contextlib.asynccontextmanager
async def recording_session(*extra_args: str) -> AsyncIterator[tuple[ClientSession, list[Any]]]:
    """A real stdio client session to ``browser-ctx serve``, plus every JSON-RPC message it received."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "browser_ctx", "serve", *TEST_SERVER_ARGS, *extra_args],
                                   env=dict(os.environ))
    received: list[Any] = []
    async with stdio_client(params) as (read, write):
        tee_send, tee_receive = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            async with tee_send:
                async for item in read:
                    received.append(item)
                    await tee_send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            async with ClientSession(tee_receive, write) as session:
                await session.initialize()
                yield session, received
            tg.cancel_scope.cancel()


async def tools_list_cost(*caps: str) -> tuple[int, list[str]]:
    """o200k tokens of the ``tools/list`` result as received, and the tool names, for ``--caps`` sets."""
    args = [a for c in caps for a in ("--caps", c)]
    async with recording_session(*args) as (session, received):
        listed = await session.list_tools()
        results = [getattr(m.message, "result", None) for m in received if hasattr(m, "message")]
        raw = next(r for r in reversed(results) if isinstance(r, dict) and "tools" in r)
    assert [t["name"] for t in raw["tools"]] == [t.name for t in listed.tools]
    return count_tokens(json.dumps(raw, ensure_ascii=False, separators=(",", ":"))), [t.name for t in listed.tools]


async def test_default_tool_set_costs_at_most_2000_tokens():
    costs = {}
    for caps in ("core", "debug", "vision", "extra", "storage", "network", "pdf", "devtools", "testing", "default",
                 "all"):
        costs[caps] = await tools_list_cost(caps)
    costs["default+vision"] = await tools_list_cost("default", "vision")
    print("\ntools/list tokens (o200k) per --caps set:")
    for caps, (tokens, names) in costs.items():
        print(f"  {caps:14s} {len(names):2d} tools {tokens:5,d} tokens")
    print(f"  @playwright/mcp 0.0.83: {PLAYWRIGHT_MCP:,}; chrome-devtools-mcp 1.11.0: {CHROME_DEVTOOLS_MCP:,}")
    default_tokens, default_names = costs["default"]
    assert set(costs["core"][1]) | set(costs["debug"][1]) == set(default_names)
    assert "browser_take_screenshot" not in default_names and "browser_take_screenshot" in costs["all"][1]
    assert costs["default+vision"][0] < PLAYWRIGHT_MCP  # our default and vision sets, against its default list
    assert costs["all"][0] < PLAYWRIGHT_MCP_ALL
    for caps, adds in PLAYWRIGHT_MCP_ADDS.items():  # each opt-in set costs less than the same set there
        assert costs[caps][0] < adds, (caps, costs[caps][0], adds)
    assert default_tokens <= DEFAULT_SET_BUDGET, (
        f"the default tool set's tools/list costs {default_tokens} tokens (> {DEFAULT_SET_BUDGET}); shorten "
        "descriptions, drop parameter descriptions the server instructions already give")
