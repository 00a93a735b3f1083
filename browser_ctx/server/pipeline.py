"""What happens to every tool call: validate, render (or read on from a capture), scrub, cap, reply.

This is the one place results are cut to their token budget and errors become
one-line ``isError`` results, so every tool gets the same caps and metadata:

- ``maxTokens`` (o200k tokens, default ``CapSettings.default_max_tokens``) becomes the call's
  :class:`~browser_ctx.core.budget.Budget`, clamped once here to
  ``[CapSettings.min_tokens, CapSettings.ceiling_tokens]``; every result also stays within
  ``CapSettings.ceiling_chars`` characters. Handlers read it as ``ToolCall.budget``.
- ``offset`` (characters) > 0 reads on from the capture kept for the same tool and
  arguments on the current tab, without re-rendering; if the page changed since, the
  result says so (``pageChanged: true``).
- The structured content of a cut result carries ``truncated``, ``fullLength`` (characters), ``fullTokens``
  and ``nextOffset``, and the text ends with a marker line; a result shown whole leaves them out
  (:func:`compact_meta`). Notes travel in a text block before the result only.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from typing import Any

import jsonschema
import mcp_types as types

from .._errors import BrowserCtxError, InvalidArgument, one_line, translate
from ..browser.refs import page_version
from ..browser.session import BrowserSession, Capture, Tab
from ..core.budget import Budget
from ..core.capping import Capped, cap
from ..core.delta import diff_renderings, render_delta
from ..core.fingerprint import HISTORY_PER_KEY, PAGE_META_KEY, result_fingerprint
from ..core.tokens import count_tokens
from ..core.urls import clip_middle
from ..settings import Settings
from .registry import Rendered, ToolCall, ToolSpec
from .tools.ledger import drop_waiting_baselines, measure_baseline

__all__ = ["call_tool", "error_result", "validate_arguments", "page_changed", "cap_capture", "META_STRING_CHARS"]

log = logging.getLogger("browser_ctx")


#: Characters of an error result (one line; longer messages are cut).
ERROR_CHARS = 600
#: Characters of a rejected argument value quoted in a validation error.
QUOTED_VALUE_CHARS = 60


def error_result(message: str) -> types.CallToolResult:
    """Return a one-line ``isError`` result (at most :data:`ERROR_CHARS` characters)."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=one_line(message, ERROR_CHARS))],
                                is_error=True)


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown parameter")
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    value = json.dumps(error.instance, ensure_ascii=False, default=str)
    if len(value) > QUOTED_VALUE_CHARS:
        value = value[:QUOTED_VALUE_CHARS - 3] + "..."
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
    validator = jsonschema.Draft202012Validator(spec.input_schema(strict=True))
    errors = sorted(validator.iter_errors(args), key=lambda e: len(list(e.absolute_path)))
    if errors:
        raise InvalidArgument(f"Invalid arguments for {spec.name}: {_describe(errors[0])}.")
    return args


def _capture_key(name: str, args: dict[str, Any]) -> str:
    return name + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


async def page_changed(tab: Tab, capture: Capture) -> bool:
    """Whether ``tab``'s page changed since ``capture`` was rendered (``False`` when either version is unknown)."""
    if capture.version is None:
        return False
    now = await page_version(tab.page, worlds=tab.worlds)
    return now is not None and now != capture.version


def cap_capture(text: str, full_tokens: int, budget: Budget, offset: int, extra: dict[str, Any]) -> Capped:
    """Cut a whole result (``text``, ``full_tokens`` o200k tokens) to ``budget`` from ``offset`` (characters),
    with ``extra`` structured fields counted against the budget: the one cut every tool result and every
    resource read goes through."""
    return cap(text, max_tokens=budget.tokens, max_chars=budget.chars, offset=offset, extra_meta=extra,
               full_tokens=full_tokens)


#: Characters of one string in structured fields (a URL can be 60,000 characters long); the text
#: part is capped by tokens, these are cut in the middle.
META_STRING_CHARS = 500


