"""Put a value into one form field: text, dates, checkboxes, radios, sliders and select-like widgets.

Used by ``browser_type`` and ``browser_fill_form``. Before acting, the field's state is read
(:func:`browser_ctx.browser.choose.widget_state`), so a readonly, disabled or non-editable field is a
precise error naming the element instead of a keystroke sent nowhere, and a native date/time input gets
its value in the ISO form it takes (:func:`browser_ctx.core.dates.input_value`) or a refusal naming the
format, before the field is touched. Times are milliseconds.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from .._errors import BrowserCtxError, InvalidArgument, SelectorError
from ..core.dates import input_value
from .choose import WidgetState, choose, widget_state
from .scripts import script
from .slider import slide
from .worlds import Worlds, on_element

__all__ = ["fill_field", "fill_failure", "type_into", "read_back", "leave_field", "FIELD_TYPES",
           "READBACK_TIMEOUT_MS"]

#: Milliseconds the read-back of a typed-into element (or the check that a filled field has the focus) may take.
READBACK_TIMEOUT_MS = 1000

#: ``browser_fill_form`` field types (as ``@playwright/mcp``).
FIELD_TYPES = ("textbox", "checkbox", "radio", "combobox", "slider")


def _refuse(state: WidgetState, label: str, verb: str) -> None:
    """Raise when ``state`` says the field cannot take text: disabled, readonly, or not editable."""
    if state.disabled:
        raise SelectorError(f"Could not {verb} {label}: it is disabled. Enable it first (check browser_snapshot "
                            "for what it depends on).")
    if state.readonly:
        raise SelectorError(f"Could not {verb} {label}: it is readonly; its value is set by the page, not typed.")


def _date_value(state: WidgetState, value: str) -> str:
    return input_value(state.type, value) if state.kind == "date" else value


#: What a number input takes (HTML's valid floating-point number, a leading + allowed as browsers do).
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

#: How ``browser_type`` puts its text in: in place of what the field holds, after it, or at the caret.
TYPE_MODES = ("replace", "append", "insert")


async def _keys_in(locator: Locator, text: str, mode: str, slowly: bool, timeout_ms: float, *, multiline: bool,
                   focus_only: bool = False, keyed: bool = False) -> str:
    """Put ``text`` in by the keyboard: for ``replace`` everything is selected first, for ``append`` the caret
    goes to the end, for ``insert`` it stays where it is (the element is only focused if it is not already).
    The text is inserted at once (``Input.insertText``: no key events), or with ``slowly`` key by key. ``keyed``
    (an element that is no form field): if the click gave the keys to a one-line ``input`` outside it (a
    terminal's hidden key sink), the text is typed key by key and nothing is selected or moved first (a terminal
    takes Ctrl+A as a key); else, if the element then shows the text's last line no more often than before,
    nothing took it: it is typed again key by key. Returns how it went: ``"sink"`` (the key sink), ``"keys"``
    (key by key) or ``""`` (inserted at once)."""
    page = locator.page
    if mode == "insert" or focus_only:
        if not await locator.evaluate("e => e.contains(document.activeElement)"):
            await locator.focus(timeout=timeout_ms)
    else:
        await locator.click(timeout=timeout_ms)
    if keyed and await locator.evaluate(_KEY_SINK):
        await page.keyboard.type(text)
        return "sink"
    if mode == "replace":
        await page.keyboard.press("ControlOrMeta+A")
    elif mode == "append":
        await page.keyboard.press("ControlOrMeta+End" if multiline else "End")
    if slowly:
        await page.keyboard.type(text)
        return "keys"
    lines = [" ".join(line.split()) for line in text.splitlines()]
    tail = next((line[-40:] for line in reversed(lines) if line), "")  # shown once typed: the caret is there
    before = await _times_shown(locator, tail) if keyed and tail else None
    await page.keyboard.insert_text(text)
    if before is None or (await _times_shown(locator, tail) or 0) > before:
        return ""
    await page.keyboard.type(text)  # nothing took the inserted text: the page listens to keys
    return "keys"


#: Whether the keys now go to a one-line input outside the element (``e``): a terminal's hidden key sink.
_KEY_SINK = ("e => { const a = e.ownerDocument.activeElement; return !!a && a.localName === 'input' && "
             "!e.contains(a); }")


async def _times_shown(locator: Locator, part: str) -> int | None:
    """How often the element's text (whitespace collapsed) holds ``part``; ``None`` when it cannot be read."""
    try:
        shown = str(await locator.evaluate("e => e.innerText || e.textContent || ''"))
    except PlaywrightError:
        return None
    return " ".join(shown.split()).count(part)


