"""Captures cut short are MCP resources, listed and read (paged) through the real stdio client."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import TextResourceContents

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_cut_capture_is_listed_and_readable(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        first = await s.call_tool("browser_text", {"maxTokens": 400})
        assert first.structured_content["truncated"] is True
        listed = (await s.list_resources()).resources
        assert listed, "a cut capture should be listed"
        uri = str(listed[0].uri)
        assert uri.startswith("browser-ctx://tab/")
        nxt = first.structured_content["nextOffset"]
        read = await s.read_resource(f"{uri}?offset={nxt}&maxTokens=400")
        assert isinstance(read.contents[0], TextResourceContents)
        body = read.contents[0].text
        whole = result_text(await s.call_tool("browser_text", {"maxTokens": 8000, "force": True}))
        assert whole[nxt: nxt + 200] == body[:200]
        with pytest.raises(MCPError):
            await s.read_resource("browser-ctx://tab/99/capture/1")
