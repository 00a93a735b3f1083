"""Action latency side by side (issue 25): click, type, press_key and select through each server's stdio client.

Pages (``fixtures/actions/latency/``, served with the test suite's routes: :mod:`tests.support.action_routes`):

- ``timer.html``: a countdown ticking every second and a progress bar moving every 100 ms; the controls answer
  at once, without the network;
- ``websocket.html``: a live WebSocket (a heartbeat every 100 ms through the fixtures site's echo server); what
  the controls send comes back as a reply;
- ``toast.html``: the controls save through the network (80 ms) and say so in a toast that stays 3 s;
- ``navigation.html``: a link, a GET form (Enter submits it) and a select that load another document.

On each page load a server runs, in order: click the button (or link), type ``Ada`` into the text field, press
``Enter`` (the focus is in the field, so the form submits), select the second option of the select; the page is
loaded again (untimed) after an action that navigated, and left for ``about:blank`` after the four (so the
servers that wait keep no timer or socket busy). As an agent does, each action but the key press is preceded
by the server's snapshot (untimed), and its target is the ref (uid) that snapshot gives the control
(``--selectors``: browser-ctx and @playwright/mcp get CSS selectors instead, and no snapshot). Only the action
call is timed (request sent to result parsed). Calls: browser-ctx and @playwright/mcp ``browser_click
{target}``, ``browser_type {target, text}``, ``browser_press_key {key: "Enter"}``, ``browser_select_option
{target, values: [label]}``; chrome-devtools-mcp ``click {uid}``, ``fill {uid, value}`` (for the text and for
the select, by its label), ``press_key {key: "Enter"}``. Rounds repeat every page; the server order rotates page
by page, so machine noise hits all alike. A pause of ``--pause`` seconds (an agent's think time) comes before
each action.

For browser-ctx the result is also checked for the action's effect (the text the page shows after it, e.g.
``Settings saved``): the share of records that carry it. ``--quiet-ms 100,150,300`` runs one browser-ctx per
settle window (``--settle-quiet-ms``) beside the others.

Usage: ``python -m bench.actions [--rounds 6] [--servers browser-ctx,playwright-mcp,chrome-devtools-mcp]
[--quiet-ms LIST] [--baseline DIR] [--selectors] [--pause 0.3] [--json FILE]``. Prints markdown tables (median and p90
nearest-rank, seconds); figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import re
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tests.support.action_routes  # noqa: F401 - registers /actions/api/... and the WebSocket echo server
from tests.support.site import FIXTURES, serve_directory

from .client import CallRecord, Connection, connect
from .servers import SERVER_NAMES, ServerSpec, build_specs

__all__ = ["PAGES", "ACTIONS", "run", "main", "percentile"]

ACTIONS = ("click", "type", "press_key", "select")
TEXT = "Ada"


@dataclass(frozen=True)
class PageSpec:
    """One fixture page: its path, the labels chrome-devtools-mcp finds its controls by, the option selected,
    and the text each action's effect shows (``None``: no visible effect to check)."""

    path: str
    button: str
    field: str
    select: str
    option: str
    effects: dict[str, str | None]
    navigates: tuple[str, ...] = ()


PAGES: dict[str, PageSpec] = {
    "timer": PageSpec("actions/latency/timer.html", 'button "Add item"', 'textbox "Name"', 'combobox "Speed"', "Fast",
                      {"click": "Item 1", "type": None, "press_key": "Submitted: Ada", "select": "Speed: Fast"}),
    "websocket": PageSpec("actions/latency/websocket.html", 'button "Wave"', 'textbox "Message"',
                          'combobox "Channel"', "Random",
                          {"click": "Reply: wave", "type": None, "press_key": "Reply: Ada",
                           "select": "Reply: joined Random"}),
    "toast": PageSpec("actions/latency/toast.html", 'button "Save"', 'textbox "Display name"', 'combobox "Theme"',
                      "Dark", {"click": "Settings saved", "type": "At least 4 characters",
                               "press_key": "Renamed to Ada", "select": "Theme: Dark"}),
    "navigation": PageSpec("actions/latency/navigation.html", 'link "Next page"', 'textbox "Query"',
                           'combobox "Jump to"', "Results",
                           {"click": "Arrived from link", "type": None, "press_key": "Arrived from a search",
                            "select": "Arrived from select"}, navigates=("click", "press_key", "select")),
}


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-1) of ``values`` (not empty)."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


