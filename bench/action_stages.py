"""Where an action's time goes, server side (issue 25): the stages of one call per action kind, and their round trips.

In process: one :class:`~browser_ctx.browser.session.BrowserSession` (the server's own launch), the real tool
pipeline (:func:`browser_ctx.server.pipeline.call_tool`), the pages and order of :mod:`bench.actions` (per page
load: a snapshot, click; a snapshot, type ``Ada``; press Enter; a snapshot, select; the page loaded again after an
action that navigated). Stages are timed by wrapping the functions that make them (nested: ``start/before walk``
is inside ``start``), and every Playwright protocol message the stage sends (one round trip to the driver each;
a CDP command is one ``send``) is counted against the innermost stage running. Only the action calls are
counted; snapshots and navigations are not.

Usage: ``python -m bench.action_stages [--rounds 3] [--pages timer,websocket,toast,navigation] [--json FILE]``.
Prints a markdown table: per stage and action, the median ms over the calls (a stage that did not run in a call
counts 0 ms) and the mean messages per call; figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import functools
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright._impl import connection as pw_connection

import tests.support.action_routes  # noqa: F401 - registers /actions/api/... and the WebSocket echo server
from bench.actions import ACTIONS, PAGES, TEXT, find_ref
from browser_ctx.browser import actions as browser_actions
from browser_ctx.browser import reading
from browser_ctx.browser import settle as settle_mod
from browser_ctx.browser.capture import attach
from browser_ctx.browser.session import BrowserSession
from browser_ctx.server import pipeline
from browser_ctx.server.app import all_tools
from browser_ctx.server.tools import actions as tool_actions
from browser_ctx.settings import LaunchSettings, Settings
from tests.support.site import FIXTURES, serve_directory

__all__ = ["main", "profile"]

#: (owner, attribute, stage name): what is timed. The owner is the module or class the caller looks it up in.
WRAPPED: list[tuple[Any, str, str]] = [
    (tool_actions, "resolve_one", "target"),
    (tool_actions, "_label", "label"),
    (tool_actions, "read_back", "read-back"),
    (tool_actions, "render_record", "render"),
    (browser_actions.Watch, "start", "start"),
    (browser_actions.Watch, "settle", "settle"),
    (browser_actions.Watch, "finish", "finish"),
    (browser_actions.Watch, "_title", "title"),
    (browser_actions.Watch, "_console_errors", "console"),
    (browser_actions.Watch, "_card", "card"),
    (browser_actions, "drain_journal", "journal"),
    (browser_actions, "look", "probe"),
    (settle_mod, "look", "probe"),
    (browser_actions, "save_downloads", "downloads"),
    (browser_actions, "walk_for_record", "walk"),
    (reading, "page_version", "version"),
    (attach.EventCapture, "sync", "sync"),
]

_PATH: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("stage_path", default=())


class Recorder:
    """Per call: ms per stage path, and Playwright messages per stage path (by method)."""

    def __init__(self) -> None:
        self.active = False
        self.ms: dict[tuple[str, ...], float] = defaultdict(float)
        self.msgs: dict[tuple[str, ...], int] = defaultdict(int)
        self.methods: dict[str, int] = defaultdict(int)
        self.by_stage: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def reset(self) -> None:
        self.ms.clear()
        self.msgs.clear()
        self.methods.clear()
        self.by_stage.clear()


REC = Recorder()


def _wrap(owner: Any, attr: str, name: str) -> None:
    fn = getattr(owner, attr)

    if asyncio.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            if not REC.active:
                return await fn(*args, **kwargs)
            path = (*_PATH.get(), name)
            token = _PATH.set(path)
            t0 = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                REC.ms[path] += (time.perf_counter() - t0) * 1000
                _PATH.reset(token)
    else:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not REC.active:
                return fn(*args, **kwargs)
            path = (*_PATH.get(), name)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                REC.ms[path] += (time.perf_counter() - t0) * 1000
    setattr(owner, attr, timed)


def _count_messages() -> None:
    send = pw_connection.Connection.send_message_to_server

    def counted(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
        if REC.active and method != "__waitInfo__":
            REC.msgs[_PATH.get()] += 1
            what = params.get("method") if method == "send" and isinstance(params, dict) else None
            name = f"{obj._type}.{method}" + (f" {what}" if what else "")
            REC.methods[name] += 1
            REC.by_stage["/".join(_PATH.get()) or "(pipeline)"][name] += 1
        return send(self, obj, method, params, options)

    pw_connection.Connection.send_message_to_server = counted  # type: ignore[assignment]


def _wrap_act() -> None:
    """Time ``act()`` inside :func:`perform` (the click, fill, key or select itself)."""
    perform = tool_actions.perform

    async def timed_perform(*args: Any, **kwargs: Any) -> Any:
        call = list(args)
        act = call[4]

        async def timed_act() -> Any:
            path = (*_PATH.get(), "act")
            token = _PATH.set(path)
            t0 = time.perf_counter()
            try:
                return await act()
            finally:
                REC.ms[path] += (time.perf_counter() - t0) * 1000
                _PATH.reset(token)
        call[4] = timed_act
        return await perform(*call, **kwargs)

    tool_actions.perform = timed_perform


@contextlib.contextmanager
def instrumented() -> Iterator[None]:
    """Wrap the stages (for the life of the process: this is a benchmark's own process)."""
    for owner, attr, name in WRAPPED:
        _wrap(owner, attr, name)
    _wrap_act()
    _count_messages()
    yield


async def profile(rounds: int, pages: list[str], settings: Settings) -> list[dict[str, Any]]:
    """Return one row per action call: its action, page, total ms and the stage ms and messages."""
    tools = {t.name: t for t in all_tools()}
    rows: list[dict[str, Any]] = []

    async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
        result = await pipeline.call_tool(tools[name], args, session, settings)
        return "\n".join(getattr(c, "text", "") for c in result.content), bool(result.is_error)

    async def timed(action: str, page: str, name: str, args: dict[str, Any]) -> None:
        REC.reset()
        REC.active = True
        token = _PATH.set(())
        t0 = time.perf_counter()
        try:
            text, error = await call(name, args)
        finally:
            total = (time.perf_counter() - t0) * 1000
            REC.active = False
            _PATH.reset(token)
        rows.append({"action": action, "page": page, "total": total, "error": text if error else None, "text": text,
                     "ms": {"/".join(k): v for k, v in REC.ms.items()},
                     "msgs": {"/".join(k) or "(pipeline)": v for k, v in REC.msgs.items()},
                     "methods": dict(REC.methods),
                     "byStage": {k: dict(v) for k, v in REC.by_stage.items()}})

    with serve_directory(FIXTURES) as port:
        site = f"http://127.0.0.1:{port}"
        async with BrowserSession(settings) as session:
            await call("browser_navigate", {"url": f"{site}/index.html"})
            for _ in range(rounds):
                for name in pages:
                    spec = PAGES[name]
                    url = f"{site}/{spec.path}"
                    await call("browser_navigate", {"url": url})
                    for action in ACTIONS:
                        await asyncio.sleep(0.3)
                        if action == "press_key":
                            await timed(action, name, "browser_press_key", {"key": "Enter"})
                        else:
                            label = {"click": spec.button, "type": spec.field, "select": spec.select}[action]
                            snap, _ = await call("browser_snapshot", {})
                            ref = find_ref("browser-ctx", snap, label)
                            args: dict[str, Any] = {"target": ref}
                            tool = {"click": "browser_click", "type": "browser_type",
                                    "select": "browser_select_option"}[action]
                            if action == "type":
                                args["text"] = TEXT
                            elif action == "select":
                                args["values"] = [spec.option]
                            await timed(action, name, tool, args)
                        if action in spec.navigates:
                            await call("browser_navigate", {"url": url})
                    await call("browser_navigate", {"url": "about:blank"})
    return rows


def _order(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for r in rows:
        for k in r["ms"]:
            seen.setdefault(k, None)
    return sorted(seen, key=lambda k: (k.split("/")[0] != "target", k.split("/")[0] != "label", k))


def markdown(rows: list[dict[str, Any]]) -> str:
    """Stage table: median ms (0 when a stage did not run) / mean messages per call, per action."""
    stages = _order(rows)
    head = "| stage | " + " | ".join(f"{a} ms / msgs" for a in ACTIONS) + " |"
    lines = [head, "|---|" + "---:|" * len(ACTIONS)]

    def cell(action: str, key: str | None) -> str:
        mine = [r for r in rows if r["action"] == action and not r["error"]]
        if not mine:
            return "-"
        if key is None:
            ms = statistics.median(r["total"] for r in mine)
            n = statistics.mean(sum(r["msgs"].values()) for r in mine)
        else:
            ms = statistics.median(r["ms"].get(key, 0.0) for r in mine)
            n = statistics.mean(r["msgs"].get(key, 0) for r in mine)
        return f"{ms:.0f} / {n:.1f}"

    lines.append("| **whole call** | " + " | ".join(f"**{cell(a, None)}**" for a in ACTIONS) + " |")
    for key in stages:
        depth = key.count("/")
        label = ("&nbsp;&nbsp;" * depth) + key.rsplit("/", 1)[-1]
        lines.append(f"| {label} | " + " | ".join(cell(a, key) for a in ACTIONS) + " |")
    own = []
    for a in ACTIONS:
        mine = [r for r in rows if r["action"] == a and not r["error"]]
        own.append(f"- / {statistics.mean(r['msgs'].get('(pipeline)', 0) for r in mine):.1f}" if mine else "-")
    lines.append("| (outside every stage) | " + " | ".join(own) + " |")
    errors = [r for r in rows if r["error"]]
    if errors:
        lines.append(f"\n{len(errors)} calls failed, e.g. {errors[0]['action']} on {errors[0]['page']}: "
                     f"{errors[0]['error'][:200]}")
    return "\n".join(lines)


def methods_table(rows: list[dict[str, Any]]) -> str:
    """Mean Playwright messages per call by method, per action (the most frequent first)."""
    totals: dict[str, dict[str, float]] = {}
    for a in ACTIONS:
        mine = [r for r in rows if r["action"] == a and not r["error"]]
        for r in mine:
            for m, n in r["methods"].items():
                totals.setdefault(m, {}).setdefault(a, 0.0)
                totals[m][a] += n / len(mine)
    lines = ["| message | " + " | ".join(ACTIONS) + " |", "|---|" + "---:|" * len(ACTIONS)]
    for m, per in sorted(totals.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"| {m} | " + " | ".join(f"{per.get(a, 0):.1f}" for a in ACTIONS) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.action_stages", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="times each page is run (default %(default)s)")
    ap.add_argument("--pages", default=",".join(PAGES), help="comma-separated (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write every row here")
    args = ap.parse_args()
    settings = Settings(launch=LaunchSettings(offline_external=True))
    with instrumented():
        rows = asyncio.run(profile(args.rounds, [p.strip() for p in args.pages.split(",") if p.strip()], settings))
    print(markdown(rows))
    print()
    print(methods_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
