"""Choose a value in any select-like widget: native ``<select>``, ARIA comboboxes, ``role=listbox``.

One notion of "choose a value", used by ``browser_select_option`` and ``browser_fill_form``'s
``combobox`` fields (:func:`choose`):

- a native ``<select>``: Playwright's ``select_option``, by label, then by value;
- an ARIA combobox (an editable ``<input role=combobox>`` with suggestions, react-select single and
  multi, or a button-like trigger with a portal listbox: Radix, MUI, Headless UI): open it (click),
  type the value to filter when it is editable, pick the option by accessible name (exact, then
  case-insensitive), then check that the value it shows changed;
- a ``role=listbox`` on its own: click the option inside it.

Options are looked for in the element the widget names with ``aria-controls``/``aria-owns``, else
among the visible options of the widget's frame (portals render outside the widget). When an option
does not exist, the list is closed, the field's own text is put back, and the error lists the options
that do (at most :data:`LIST_OPTIONS`). Times are milliseconds.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Locator

from .._errors import ActionTimeout, SelectorError
from .refs import REF_ENGINE_NAME
from .scripts import bundle
from .worlds import Worlds, frame_of, on_element, on_elements

__all__ = ["choose", "Chosen", "widget_state", "WidgetState", "LIST_OPTIONS", "OPTION_WAIT_MS"]

#: How many existing options an "no such option" error lists.
LIST_OPTIONS = 12
#: How long (ms) to wait for a matching option after the list shows options (suggestions may be loading).
OPTION_WAIT_MS = 1500
#: How often (ms) the open list is looked at again.
POLL_MS = 100
#: How long (ms) to wait for the shown value to change after picking an option.
CONFIRM_MS = 2000
#: Milliseconds reading a widget's state may take.
STATE_TIMEOUT_MS = 2000
#: Milliseconds a native select is looked for after its choice (it is there at once, unless the choice loaded
#: another page: then waiting for it only delays the record).
GONE_MS = 50

#: A native select's options for ``values``: exact label, then case-insensitive label, then value (as
#: js/choose_hidden.js). Returns {indices, missing (values no option has), names (every option's label)}.
_PICK_JS = ("(sel, values) => { const t = (s) => (s || '').replace(/\\s+/g, ' ').trim();"
            " const opts = Array.from(sel.options), names = opts.map((o) => t(o.label || o.text));"
            " const pick = (v) => { let i = names.indexOf(t(v));"
            " if (i < 0) i = names.findIndex((n) => n.toLowerCase() === t(v).toLowerCase());"
            " if (i < 0) i = opts.findIndex((o) => o.value === v); return i; };"
            " const found = values.map(pick);"
            " return {indices: found.filter((i) => i >= 0), missing: values.filter((v, k) => found[k] < 0), names}; }")


@cache
def _native_js() -> str:
    """One read of a native select: whether a trigger stands for it (``choose_hidden``, changing nothing) and the
    option indices of ``values`` (:data:`_PICK_JS`)."""
    return (f"(sel, values) => ({{hidden: ({bundle('choose_hidden')})(sel, null),"
            f" found: ({_PICK_JS})(sel, values)}})")


_OPTIONS_JS = ("els => els.filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 })"
               ".map(e => (e.getAttribute('aria-label') || e.innerText || '').replace(/\\s+/g, ' ').trim())")


@dataclass(frozen=True)
class WidgetState:
    """What :file:`widget_state.js` reads of one element (see that file for each field)."""

    tag: str
    type: str
    role: str
    kind: str
    editable: bool
    readonly: bool
    disabled: bool
    multiple: bool
    expanded: bool
    controls: str
    text: str
    value: str
    items: tuple[str, ...]
    sensitive: bool = False


async def widget_state(worlds: Worlds | None, locator: Locator, timeout_ms: float = STATE_TIMEOUT_MS) -> WidgetState:
    """Read the kind, state and shown value of ``locator``'s element (in the isolated world of ``worlds``, the
    locator's tab's; ``None``: the main world).

    Raises:
        playwright.async_api.Error: the element is gone or the page navigated (callers translate it).
    """
    raw: dict[str, Any] = await on_element(worlds, locator, bundle("widget_state"), timeout_ms=timeout_ms)
    return WidgetState(**{**raw, "items": tuple(raw["items"])})


def _quoted(names: list[str]) -> str:
    shown = [f'"{n}"' for n in names[:LIST_OPTIONS]]
    more = f", … {len(names) - LIST_OPTIONS} more" if len(names) > LIST_OPTIONS else ""
    return ", ".join(shown) + more if shown else "none"


async def _frame_of(worlds: Worlds | None, locator: Locator) -> Frame:
    handle = await locator.element_handle()
    try:
        frame = await frame_of(worlds, handle, locator.page)
    finally:
        await handle.dispose()
    if frame is None:
        raise SelectorError("The element is no longer in a page. Take a new browser_snapshot.")
    return frame


def _option_scope(frame: Frame, state: WidgetState, listbox: Locator | None) -> Locator:
    """Where the widget's options are: the listbox itself, the element it controls, or its frame."""
    if listbox is not None:
        return listbox
    return frame.locator(f'[id="{state.controls}"]') if state.controls else frame.locator(":root")


