"""Check the page: wait for visible text, and ``browser_verify``'s one-line PASS/FAIL checks.

Visible text is read as ``browser_text`` reads it (hidden content excluded), from
:func:`browser_ctx.browser.reading.walk_tab_page` (no accessibility tree: text shows no names); element checks
use Playwright's web-first ``expect`` (auto-waiting). Times are milliseconds.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, expect

from .._errors import BrowserCtxError, InvalidArgument, SelectorError, one_line, translate
from ..core.dom import strip_invisible
from ..core.markdown import render_text
from ..core.values import quote_value, whitespace_difference
from ..settings import Settings
from . import refs
from .choose import WidgetState, widget_state
from .reading import walk_tab_page
from .session import Tab
from .targets import describe_matches, locator_for, missing_ref
from .worlds import Worlds, on_element

__all__ = ["visible_lines", "wait_visible_text", "verify", "TEXT_POLL_MS", "VERIFY_MAX_TIMEOUT_MS"]

#: How often (ms) :func:`wait_visible_text` reads the page's visible text again.
TEXT_POLL_MS = 250
#: The longest ``timeout`` (ms) a ``browser_verify`` call may ask for.
VERIFY_MAX_TIMEOUT_MS = 60_000.0
#: Milliseconds one read of an element's current state (for a FAIL line) may take.
STATE_TIMEOUT_MS = 1000
#: Characters of a value a PASS/FAIL line quotes exactly (longer ones are cut and counted).
VALUE_CHARS = 200


def _quote(text: Any, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return '"' + text.replace('"', "'") + '"'


async def visible_lines(tab: Tab, settings: Settings) -> list[str]:
    """The page's visible text as lines (hidden content excluded, as in browser_text); [] on failure."""
    try:
        text = render_text((await walk_tab_page(tab, settings, 0, with_semantics=False)).doc)
    except BrowserCtxError:  # navigating, closed or busy: no lines, the caller polls again
        return []
    return [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]


async def wait_visible_text(tab: Tab, settings: Settings, text: str, timeout_ms: float, *,
                            gone: bool = False) -> bool:
    """Poll the page's visible text (every :data:`TEXT_POLL_MS`, 250 ms) until ``text`` appears (or, with
    ``gone``, is absent).

    Case-insensitive, whitespace-collapsed. Returns whether it happened within ``timeout_ms``.
    Hidden text never counts, unlike Playwright's ``get_by_text`` (which sees opacity-0 text).
    """
    want = " ".join(strip_invisible(text).split()).lower()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    while True:
        present = want in "\n".join(await visible_lines(tab, settings)).lower()
        if present != gone:
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(TEXT_POLL_MS / 1000)


