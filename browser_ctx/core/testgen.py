"""A tab's recorded steps → a Playwright test file (Python for pytest-playwright, or TypeScript for
``@playwright/test``): pure data in, source text out.

A :class:`Step` is one successful tool call (its camelCase arguments) plus, for each target it named, a
:class:`Pick`: how the test finds that element again, by role and accessible name, else test id, else exact
text, else the caller's own selector, else role and name with an index; never a ref (refs exist only in a
browser-ctx session). :func:`render` turns the steps since the last navigation or mark into statements:
actions become locator calls, ``browser_verify`` and ``browser_wait_for`` conditions become ``expect``
assertions, and a step that cannot be replayed becomes a comment saying why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Pick", "Step", "MARK", "render", "replay_range", "file_name", "LANGUAGES"]

#: The pseudo-tool of a mark (``browser_generate_test {mark: true}``): the next test starts at its URL.
MARK = "mark"
#: Languages :func:`render` writes.
LANGUAGES = ("python", "typescript")
#: Characters of a string literal kept in a comment.
COMMENT_CHARS = 60


@dataclass(frozen=True)
class Pick:
    """How a generated test finds one element.

    Attributes:
        by: ``role`` (``value`` = ARIA role, ``name`` = accessible name), ``testid``, ``text`` (exact
            visible text) or ``selector`` (the Playwright selector the caller gave).
        value: the role, test id, text or selector.
        name: the accessible name (``by == "role"``; ``None``: the role alone is unique).
        nth: 0-based index among several matches (role and name not unique, nothing better found).
        kind: ``select`` (native select), ``field`` (input, textarea, contenteditable), ``check`` (checkbox
            or radio input) or ``other``: decides how typing and choosing are replayed.
    """

    by: Literal["role", "testid", "text", "selector"]
    value: str
    name: str | None = None
    nth: int | None = None
    kind: str = "other"


@dataclass
class Step:
    """One successful tool call on a tab.

    Attributes:
        tool: the tool name (or :data:`MARK`).
        args: its arguments as called (camelCase); ``browser_navigate``'s ``url`` is the normalised URL.
        picks: per target string the call named, its :class:`Pick`, or ``None`` when none was found.
        url: the page's URL before the call.
    """

    tool: str
    args: dict[str, Any]
    picks: dict[str, Pick | None] = field(default_factory=dict)
    url: str = ""


# -- a tiny expression tree, rendered per language ---------------------------------------------------------

@dataclass(frozen=True)
class _Regex:
    pattern: str


@dataclass(frozen=True)
class _Expr:
    """``obj.method(args, opts)`` (``obj`` ``None``: ``method(args)``, e.g. ``expect(x)``); ``call`` false: the
    name or property ``obj.method`` (``page``, ``page.keyboard``, ``locator.first``)."""

    method: str
    obj: _Expr | None = None
    args: tuple[Any, ...] = ()
    opts: tuple[tuple[str, Any], ...] = ()
    call: bool = True


PAGE = _Expr("page", call=False)


def _c(obj: _Expr, method: str, *args: Any, **opts: Any) -> _Expr:
    return _Expr(method, obj, args, tuple((k, v) for k, v in opts.items() if v is not None))


def _expect(subject: _Expr, matcher: str, *args: Any, **opts: Any) -> _Expr:
    return _c(_Expr("expect", None, (subject,)), matcher, *args, **opts)


def _escape(text: str) -> str:
    """A regex matching ``text`` literally, valid in Python's ``re`` and in JavaScript."""
    return re.sub(r"([\\^$.*+?()\[\]{}|/])", r"\\\1", text)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join("URL" if p == "url" else p.capitalize() for p in rest)


def _lit(value: Any, lang: str) -> str:
    if isinstance(value, _Regex):
        pattern = json.dumps(value.pattern, ensure_ascii=False)
        return f"re.compile({pattern})" if lang == "python" else f"new RegExp({pattern})"
    if isinstance(value, _Expr):
        return _render(value, lang)
    if isinstance(value, bool):
        return ("True" if value else "False") if lang == "python" else ("true" if value else "false")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_lit(v, lang) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _render(e: _Expr, lang: str) -> str:
    if not e.call:  # a name or a property: page, page.keyboard, locator.first
        return e.method if e.obj is None else f"{_render(e.obj, lang)}.{e.method}"
    args = [_lit(a, lang) for a in e.args]
    if e.opts and lang == "python":
        args += [f"{k}={_lit(v, lang)}" for k, v in e.opts]
    elif e.opts:
        args.append("{ " + ", ".join(f"{_camel(k)}: {_lit(v, lang)}" for k, v in e.opts) + " }")
    method = e.method
    if lang == "typescript":
        method = "not." + _camel(method[4:]) if method.startswith("not_") else _camel(method)
    head = method if e.obj is None else f"{_render(e.obj, lang)}.{method}"
    return f"{head}({', '.join(args)})"


# -- steps → statements ------------------------------------------------------------------------------------

