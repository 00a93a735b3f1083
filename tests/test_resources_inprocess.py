"""Captures as MCP resources (browser_ctx.server.resources), driven in-process through the real pipeline
and a real Chromium: listing the last captures per tab and reading them paged, without re-rendering.

(In-process because app.py wires ``on_list_resources``/``on_read_resource``; once wired, the same
functions answer ``resources/list`` and ``resources/read`` for the stdio client.)
"""

from __future__ import annotations

import pytest
from mcp_types import TextResourceContents

from browser_ctx import InvalidArgument
from browser_ctx.browser.session import BrowserSession
from browser_ctx.core.tokens import count_tokens
from browser_ctx.server.app import all_tools
from browser_ctx.server.pipeline import call_tool
from browser_ctx.server.resources import PER_TAB, list_resources, read_resource
from browser_ctx.settings import LaunchSettings, Settings

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_capture_resources_list_and_page(site):
    settings = Settings(launch=LaunchSettings(offline_external=True))
    tools = {t.name: t for t in all_tools()}
    async with BrowserSession(settings) as session:
        assert list_resources(session).resources == []  # nothing yet, and no browser launched
        assert not session.running
        await call_tool(tools["browser_navigate"], {"url": f"{site}/article.html"}, session, settings)
        cut = await call_tool(tools["browser_text"], {"maxTokens": 300}, session, settings)
        meta = cut.structured_content
        assert meta["truncated"] is True

        listed = list_resources(session).resources
        assert len(listed) == 1
        res = listed[0]
        assert str(res.uri) == "browser-ctx://tab/1/capture/1" and res.mime_type == "text/plain"
        assert res.description is not None
        assert "browser_text" in res.description and f"{meta['fullTokens']:,} tokens" in res.description

        # Reading on from the resource gives what the tool gives with offset, without a browser call.
        uri = f"{res.uri}?offset={meta['nextOffset']}&maxTokens=400"
        page = await read_resource(session, uri, settings)
        contents = page.contents[0]
        assert isinstance(contents, TextResourceContents) and contents.meta is not None
        tool_page = await call_tool(tools["browser_text"], {"maxTokens": 400, "offset": meta["nextOffset"]},
                                    session, settings)
        assert contents.text[:500] == text_of(tool_page)[:500]
        assert contents.meta["offset"] == meta["nextOffset"] and contents.meta["fullLength"] == meta["fullLength"]
        assert count_tokens(contents.text) <= 400
        if contents.meta["truncated"]:
            assert contents.text.rstrip().endswith(
                f"read browser-ctx://tab/1/capture/1?offset={contents.meta['nextOffset']} to read on.")
        whole = await read_resource(session, f"{res.uri}?maxTokens=8000", settings)
        assert isinstance(whole.contents[0], TextResourceContents)
        assert whole.contents[0].text.startswith(text_of(cut)[:200])

        # More captures: newest first, at most PER_TAB listed; numbers are never reused.
        for target in ("h1", "h2", "p", "main", "article", "body"):
            await call_tool(tools["browser_text"], {"target": target, "maxTokens": 200}, session, settings)
        uris = [str(r.uri) for r in list_resources(session).resources]
        assert len(uris) == PER_TAB and uris[0].endswith("/capture/7")
        assert len(set(uris)) == len(uris)

        # The page changed since the first capture: the resource says so.
        await call_tool(tools["browser_evaluate"], {"function": "() => document.body.append('changed')"},
                        session, settings)
        again = await read_resource(session, uris[0], settings)
        assert (again.contents[0].meta or {}).get("pageChanged") is True

        for bad, words in (("browser-ctx://tab/9/capture/1", "No tab 9"),
                           ("browser-ctx://tab/1/capture/999", "no longer kept"),
                           ("https://example.com/", "Unknown resource"),
                           (f"{uris[0]}?offset=-5", "offset")):
            with pytest.raises(InvalidArgument, match=words):
                await read_resource(session, bad, settings)