async def _visible_options(worlds: Worlds | None, scope: Locator) -> list[str]:
    try:
        names: list[str] = await on_elements(worlds, scope.get_by_role("option"), _OPTIONS_JS)
    except PlaywrightError:  # the list closed or re-rendered while read: none this time
        return []
    return [n for n in names if n]


async def _find_option(worlds: Worlds | None, scope: Locator, value: str, wait_ms: float) -> Locator | None:
    """The visible option named ``value`` (exact, then case-insensitive), waiting up to ``wait_ms`` for the
    list to show options and then :data:`OPTION_WAIT_MS` more for a match; ``None`` when there is none."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_ms / 1000
    match_deadline: float | None = None
    exact = scope.get_by_role("option", name=value, exact=True)
    loose = scope.get_by_role("option", name=re.compile(rf"^\s*{re.escape(value.strip())}\s*$", re.I))
    while True:
        for candidates in (exact, loose):
            for i in range(await candidates.count()):
                if await candidates.nth(i).is_visible():
                    return candidates.nth(i)
        now = loop.time()
        if match_deadline is None and await _visible_options(worlds, scope):
            match_deadline = now + OPTION_WAIT_MS / 1000
        if now >= (match_deadline if match_deadline is not None else deadline):
            return None
        await asyncio.sleep(POLL_MS / 1000)


async def _close_list(locator: Locator, state: WidgetState, timeout_ms: float) -> None:
    """Close an open list and put an editable field's text back (nothing chosen stays changed)."""
    try:
        if state.editable:
            await locator.fill(state.text, timeout=timeout_ms)
        await locator.press("Escape", timeout=timeout_ms)
    except PlaywrightError:  # the widget went away: nothing left open
        return


async def _choose_hidden(worlds: Worlds | None, locator: Locator, values: list[str], label: str,
                         timeout_ms: float) -> list[str]:
    """A native select the page hides behind a trigger of its own: select the options in the page and send the
    events a user's choice sends (``js/choose_hidden.js``); returns what the trigger shows, else the select."""
    got = await on_element(worlds, locator, bundle("choose_hidden"), values)
    if got.get("missing"):
        raise SelectorError(f"No option {_quoted(got['missing'])} in {label}; its options: {_quoted(got['names'])}. "
                            "Nothing was chosen.")
    shown = got.get("shown")
    ref = got.get("trigger")
    if shown is not None and ref and len(values) == 1 and values[0].strip().lower() not in shown.lower():
        # the widget does not follow its select's change event (Selectric): choose through its own list
        frame = await _frame_of(worlds, locator)
        trigger = frame.locator(f"{REF_ENGINE_NAME}={ref}")
        await trigger.click(timeout=timeout_ms)
        option = frame.get_by_text(values[0].strip(), exact=True).locator("visible=true").first
        await option.click(timeout=timeout_ms)
        shown = " ".join((await trigger.inner_text(timeout=timeout_ms)).split())
    return [shown] if shown else list((await widget_state(worlds, locator)).items)


async def _choose_native(worlds: Worlds | None, locator: Locator, values: list[str], label: str,
                         timeout_ms: float) -> list[str]:
    visible, read = await asyncio.gather(  # two reads, one round trip's wait
        locator.is_visible(), on_element(worlds, locator, _native_js(), values))
    if not visible or read["hidden"].get("trigger"):
        return await _choose_hidden(worlds, locator, values, label, timeout_ms)
    found = read["found"]
    if found["missing"]:
        raise SelectorError(f"No option {_quoted(found['missing'])} in {label}; its options: "
                            f"{_quoted(found['names'])}. Nothing was chosen.")
    await locator.select_option(index=found["indices"], timeout=timeout_ms)
    try:
        return list((await widget_state(worlds, locator, timeout_ms=GONE_MS)).items)
    except PlaywrightError:  # the choice loaded another page (a "jump to" select): what was chosen is all we know
        return list(values)


async def _pick(worlds: Worlds | None, locator: Locator, frame: Frame, state: WidgetState, value: str,
                label: str, timeout_ms: float, listbox: Locator | None) -> None:
    """Open the widget (unless it is a listbox or already open), filter, and click the option ``value``.

    ``state`` is the widget's state before anything was done (its ``text`` is put back on failure)."""
    original = state
    root = frame.locator(":root")
    already = set(await _visible_options(worlds, root)) if listbox is None else set()
    if listbox is None:
        if not state.expanded:
            await locator.click(timeout=timeout_ms)
        if state.editable:
            await locator.fill(value, timeout=timeout_ms)
        state = await widget_state(worlds, locator)
    scope = _option_scope(frame, state, listbox)
    option = await _find_option(worlds, scope, value, timeout_ms)
    if option is None and listbox is None and state.controls:  # some widgets name a list that is not the popup
        option = await _find_option(worlds, root, value, POLL_MS)
    if option is not None:
        await option.click(timeout=timeout_ms)
        return
    names = await _existing_options(worlds, locator, state, scope, timeout_ms)
    if scope is root:  # options that were on the page before the widget opened are not its own
        names = [n for n in names if n not in already] or names
    if listbox is None:
        await _close_list(locator, original, timeout_ms)
    raise SelectorError(f"No option \"{value}\" in {label}; its options: {_quoted(names)}. Nothing was chosen.")


