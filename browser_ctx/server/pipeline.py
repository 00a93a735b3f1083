"""What happens to every tool call: validate, render (or read on from a capture), scrub, cap, reply.

This is the one place results are cut to their token budget and errors become
one-line ``isError`` results, so every tool gets the same caps and metadata:

- ``maxTokens`` (o200k tokens, default ``CapSettings.default_max_tokens``) is clamped
  to ``[CapSettings.min_tokens, CapSettings.ceiling_tokens]``; every result also stays
  within ``CapSettings.ceiling_chars`` characters.
- ``offset`` (characters) > 0 reads on from the capture kept for the same tool and
  arguments on the current tab, without re-rendering; if the page changed since, the
  result says so (``pageChanged: true``).
- The structured content carries ``truncated``, ``fullLength`` (characters),
  ``fullTokens`` and, when cut, ``nextOffset``; the text itself ends with a marker line.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import jsonschema
import mcp_types as types

from .._errors import BrowserCtxError, InvalidArgument, one_line, translate
from ..browser.session import BrowserSession, Capture
from ..core.capping import cap
from ..core.tokens import count_tokens
from ..settings import Settings
from .registry import Rendered, ToolCall, ToolSpec

__all__ = ["call_tool", "error_result", "validate_arguments"]

log = logging.getLogger("browser_ctx")


def error_result(message: str) -> types.CallToolResult:
    """Return a one-line ``isError`` result."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=one_line(message, 600))], is_error=True)


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown parameter")
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    value = json.dumps(error.instance, ensure_ascii=False, default=str)
    if len(value) > 60:
        value = value[:57] + "..."
    expected = {
        "type": f"must be of type {error.validator_value}",
        "enum": f"must be one of {error.validator_value}",
        "minimum": f"must be >= {error.validator_value}",
        "maximum": f"must be <= {error.validator_value}",
    }.get(str(error.validator), error.message)
    return f"{where or 'arguments'} {expected} (got {value})"


def validate_arguments(spec: ToolSpec, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Check ``arguments`` against the tool's JSON schema.

    Raises:
        InvalidArgument: naming the first offending parameter and what it must be.
    """
    args = dict(arguments or {})
    validator = jsonschema.Draft202012Validator(spec.input_schema())
    errors = sorted(validator.iter_errors(args), key=lambda e: len(list(e.absolute_path)))
    if errors:
        raise InvalidArgument(f"Invalid arguments for {spec.name}: {_describe(errors[0])}.")
    return args


def _capture_key(name: str, args: dict[str, Any]) -> str:
    return name + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


async def _page_version(session: BrowserSession) -> str | None:
    tab = session.peek_tab()
    if tab is None:
        return None
    try:
        from ..browser.extract import page_version
    except ImportError:  # pragma: no cover - extractor not built yet
        return tab.page.url
    try:
        return await page_version(tab.page)
    except Exception:  # noqa: BLE001 - a page mid-navigation has no version
        return None


def _fingerprint(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


async def call_tool(spec: ToolSpec, arguments: dict[str, Any] | None, session: BrowserSession,
                    settings: Settings) -> types.CallToolResult:
    """Run one tool call end to end and return the MCP result (never raises for tool errors).

    Notes for the model (a relaunched browser, a page changed since a capture) travel in a
    separate text block before the result and in ``notes``, so offsets into the result stay
    exact; their tokens count against ``maxTokens`` too.
    """
    caps = settings.caps
    try:
        args = validate_arguments(spec, arguments)
        max_tokens = min(max(int(args.pop("maxTokens", caps.default_max_tokens)), caps.min_tokens),
                         caps.ceiling_tokens)
        offset = int(args.pop("offset", 0)) if spec.pageable else 0
        force = bool(args.pop("force", False)) if spec.fingerprinted else False
        async with session.lock:
            key = _capture_key(spec.name, args)
            tab = session.peek_tab()
            capture = tab.captures.get(key) if (tab is not None and offset > 0) else None
            extra: dict[str, Any] = {}
            notes: list[str] = []
            if capture is not None:
                now = await _page_version(session)
                if capture.version is not None and now is not None and now != capture.version:
                    extra["pageChanged"] = True
                    notes.append("The page changed since this result was captured; call without offset "
                                 "for a fresh read.")
                text, full_tokens = capture.text, capture.full_tokens
                extra.update(capture.meta)
            else:
                rendered: Rendered = await spec.handler(ToolCall(spec.name, args, session, settings))
                notes.extend(session.take_notes())
                text = session.redactor.scrub(rendered.text)
                full_tokens = count_tokens(text)
                extra.update(rendered.meta)
                tab = session.peek_tab()
                if spec.fingerprinted:
                    extra["fingerprint"] = _fingerprint(text)
                if rendered.capture and spec.pageable and tab is not None:
                    tab.keep(key, Capture(text, full_tokens, rendered.version, dict(extra)), caps.captures_per_tab)
            if spec.fingerprinted and tab is not None and not force:
                sent_key = f"{key}@{offset}@{max_tokens}"
                fp = extra.get("fingerprint")
                if fp and tab.sent.get(sent_key) == fp:
                    body = f"Unchanged since {fp} (same tool, target and offset); pass force: true to re-send."
                    return types.CallToolResult(content=[types.TextContent(type="text", text=body)],
                                                structured_content={"unchanged": True, "fingerprint": fp})
                if fp:
                    tab.sent[sent_key] = fp
        blocks: list[types.TextContent] = []
        if notes:
            extra["notes"] = notes
            note_text = " ".join(f"[{n}]" for n in notes)
            blocks.append(types.TextContent(type="text", text=note_text))
            max_tokens = max(1, max_tokens - count_tokens(note_text))
        capped = cap(text, max_tokens=max_tokens, max_chars=caps.ceiling_chars, offset=offset,
                     extra_meta=extra, full_tokens=full_tokens)
        blocks.append(types.TextContent(type="text", text=capped.text))
        return types.CallToolResult(content=blocks, structured_content=capped.meta)
    except BrowserCtxError as exc:
        return error_result(str(exc))
    except Exception as exc:  # noqa: BLE001 - nothing may crash the server
        log.exception("tool %s failed unexpectedly", spec.name)
        return error_result(str(translate(exc, action=spec.name.removeprefix("browser_").replace("_", " "))))
