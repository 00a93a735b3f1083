"""Debugging: ``browser_evaluate``, the caller's JavaScript run in the page (or on one element) and its result
serialised safely.

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``function``, ``target``, ``filename``). ``--no-evaluate``
leaves the tool out (``ToolSpec.runs_page_code``).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import ActionTimeout, InvalidArgument, PageError, one_line, translate
from ...browser.reading import interrupt_scripts
from ...browser.scripts import script
from ...core.jsonsafe import Limits, parse_result, render_result
from ..registry import Rendered, ToolCall, ToolSpec
from .element import one_element

if TYPE_CHECKING:
    from ...browser.session import Tab

__all__ = ["TOOLS", "evaluate"]

#: Characters shown to the caller: a CSP report, a SyntaxError's detail, a thrown error's message.
CSP_MESSAGE_CHARS, SYNTAX_DETAIL_CHARS, THROWN_CHARS = 220, 160, 300

_CSP_HINTS = ("content security policy", "unsafe-eval", "trustedhtml", "trustedscript", "trusted type")


def _wrapper(function: str, limits: Limits) -> str:
    """The page-side function Playwright calls (with the target element, if any): ``browser/js/evaluate.js``
    applied to the caller's code, the safe serialiser and its limits.

    The caller's source is the one thing spliced in: it must be compiled as part of this function, since
    ``eval``/``new Function`` in the page would be refused by a strict CSP. It becomes an async thunk
    (``async () => [(<function>)]``) that ``evaluate.js`` calls inside its ``try``, after its CSP listener
    is installed; a bare expression works too, ``await`` included.
    """
    return (f"async (__bcElement) => ({script('evaluate')})(__bcElement, async () => [({function}\n)], "
            f"{script('serialise')}, {json.dumps(limits.as_js())})")


def _csp_error(message: str) -> PageError:
    return PageError(f"The page's Content-Security-Policy (CSP) blocked what the function did: "
                     f"{one_line(message, CSP_MESSAGE_CHARS)} Inline or injected scripts, eval()/new Function()/"
                     "string timers run later, and HTML assigned without Trusted Types cannot run on this page; "
                     "do the work directly in the function instead.")


async def _in_page(tab: Tab, wrapper: str) -> Any:
    """``wrapper()`` run in the main frame's main world: through our CDP session (no Playwright helper in the
    page's world, so a page that replaced ``Map`` cannot break it), else through Playwright's ``page.evaluate``."""
    if await tab.worlds.cdp_available():
        return await tab.worlds.in_main_world(f"() => ({wrapper})(undefined)")
    return await tab.page.evaluate(wrapper)


async def evaluate(call: ToolCall) -> Rendered:
    """Run ``function`` in the page (or on the element ``target`` names) and return its result, safely serialised.

    ``function`` is ``() => …`` or ``(element) => …`` (async allowed; a bare expression works too).
    The result is serialised in the page by ``browser/js/serialise.js``
    (cycles, DOM nodes, functions, BigInt, huge strings and arrays become markers) and rendered by
    :func:`browser_ctx.core.jsonsafe.render_result`; the pipeline caps it (``offset`` reads on).
    ``filename`` saves the whole rendering instead and returns its path and size.

    Raises:
        InvalidArgument: the function is not valid JavaScript, or ``filename`` is refused
            (:func:`browser_ctx.files.output_path`; checked before the function runs).
        PageError: it threw (name and message given), or the page's CSP blocked what it does (named).
        ActionTimeout: it ran longer than the read timeout (15 s by default).
        SelectorError: ``target`` matches no element or several.
    """
    args = call.args
    tab = await call.session.current_tab()
    source = args["function"].strip()
    if not source:
        raise InvalidArgument("function is empty; pass e.g. () => document.title.")
    # A refused filename (outside the output folder, NUL, too long, a folder) stops the call before page code runs.
    path = files.output_path(call.settings, args["filename"]) if args.get("filename") else None
    wrapper = _wrapper(source, Limits())
    target = args.get("target")
    timeout_ms = call.settings.timeouts.read_ms
    try:
        if target:
            locator = await one_element(tab, target, call.settings)
            raw = await asyncio.wait_for(tab.worlds.on_element_in_main_world(locator, wrapper, timeout_ms=timeout_ms),
                                         timeout_ms / 1000)
        else:
            raw = await asyncio.wait_for(_in_page(tab, wrapper), timeout_ms / 1000)
    except TimeoutError as exc:
        stopped = await interrupt_scripts(tab)
        after = ("it was stopped and the page is usable again" if stopped else
                 "if the page is stuck, close the tab (browser_tabs close)")
        raise ActionTimeout(f"The function did not finish within {timeout_ms:.0f} ms (an endless loop, or a promise "
                            f"that never settles?); {after}.") from exc
    except PlaywrightError as exc:
        msg = str(exc)
        low = msg.lower()
        if any(h in low for h in _CSP_HINTS):
            raise _csp_error(msg) from exc
        if "syntaxerror" in low:
            detail = msg.split("SyntaxError:", 1)[-1].split(" at ", 1)[0].split("\n", 1)[0]
            detail = one_line(detail, SYNTAX_DETAIL_CHARS)
            raise InvalidArgument(f"function is not valid JavaScript (SyntaxError: {detail}); pass e.g. "
                                  "() => document.title or (element) => element.value.") from exc
        raise translate(exc, action="evaluate", target=target) from exc
    try:
        value = parse_result(raw if isinstance(raw, str) else "")
    except ValueError as exc:
        raise PageError("The page returned a result that could not be read; try again.") from exc
    if isinstance(value, dict) and len(value) == 1 and "$csp" in value:
        blocked = ", ".join(value["$csp"].get("blocked") or [])
        thrown = value["$csp"].get("thrown")
        raise _csp_error(f"{blocked}" + (f"; the function threw {thrown.get('name')}: {thrown.get('message')}"
                                         if thrown else "") + ".")
    if isinstance(value, dict) and len(value) == 1 and "$thrown" in value:
        thrown = value["$thrown"]
        name, message = str(thrown.get("name", "Error")), str(thrown.get("message", ""))
        if any(h in f"{name} {message}".lower() for h in _CSP_HINTS):
            raise _csp_error(f"{name}: {message}")
        raise PageError(f"The function threw {name}: {one_line(message, THROWN_CHARS)}")
    rendered = render_result(value)
    meta: dict[str, Any] = {"resultType": rendered.result_type}
    if path is not None:
        data = rendered.text.encode("utf-8")
        files.save(path, data)
        return Rendered(f"Saved the {rendered.result_type} result to {path} ({len(rendered.text):,} characters, "
                        f"{len(data):,} bytes).", meta={**meta, "path": str(path), "bytes": len(data)},
                        capture=False, tab=tab.id)
    return Rendered(rendered.text, meta=meta, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(
        name="browser_evaluate",
        description="Run JS () => … in the page, or (element) => … on target. filename: save the result instead.",
        properties={"function": _STR, "target": _STR, "filename": _STR},
        required=("function",),
        handler=evaluate,
        caps="debug",
        read_only=False,
        runs_page_code=True,
    ),
]