async def _existing_options(worlds: Worlds | None, locator: Locator, state: WidgetState, scope: Locator,
                            timeout_ms: float) -> list[str]:
    """Every option the open widget offers: an editable one's filter is emptied first, and its list given up
    to :data:`OPTION_WAIT_MS` to show them (suggestions may be loading)."""
    if state.kind != "combobox" or not state.editable:
        return await _visible_options(worlds, scope)
    await locator.fill("", timeout=timeout_ms)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + OPTION_WAIT_MS / 1000
    names: list[str] = []
    while loop.time() < deadline:
        await asyncio.sleep(POLL_MS / 1000)
        names = await _visible_options(worlds, scope)
        if names:
            break
    return names


class Chosen(NamedTuple):
    """What :func:`choose` did: ``note`` for the record (``Now shows: "Spain"``); ``native``: in a native select."""

    note: str
    native: bool


async def choose(worlds: Worlds | None, locator: Locator, values: list[str], *, label: str,
                 timeout_ms: float) -> Chosen:
    """Choose ``values`` (option labels; a native select also takes option values) in ``locator``'s widget.

    Args:
        worlds: the worlds of the locator's tab (scripts run in its isolated world; ``None``: the main world).
        locator: exactly one element: a ``<select>``, an element with ``role=combobox`` or ``role=listbox``.
        values: the options to choose; several only for a multi-select (native ``multiple``, a multi
            combobox such as react-select's, a multiselectable listbox).
        label: how messages name the element (``combobox "Country" [e6]``).
        timeout_ms: how long to wait for the element to be actionable and for the list to show options.

    Returns:
        A :class:`Chosen`: the note for the action record, ``Now shows: "Spain"`` (the value the widget shows
        afterwards), and whether the widget was a native select.

    Raises:
        SelectorError: the element is not a select, combobox or listbox; an option does not exist (lists
            the ones that do; nothing is chosen); several values for a single-choice widget.
        ActionTimeout: the widget did not show the chosen value afterwards.
        playwright.async_api.Error: Playwright failed to act (callers translate it with ``action_error``).
    """
    if not values:
        raise SelectorError(f"No values to choose in {label}; pass at least one option label.")
    state = await widget_state(worlds, locator)
    if state.kind == "select":
        items = await _choose_native(worlds, locator, values, label, timeout_ms)
        return Chosen(f"Now shows: \"{', '.join(items)}\"", True)
    if state.kind not in ("combobox", "listbox"):
        raise SelectorError(f"{label} is not a select, combobox or listbox ({state.tag}"
                            f"{' role=' + state.role if state.role else ''}); click it and pick from what "
                            "opens, or use browser_type for a text field.")
    if state.readonly or state.disabled:
        raise SelectorError(f"Could not choose in {label}: it is {'disabled' if state.disabled else 'readonly'}.")
    if len(values) > 1 and not state.multiple and not (state.kind == "combobox" and state.editable
                                                       and state.tag == "input"):
        raise SelectorError(f"{label} takes one value; got {len(values)}.")
    frame = await _frame_of(worlds, locator)
    listbox = locator if state.kind == "listbox" else None
    before = state.items
    for value in values:
        now = await widget_state(worlds, locator)
        await _pick(worlds, locator, frame, now, value, label, timeout_ms, listbox)
    shown = await _confirm(worlds, locator, values, before)
    if listbox is None and (await widget_state(worlds, locator)).expanded:
        await locator.press("Escape", timeout=timeout_ms)  # a multi-select keeps its list open
    return Chosen(f"Now shows: \"{shown}\"", False)


async def _confirm(worlds: Worlds | None, locator: Locator, values: list[str], before: tuple[str, ...]) -> str:
    """Wait (at most :data:`CONFIRM_MS`) until the widget shows every chosen value; return what it shows."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONFIRM_MS / 1000
    wanted = [v.strip().lower() for v in values]
    while True:
        state = await widget_state(worlds, locator)
        shown = state.value.lower()
        if all(w in shown for w in wanted):
            return state.value
        if loop.time() >= deadline:
            was = ", ".join(before) or "nothing"
            raise ActionTimeout(f"Picked {_quoted(values)} but the widget still shows \"{state.value}\" "
                                f"(before: \"{was}\"); check it with browser_snapshot.")
        await asyncio.sleep(POLL_MS / 1000)
