"""The MCP server: built by :func:`create_server`, with a lifespan that owns the browser session.

Tools are declared by hand, one module per family in :mod:`.tools` (see :mod:`.registry`), and served
through the SDK's low-level :class:`mcp.server.lowlevel.Server`, which lets us send
exactly the schemas we wrote (``tools/list`` is paid for by the model on every turn)
and exactly one copy of each result.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from .._errors import BrowserCtxError
from ..browser.reading import interrupt_scripts
from ..browser.session import BrowserSession
from ..settings import CapSettings, Settings
from .pipeline import call_tool, error_result
from .registry import ToolSpec
from .resources import list_resources, read_resource
from .tools import all_tools, testing
from .tools.ledger import tools_list_tokens

__all__ = ["create_server", "all_tools", "select_tools", "instructions", "INSTRUCTIONS", "CAPS_SETS"]

log = logging.getLogger("browser_ctx")

#: ``--caps`` sets: which tool groups each enables.
CAPS_SETS: dict[str, tuple[str, ...]] = {
    "core": ("core",),
    "debug": ("debug",),
    "vision": ("vision",),
    "pdf": ("pdf",),
    "devtools": ("devtools",),
    "testing": ("testing",),
    "perf": ("perf",),
    "emulation": ("emulation",),
    "extra": ("extra",),
    "storage": ("storage",),
    "network": ("network",),
    "default": ("core", "debug"),
    "all": ("core", "debug", "vision", "pdf", "devtools", "testing", "perf", "emulation",
            "extra", "storage", "network"),
}

def instructions(caps: CapSettings) -> str:
    """Return the server instructions the client shows the model, with this server's token caps
    (``--max-tokens`` default and ``--max-tokens-ceiling``, o200k tokens) written in."""
    return (
        "browser-ctx drives a real browser. Every result is capped at maxTokens (o200k tokens, default "
        f"{caps.default_max_tokens}, max {caps.ceiling_tokens}). A cut result has truncated=true and nextOffset: "
        "call the same tool with the same arguments "
        "and offset=nextOffset to read on (characters). A repeated read of an unchanged page answers "
        "'Unchanged since <fingerprint>'; force=true re-sends it. target = a ref from browser_snapshot (e.g. e12) or a "
        "Playwright selector (CSS, text=, role=, data-testid=). Snapshot lines: role \"name\" [ref] states; a bare "
        "line is page text ('text:' marks text that could pass for another line); a name written .like or #search is "
        "the class word or id that alone names the element, several on one line are one element per ref "
        "(clickable .reply [e2], .like [e3]); '(by class)' marks state read from its classes. "
        "Actions return what changed (URL, dialogs, tabs, "
        "downloads, errors, DOM delta), not a snapshot. Console and network listings return a cursor: pass it "
        "as since to get only what is new; limit caps the lines. Hidden text and secrets are never shown."
    )


#: The instructions with the default caps (what ``browser-ctx serve`` sends without cap flags).
INSTRUCTIONS = instructions(CapSettings())


def select_tools(caps: tuple[str, ...] = ("default",), *, evaluate: bool = True,
                 only: tuple[str, ...] = ()) -> list[ToolSpec]:
    """Return the tools enabled by the ``--caps`` names (see :data:`CAPS_SETS`), or, when ``only`` names tools
    (``--tools``), exactly those, from any set; ``evaluate=False`` (``--no-evaluate``) leaves out the tools that
    run the caller's JavaScript (``ToolSpec.runs_page_code``). With ``browser_generate_test`` among them, the
    tools that act record their steps (:func:`.tools.testing.recording`).

    Raises:
        ValueError: an unknown caps name.
    """
    groups: set[str] = set()
    for name in caps:
        if name not in CAPS_SETS:
            raise ValueError(f"unknown --caps {name!r}; choose from {', '.join(CAPS_SETS)}")
        groups.update(CAPS_SETS[name])
    chosen = [t for t in all_tools() if (t.name in only if only else t.caps in groups)
              and (evaluate or not t.runs_page_code)]
    if any(t.name == testing.GENERATE for t in chosen):
        chosen = [testing.recording(t) for t in chosen]
    return chosen


def create_server(settings: Settings | None = None, *, caps: tuple[str, ...] = ("default",),
                  evaluate: bool = True, pool: Any = None) -> Server[Any]:
    """Build the MCP server.

    Args:
        settings: server settings (defaults: :class:`Settings()`).
        caps: tool sets to enable (see :data:`CAPS_SETS`).
        evaluate: include ``browser_evaluate`` (``--no-evaluate`` turns it off).
        pool: for transports with many client sessions (HTTP): an object with ``async __aenter__()``,
            ``async aclose()`` and ``async session_for(ctx) -> BrowserSession`` that picks the browser session of the
            request's client (see :class:`browser_ctx.server.http.SessionPool`). Default ``None``:
            one session for the whole server (stdio).

    Returns:
        A low-level MCP ``Server`` whose lifespan opens a :class:`BrowserSession` (the browser
        itself starts lazily on the first call that needs it), or enters ``pool``, and closes it
        on shutdown.
    """
    settings = settings or Settings()
    tools = {t.name: t for t in select_tools(caps, evaluate=evaluate, only=settings.tools)}
    listed = [
        types.Tool(name=t.name, description=t.description, input_schema=t.input_schema(),
                   # readOnlyHint defaults to false, so only read-only tools need to say it
                   annotations=types.ToolAnnotations(read_only_hint=True) if t.read_only else None)
        for t in tools.values()
    ]

    @contextlib.asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[Any]:
        # Closing is shielded: on SIGTERM/SIGINT the server task is cancelled, and an unshielded close would be
        # cancelled at its first await, leaving Chromium running.
        if pool is not None:
            await pool.__aenter__()
            try:
                yield pool
            finally:
                with anyio.CancelScope(shield=True):
                    await pool.aclose()
            return
        session = BrowserSession(settings)
        try:
            yield session
        finally:
            with anyio.CancelScope(shield=True):
                await session.close()

    definition_tokens = tools_list_tokens(listed)

    async def session_of(ctx: Any) -> BrowserSession:
        """The request's browser session (raises BrowserCtxError while shutting down)."""
        session: BrowserSession = ctx.lifespan_context if pool is None else await pool.session_for(ctx)
        session.ledger.definition_tokens = definition_tokens
        return session

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def on_list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        try:
            return list_resources(await session_of(ctx))
        except BrowserCtxError:
            return types.ListResourcesResult(resources=[])

    async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        try:
            return await read_resource(await session_of(ctx), str(params.uri), settings)
        except BrowserCtxError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from exc

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = tools.get(params.name)
        if spec is None:
            return error_result(f"Unknown tool {params.name!r}; call tools/list for the available tools.")
        try:
            session = await session_of(ctx)
        except BrowserCtxError as exc:  # shutting down
            return error_result(str(exc))
        limit = settings.timeouts.call_ms
        try:
            # The session's own settings: an HTTP client session has its own output folder (files.session_settings).
            return await asyncio.wait_for(call_tool(spec, params.arguments, session, session.settings),
                                          limit / 1000)
        except TimeoutError:
            log.warning("%s abandoned after %.0f ms", spec.name, limit)
            tab = session.peek_tab()
            stopped = tab is not None and await interrupt_scripts(tab)
            after = ("the page's running script was stopped; call again" if stopped else
                     "the page may be stuck in an endless script: close the tab (browser_tabs close)")
            return error_result(f"{spec.name} did not finish within {limit:.0f} ms (--timeout-call) and was "
                                f"abandoned; {after}.")

    return Server(
        "browser-ctx",
        version=__version__,
        instructions=instructions(settings.caps),
        lifespan=lifespan,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_read_resource=on_read_resource,
    )
