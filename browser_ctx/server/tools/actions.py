"""Action tools: click, type, fill, select, hover, press, wait, back, tabs, dialogs, close, verify.

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``target`` + optional ``element``). Every
action returns one record of what it caused (see :mod:`browser_ctx.browser.actions` and
:mod:`browser_ctx.core.record`); ``browser_verify`` returns ``PASS`` or ``FAIL: expected …, got …``.
Action results are not pageable (no ``offset``): reading on would mean repeating the action, so the
record folds and caps its DOM delta itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..._errors import BrowserCtxError, InvalidArgument, PageError, error_kind, translate
from ...browser import actions, navigation, refs
from ...browser.actions import action_error, perform
from ...browser.choose import WidgetState, choose, widget_state
from ...browser.fields import FIELD_TYPES, fill_failure, fill_field, leave_field, read_back, type_into
from ...browser.labels import walked_label
from ...browser.scripts import script
from ...browser.targets import describe_element, locator_for, resolve_one
from ...browser.verify import verify as verify_page
from ...core.record import render_record
from ...core.values import quote_value
from ..registry import Rendered, ToolCall, ToolSpec
from .waiting import wait_for

__all__ = ["TOOLS"]

#: Seconds ``browser_tabs`` waits for one tab's title.
TAB_TITLE_TIMEOUT_S = 2
#: After closing a tab, ``browser_tabs`` checks this many times, this many seconds apart, that the session
#: has dropped it before listing the tabs.
CLOSE_POLLS, CLOSE_POLL_S = 20, 0.01
#: Characters of a selection a key press's record quotes.
SELECTION_CHARS = 200


async def _tab(call: ToolCall):
    tab = await call.session.current_tab()
    actions.ensure_open(tab)
    return tab


def _rendered(tab, text: str) -> Rendered:
    return Rendered(text, capture=False, tab=tab.id)


async def _label(call: ToolCall, tab, locator, target: str) -> str:
    """How the record names the target: the caller's ``element`` words, else the tab's last walk's line for a ref
    (:func:`~browser_ctx.browser.labels.walked_label`, no page call), else the page's description."""
    element = call.args.get("element")
    ref = target.strip() if refs.is_ref(target) else None
    if element:
        return f"{element} [{ref or target}]"
    return (walked_label(tab, ref) if ref else None) or await describe_element(locator, tab, ref=ref)


class _Target:
    """An action's ``target``, resolved to one element and named (:func:`_label`). A ref is resolved with the
    watch's first reads (``perform``'s ``prepare``: a count, no waiting); a selector before them, since it may wait
    for its element to appear and the record's "before" must come after that."""

    def __init__(self, call: ToolCall, tab: Any, verb: str) -> None:
        self.call, self.tab, self.verb = call, tab, verb
        self.target: str = call.args["target"]
        self.locator: Any = None
        self.label = ""

    async def resolve(self) -> None:
        self.locator = await resolve_one(self.tab, self.target, self.call.settings, verb=self.verb)
        self.label = await _label(self.call, self.tab, self.locator, self.target)

    async def early(self) -> Callable[[], Awaitable[None]] | None:
        """``perform``'s ``prepare`` for a ref; a selector is resolved now (``None``)."""
        if refs.is_ref(self.target.strip()):
            return self.resolve
        await self.resolve()
        return None


async def _act(call: ToolCall, verb: str, past: str, do: Any) -> Rendered:
    """Resolve ``target``, run ``do(locator)`` under a watch, render the record."""
    tab = await _tab(call)
    t = _Target(call, tab, verb)
    prepare = await t.early()
    timeout = call.settings.timeouts.action_ms

    async def run() -> Any:
        try:
            return await do(t.locator, timeout)
        except (PlaywrightError, TimeoutError) as exc:
            raise action_error(exc, verb=verb, target=t.target, timeout_ms=timeout, element=t.label) from exc

    record = await perform(call.session, tab, call.settings, lambda: f"{past} {t.label}", run, budget=call.budget,
                           prepare=prepare)
    return _rendered(tab, render_record(record))