async def _closest_texts(tab: Tab, settings: Settings, text: str) -> str:
    lines = [ln for ln in await visible_lines(tab, settings) if len(ln) <= 300]
    if not lines:
        return "no such visible text"
    low = text.lower()
    near = [ln for ln in lines if low[: max(3, len(low) // 2)] in ln.lower()][:3]
    if not near:
        near = difflib.get_close_matches(text, lines, n=3, cutoff=0.5)
    if not near:
        return "no such visible text"
    return "no such visible text; closest: " + ", ".join(_quote(n, 80) for n in near)


async def _state(worlds: Worlds, locator: Locator, what: str) -> str:
    """The element's current state for a FAIL line (never raises)."""
    try:
        n = await locator.count()
        if n == 0:
            return "no element"
        el = locator.first
        if what == "count":
            return str(n)
        if what == "text":
            text = await el.inner_text(timeout=STATE_TIMEOUT_MS)
            return _quote(text) if text.strip() else "no text"
        if what == "value":
            return quote_value((await widget_state(worlds, el, STATE_TIMEOUT_MS)).value, VALUE_CHARS)
        if what == "checked":
            return "checked" if await el.is_checked(timeout=STATE_TIMEOUT_MS) else "unchecked"
        if what == "enabled":
            return "enabled" if await el.is_enabled(timeout=STATE_TIMEOUT_MS) else "disabled"
        if what == "visible":
            return "visible" if await el.is_visible() else "hidden"
    except PlaywrightError as exc:  # the element went away or the page navigated: say so
        return one_line(str(exc), 80)
    return "?"


async def verify(tab: Tab, args: dict[str, Any], settings: Settings) -> str:
    """Check the page with Playwright's web-first ``expect`` (auto-waiting up to ``timeout`` ms).

    Args (camelCase, as the tool gets them): ``target`` (ref or selector), ``text`` (the target, or the
    page when no target, contains this visible text; case-sensitive for a target, case-insensitive on
    the page), ``visible``/``hidden`` (bool; with ``text`` and no target: the text is absent from the page),
    ``count`` (matches), ``value`` (a field's exact value; a custom select, combobox or contenteditable
    editor: the value it shows, a multi-select's items comma-separated in any order; a native select: the
    option's value or label),
    ``checked``, ``enabled`` (bool), ``url``/``title`` (the page's URL/title contains this),
    ``timeout`` (ms, default the action timeout, 5,000; clamped to 0-60,000). A target with no other check
    means ``visible: true``.

    Returns:
        ``"PASS"``, or ``"FAIL: expected …, got …"`` for the first failing check, with the element's
        current text/value/state or the closest visible texts on the page. Values are compared and quoted
        exactly (JSON-style: spaces kept, ``\\n``, ``\\t``); two that differ only in whitespace are told apart
        (``; differs at character 39: expected " " (space), got end of text``).

    Raises:
        InvalidArgument: nothing to check.
        StaleRefError: a ref whose element is gone (unless the check is for hidden / count 0).
        SelectorError: a selector that matches several elements for a single-element check.
    """
    page, worlds = tab.page, tab.worlds
    timeout = min(max(0.0, float(args.get("timeout", settings.timeouts.action_ms))), VERIFY_MAX_TIMEOUT_MS)
    target = (args.get("target") or "").strip() or None
    keys = ("text", "visible", "hidden", "count", "value", "checked", "enabled")
    if target and not any(k in args for k in keys):
        args = {**args, "visible": True}
    if not target and not any(k in args for k in ("text", "url", "title")):
        if any(k in args for k in keys):
            raise InvalidArgument("visible/hidden/count/value/checked/enabled need a target.")
        raise InvalidArgument("Nothing to verify: pass target, text, url or title (and what to expect).")
    if not target and any(k in args for k in ("count", "value", "checked", "enabled")):
        raise InvalidArgument("count/value/checked/enabled need a target (text alone takes visible/hidden).")

    checks: list[tuple[str, Any, Any]] = []  # (expected phrase, async check, async got)
    if "url" in args:
        url = args["url"]
        checks.append((f"URL to contain {_quote(url)}",
                       lambda: expect(page).to_have_url(re.compile(re.escape(url)), timeout=timeout),
                       lambda: _aval(_quote(page.url, 200))))
    if "title" in args:
        title = args["title"]

        async def got_title() -> str:
            return _quote(await page.title())
        checks.append((f"title to contain {_quote(title)}",
                       lambda: expect(page).to_have_title(re.compile(re.escape(title)), timeout=timeout),
                       got_title))
    if target:
        loc = locator_for(tab, target)
        gone_ok = args.get("hidden") is True or args.get("visible") is False or args.get("count") == 0
        single = any(k in args for k in ("text", "value", "checked", "enabled")) or args.get("visible") is True \
            or args.get("hidden") is False
        try:
            n = await loc.count()
        except PlaywrightError as exc:
            raise translate(exc, action="verify", target=target) from exc
        if n == 0 and refs.is_ref(target) and not gone_ok:
            raise missing_ref(tab, target)
        if n > 1 and single:
            shown = await describe_matches(loc, n, tab)
            raise SelectorError(f"{target!r} matches {n} elements; checks like text/value/visible need exactly "
                                f"one: {'; '.join(shown)}. Use a ref or a more specific selector "
                                "(count works with several).")
        name = target
        if "count" in args:
            c = int(args["count"])
            checks.append((f"{name} to match {c} element{'s' if c != 1 else ''}",
                           lambda: expect(loc).to_have_count(c, timeout=timeout), lambda: _state(worlds, loc, "count")))
        vis = args.get("visible")
        if vis is None and "hidden" in args:
            vis = not args["hidden"]
        if vis is True:
            checks.append((f"{name} to be visible", lambda: expect(loc).to_be_visible(timeout=timeout),
                           lambda: _state(worlds, loc, "visible")))
        elif vis is False:
            checks.append((f"{name} to be hidden", lambda: expect(loc).to_be_hidden(timeout=timeout),
                           lambda: _state(worlds, loc, "visible")))
        if "text" in args:
            text = args["text"]
            checks.append((f"{name} text to contain {_quote(text)}",
                           lambda: expect(loc).to_contain_text(text, timeout=timeout, use_inner_text=True),
                           lambda: _state(worlds, loc, "text")))
        if "value" in args:
            value = args["value"]
            try:
                is_password = await on_element(worlds, loc, "e => e.type === 'password'", timeout_ms=STATE_TIMEOUT_MS)
            except PlaywrightError:  # not there yet: the check itself waits and reports it
                is_password = False
            if is_password:
                raise InvalidArgument(f"{target!r} is a password field: its value is never read or compared. "
                                      "Check what the page shows after submitting instead.")
            checks.append((f"{name} value to be {quote_value(value, VALUE_CHARS)}",
                           lambda: _value_check(worlds, loc, value, timeout), lambda: _value_got(worlds, loc, value)))
        if "checked" in args:
            want = bool(args["checked"])
            checks.append((f"{name} to be {'checked' if want else 'unchecked'}",
                           lambda: expect(loc).to_be_checked(checked=want, timeout=timeout),
                           lambda: _state(worlds, loc, "checked")))
        if "enabled" in args:
            want_e = bool(args["enabled"])
            checks.append((f"{name} to be {'enabled' if want_e else 'disabled'}",
                           lambda: expect(loc).to_be_enabled(enabled=want_e, timeout=timeout),
                           lambda: _state(worlds, loc, "enabled")))
    elif "text" in args:
        text = args["text"]
        gone = args.get("hidden") is True or args.get("visible") is False

        async def text_check() -> None:
            if not await wait_visible_text(tab, settings, text, timeout, gone=gone):
                raise AssertionError(text)
        if gone:
            checks.append((f"no visible text {_quote(text)} on the page", text_check,
                           lambda: _aval(f"{_quote(text)} still shown")))
        else:
            checks.append((f"visible text {_quote(text)} on the page", text_check,
                           lambda: _closest_texts(tab, settings, text)))
    for expected, check, got in checks:
        try:
            await check()
        except AssertionError:
            return f"FAIL: expected {expected}, got {await got()}"
        except PlaywrightError as exc:
            raise translate(exc, action="verify", target=target) from exc
    return "PASS"


async def _aval(value: str) -> str:
    return value


async def _value_got(worlds: Worlds, loc: Locator, want: str) -> str:
    """A field's value for a FAIL line, exact, and where it differs from ``want`` when only whitespace does."""
    try:
        if await loc.count() == 0:
            return "no element"
        got = (await widget_state(worlds, loc.first, STATE_TIMEOUT_MS)).value
    except PlaywrightError as exc:  # the element went away or the page navigated: say so
        return one_line(str(exc), 80)
    diff = whitespace_difference(want, got)
    return quote_value(got, VALUE_CHARS) + (f"; {diff}" if diff else "")


def _same_value(shown: WidgetState, want: str) -> bool:
    """Whether a widget shows ``want``: the same text (whitespace collapsed), an editor the same lines (blank
    ones aside), or for a multi-select the same items in any order (``want`` comma-separated)."""
    norm = " ".join(want.split())
    if " ".join(shown.value.split()) == norm:
        return True
    lines = [" ".join(line.split()) for line in want.splitlines() if line.strip()]
    if len(lines) > 1 and lines == [" ".join(i.split()) for i in shown.items]:
        return True
    items = sorted(" ".join(i.split()) for i in shown.items)
    return len(items) > 1 and items == sorted(" ".join(p.split()) for p in norm.split(","))


async def _value_check(worlds: Worlds, loc: Locator, value: str, timeout: float) -> None:
    """Auto-waiting value check: a native input/textarea/select through Playwright's ``to_have_value`` (a
    select's option value); any other widget (custom select, combobox, contenteditable editor) by the
    value it shows (:func:`browser_ctx.browser.choose.widget_state`), polled every :data:`TEXT_POLL_MS`."""
    try:
        state = await widget_state(worlds, loc.first, STATE_TIMEOUT_MS)
    except PlaywrightError:  # not there (yet): Playwright's check waits for it and reports what it found
        await expect(loc).to_have_value(value, timeout=timeout)
        return
    if state.tag in ("input", "textarea") and not (state.role == "combobox" and not state.text) \
            or state.tag == "select":
        if state.tag == "select" and _same_value(state, value):
            return  # the option's label, as people read it
        await expect(loc).to_have_value(value, timeout=timeout)
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout / 1000
    while not _same_value(state, value):
        if loop.time() >= deadline:
            raise AssertionError(value)
        await asyncio.sleep(TEXT_POLL_MS / 1000)
        try:
            state = await widget_state(worlds, loc.first, STATE_TIMEOUT_MS)
        except PlaywrightError as exc:  # the widget went away while polled: a mismatch, reported with its state
            raise AssertionError(value) from exc
