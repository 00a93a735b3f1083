"""Helpers of the console/network tests: calling the tools through the server pipeline on a real session.

:class:`Tools` calls a tool as the MCP client would get it (scrubbed, capped) and checks every result
is within its cap and free of ``SECRET_``; :func:`tools` opens a session and its :class:`Tools`.
"""

from __future__ import annotations

import json

from browser_ctx.browser.session import BrowserSession
from browser_ctx.server.pipeline import call_tool
from browser_ctx.server.tools import all_tools
from browser_ctx.settings import LaunchSettings, Settings
from tests.support.client import result_text, result_tokens

__all__ = ["SETTINGS", "SPECS", "Tools", "tools"]

SPECS = {t.name: t for t in all_tools()}
SETTINGS = Settings(launch=LaunchSettings(offline_external=True))


class Tools:
    """Calls tools through the pipeline and checks every result is within its cap and secret-free."""

    def __init__(self, session: BrowserSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings

    async def call(self, name: str, **args):
        result = await call_tool(SPECS[name], args, self.session, self.settings)
        text = result_text(result)
        blob = text + json.dumps(result.structured_content or {})
        assert "SECRET_" not in blob, blob[:2000]
        cap = args.get("maxTokens", self.settings.caps.default_max_tokens)
        assert result_tokens(result) <= cap, (name, args, result_tokens(result))
        return result

    async def text(self, name: str, **args) -> str:
        result = await self.call(name, **args)
        assert not result.is_error, result_text(result)
        return result_text(result)

    async def error(self, name: str, **args) -> str:
        result = await self.call(name, **args)
        assert result.is_error, result_text(result)
        text = result_text(result)
        assert "\n" not in text and "Traceback" not in text
        return text

    async def goto(self, url: str, done: str | None = "window.__done === true", timeout: float = 300_000):
        tab = await self.session.current_tab()
        await tab.events.start()  # idempotent: waits for the capture to be attached
        # Pages here can be slow on a loaded machine: wait for the page's own "done" flag instead of "load".
        await tab.page.goto(url, wait_until="commit", timeout=timeout)
        if done:
            await tab.page.wait_for_function(done, timeout=timeout)
        assert await tab.events.sync(timeout=120)  # every event sent so far is in the buffers
        return tab


async def tools(settings: Settings = SETTINGS) -> tuple[BrowserSession, Tools]:
    """A new session (enter it with ``async with``) and the :class:`Tools` calling into it."""
    session = BrowserSession(settings)
    return session, Tools(session, settings)