async def click(call: ToolCall) -> Rendered:
    """Click ``target`` (``doubleClick``, ``button``, ``modifiers`` as Playwright's ``click``); return the record."""
    a = call.args
    opts: dict[str, Any] = {}
    if a.get("button"):
        opts["button"] = a["button"]
    if a.get("modifiers"):
        allowed = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")
        bad = [m for m in a["modifiers"] if m not in allowed]
        if bad:
            raise InvalidArgument(f"modifiers must be among {', '.join(allowed)} (got {bad[0]!r}).")
        opts["modifiers"] = a["modifiers"]

    async def do(loc, timeout):
        if a.get("doubleClick"):
            await loc.dblclick(timeout=timeout, **opts)
        else:
            await loc.click(timeout=timeout, **opts)

    return await _act(call, "click", "Double-clicked" if a.get("doubleClick") else "Clicked", do)


async def type_text(call: ToolCall) -> Rendered:
    """Type ``text`` into ``target`` and read back what it shows.

    Inputs, textareas and contenteditable elements are filled (``slowly``: typed key by key); native
    date/time inputs get the ISO form of ``text``; a select-like widget gets the option named ``text``;
    any other element (a code editor whose keystrokes go to a hidden textarea) is clicked and typed into
    with the keyboard (see :func:`browser_ctx.browser.fields.type_into`). A readonly or disabled field is
    an error naming it. ``submit`` presses Enter afterwards. The record ends with ``It now shows: "…"``.
    """
    a = call.args
    text: str = a["text"]
    tab = await _tab(call)
    t = _Target(call, tab, "type into")
    resolve = await t.early()
    timeout = call.settings.timeouts.action_ms
    held: list[WidgetState] = []

    async def prepare() -> None:  # a ref's field state is read beside its resolution, with the watch's reads
        async def state() -> None:
            held.append(await widget_state(tab.worlds, locator_for(tab, t.target)))

        if resolve is not None:
            got, _ = await asyncio.gather(resolve(), state(), return_exceptions=True)
            if isinstance(got, BaseException):
                raise got

    notes: list[str | None] = []

    async def run() -> str | None:
        locator, label = t.locator, t.label
        try:
            note = await type_into(tab.worlds, locator, text, label=label, slowly=bool(a.get("slowly")),
                                   timeout_ms=timeout, mode=a.get("mode") or "replace",
                                   state=held[0] if held else None)
            notes.append(note)
            if a.get("submit"):
                if note and note.startswith("Not a form field"):
                    await locator.page.keyboard.press("Enter")
                else:
                    await locator.press("Enter", timeout=timeout)
            return note
        except (PlaywrightError, TimeoutError) as exc:
            raise action_error(exc, verb="type into", target=t.target, timeout_ms=timeout, element=label) from exc

    shown: list[str | None] = []

    async def shows_now() -> str | None:  # with the record's other reads, after settling
        if a.get("submit") or (notes and (notes[0] or "").startswith("Now shows:")):
            return None
        shown.append(await read_back(tab.worlds, t.locator, ref=refs.is_ref(t.target)))
        return shown[-1]

    typed = f"Typed {len(text)} character{'s' * (len(text) != 1)} into"
    record = await perform(call.session, tab, call.settings, lambda: f"{typed} {t.label}",
                           run, budget=call.budget, also=shows_now, quick=not (a.get("submit") or a.get("slowly")),
                           prepare=prepare if resolve else None,
                           typed=t.target.strip() if refs.is_ref(t.target) else None)
    if not a.get("submit") and not any(n.startswith("Now shows:") for n in record.notes):
        record.readback = shown[-1] if shown else None  # the read the record kept: the last
        if record.readback is not None and record.readback not in ("(filled)", "(empty)") and text.strip() \
                and " ".join(text.split()) not in " ".join(record.readback.split()) \
                and not any(n.startswith("Entered as") for n in record.notes):
            record.notes.append("Warning: the element does not show the typed text.")
    return _rendered(tab, render_record(record))


