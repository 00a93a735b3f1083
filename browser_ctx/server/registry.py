"""Tool definitions: name, short description, hand-written JSON schema, and handler.

Schemas are written by hand, not generated, so ``tools/list`` stays small (every
token of it is paid by the model on every turn). Parameters shared by many tools
(``maxTokens``, ``offset``) are described once, in the server instructions.

A handler receives a :class:`ToolCall` with validated arguments (defaults filled
in) and returns a :class:`Rendered`: the *whole* rendered result. The server's
pipeline (:mod:`.pipeline`) keeps it as a capture, scrubs secrets, cuts it to the
caller's token budget and builds the MCP result. Handlers raise
:class:`browser_ctx.BrowserCtxError` subclasses for anything that went wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..core.budget import Budget

if TYPE_CHECKING:
    from ..browser.session import BrowserSession
    from ..settings import Settings

__all__ = ["ToolSpec", "ToolCall", "Rendered", "Handler", "MAX_TOKENS", "OFFSET", "FORCE", "TARGET"]

#: Schema of the ``maxTokens`` parameter every tool takes (documented in the server instructions).
MAX_TOKENS: dict[str, Any] = {"type": "integer", "minimum": 1}
#: Schema of the ``offset`` parameter every cuttable tool takes (characters).
OFFSET: dict[str, Any] = {"type": "integer", "minimum": 0}
#: Schema of ``force``: re-send a result even if unchanged since the last identical call.
FORCE: dict[str, Any] = {"type": "boolean"}  # described once, in the server instructions
#: Schema of a ``target`` parameter: a ref or a Playwright selector.
TARGET: dict[str, Any] = {"type": "string"}  # described once, in the server instructions


@dataclass
class ToolCall:
    """One validated call.

    Attributes:
        name: the tool name.
        args: arguments after JSON-schema validation, defaults filled in (camelCase keys).
        session: the browser session (lazily launches the browser on first use).
        settings: server settings.
        budget: what the call may return (:class:`browser_ctx.core.budget.Budget`), built once by the
            pipeline from ``maxTokens`` (which is not in ``args``): ``tokens`` for the text result,
            ``chars`` its character ceiling, ``image_tokens`` a screenshot's image-token budget.
    """

    name: str
    args: dict[str, Any]
    session: BrowserSession
    settings: Settings
    budget: Budget


@dataclass
class Rendered:
    """A tool's whole result before capping.

    Attributes:
        text: the full rendered text (the pipeline cuts it).
        meta: extra structured fields for the client (camelCase), counted against the cap.
        capture: keep this result so ``offset`` reads on from it without re-rendering.
        version: an opaque page-state version at render time; reading on from a capture whose
            page version has changed since says so.
        tab: the tab id the result belongs to (captures are kept per tab).
        images: images sent after the text, as ``(mime_type, bytes)``; each becomes an MCP
            ``ImageContent`` block. They are not text tokens: their cost is the handler's
            ``meta["estimatedImageTokens"]`` (image tokens), which the ledger records apart.
        baseline_tokens: o200k tokens the usual alternative would have cost (e.g. the unfiltered
            console listing), for the session ledger; ``None`` lets the pipeline measure it for
            reads (a full ``aria_snapshot(mode="ai")``) or assume the result's own tokens.
    """

    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    capture: bool = True
    version: str | None = None
    tab: int | None = None
    images: list[tuple[str, bytes]] = field(default_factory=list)
    baseline_tokens: int | None = None


Handler = Callable[[ToolCall], Awaitable[Rendered]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the MCP client sees it, plus its handler.

    Attributes:
        name: MCP tool name (``@playwright/mcp``'s name where the meaning matches).
        description: what the model reads; short and exact.
        properties: JSON-schema properties of the tool's own parameters.
        handler: coroutine ``(ToolCall) -> Rendered``.
        required: names of required properties.
        pageable: the result can be cut, so the tool takes ``offset``.
        caps: the ``--caps`` set the tool belongs to (``core``, ``debug``, ``vision``).
        read_only: MCP ``readOnlyHint``.
        fingerprinted: the result carries a content ``fingerprint``; the same call on an unchanged
            page returns "Unchanged since <fingerprint>" unless ``force`` is true.
        baseline: what the session ledger prices the call against when the handler gives no
            ``Rendered.baseline_tokens``: ``"page"`` = a full ``aria_snapshot(mode="ai")`` of the page
            (reads), ``"target"`` = the same of the call's ``target`` when it has one, else of the page;
            ``None`` (default) = the result's own tokens (no saving claimed).
        runs_page_code: the tool runs the caller's JavaScript in the page; ``--no-evaluate`` leaves it out.
    """

    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    handler: Handler
    required: tuple[str, ...] = ()
    pageable: bool = True
    caps: str = "core"
    read_only: bool = True
    fingerprinted: bool = False
    baseline: Literal["page", "target"] | None = None
    runs_page_code: bool = False

    def input_schema(self, *, strict: bool = False) -> dict[str, Any]:
        """Return the JSON schema of the tool's arguments, with ``maxTokens``/``offset``/``force`` added.

        The published schema (``strict=False``, sent in ``tools/list``) leaves out what only
        validation needs, since the model pays for every token of it on every turn; calls are
        validated against ``strict=True``, which also rejects unknown parameters and negative
        ``maxTokens``/``offset``.
        """
        props = dict(self.properties)
        props["maxTokens"] = MAX_TOKENS if strict else {"type": "integer"}
        if self.pageable:
            props["offset"] = OFFSET if strict else {"type": "integer"}
        if self.fingerprinted:
            props["force"] = FORCE
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if strict:
            schema["additionalProperties"] = False
        if self.required:
            schema["required"] = list(self.required)
        return schema
