"""A session as a test (``--caps testing``): ``browser_generate_test {language?, name?, filename?, mark?}``.

With this tool in the tool set, :func:`recording` wraps the tools that change or check the page: before each
call it reads how a test would find every element the call targets (:func:`browser_ctx.browser.testlog.pick`),
and after a call that succeeded (a ``browser_verify`` that passed) it appends a
:class:`~browser_ctx.core.testgen.Step` to the tab's ``steps``. ``browser_generate_test`` renders the steps
since the tab's last ``browser_navigate`` (or mark) as a Playwright test (:func:`browser_ctx.core.testgen.render`),
saves it under ``--output-dir`` and returns it, capped like any result.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ... import files
from ..._errors import InvalidArgument
from ...browser.navigation import normalise_url
from ...browser.session import Tab
from ...browser.testlog import pick
from ...core.testgen import LANGUAGES, MARK, Step, file_name, render
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "recording", "GENERATE", "MAX_STEPS"]

GENERATE = "browser_generate_test"
#: Steps kept per tab (the oldest are dropped; a test then starts at the first kept step's URL).
MAX_STEPS = 500
#: Tools whose targets get a pick before the call.
_PICKED = ("browser_click", "browser_hover", "browser_type", "browser_fill_form", "browser_select_option",
           "browser_wait_for", "browser_verify", "browser_file_upload")
#: Read-only tools that are recorded all the same (they navigate or check).
_READS_RECORDED = ("browser_navigate", "browser_wait_for", "browser_verify")
#: Never recorded: asking for a test, listing tabs.
_NOT_RECORDED = (GENERATE,)


def _targets(name: str, args: dict[str, Any]) -> list[str]:
    if name == "browser_fill_form":
        return [f["target"] for f in args.get("fields") or [] if isinstance(f, dict) and f.get("target")]
    target = args.get("target")
    return [target] if isinstance(target, str) and target.strip() else []


def _keep(tab: Tab, step: Step) -> None:
    tab.steps.append(step)
    del tab.steps[:-MAX_STEPS]


def recording(spec: ToolSpec) -> ToolSpec:
    """Return ``spec`` with a handler that also records the call in the tab's steps (``spec`` itself when the
    tool only reads, or is ``browser_generate_test``)."""
    if spec.name in _NOT_RECORDED or spec.read_only and spec.name not in _READS_RECORDED:
        return spec
    inner = spec.handler

    async def handler(call: ToolCall) -> Rendered:
        if spec.name in _PICKED or spec.name == "browser_navigate":
            tab: Tab | None = await call.session.current_tab()
        else:  # browser_close and the like must not launch a browser just to be recorded
            tab = call.session.peek_tab()
        url = tab.page.url if tab is not None else ""
        picks = {t: await pick(tab, t) for t in _targets(spec.name, call.args)} \
            if tab is not None and spec.name in _PICKED else {}
        rendered = await inner(call)
        if tab is None or spec.name == "browser_verify" and not rendered.text.startswith("PASS") \
                or spec.name == "browser_tabs" and call.args.get("action") == "list":
            return rendered
        args = dict(call.args)
        if spec.name == "browser_navigate":
            args["url"] = normalise_url(args["url"], call.settings.allowed_schemes)
        _keep(tab, Step(spec.name, args, picks, url))
        return rendered

    return dataclasses.replace(spec, handler=handler)


async def generate_test(call: ToolCall) -> Rendered:
    """Write the current tab's steps since its last navigation (or mark) as a Playwright test.

    Args (from ``call.args``): ``language`` (``python`` default, for pytest-playwright; ``typescript`` for
    ``@playwright/test``), ``name`` (the test's name, default ``browser session``), ``filename`` (default
    ``test_<name>.py`` / ``<name>.spec.ts`` in the output folder), ``mark`` (true: start the next test here
    instead, at the current URL; nothing is written).

    Returns the path and counts, then the file's text (capped like any result; ``offset`` reads on);
    ``path``, ``steps``, ``skipped``, ``bytes`` in ``meta``.

    Raises:
        InvalidArgument: nothing recorded in the tab; a filename outside the output folder.
    """
    a = call.args
    tab = await call.session.current_tab()
    if a.get("mark"):
        _keep(tab, Step(MARK, {}, url=tab.page.url))
        return Rendered(f"Marked: the next generated test starts at {tab.page.url}, with the actions after this.",
                        capture=False, tab=tab.id)
    language = a.get("language") or "python"
    name = (a.get("name") or "").strip() or "browser session"
    try:
        source, replayed, skipped = render(tab.steps, name=name, language=language)
    except ValueError as exc:
        raise InvalidArgument(f"Cannot write a test: {exc}. Navigate and act in this tab first (every action is "
                              "recorded while browser_generate_test is offered).") from exc
    path = files.output_path(call.settings, a.get("filename") or file_name(name, language))
    data = source.encode("utf-8")
    files.save(path, data)
    run = f"pytest {path}" if language == "python" else f"npx playwright test {path}"
    text = (f"Saved a {language} Playwright test to {path}: {replayed} step{'s' if replayed != 1 else ''} replayed"
            + (f", {skipped} not (comments say why)" if skipped else "") + f", {len(data):,} bytes. Run it: {run}"
            + "\n\n" + source)
    return Rendered(text, meta={"path": str(path), "steps": replayed, "skipped": skipped, "bytes": len(data)},
                    tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(
        name=GENERATE,
        description="Write this tab's actions and passed verifies since the last navigate (or mark: true) as a "
                    "Playwright test file.",
        properties={"language": {"enum": list(LANGUAGES)}, "name": _STR, "filename": _STR,
                    "mark": {"type": "boolean"}},
        handler=generate_test,
        caps="testing",
    ),
]