SELECTORS = {"click": "#act", "type": "#name", "select": "#choice"}


def find_ref(server: str, snapshot: str, label: str) -> str | None:
    """The ref (uid) ``server``'s snapshot gives the control ``label`` (``button "Save"``, ``combobox "Theme"``):
    browser-ctx ``button "Save" [e1]`` (a native select is ``select "Theme" [e4]``), @playwright/mcp
    ``- button "Save" [ref=e3]``, chrome-devtools-mcp ``uid=1_2 button "Save"``."""
    role, name = label.split(" ", 1)
    if server.startswith("chrome-devtools-mcp"):
        pattern = rf"^\s*uid=(\S+) {role} {re.escape(name)}"
    elif server.startswith("browser-ctx"):
        role = "select" if role == "combobox" else role
        pattern = rf"^\s*{role} {re.escape(name)}[^\n\[]*\[((?:f\d+)?e\d+)\]"
    else:
        pattern = rf"^\s*- {role} {re.escape(name)}[^\n]*\[ref=((?:f\d+)?e\d+)\]"
    m = re.search(pattern, snapshot, re.M)
    return m.group(1) if m else None


async def _call(conn: Connection, page: PageSpec, action: str, selectors: bool) -> CallRecord:
    """Make ``action`` on ``conn``'s current page the way its server takes it (see the module docstring)."""
    name = conn.spec.name
    cdp = name.startswith("chrome-devtools-mcp")
    if action == "press_key":
        return await conn.call("press_key" if cdp else "browser_press_key", {"key": "Enter"})
    if selectors and not cdp:
        target: str | None = SELECTORS[action]
    else:
        label = {"click": page.button, "type": page.field, "select": page.select}[action]
        snap = await conn.call(conn.spec.snapshot, {})
        target = find_ref(name, snap.text, label)
        if target is None:
            return CallRecord(tool=action, arguments={}, is_error=True, error=f"no ref for {label} in the snapshot")
    if cdp:
        if action == "click":
            return await conn.call("click", {"uid": target})
        return await conn.call("fill", {"uid": target, "value": TEXT if action == "type" else page.option})
    if action == "click":
        return await conn.call("browser_click", {"target": target})
    if action == "type":
        return await conn.call("browser_type", {"target": target, "text": TEXT})
    return await conn.call("browser_select_option", {"target": target, "values": [page.option]})


async def _page_run(conn: Connection, site: str, name: str, pause: float, selectors: bool) -> list[dict[str, Any]]:
    """One page load and its four actions on one server: a row per action."""
    page = PAGES[name]
    url = f"{site}/{page.path}"
    rows = []
    await conn.call(*conn.spec.navigate_call(url))
    for action in ACTIONS:
        await asyncio.sleep(pause)
        rec = await _call(conn, page, action, selectors)
        effect = page.effects[action]
        rows.append({"server": conn.spec.name, "page": name, "action": action, "seconds": rec.seconds,
                     "error": rec.error if rec.is_error else None, "tokens": rec.tokens,
                     "effectInResult": (effect in rec.text) if effect else None})
        if action in page.navigates:
            await conn.call(*conn.spec.navigate_call(url))
    await conn.call(*conn.spec.navigate_call("about:blank"))  # an idle server's page keeps no timer running
    return rows


def _variants(specs: list[ServerSpec], quiet: list[int]) -> list[ServerSpec]:
    """browser-ctx once per settle window in ``quiet`` (named ``browser-ctx@N``), the other servers as they are."""
    out = []
    for spec in specs:
        if spec.name == "browser-ctx" and quiet:
            out += [replace(spec, name=f"browser-ctx@{q}", args=[*spec.args, "--settle-quiet-ms", str(q)])
                    for q in quiet]
        else:
            out.append(spec)
    return out