def _locator(pick: Pick) -> _Expr:
    if pick.by == "role":
        loc = _c(PAGE, "get_by_role", pick.value, name=pick.name, exact=True if pick.name is not None else None)
    elif pick.by == "testid":
        loc = _c(PAGE, "get_by_test_id", pick.value)
    elif pick.by == "text":
        loc = _c(PAGE, "get_by_text", pick.value, exact=True)
    else:
        loc = _c(PAGE, "locator", pick.value)
    return _c(loc, "nth", pick.nth) if pick.nth is not None else loc


class _Skip(Exception):
    """A step (or part of one) that cannot be replayed; the message says why."""


def _pick(step: Step, target: str | None) -> Pick:
    pick = step.picks.get(target or "")
    if pick is None:
        raise _Skip(f"no role and name, test id or text finds {target!r}")
    return pick


def _choose(loc: _Expr, pick: Pick, values: list[str]) -> list[_Expr]:
    if pick.kind == "select":
        return [_c(loc, "select_option", values[0] if len(values) == 1 else values)]
    return [_c(loc, "click")] + [_c(_c(PAGE, "get_by_role", "option", name=v, exact=True), "click") for v in values]


def _type(step: Step) -> list[_Expr]:
    a = step.args
    pick = _pick(step, a["target"])
    loc, text = _locator(pick), a["text"]
    if pick.kind == "select":
        out = _choose(loc, pick, [text])
    elif pick.kind == "field":
        out = [_c(loc, "press_sequentially" if a.get("slowly") else "fill", text)]
    else:  # a code editor or other widget typed into with the keyboard
        out = [_c(loc, "click"), _c(_Expr("keyboard", PAGE, call=False), "type", text)]
    if a.get("submit"):
        out.append(_c(loc, "press", "Enter") if pick.kind == "field"
                   else _c(_Expr("keyboard", PAGE, call=False), "press", "Enter"))
    return out


def _fill_form(step: Step) -> list[_Expr]:
    out: list[_Expr] = []
    for f in step.args["fields"]:
        pick = _pick(step, f["target"])
        loc, value, kind = _locator(pick), str(f["value"]), f["type"]
        if kind == "checkbox":
            out.append(_c(loc, "set_checked", value.strip().lower() == "true"))
        elif kind == "radio":
            out.append(_c(loc, "check"))
        elif kind == "combobox":
            out += _choose(loc, pick, [value])
        else:
            out.append(_c(loc, "fill", value))
    return out


def _click(step: Step) -> list[_Expr]:
    a = step.args
    loc = _locator(_pick(step, a["target"]))
    return [_c(loc, "dblclick" if a.get("doubleClick") else "click", button=a.get("button"),
               modifiers=a.get("modifiers") or None)]


def _wait_for(step: Step) -> list[_Expr]:
    a = step.args
    out: list[_Expr] = []
    if a.get("text") is not None:
        out.append(_expect(_Expr("first", _c(PAGE, "get_by_text", a["text"]), call=False), "to_be_visible"))
    if a.get("textGone") is not None:
        out.append(_expect(_c(PAGE, "get_by_text", a["textGone"]), "to_have_count", 0))
    if a.get("target"):
        state = a.get("state", "visible")
        loc = _locator(_pick(step, a["target"]))
        out.append(_expect(loc, {"visible": "to_be_visible", "hidden": "to_be_hidden"}.get(state, "to_be_attached"),
                           attached=False if state == "detached" else None))
    if not out:
        raise _Skip(f"a pause of {a.get('time', 0)} s (tests wait for conditions, not time)")
    return out


def _verify(step: Step) -> list[_Expr]:
    a = step.args
    out: list[_Expr] = []
    if "url" in a:
        out.append(_expect(PAGE, "to_have_url", _Regex(_escape(a["url"]))))
    if "title" in a:
        out.append(_expect(PAGE, "to_have_title", _Regex(_escape(a["title"]))))
    target = (a.get("target") or "").strip()
    if not target:
        if "text" in a:
            gone = a.get("hidden") is True or a.get("visible") is False
            out.append(_expect(_c(PAGE, "locator", "body"), "not_to_contain_text" if gone else "to_contain_text",
                               a["text"], ignore_case=True, use_inner_text=True))
        return out
    pick = _pick(step, target)
    loc = _locator(pick)
    checks = ("text", "visible", "hidden", "count", "value", "checked", "enabled")
    visible = a.get("visible", True if not any(k in a for k in checks) else None)
    if visible is None and "hidden" in a:
        visible = not a["hidden"]
    if "count" in a:
        out.append(_expect(loc, "to_have_count", int(a["count"])))
    if visible is not None:
        out.append(_expect(loc, "to_be_visible" if visible else "to_be_hidden"))
    if "text" in a:
        out.append(_expect(loc, "to_contain_text", a["text"], use_inner_text=True))
    if "value" in a:
        out.append(_expect(loc, "to_have_value", a["value"]) if pick.kind in ("field", "select")
                   else _expect(loc, "to_contain_text", a["value"], use_inner_text=True))
    if "checked" in a:
        out.append(_expect(loc, "to_be_checked", checked=bool(a["checked"])))
    if "enabled" in a:
        out.append(_expect(loc, "to_be_enabled", enabled=bool(a["enabled"])))
    return out