async def fill_form(call: ToolCall) -> Rendered:
    """Fill several fields in one action, in order; report each as filled, failed or skipped.

    Types: ``textbox`` fills (native date/time inputs take ISO or unambiguous locale forms), ``slider`` sets
    a number (a native range, an ARIA slider by its arrow keys) or a percentage of its track (a drag),
    ``checkbox`` ``true``/``false``, ``radio`` check, ``combobox`` chooses the option named ``value`` in
    any select-like widget (native select, ARIA combobox, listbox). See
    :func:`browser_ctx.browser.fields.fill_field`.

    Stops at the first field that fails: later fields often depend on earlier ones (a country decides
    the regions offered), so going on could fill a form the caller did not intend. The error then names
    the fields filled before it, the failing one and why, and the ones skipped after it. Every target is
    resolved before anything is filled, so a bad target fills nothing.
    """
    tab = await _tab(call)
    fields = call.args["fields"]
    if not fields:
        raise InvalidArgument("fields is empty; pass at least one {target, name, type, value}.")
    timeout = call.settings.timeouts.action_ms
    resolved = []
    for f in fields:
        if f["type"] not in FIELD_TYPES:
            raise InvalidArgument(f"Field {f['name']!r}: type must be one of {', '.join(FIELD_TYPES)}.")
        loc = await resolve_one(tab, f["target"], call.settings, verb=f"fill {f['name']!r}")
        resolved.append((f, loc))
    done: list[str] = []

    async def run() -> str | None:
        notes = []
        for i, (f, loc) in enumerate(resolved):
            label = f"{f['name']!r}" + (f" [{f['target']}]" if refs.is_ref(f["target"]) else "")
            try:
                note = await fill_field(tab.worlds, loc, f["type"], f["value"], label=label, timeout_ms=timeout)
            except (PlaywrightError, TimeoutError, BrowserCtxError) as exc:
                err = action_error(exc, verb="fill", target=f["target"], timeout_ms=timeout, element=label)
                skipped = [g["name"] for g, _ in resolved[i + 1:]]
                raise type(err)(fill_failure(done, f["name"], str(err), skipped)) from exc
            done.append(f["name"])
            if i + 1 < len(resolved) and f["type"] == "textbox" and note is None:
                await leave_field(tab.worlds, loc, timeout)
            if note:
                notes.append(f"{f['name']}: {note[0].lower()}{note[1:]}")
        return "; ".join(notes) or None

    names = ", ".join(f["name"] for f in fields)
    record = await perform(call.session, tab, call.settings,
                           f"Filled {len(fields)} field{'s' if len(fields) != 1 else ''}: {names}", run,
                           budget=call.budget)
    return _rendered(tab, render_record(record))


async def select_option(call: ToolCall) -> Rendered:
    """Choose ``values`` (option labels; option values too in a native select) in ``target``: a native
    select, an ARIA combobox (editable or a trigger with a popup list, single or multi) or a listbox.
    See :func:`browser_ctx.browser.choose.choose`."""
    values = call.args["values"]
    tab = await _tab(call)
    t = _Target(call, tab, "select in")
    prepare = await t.early()
    timeout = call.settings.timeouts.action_ms

    native: list[bool] = []

    async def run() -> str | None:
        try:
            chosen = await choose(tab.worlds, t.locator, list(values), label=t.label, timeout_ms=timeout)
        except (PlaywrightError, TimeoutError) as exc:
            raise action_error(exc, verb="select in", target=t.target, timeout_ms=timeout, element=t.label) from exc
        native.append(chosen.native)
        return chosen.note

    shown = ", ".join(f'"{v}"' for v in values)
    record = await perform(call.session, tab, call.settings, lambda: f"Selected {shown} in {t.label}", run,
                           budget=call.budget, prepare=prepare, quick=lambda: bool(native and native[0]))
    return _rendered(tab, render_record(record))


async def hover(call: ToolCall) -> Rendered:
    """Move the mouse over ``target``; return the record (menus, tooltips that appeared)."""
    async def do(loc, timeout):
        await loc.hover(timeout=timeout)

    return await _act(call, "hover", "Hovered", do)


async def press_key(call: ToolCall) -> Rendered:
    """Press ``key`` (Playwright key names such as ``Enter``, ``ArrowLeft``, ``Control+a``) in the focused element."""
    tab = await _tab(call)
    key = call.args["key"]

    async def run() -> None:
        try:
            await tab.page.keyboard.press(key)
        except PlaywrightError as exc:
            if error_kind(exc) == "unknown-key":
                raise InvalidArgument(f"Unknown key {key!r}; use names like Enter, Escape, ArrowDown, "
                                      "Control+a or a single character.") from exc
            raise translate(exc, action="press a key") from exc

    selected: list[str | None] = []

    async def read_selection() -> None:  # after settling: what a Shift+arrow or select-all key selected
        with contextlib.suppress(PlaywrightError, BrowserCtxError):  # the page went: no selection to tell
            selected.append(await tab.worlds.evaluate(tab.page.main_frame, script("selection")))

    selects = "Shift+" in key or key.lower().endswith(("control+a", "meta+a"))
    record = await perform(call.session, tab, call.settings, f"Pressed {key}", run, budget=call.budget,
                           also=read_selection if selects else None)
    if selected and selected[0] is not None:
        record.notes.append(f"Selected: {quote_value(selected[0], SELECTION_CHARS)}" if selected[0]
                            else "Nothing is selected.")
    return _rendered(tab, render_record(record))