async def run(specs: list[ServerSpec], rounds: int, pause: float, selectors: bool = False,
              log=print) -> list[dict[str, Any]]:
    """Every server started once; ``rounds`` times each page, servers interleaved. Returns every action's row."""
    rows: list[dict[str, Any]] = []
    with serve_directory(FIXTURES) as port:
        site = f"http://127.0.0.1:{port}"
        async with contextlib.AsyncExitStack() as stack:
            conns = [await stack.enter_async_context(connect(s)) for s in specs]
            for conn in conns:  # launch each browser before timing anything
                await conn.call(*conn.spec.navigate_call(f"{site}/index.html"))
            k = 0
            for r in range(rounds):
                for name in PAGES:
                    order = conns[k % len(conns):] + conns[:k % len(conns)]
                    k += 1
                    for conn in order:
                        rows += await _page_run(conn, site, name, pause, selectors)
                log(f"round {r + 1}/{rounds} done")
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """{action: {server: {median, p90, n, errors, effect (share of checked results carrying the effect)}}}."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for action in ACTIONS:
        for server in dict.fromkeys(r["server"] for r in rows):
            mine = [r for r in rows if r["action"] == action and r["server"] == server]
            ok = [r["seconds"] for r in mine if not r["error"]]
            checked = [r["effectInResult"] for r in mine if r["effectInResult"] is not None]
            out.setdefault(action, {})[server] = {
                "median": statistics.median(ok) if ok else float("nan"),
                "p90": percentile(ok, 0.9) if ok else float("nan"),
                "n": len(ok), "errors": len(mine) - len(ok),
                "effect": (sum(checked) / len(checked)) if checked else float("nan"),
            }
    return out


def markdown(summary: dict[str, dict[str, dict[str, float]]], rows: list[dict[str, Any]]) -> str:
    """The action table (median / p90 ms per server) and a per-page table of medians (ms)."""
    servers = list(next(iter(summary.values())))
    lines = ["| action | " + " | ".join(f"{s} median / p90 ms" for s in servers) + " |",
             "|---|" + "---:|" * len(servers)]
    for action, per in summary.items():
        cells = []
        for s in servers:
            v = per[s]
            cell = f"{v['median'] * 1000:.0f} / {v['p90'] * 1000:.0f}"
            if v["errors"]:
                cell += f" ({int(v['errors'])} errors)"
            cells.append(cell)
        lines.append(f"| {action} | " + " | ".join(cells) + " |")
    bc = [s for s in servers if s.startswith("browser-ctx")]
    if bc:
        lines += ["", "| action | " + " | ".join(f"{s}: effect in the record" for s in bc) + " |",
                  "|---|" + "---:|" * len(bc)]
        for action, per in summary.items():
            cells = ["-" if math.isnan(per[s]["effect"]) else f"{per[s]['effect']:.0%}" for s in bc]
            lines.append(f"| {action} | " + " | ".join(cells) + " |")
    lines += ["", "| page · action | " + " | ".join(f"{s} median ms" for s in servers) + " |",
              "|---|" + "---:|" * len(servers)]
    for page in PAGES:
        for action in ACTIONS:
            cells = []
            for s in servers:
                secs = [r["seconds"] for r in rows if (r["page"], r["action"], r["server"]) == (page, action, s)
                        and not r["error"]]
                cells.append(f"{statistics.median(secs) * 1000:.0f}" if secs else "-")
            lines.append(f"| {page} · {action} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.actions", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6, help="times each page is run per server (default %(default)s)")
    ap.add_argument("--servers", default=",".join(SERVER_NAMES), help="comma-separated (default %(default)s)")
    ap.add_argument("--quiet-ms", default="", help="comma-separated settle windows: one browser-ctx per window")
    ap.add_argument("--baseline", type=Path, help="also run browser-ctx from this source tree (e.g. a git worktree "
                    "of an older commit), named browser-ctx-baseline")
    ap.add_argument("--pause", type=float, default=0.3, help="seconds before each action (default %(default)s)")
    ap.add_argument("--selectors", action="store_true",
                    help="CSS selectors as targets for browser-ctx and @playwright/mcp, no snapshot before an action")
    ap.add_argument("--json", type=Path, help="also write every row and the summary here")
    args = ap.parse_args()
    specs = build_specs([s.strip() for s in args.servers.split(",") if s.strip()])
    quiet = [int(q) for q in args.quiet_ms.split(",") if q.strip()]
    specs = _variants(specs, quiet)
    if args.baseline:
        base = next((s for s in specs if s.name.startswith("browser-ctx")), None) or build_specs(["browser-ctx"])[0]
        tree = str(args.baseline.resolve())  # first on sys.path, before the working directory
        specs.insert(1, replace(base, name="browser-ctx-baseline", args=[
            "-c", f"import sys; sys.path.insert(0, {tree!r}); from browser_ctx.cli import main; sys.exit(main())",
            "serve", "--offline-external"]))
    try:
        rows = asyncio.run(run(specs, args.rounds, args.pause, args.selectors))
    finally:
        for spec in specs:
            spec.cleanup()
    summary = summarise(rows)
    print(markdown(summary, rows))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