def _upload(step: Step) -> list[_Expr]:
    if not step.args.get("target"):
        raise _Skip("no target (the file chooser the last action opened)")
    return [_c(_locator(_pick(step, step.args["target"])), "set_input_files", list(step.args.get("paths") or []))]


_STEPS = {
    "browser_click": _click,
    "browser_hover": lambda s: [_c(_locator(_pick(s, s.args["target"])), "hover")],
    "browser_type": _type,
    "browser_fill_form": _fill_form,
    "browser_select_option": lambda s: _choose(_locator(_pick(s, s.args["target"])), _pick(s, s.args["target"]),
                                               list(s.args["values"])),
    "browser_press_key": lambda s: [_c(_Expr("keyboard", PAGE, call=False), "press", s.args["key"])],
    "browser_wait_for": _wait_for,
    "browser_verify": _verify,
    "browser_navigate_back": lambda s: [_c(PAGE, "go_back")],
    "browser_navigate": lambda s: [_c(PAGE, "goto", s.args["url"])],
    "browser_resize": lambda s: [_c(PAGE, "set_viewport_size", {"width": round(s.args["width"]),
                                                                 "height": round(s.args["height"])})],
    "browser_file_upload": _upload,
}


def replay_range(steps: list[Step]) -> tuple[str | None, list[Step]]:
    """Return the URL a test starts at and the steps it replays: those after the last ``browser_navigate`` or
    mark (which gives the URL), else all of them from the first step's URL (``None`` without steps)."""
    for i in range(len(steps) - 1, -1, -1):
        s = steps[i]
        if s.tool == "browser_navigate":
            return s.args["url"], steps[i + 1:]
        if s.tool == MARK:
            return s.url, steps[i + 1:]
    return (steps[0].url or None, steps) if steps else (None, [])


def _comment(text: str, lang: str) -> str:
    return ("# " if lang == "python" else "// ") + " ".join(text.split())


def _describe(step: Step) -> str:
    target = step.args.get("target")
    return step.tool + (f" {json.dumps(str(target)[:COMMENT_CHARS], ensure_ascii=False)}" if target else "")


def file_name(name: str, language: str) -> str:
    """The file a test named ``name`` is saved as: ``test_<slug>.py`` or ``<slug>.spec.ts``."""
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower() or "session"
    return f"test_{slug}.py" if language == "python" else f"{slug.replace('_', '-')}.spec.ts"


def render(steps: list[Step], *, name: str, language: str) -> tuple[str, int, int]:
    """Render a test named ``name`` from ``steps`` (all of a tab's; :func:`replay_range` picks the range).

    Returns:
        ``(source, replayed, skipped)``: the file's text, how many steps became code, how many became a
        comment saying why not.

    Raises:
        ValueError: an unknown language, or no start URL (no step recorded).
    """
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)} (got {language!r})")
    start, todo = replay_range(steps)
    if start is None:
        raise ValueError("nothing recorded in this tab yet")
    body: list[str] = []
    replayed = skipped = 0
    for i, step in enumerate([Step("browser_navigate", {"url": start})] + todo):
        if step.tool == MARK:
            continue
        make = _STEPS.get(step.tool)
        try:
            if make is None:
                raise _Skip("no Playwright equivalent is generated for it")
            exprs = make(step)
        except _Skip as why:
            body.append(_comment(f"not replayed: {_describe(step)}: {why}", language))
            skipped += 1
            continue
        replayed += i > 0
        for e in exprs:
            code = _render(e, language)
            body.append(code if language == "python" else f"await {code};")
    source = "\n".join(body)
    if language == "python":
        ident = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower() or "session"
        names = "Page, expect" if "expect(" in source else "Page"
        head = ([f'"""{_doc(name, start)}"""', ""] + (["import re", ""] if "re.compile(" in source else [])
                + [f"from playwright.sync_api import {names}", "", "", f"def test_{ident}(page: Page) -> None:"])
        text = "\n".join(head + ["    " + line for line in body]) + "\n"
    else:
        names = "test, expect" if "expect(" in source else "test"
        head = [f"// {_doc(name, start)}", f"import {{ {names} }} from '@playwright/test';", "",
                f"test({json.dumps(name, ensure_ascii=False)}, async ({{ page }}) => {{"]
        text = "\n".join(head + ["  " + line for line in body] + ["});"]) + "\n"
    return text, replayed, skipped


def _doc(name: str, start: str) -> str:
    """The file's first line (no quotes, backslashes or control characters, so it fits a docstring or comment)."""
    text = f"{name}: generated by browser-ctx (browser_generate_test) from a session at {start}."
    return " ".join(re.sub(r'[\\"\x00-\x1f]', " ", text).split())