async def navigate_back(call: ToolCall) -> Rendered:
    """Go back in the current tab's history; return the record."""
    tab = await _tab(call)
    timeout = call.settings.timeouts.navigation_ms

    async def run() -> str | None:
        before = tab.page.url
        try:
            await tab.page.go_back(wait_until="commit", timeout=timeout)
        except PlaywrightError as exc:
            raise translate(exc, action="go back", url=before, timeout_ms=timeout) from exc
        if tab.page.url == before:
            return "There is no previous page in this tab's history."
        return None

    record = await perform(call.session, tab, call.settings, "Went back", run, budget=call.budget)
    return _rendered(tab, render_record(record))


async def _tab_list(call: ToolCall) -> str:
    session = call.session
    current = session.peek_tab()
    lines = []
    for i, t in enumerate(session.tabs):
        try:
            title = await asyncio.wait_for(t.page.title(), TAB_TITLE_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):  # closing or busy: listed without a title
            title = ""
        mark = " (current)" if t is current else ""
        lines.append(f"- {i}:{mark} \"{title}\" {t.page.url}")
    return "\n".join(lines) if lines else "No tabs open."


async def tabs(call: ToolCall) -> Rendered:
    """List, open (``new`` with optional ``url``), close (``index`` or the current tab) or select tabs.

    Indexes are 0-based, in opening order (as ``@playwright/mcp``). Returns the tab list afterwards.

    Raises:
        InvalidArgument: an index out of range, or ``select`` without one.
    """
    a = call.args
    session = call.session
    action = a["action"]
    await session.current_tab()
    note = ""
    index = a.get("index")
    all_tabs = session.tabs

    def pick() -> Any:
        if index is None:
            return None
        i = int(index)
        if i != index or not 0 <= i < len(all_tabs):
            raise InvalidArgument(f"No tab {index}; indexes are 0 to {len(all_tabs) - 1} (browser_tabs list).")
        return all_tabs[i]

    if action == "new":
        # A URL is checked before the tab opens, and a tab whose load fails is closed again: a refused
        # ``new`` leaves the tabs as they were, the previous one current.
        url = navigation.normalise_url(a["url"], call.settings.allowed_schemes) if a.get("url") else None
        previous = session.peek_tab()
        tab = await session.new_tab()
        if url is not None:
            try:
                await navigation.navigate(tab, url, call.settings)
            except BrowserCtxError:
                with contextlib.suppress(PlaywrightError, BrowserCtxError):  # already gone: nothing left behind
                    await session.close_tab(tab)
                if previous is not None and previous in session.tabs:
                    session.select_tab(previous)
                raise
        note = "Opened a new tab."
    elif action == "select":
        tab = pick()
        if tab is None:
            raise InvalidArgument("select needs index (0-based; see browser_tabs list).")
        session.select_tab(tab)
        try:
            await tab.page.bring_to_front()
        except PlaywrightError as exc:
            raise PageError("That tab is gone; call browser_tabs list.") from exc
        note = f"Selected tab {all_tabs.index(tab)}."
    elif action == "close":
        closing = pick() or session.peek_tab()
        if closing is None:
            raise InvalidArgument("No tab to close.")
        i = all_tabs.index(closing)
        await session.close_tab(closing)
        for _ in range(CLOSE_POLLS):  # let the session forget it
            if closing not in session.tabs:
                break
            await asyncio.sleep(CLOSE_POLL_S)
        note = f"Closed tab {i}."
    listing = await _tab_list(call)
    return Rendered(f"{note}\n{listing}" if note else listing, capture=False)