def _scrub_meta(session: BrowserSession, value: Any) -> Any:
    """Scrub remembered secrets from every string in structured fields (a URL may carry a token) and
    cut strings longer than :data:`META_STRING_CHARS` in the middle (saying how much was left out)."""
    if isinstance(value, str):
        return clip_middle(session.redactor.scrub(value), META_STRING_CHARS)
    if isinstance(value, dict):
        return {k: _scrub_meta(session, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub_meta(session, v) for v in value]
    return value


#: Tokens of a ``since`` answer kept back for its head line and structured fields; the changes get the rest.
SINCE_RESERVE_TOKENS = 150


def _unknown_since(tool: str, since: str) -> str:
    return (f"since {since!r} is not a fingerprint of a recent {tool} with these arguments on this tab (the last "
            f"{HISTORY_PER_KEY} are kept); take a full read without since.")


def _unchanged(fp: str, notes: list[str], why: str) -> types.CallToolResult:
    """The few-token answer to a read whose page state within the target is what ``fp`` describes
    (``why`` ends the sentence); notes travel before it as in every result."""
    content = [types.TextContent(type="text", text=" ".join(f"[{n}]" for n in notes))] if notes else []
    content.append(types.TextContent(type="text", text=f"Unchanged since {fp} {why}"))
    meta: dict[str, Any] = {"unchanged": True, "fingerprint": fp}
    return types.CallToolResult(content=list(content), structured_content=meta)


def _changes_since(tool: str, since: str, fp: str, earlier: str, now: str, budget: Budget,
                   page: str | None = None) -> str:
    """What changed between the read ``since`` (text ``earlier``) and this one (``now``, fingerprint ``fp``),
    as appeared (``+``), disappeared (``-``) and changed (``~``) lines with refs, like an action record.

    ``page`` is this read's page fingerprint (``None`` for a tool that walks no page). When no line shows a
    change, the page decides the answer: the same page (``since`` is ``earlier`` with this page) with new
    refs (a reload) is "Unchanged since … in content"; another page changed inside what the read folds or
    cuts, and the answer says so instead of listing only the new refs (a false "no change")."""
    delta = diff_renderings(earlier, now)
    max_tokens = max(1, budget.tokens - SINCE_RESERVE_TOKENS)
    if page is not None and not (delta.appeared or delta.disappeared or delta.changed or delta.summary):
        refs = "\n" + render_delta(delta, max_tokens=max_tokens) if delta.rerendered else ""
        if result_fingerprint(earlier, page) == since:
            return (f"Unchanged since {since} in content (the page within the target is as it was then); its refs "
                    f"are new (fingerprint now {fp}).{refs}")
        return (f"No change in the lines {tool} shows since {since}, but the page changed inside what it walked and "
                f"does not show (a folded run, cut text, a form value; fingerprint now {fp}): read that part with a "
                f"target (a fold line names one).{refs}")
    body = render_delta(delta, max_tokens=max_tokens, whole=f"{tool} without since")
    return f"Changes since {since} (fingerprint now {fp}):\n{body}"


#: Tools whose structured content carries ``sessionTokens`` (the ledger's total after the call).
SESSION_TOKENS_TOOLS = frozenset({"browser_ctx_stats"})
#: Fields a result that was not cut leaves out: they would only repeat what the text shows.
_WHOLE_FIELDS = ("truncated", "fullLength", "fullTokens")


def compact_meta(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The structured content a client receives: a result that was not cut carries no ``truncated``,
    ``fullLength`` or ``fullTokens`` (they would repeat the text); ``None`` when nothing is left (the text says
    it all). Every field costs the model tokens on every call."""
    if not meta.get("truncated"):
        meta = {k: v for k, v in meta.items() if k not in _WHOLE_FIELDS}
    return meta or None


#: Rounds of counting the structured content with its own ``sessionTokens`` figure until the figure
#: includes itself (it settles in one or two; a figure that gains a digit needs another).
SESSION_TOKENS_ROUNDS = 4
#: Stand-in for ``sessionTokens`` while capping, at least as wide as the real figure, so the
#: cap leaves room for it.
_SESSION_PLACEHOLDER = 10**12


class _CallInfo:
    """What the ledger needs from a call besides its result: baseline and image tokens."""

    def __init__(self) -> None:
        #: Tokens, ``None`` (unknown), or a task measuring them in the background.
        self.baseline: int | None | asyncio.Future[int | None] = None
        self.image_tokens = 0
        #: The call is a read whose baseline can be measured (``ToolSpec.baseline`` is set).
        self.measurable = False


def _tokens_json(value: Any) -> int:
    return count_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _account(session: BrowserSession, tool: str, result: types.CallToolResult, info: _CallInfo) -> None:
    """Record the call in ``session.ledger`` and set ``sessionTokens`` in its structured content.

    ``sessionTokens`` counts itself: it is the ledger's total after this call, including the
    tokens of the structured content that carries it (settled in a few rounds).
    """
    ledger = session.ledger
    text_tokens = sum(count_tokens(c.text) for c in result.content if isinstance(c, types.TextContent))
    sc = result.structured_content
    meta_tokens = 0
    if sc is not None and "sessionTokens" not in sc:
        meta_tokens = _tokens_json(sc)
    elif sc is not None:
        fixed = ledger.session_tokens + info.image_tokens + text_tokens
        guess = fixed + _tokens_json({**sc, "sessionTokens": fixed})
        for _ in range(SESSION_TOKENS_ROUNDS):
            sc["sessionTokens"] = guess
            meta_tokens = _tokens_json(sc)
            if fixed + meta_tokens == guess:
                break
            guess = fixed + meta_tokens
    tokens = text_tokens + meta_tokens
    baseline = info.baseline
    if isinstance(baseline, asyncio.Future):
        ledger.record(tool, tokens, image_tokens=info.image_tokens, error=bool(result.is_error), pending=True,
                      measurable=info.measurable)
        provisional = tokens + info.image_tokens

        def settle(task: asyncio.Future[int | None]) -> None:
            measured = None if task.cancelled() or task.exception() is not None else task.result()
            ledger.settle(tool, provisional, measured)

        baseline.add_done_callback(settle)
    else:
        ledger.record(tool, tokens, baseline=baseline, image_tokens=info.image_tokens, error=bool(result.is_error),
                      measurable=info.measurable)


async def call_tool(spec: ToolSpec, arguments: dict[str, Any] | None, session: BrowserSession,
                    settings: Settings) -> types.CallToolResult:
    """Run one tool call end to end and return the MCP result (never raises for tool errors).

    Notes for the model (a relaunched browser, a page changed since a capture) travel in a
    separate text block before the result and in ``notes``, so offsets into the result stay
    exact; their tokens count against ``maxTokens`` too. Images a handler returns follow the
    text as ``ImageContent`` blocks (not counted as text tokens). Every call is recorded in
    ``session.ledger`` and its structured content carries ``sessionTokens``.
    """
    info = _CallInfo()
    info.measurable = spec.baseline is not None
    try:
        result = await _call_tool(spec, arguments, session, settings, info)
    finally:
        session.last_call_end = time.monotonic()
    try:
        _account(session, spec.name, result, info)
    except Exception:  # noqa: BLE001 - bookkeeping never fails a call
        log.exception("ledger failed for %s", spec.name)
    return result


async def _call_tool(spec: ToolSpec, arguments: dict[str, Any] | None, session: BrowserSession,
                     settings: Settings, info: _CallInfo) -> types.CallToolResult:
    caps = settings.caps
    try:
        args = validate_arguments(spec, arguments)
        budget = Budget.from_request(args.pop("maxTokens", None), caps)
        offset = int(args.pop("offset", 0)) if spec.pageable else 0
        force = bool(args.pop("force", False)) if spec.fingerprinted else False
        since = args.pop("since", None) if spec.fingerprinted else None
        async with session.lock:
            key = _capture_key(spec.name, args)
            tab = session.peek_tab()
            if since is not None and (tab is None or tab.history.get(key, since) is None):
                raise InvalidArgument(_unknown_since(spec.name, since))
            capture = tab.captures.get(key) if (tab is not None and offset > 0 and since is None) else None
            extra: dict[str, Any] = {}
            notes: list[str] = []
            images: list[tuple[str, bytes]] = []
            if capture is not None and tab is not None:
                if await page_changed(tab, capture):
                    extra["pageChanged"] = True
                    notes.append("The page changed since this result was captured; call without offset "
                                 "for a fresh read.")
                text, full_tokens = capture.text, capture.full_tokens
                extra.update(capture.meta)
            else:
                if not spec.read_only:
                    drop_waiting_baselines(session)  # never delay a call that changes the page to price a read
                rendered: Rendered = await spec.handler(ToolCall(spec.name, args, session, settings, budget))
                notes.extend(session.redactor.scrub(n) for n in session.take_notes())  # may quote page text
                images = list(rendered.images)
                if images:
                    info.image_tokens = int(rendered.meta.get("estimatedImageTokens") or 0)
                info.baseline = rendered.baseline_tokens
                if info.baseline is None and spec.baseline is not None:
                    target = args.get("target") if spec.baseline == "target" else None
                    info.baseline = await measure_baseline(session, target, rendered.version)
                meta = dict(rendered.meta)
                walked = meta.pop(PAGE_META_KEY, None)
                text = session.redactor.scrub(rendered.text)
                full_tokens = count_tokens(text)
                extra.update(_scrub_meta(session, meta))
                tab = session.peek_tab()
                if spec.fingerprinted:
                    extra["fingerprint"] = result_fingerprint(text, walked if isinstance(walked, str) else None)
                    if tab is not None:
                        earlier = tab.history.get(key, since) if since is not None else None
                        tab.history.remember(key, extra["fingerprint"], text)
                        if since is not None:
                            if earlier is None:  # another tab became current while reading
                                raise InvalidArgument(_unknown_since(spec.name, since))
                            if extra["fingerprint"] == since:
                                return _unchanged(since, notes, "(the page within the target is as it was then).")
                            text = _changes_since(spec.name, since, extra["fingerprint"], earlier, text, budget,
                                                  walked if isinstance(walked, str) else None)
                            full_tokens = count_tokens(text)
                            extra["since"] = since
                if rendered.capture and spec.pageable and tab is not None and since is None:
                    tab.keep(key, Capture(text, full_tokens, rendered.version, dict(extra)), caps.captures_per_tab)
            if spec.fingerprinted and tab is not None and not force and since is None:
                sent_key = f"{key}@{offset}@{budget.tokens}@{tab.page.url}"  # a new page is always sent
                fp = extra.get("fingerprint")
                if fp and tab.sent.get(sent_key) == fp:
                    return _unchanged(fp, notes, "(same tool, target and offset); pass force: true to re-send.")
                if fp:
                    tab.sent[sent_key] = fp
        blocks: list[types.TextContent] = []
        if notes:
            note_text = " ".join(f"[{n}]" for n in notes)
            blocks.append(types.TextContent(type="text", text=note_text))
            budget = budget.reserve(count_tokens(note_text))
        if spec.name in SESSION_TOKENS_TOOLS:
            extra["sessionTokens"] = _SESSION_PLACEHOLDER  # the real figure is set by _account
        capped = cap_capture(text, full_tokens, budget, offset, extra)
        blocks.append(types.TextContent(type="text", text=capped.text))
        content: list[Any] = list(blocks)
        content.extend(types.ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime)
                       for mime, data in images)
        return types.CallToolResult(content=content, structured_content=compact_meta(capped.meta))
    except BrowserCtxError as exc:  # errors quote URLs and page text: scrubbed like any result
        return error_result(session.redactor.scrub(str(exc)))
    except Exception as exc:  # noqa: BLE001 - nothing may crash the server
        log.exception("tool %s failed unexpectedly", spec.name)
        error = translate(exc, action=spec.name.removeprefix("browser_").replace("_", " "))
        return error_result(session.redactor.scrub(str(error)))
