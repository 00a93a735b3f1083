"""The real tool pipeline in process, on a real Chromium, without the stdio transport: for tests that count what
a call does inside (walks, CDP sessions, round trips)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from browser_ctx.browser.session import BrowserSession
from browser_ctx.server.app import all_tools
from browser_ctx.server.pipeline import call_tool
from browser_ctx.settings import LaunchSettings, Settings

__all__ = ["InProcess", "in_process", "text_of"]


def text_of(result: Any) -> str:
    """The text parts of a tool result, joined by newlines."""
    return "\n".join(c.text for c in result.content if c.type == "text")


class InProcess:
    """One session's tools: :meth:`call` runs a tool through the pipeline and returns its text."""

    def __init__(self, session: BrowserSession, settings: Settings) -> None:
        self.session, self.settings = session, settings
        self.tools = {t.name: t for t in all_tools()}

    async def call(self, name: str, args: dict[str, Any]) -> str:
        """The text of tool ``name`` called with ``args``; fails the test when the result is an error."""
        result = await call_tool(self.tools[name], args, self.session, self.settings)
        assert not result.is_error, text_of(result)
        return text_of(result)


@asynccontextmanager
async def in_process(settings: Settings | None = None) -> AsyncIterator[InProcess]:
    """A browser session (offline external hosts unless ``settings`` say otherwise), closed on exit."""
    settings = settings or Settings(launch=LaunchSettings(offline_external=True))
    async with BrowserSession(settings) as session:
        yield InProcess(session, settings)