async def type_into(worlds: Worlds | None, locator: Locator, text: str, *, label: str, slowly: bool,
                    timeout_ms: float, mode: str = "replace", state: WidgetState | None = None) -> str | None:
    """Type ``text`` into ``locator``'s element; return a note for the record, or ``None``. ``worlds``: the
    locator's tab's, where its state is read (``None``: the main world).

    Text inputs, textareas and contenteditable elements are filled (``slowly``: key by key); a native
    date/time input gets the ISO form of ``text`` (never erased by a value it refuses); a select-like
    widget gets the option named ``text`` chosen; any other element (a code editor whose keys go to a
    hidden textarea) is clicked, its text selected and typed over with the keyboard, and the note says so.
    ``mode`` (:data:`TYPE_MODES`): ``replace`` (default; the note says how many characters it replaced),
    ``append`` (after the text it holds) or ``insert`` (at the caret) for text fields, contenteditables and
    code editors. ``state``: the element's :func:`.choose.widget_state`, when already read (else read here).

    Raises:
        SelectorError: the field is readonly or disabled (named), or a widget has no such option.
        InvalidArgument: a date/time value that is not valid or is ambiguous.
        playwright.async_api.Error: Playwright failed to act (callers translate it).
    """
    state = state or await widget_state(worlds, locator)
    if state.kind in ("text", "date", "editable", "combobox") or state.tag in ("input", "textarea"):
        _refuse(state, label, "type into")
    if state.kind in ("select", "listbox") or (state.kind == "combobox" and not state.editable):
        return (await choose(worlds, locator, [text], label=label, timeout_ms=timeout_ms)).note
    if state.kind == "date":
        iso = _date_value(state, text)
        await locator.fill(iso, timeout=timeout_ms)
        return None if iso == text else f"Entered as {iso} (the {state.type} input's ISO form)."
    if mode not in TYPE_MODES:
        raise InvalidArgument(f"mode must be one of {', '.join(TYPE_MODES)} (got {mode!r}).")
    held = state.text if state.kind in ("text", "combobox") else (state.value if state.kind == "editable" else "")
    replaced = (f"Replaced {len(held):,} character{'s' * (len(held) != 1)}." if held and mode == "replace"
                and not slowly else None)
    multiline = state.tag == "textarea" or state.kind == "editable"
    if state.kind in ("text", "editable", "combobox"):
        if mode != "replace":
            await _keys_in(locator, text, mode, slowly, timeout_ms, multiline=multiline)
        elif slowly:  # @playwright/mcp's slowly: key by key where the caret is, nothing cleared first
            await locator.wait_for(state="visible", timeout=timeout_ms)  # its keys would go nowhere
            await locator.press_sequentially(text, timeout=timeout_ms)
            if held:
                return f"Typed key by key where the caret was (slowly): the {len(held):,} characters it held stay."
        else:
            await _fill(worlds, locator, state, text, timeout_ms, label)
        return replaced
    keyed = await _keys_in(locator, text, mode, slowly, timeout_ms, multiline=True, keyed=True)
    if keyed == "sink":
        return "Not a form field (a terminal?): clicked it; its keys go to a hidden input: typed key by key."
    how = {"replace": "its text selected and typed over", "append": "typed after its text",
           "insert": "typed at its caret"}[mode]
    return f"Not a form field (a code editor?): clicked it, {how} with the keyboard{' key by key' * bool(keyed)}."


async def _fill(worlds: Worlds | None, locator: Locator, state: WidgetState, text: str, timeout_ms: float,
                label: str) -> None:
    """Playwright's ``locator.fill``; a ref's text field on a page of one frame, ready now, in two round trips
    instead of five (:meth:`.worlds.Worlds.ready_and_insert`: what fill does, without its waiting).

    Raises:
        InvalidArgument: text that is not a number for a number input (named by ``label``).
    """
    if state.tag == "input" and state.type == "number" and text.strip() and not _NUMBER.fullmatch(text.strip()):
        raise InvalidArgument(f"{label} takes a number; {text[:40]!r} is not one. Type digits, a dot for "
                              "decimals (2.5), e for an exponent (1e3).")
    if not (text and state.kind in ("text", "combobox") and worlds is not None
            and await worlds.ready_and_insert(locator, script("fill_ready"), text)):
        await locator.fill(text, timeout=timeout_ms)