async def handle_dialog(call: ToolCall) -> Rendered:
    """Set how the next dialog (any tab) is answered: ``accept`` (and ``promptText`` for a prompt).

    Dialogs are answered at once by the default policy (accept alert and beforeunload, dismiss confirm
    and prompt); this overrides it for the next one only. Repeat the action that opens the dialog next.
    """
    center = call.session.dialogs
    accept = bool(call.args["accept"])
    prompt = call.args.get("promptText")
    center.arm(accept, prompt)
    how = "accepted" if accept else "dismissed"
    extra = f" with {prompt!r}" if prompt is not None and accept else ""
    return Rendered(f"The next dialog will be {how}{extra}; now trigger it (e.g. repeat the click).", capture=False)


async def close(call: ToolCall) -> Rendered:
    """Close the browser; the next call relaunches it."""
    was_open = await call.session.close_browser()
    return Rendered("Browser closed; the next call opens a new one." if was_open else "No browser was open.",
                    capture=False)


async def verify(call: ToolCall) -> Rendered:
    """One-line check with Playwright's web-first ``expect``; see :func:`browser_ctx.browser.verify.verify`."""
    tab = await _tab(call)
    return _rendered(tab, await verify_page(tab, dict(call.args), call.settings))


def _spec(name: str, description: str, properties: dict, handler: Any, required: tuple[str, ...] = (),
          read_only: bool = False) -> ToolSpec:
    return ToolSpec(name=name, description=description, properties=properties, handler=handler,
                    required=required, pageable=False, caps="core", read_only=read_only)


STR: dict[str, Any] = {"type": "string"}
BOOL: dict[str, Any] = {"type": "boolean"}
#: ``target`` is explained once in the server instructions; here it is a bare string to keep tools/list small.
T = STR
TE = {"target": T, "element": STR}

TOOLS = [
    _spec("browser_click", "Click target.",
          {**TE, "doubleClick": BOOL, "button": {"enum": ["left", "right", "middle"]},
           "modifiers": {"type": "array"}},
          click, ("target",)),
    _spec("browser_type", "Type text into target (replacing its text, or appended, or at the caret); submit "
          "presses Enter.",
          {**TE, "text": STR, "submit": BOOL, "slowly": BOOL, "mode": {"enum": ["replace", "append", "insert"]}},
          type_text, ("target", "text")),
    _spec("browser_fill_form", "Fill fields; stops at the first failure (checkbox: true/false; slider: number, 40%).",
          {"fields": {"type": "array", "items": {
              "type": "object",
              "properties": {**TE, "name": STR,
                             "type": {"enum": ["textbox", "checkbox", "radio", "combobox", "slider"]},
                             "value": STR},
              "required": ["target", "name", "type", "value"]}}},
          fill_form, ("fields",)),
    _spec("browser_select_option", "Select options (select, combobox, listbox).",
          {**TE, "values": {"type": "array", "items": STR}},
          select_option, ("target", "values")),
    _spec("browser_hover", "Hover over target.", TE, hover, ("target",)),
    _spec("browser_press_key", "Press a key, e.g. Enter.", {"key": STR}, press_key, ("key",)),
    _spec("browser_wait_for", "Wait for text, textGone, target state, or time (s).",
          {"time": {"type": "number"}, "text": STR, "textGone": STR, "target": T,
           "state": {"enum": ["visible", "hidden", "attached", "detached"]}},
          wait_for, read_only=True),
    _spec("browser_navigate_back", "Go back in history.", {}, navigate_back),
    _spec("browser_tabs", "List, open, close or select tabs.",
          {"action": {"enum": ["list", "new", "close", "select"]}, "index": {"type": "number"}, "url": STR},
          tabs, ("action",)),
    _spec("browser_handle_dialog", "Accept or dismiss the next dialog.", {"accept": BOOL, "promptText": STR},
          handle_dialog, ("accept",)),
    _spec("browser_close", "Close the browser.", {}, close),
    _spec("browser_verify", "Check target or page, auto-waiting (text/url/title: contains): PASS or FAIL.",
          {"target": T, "text": STR, "visible": BOOL, "hidden": BOOL, "count": {"type": "integer"}, "value": STR,
           "checked": BOOL, "enabled": BOOL, "url": STR, "title": STR, "timeout": {"type": "number"}},
          verify, read_only=True),
]
