"""MiniWoB++ page reads side by side (issue 24): each server's snapshot of the same task pages, in tokens.

For every ``task seed`` line of the task list (default ``/work/notes/tasks24.txt``; ``#`` starts a comment), each
server opens ``/miniwob/TASK.html`` from the MiniWoB++ 1.1.0 html folder (``--html``, else
``$AGENTSH_MINIWOB_HTML``, else ``/tmp/agentsh-final/miniwob/html``; served from 127.0.0.1), starts an episode
with that seed exactly as the agent-trial harness does (``../shared/agent-trials/agentsh.py``: its evaluate
tool runs ``Math.seedrandom(seed)`` and ``core.startEpisodeReal()``, then waits for ``WOB_TASK_READY``), and
takes its natural snapshot: browser-ctx and @playwright/mcp ``browser_snapshot``, chrome-devtools-mcp
``take_snapshot``. Tokens are counted as the benchmark counts them (:mod:`bench.client`: o200k tokens of every
text part plus the structured content).

Usage: ``python -m bench.miniwob_reads [--servers browser-ctx,playwright-mcp,chrome-devtools-mcp]
[--tasks FILE] [--keep-text DIR] [--json FILE]``. Prints per-task tokens, the sums and browser-ctx's share of
@playwright/mcp's; ``--keep-text`` writes each snapshot's text to ``DIR/SERVER/TASK-SEED.txt``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
from pathlib import Path
from typing import Any

from tests.support.site import serve_directory

from .client import Connection, connect
from .servers import SERVER_NAMES, build_specs

__all__ = ["read_tasks", "episode_js", "run", "markdown", "main"]

DEFAULT_TASKS = Path("/work/notes/tasks24.txt")
DEFAULT_HTML = Path("/tmp/agentsh-final/miniwob/html")
EVAL_TOOLS = ("browser_evaluate", "evaluate_script")

# The agent-trial harness's episode start (agentsh.py EPISODE_JS), without its reward bookkeeping: the result is
# passed back base64url-encoded between markers, so no server's serialisation garbles it.
_ENC = ("const __enc = (o) => { const s = JSON.stringify(o === undefined ? null : o);"
        " const b = btoa(unescape(encodeURIComponent(s))).replace(/\\+/g, '-').replace(/\\//g, '_')"
        ".replace(/=+$/, ''); return 'MWR' + '_B64:' + b + ':END'; };")
_EPISODE = """async () => { %(enc)s
  try {
    if (document.readyState !== 'complete') {
      await new Promise((r) => { window.addEventListener('load', r, {once: true}); setTimeout(r, 20000); });
    }
    await new Promise((r) => setTimeout(r, 50));
    if (typeof core === 'undefined' || typeof Math.seedrandom !== 'function') {
      return __enc({error: 'not a MiniWoB++ task page: ' + location.href});
    }
    if (!core.cover_div) core.startEpisode();
    Math.seedrandom(%(seed)s);
    core.EPISODE_MAX_TIME = 3600000;
    core.startEpisodeReal();
    let u = core.getUtterance();
    if (u && typeof u === 'object') { u = u.utterance; }
    return __enc({utterance: String(u), ready: WOB_TASK_READY});
  } catch (e) {
    return __enc({error: String((e && e.stack) || e)});
  }
}"""
_READY = "() => { %(enc)s return __enc({ready: typeof WOB_TASK_READY === 'undefined' ? null : WOB_TASK_READY}); }"
_MARK = re.compile(r"MWR_B64:([A-Za-z0-9_\-\\]*):END")


def read_tasks(path: Path) -> list[tuple[str, str]]:
    """``[(task, seed)]`` from a file of ``task seed`` lines."""
    out = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            task, seed = line.split()[:2]
            out.append((task, seed))
    return out


def episode_js(seed: str) -> str:
    """The episode start for ``seed`` (a number literal when it is an integer, as miniwob's Python passes it)."""
    lit = str(int(seed)) if re.fullmatch(r"-?\d{1,15}", seed) else json.dumps(seed)
    return _EPISODE % {"enc": _ENC, "seed": lit}


def _decode(text: str) -> dict[str, Any]:
    m = _MARK.search(text)
    if not m:
        raise ValueError("no marked result in the evaluate output: " + text[:300])
    b = m.group(1).replace("\\", "")
    return json.loads(base64.urlsafe_b64decode(b + "=" * (-len(b) % 4)).decode("utf-8"))


async def _eval(conn: Connection, tool: str, js: str) -> dict[str, Any]:
    rec = await conn.call(tool, {"function": js})
    hay = rec.text + "\n" + (json.dumps(rec.structured) if rec.structured is not None else "")
    return _decode(hay)


async def _read(conn: Connection, site: str, task: str, seed: str) -> dict[str, Any]:
    tool = next(t for t in EVAL_TOOLS if t in {x["name"] for x in conn.tools_raw.get("tools", [])})
    await conn.call(*conn.spec.navigate_call(f"{site}/miniwob/{task}.html"))
    data = await _eval(conn, tool, episode_js(seed))
    if data.get("error"):
        raise RuntimeError(f"{conn.spec.name} {task}:{seed}: {data['error'][:300]}")
    for _ in range(40):
        if data.get("ready") is not False:
            break
        await asyncio.sleep(0.25)
        data = await _eval(conn, tool, _READY % {"enc": _ENC})
    rec = await conn.call(conn.spec.snapshot, {})
    return {"server": conn.spec.name, "task": task, "seed": seed, "tokens": rec.tokens, "textTokens": rec.text_tokens,
            "chars": len(rec.text), "error": rec.error, "text": rec.text}


async def run(specs, tasks: list[tuple[str, str]], html: Path, log=print) -> list[dict[str, Any]]:
    """Each server in turn reads every task page; returns one row per (server, task)."""
    rows: list[dict[str, Any]] = []
    with serve_directory(html, routes={}) as port:
        site = f"http://127.0.0.1:{port}"
        for spec in specs:
            async with connect(spec) as conn:
                for task, seed in tasks:
                    rows.append(await _read(conn, site, task, seed))
            log(f"{spec.name}: {len(tasks)} pages read")
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """Per-task tokens, the sums, and browser-ctx's share of @playwright/mcp's."""
    servers = list(dict.fromkeys(r["server"] for r in rows))
    tasks = list(dict.fromkeys((r["task"], r["seed"]) for r in rows))
    by = {(r["server"], r["task"], r["seed"]): r for r in rows}
    lines = ["| task seed | " + " | ".join(servers) + " |", "|---|" + "---:|" * len(servers)]
    for task, seed in tasks:
        cells = [str(by[(s, task, seed)]["tokens"]) if (s, task, seed) in by else "" for s in servers]
        lines.append(f"| {task} {seed} | " + " | ".join(cells) + " |")
    sums = {s: sum(r["tokens"] for r in rows if r["server"] == s) for s in servers}
    lines.append("| **sum** | " + " | ".join(f"**{sums[s]:,}**" for s in servers) + " |")
    if "browser-ctx" in sums and sums.get("playwright-mcp"):
        lines.append("")
        lines.append(f"browser-ctx / @playwright/mcp: {sums['browser-ctx'] / sums['playwright-mcp']:.1%} "
                     f"({sums['browser-ctx']:,} / {sums['playwright-mcp']:,} tokens)")
    errors = [r for r in rows if r["error"]]
    for r in errors:
        lines.append(f"error: {r['server']} {r['task']} {r['seed']}: {r['error']}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.miniwob_reads", description=__doc__.splitlines()[0])
    ap.add_argument("--servers", default=",".join(SERVER_NAMES), help="comma-separated (default %(default)s)")
    ap.add_argument("--tasks", type=Path, default=DEFAULT_TASKS, help="'task seed' lines (default %(default)s)")
    ap.add_argument("--html", type=Path, default=None, help="MiniWoB++ html folder (default $AGENTSH_MINIWOB_HTML "
                    f"or {DEFAULT_HTML})")
    ap.add_argument("--keep-text", type=Path, default=None, help="write each snapshot's text under this folder")
    ap.add_argument("--json", type=Path, default=None, help="also write every row here")
    args = ap.parse_args()
    html = args.html or Path(os.environ.get("AGENTSH_MINIWOB_HTML") or DEFAULT_HTML)
    if not (html / "core" / "core.js").exists():
        raise SystemExit(f"no MiniWoB++ html folder at {html} (give --html)")
    specs = build_specs([s.strip() for s in args.servers.split(",") if s.strip()])
    try:
        rows = asyncio.run(run(specs, read_tasks(args.tasks), html))
    finally:
        for spec in specs:
            spec.cleanup()
    print(markdown(rows))
    if args.keep_text:
        for r in rows:
            out = args.keep_text / r["server"] / f"{r['task']}-{r['seed']}.txt"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(r["text"])
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in r.items() if k != "text"} for r in rows], indent=2))


if __name__ == "__main__":
    main()