async def fill_field(worlds: Worlds | None, locator: Locator, kind: str, value: str, *, label: str,
                     timeout_ms: float) -> str | None:
    """Set one ``browser_fill_form`` field; return a short note of what it now holds, or ``None``.

    Args:
        worlds: the worlds of the field's tab (its state is read there; ``None``: the main world).
        locator: the field (exactly one element).
        kind: one of :data:`FIELD_TYPES`: ``textbox`` fills (dates converted), ``slider`` sets a number or a
            percentage of its track (:func:`.slider.slide`), ``checkbox``
            ``"true"``/``"false"``, ``radio`` checks it, ``combobox`` chooses the option named ``value`` in
            any select-like widget (:func:`browser_ctx.browser.choose.choose`).
        value: the value, as a string.
        label: how messages name the field.
        timeout_ms: the action timeout.

    Raises:
        InvalidArgument: a checkbox value other than true/false, a bad date, an unknown type.
        SelectorError: readonly/disabled/not editable, no such option.
        playwright.async_api.Error: Playwright failed to act (callers translate it).
    """
    if kind == "slider":
        _refuse(await widget_state(worlds, locator), label, "set")
        return await slide(worlds, locator, value, label=label, timeout_ms=timeout_ms)
    if kind == "textbox":
        state = await widget_state(worlds, locator)
        if state.kind in ("select", "listbox") or (state.kind == "combobox" and not state.editable):
            return (await choose(worlds, locator, [value], label=label, timeout_ms=timeout_ms)).note
        _refuse(state, label, "fill")
        if state.kind not in ("text", "date", "editable", "combobox"):
            raise SelectorError(f"Could not fill {label}: it is not editable ({state.tag}"
                                f"{' role=' + state.role if state.role else ''}). Pick the field itself.")
        await _fill(worlds, locator, state, _date_value(state, value), timeout_ms, label)
        return None
    if kind == "checkbox":
        want = value.strip().lower()
        if want not in ("true", "false"):
            raise InvalidArgument(f"{label}: a checkbox value must be \"true\" or \"false\" (got {value!r}).")
        await locator.set_checked(want == "true", timeout=timeout_ms)
        return None
    if kind == "radio":
        await locator.check(timeout=timeout_ms)
        return None
    if kind == "combobox":
        return (await choose(worlds, locator, [value], label=label, timeout_ms=timeout_ms)).note
    raise InvalidArgument(f"{label}: unknown field type {kind!r}; use one of {', '.join(FIELD_TYPES)}.")


def fill_failure(done: list[str], failed: str, why: str, skipped: list[str]) -> str:
    """One line: what ``browser_fill_form`` filled, the field that failed and why, what it skipped."""
    filled = f"Filled {', '.join(repr(n) for n in done)}; " if done else "Nothing filled; "
    rest = f"; skipped (not tried): {', '.join(repr(n) for n in skipped)}" if skipped else ""
    return f"{filled}failed {failed!r}: {why.rstrip('.')}{rest}. Fix that field and send it and the skipped ones."


async def read_back(worlds: Worlds, locator: Any, *, ref: bool = False) -> str | None:
    """What the element shows now (a password, a card number or a one-time code only as ``(filled)``/``(empty)``,
    as reads show them); ``None`` if unreadable. ``ref``: ``locator`` is a ref's (read at once or not at all)."""
    try:
        if not ref and await locator.count() != 1:
            return None
        state = await widget_state(worlds, locator, READBACK_TIMEOUT_MS)
    except (PlaywrightError, BrowserCtxError):  # gone or busy: the record just has no read-back
        return None
    if state.sensitive:
        return "(filled)" if state.text or state.value else "(empty)"
    if state.kind in ("editable", "other") and len(state.items) > 1:
        return "\n".join(state.items)  # an editor's lines, not a list's items
    return state.text if state.kind in ("text", "date") else state.value


async def leave_field(worlds: Worlds, locator: Any, timeout: float) -> None:
    """Leave a filled text field as a person moving to the next field does (Tab), so a popup it opened (a
    date picker's calendar, suggestions) closes instead of covering the next field."""
    with contextlib.suppress(PlaywrightError):  # the field went away after filling: nothing to leave
        if await on_element(worlds, locator, "el => el === el.ownerDocument.activeElement",
                            timeout_ms=READBACK_TIMEOUT_MS):
            await locator.press("Tab", timeout=timeout)
