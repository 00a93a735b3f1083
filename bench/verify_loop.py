"""The verify loop: edit the app, rebuild, ask each server whether the change shows (issue 13's measure).

``python -m bench.verify_loop`` (or ``python -m bench --verify-loop``) works on a copy of the shop app
(``fixtures/apps/shop``: Vite + React) in a temporary folder, never on the committed source. Its
``node_modules`` come from ``npm ci`` run once into ``~/.cache/browser-ctx-bench/shop-node``
(``BROWSER_CTX_BENCH_CACHE`` moves it; run again only when ``package-lock.json`` changes) and linked
into the copy. Each round of :data:`bench.verify_rounds.ROUNDS` edits the copy's source, runs
``vite build`` (about 3 s; deterministic) into the folder served from localhost (``Cache-Control:
no-store``), and then each server, in an order that rotates every round, checks it with its natural
strategy. With ``--hmr`` the copy runs under the Vite dev server instead: an edit is hot-reloaded into
every server's page (the bench waits for the dev server's ``hmr update`` line and
:data:`bench.shop_app.HMR_SETTLE` s), and the checks skip the reload and the actions, except that the
empty submit is clicked again and an order is placed afresh after a reload (:func:`_hot`).

- **browser-ctx**: ``browser_navigate`` to the same URL (the reload), the actions that reach the
  round's page state (by role selector), ``browser_snapshot {since: <fingerprint of its last look in
  that state>}``, and ``browser_console_messages {since: <cursor>}`` in the error rounds. Where the since
  answer shows the change only as a fold or a cut (a fold line changed, a changed line cut short, or "the
  page changed inside what it walked"), it reads where the edit shows, as the agent that made it knows (the
  round's container: ``browser_text`` of the dialog, ``browser_snapshot`` of the grid), or else the targets
  the fold lines name.
- **@playwright/mcp**: ``browser_navigate`` (same URL), the same actions (it takes selectors),
  ``browser_snapshot``, ``browser_console_messages {level: "info"}``.
- **chrome-devtools-mcp**: ``navigate_page {type: "reload"}``, ``take_snapshot`` (its actions need uids
  from it), the actions by uid, ``take_snapshot`` again when an action came between, and
  ``list_console_messages``.

Before the edit, when a server's last look was in another page state, it looks at that state once
(reload, the actions, its full look: a ``browser_snapshot`` without ``since`` for browser-ctx, which its
``since`` then refers to): these *baseline* calls are counted apart from the round's.

The actions: ``invalid`` clicks "Place order"; ``dialog`` clicks "Read terms"; ``orders`` clicks the
"Orders" tab; ``placed`` fills name and email, clicks "Place order" and waits for the text "Last order"
(each server's wait tool), which the app shows with the toast. Every call's text is judged by
:func:`bench.verify_rounds.judge`. Tokens are o200k over everything the client receives
(:mod:`bench.client`).

Output: the report on stdout and ``OUT/verify-loop-<build|hmr>.json`` (every call with its text; ``--out``,
default ``bench-out``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import re
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

from browser_ctx import _http

from .client import CallRecord, Connection, connect
from .servers import SERVER_NAMES, build_specs
from .shop_app import HMR_WAIT, DevServer, build_app, prepare_app, write_source
from .verify_rounds import ROUNDS, Edit, Round, Verdict, apply_edit, judge

__all__ = ["main", "run_loop", "report", "summarise"]

SUBMIT = 'role=button[name="Place order"]'
SELECTORS = {"invalid": SUBMIT, "dialog": 'role=button[name="Read terms"]', "orders": 'role=tab[name="Orders"]'}
NAME, EMAIL = "Ada Lovelace", "ada@example.com"
WAIT_TEXT = "Last order"
#: The no-change round rewrites this file with its own content (a hot reload still sends an update).
NO_EDIT = Edit("src/OrderForm.jsx", "", "")
#: Console listings: left out of the old-text check (an error from before the fix is history, not the page).
CONSOLE_TOOLS = ("browser_console_messages", "list_console_messages")
#: A fold line's target: ``… 22 more rows (all: browser_snapshot target='role=grid[name="Orders"]')``.
_FOLD_TARGET = re.compile(r"\(all: browser_snapshot target='([^']+)'\)")
#: How browser-ctx's since answer says the change is inside what it folds or cuts.
_UNSEEN_NOTE = "the page changed inside what it walked"
#: A line cut by the snapshot: ``text: We keep your name… (+13 chars)``.
_CUT = re.compile(r"… \(\+[\d,]+ chars\)")
#: The since answer's notice that only refs are new on some lines.
_REFS_ONLY = re.compile(r"^~ \d+ lines? re-rendered with new refs")
#: Most targeted reads browser-ctx makes to follow a since answer into folded parts.
FOLD_READS = 2


def _hot(hmr: bool, rnd: Round) -> tuple[bool, bool]:
    """``(reload, act)`` for a check. A rebuilt bundle needs a reload and the actions again. A hot reload keeps
    the page and its state, so the check only looks, except that the empty submit is clicked again (the form
    shows the message it validated with), and an order is placed afresh, and an edit of initial state is seen,
    only after a reload (:attr:`Round.reload`)."""
    if not hmr or rnd.state == "placed" or rnd.reload:
        return True, True
    return False, rnd.state == "invalid"


class _Checker:
    """One server's strategy; :meth:`check` returns the round's calls and which of them is the look."""

    diffs = False

    def __init__(self, conn: Connection, url: str, timeout: float, hmr: bool = False) -> None:
        self.conn, self.url, self.timeout, self.hmr = conn, url, timeout, hmr
        self.calls: list[CallRecord] = []
        self.look: CallRecord | None = None
        self.state: str | None = "form"  # of the last look

    async def call(self, tool: str, **args: Any) -> CallRecord:
        rec = await self.conn.call(tool, args, timeout=self.timeout)
        self.calls.append(rec)
        return rec

    def take(self) -> list[CallRecord]:
        calls, self.calls = self.calls, []
        return calls

    async def start(self) -> None:
        """Open the app (not counted in any round)."""
        tool, args = self.conn.spec.navigate_call(self.url)
        await self.call(tool, **args)

    async def baseline(self, rnd: Round) -> None:
        """Before the edit, when the last look was in another state: reload, reach ``rnd.state``, look."""
        if self.state != rnd.state:
            await self.reach_and_look(rnd.state)
            self.state = rnd.state

    async def reach_and_look(self, state: str, reload: bool = True, act: bool = True) -> None:
        """Reload (unless not ``reload``), do the actions that reach ``state`` (if ``act``), take the look."""
        raise NotImplementedError

    async def check(self, rnd: Round) -> None:
        """The round's check: reload, reach the state, look, list the console (hot reload: see :func:`_hot`)."""
        await self.reach_and_look(rnd.state, *_hot(self.hmr, rnd))
        await self.console()

    async def console(self) -> None:
        raise NotImplementedError


class _BrowserCtx(_Checker):
    diffs = True

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.fingerprint: str | None = None
        self.cursor: Any = None
        self.full: dict[str, str] = {}  # state -> text of its last full look (fold lines name their targets)

    async def _reach(self, state: str, reload: bool = True, act: bool = True) -> None:
        if reload:
            await self.call("browser_navigate", url=self.url)
        if not act:
            return
        if state in SELECTORS:
            await self.call("browser_click", target=SELECTORS[state])
        elif state == "placed":
            await self.call("browser_fill_form", fields=[
                {"target": "#name", "name": "name", "type": "textbox", "value": NAME},
                {"target": "#email", "name": "Email", "type": "textbox", "value": EMAIL}])
            await self.call("browser_click", target=SUBMIT)
            await self.call("browser_wait_for", text=WAIT_TEXT)

    async def _look(self, since: str | None) -> None:
        rec = await self.call("browser_snapshot", **({"since": since} if since else {}))
        self.look = rec
        fp = (rec.structured or {}).get("fingerprint")
        if fp:
            self.fingerprint = fp

    async def _read_deeper(self, rnd: Round) -> None:
        """Follow a since answer that shows the change only as a fold or a cut (no other ``+``/``~`` line): a
        fold line that changed, a changed or new line cut short (``… (+N chars)``), or the note that the page
        changed inside what the read folds or cuts. Then read the round's container (where the agent knows its
        edit shows), else the targets the fold lines name (at most :data:`FOLD_READS`), with ``browser_text``
        for paragraphs."""
        text = self.look.text if self.look is not None else ""
        lines = text.splitlines()
        folds = [line for line in lines if line.startswith(("+ … ", "- … "))]
        cut = [line for line in lines if line.startswith(("+ ", "~ ")) and _CUT.search(line.split(" (was: ")[0])]
        unseen = _UNSEEN_NOTE in text
        shown = [line for line in lines if line.startswith(("+ ", "~ ")) and line not in folds and line not in cut
                 and not _REFS_ONLY.match(line)]
        if shown or not (folds or cut or unseen):  # the answer shows a change itself, or none at all
            return
        if rnd.container:
            await self.call(rnd.container_tool, target=rnd.container)
            return
        if unseen:
            folds += self.full.get(rnd.state, "").splitlines()
        reads = {t: "browser_text" if "more paragraphs" in line else "browser_snapshot"
                 for line in folds for t in _FOLD_TARGET.findall(line)}
        for target, tool in list(reads.items())[:FOLD_READS]:
            rec = await self.call(tool, target=target)
            if tool == "browser_snapshot" and _CUT.search(rec.text):  # a line of it is cut: read its text
                await self.call("browser_text", target=target)

    async def start(self) -> None:
        await super().start()
        await self._look(None)
        self.state = "form"
        self.full["form"] = self.look.text if self.look is not None else ""

    async def baseline(self, rnd: Round) -> None:
        if self.state != rnd.state:
            await self._reach(rnd.state)
            await self._look(None)
            self.state = rnd.state
            self.full[rnd.state] = self.look.text if self.look is not None else ""

    async def check(self, rnd: Round) -> None:
        await self._reach(rnd.state, *_hot(self.hmr, rnd))
        await self._look(self.fingerprint)
        await self._read_deeper(rnd)
        if rnd.console:
            rec = await self.call("browser_console_messages",
                                  **({"since": self.cursor} if self.cursor is not None else {}))
            self.cursor = (rec.structured or {}).get("cursor", self.cursor)


class _PlaywrightMcp(_Checker):
    async def reach_and_look(self, state: str, reload: bool = True, act: bool = True) -> None:
        if reload:
            await self.call("browser_navigate", url=self.url)
        if act and state in SELECTORS:
            await self.call("browser_click", target=SELECTORS[state], element=state)
        elif act and state == "placed":
            await self.call("browser_fill_form", fields=[
                {"target": "#name", "element": "name", "name": "name", "type": "textbox", "value": NAME},
                {"target": "#email", "element": "Email", "name": "Email", "type": "textbox", "value": EMAIL}])
            await self.call("browser_click", target=SUBMIT, element="Place order")
            await self.call("browser_wait_for", text=WAIT_TEXT)
        self.look = await self.call("browser_snapshot")

    async def console(self) -> None:
        await self.call("browser_console_messages", level="info")


#: chrome-devtools-mcp's snapshot line of an element: ``uid=1_26 button "PLACE ORDER"``.
_CD_UID = {
    "invalid": r'button "place order"', "dialog": r'button "read terms"', "orders": r'tab "orders"',
    "name": r'textbox "[^"]*name"', "email": r'textbox "email"', "submit": r'button "place order"',
}


def _uid(snapshot: str, what: str) -> str:
    m = re.search(r"uid=(\S+) " + _CD_UID[what], snapshot, re.IGNORECASE)
    if not m:
        raise LookupError(f"no uid for {what} in the snapshot")
    return m.group(1)


class _ChromeDevtools(_Checker):
    async def reach_and_look(self, state: str, reload: bool = True, act: bool = True) -> None:
        if reload:
            await self.call("navigate_page", type="reload")
        self.look = snap = await self.call("take_snapshot")
        try:
            if act and state in SELECTORS:
                await self.call("click", uid=_uid(snap.text, state))
                self.look = await self.call("take_snapshot")
            elif act and state == "placed":
                await self.call("fill_form", elements=[{"uid": _uid(snap.text, "name"), "value": NAME},
                                                       {"uid": _uid(snap.text, "email"), "value": EMAIL}])
                await self.call("click", uid=_uid(snap.text, "submit"))
                await self.call("wait_for", text=[WAIT_TEXT])
                self.look = await self.call("take_snapshot")
        except LookupError as exc:
            self.calls.append(CallRecord(tool="(find uid)", arguments={}, is_error=True, error=str(exc)))

    async def console(self) -> None:
        await self.call("list_console_messages")


_CHECKERS = {"browser-ctx": _BrowserCtx, "playwright-mcp": _PlaywrightMcp, "chrome-devtools-mcp": _ChromeDevtools}


def _call_json(rec: CallRecord) -> dict[str, Any]:
    return {**rec.summary(), "text": rec.text}


async def run_loop(servers: list[str], rounds: tuple[Round, ...] = ROUNDS, *, timeout: float = 60.0,
                   hmr: bool = False, log=print) -> dict[str, Any]:
    """Run ``rounds`` on ``servers``, rebuilding and reloading (or, with ``hmr``, through the Vite dev server's
    hot reload); return ``{"mode", "servers": {name: version}, "rounds": [...], "builds": [seconds]}``."""
    specs = build_specs(servers, log=log)
    result: dict[str, Any] = {"mode": "hmr" if hmr else "build", "servers": {}, "rounds": [], "builds": []}
    with tempfile.TemporaryDirectory(prefix="verify-loop-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        app = prepare_app(work, log)
        served = work / "site"
        dev: DevServer | None = None
        if hmr:
            dev = stack.enter_context(DevServer(app))
            url = dev.url
        else:
            result["builds"].append(round(build_app(app, served), 2))
            url = f"http://127.0.0.1:{stack.enter_context(_http.serve_directory(served))}/index.html"
        async with _connect_all(specs) as conns:
            checkers: dict[str, _Checker] = {}
            for spec, conn in zip(specs, conns, strict=True):
                result["servers"][spec.name] = spec.version
                checkers[spec.name] = _CHECKERS[spec.name](conn, url, timeout, hmr)
                await checkers[spec.name].start()
                checkers[spec.name].take()
            names = list(checkers)
            for k, rnd in enumerate(rounds):
                baselines = {}
                for name in names:
                    await checkers[name].baseline(rnd)
                    baselines[name] = checkers[name].take()
                sent = dev.updates if dev is not None else 0
                for edit in rnd.edits or (NO_EDIT,):
                    path = app / edit.path
                    write_source(path, apply_edit(path.read_text(), edit) if edit is not NO_EDIT else path.read_text())
                if dev is not None:
                    if not await dev.wait(sent):
                        log(f"  {rnd.name}: the dev server sent no update within {HMR_WAIT:.0f} s")
                else:
                    result["builds"].append(round(build_app(app, served), 2))
                entry: dict[str, Any] = {"name": rnd.name, "what": rnd.what, "state": rnd.state, "servers": {}}
                for name in names[k % len(names):] + names[:k % len(names)]:
                    checker = checkers[name]
                    checker.look = None
                    await checker.check(rnd)
                    calls = checker.take()
                    look = checker.look.text if checker.look is not None and not checker.look.is_error else None
                    since_look = next((i for i, c in enumerate(calls) if c is checker.look), 0)
                    verdict = judge(rnd, [c.text for c in calls], look=look, diffs=checker.diffs,
                                    errors=[f"{c.tool}: {c.error}" for c in calls if c.is_error],
                                    page_texts=[c.text for c in calls[since_look:] if c.tool not in CONSOLE_TOOLS])
                    entry["servers"][name] = _server_entry(calls, baselines[name], verdict)
                    log(f"  {rnd.name:<11} {name:<20} {sum(c.tokens for c in calls):>6,} tokens  "
                        f"{'correct' if verdict.correct else 'WRONG: ' + verdict.reason}")
                result["rounds"].append(entry)
    for spec in specs:
        spec.cleanup()
    return result


def _server_entry(calls: list[CallRecord], baseline: list[CallRecord], verdict: Verdict) -> dict[str, Any]:
    return {"tokens": sum(c.tokens for c in calls), "baselineTokens": sum(c.tokens for c in baseline),
            "correct": verdict.correct, "falseUnchanged": verdict.false_unchanged, "reason": verdict.reason,
            "calls": [_call_json(c) for c in calls], "baseline": [_call_json(c) for c in baseline]}


@contextlib.asynccontextmanager
async def _connect_all(specs: list) -> AsyncIterator[list[Connection]]:
    """Connect to every spec in turn; close them all on exit."""
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(connect(s)) for s in specs]


def summarise(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per server: ``median``/``total`` tokens per round, ``baseline`` tokens, ``correct``, ``rounds``,
    ``falseUnchanged``."""
    out: dict[str, dict[str, Any]] = {}
    for name in result["servers"]:
        rows = [r["servers"][name] for r in result["rounds"] if name in r["servers"]]
        tokens = [row["tokens"] for row in rows]
        out[name] = {"median": statistics.median(tokens) if tokens else 0, "total": sum(tokens),
                     "baseline": sum(row["baselineTokens"] for row in rows),
                     "correct": sum(row["correct"] for row in rows), "rounds": len(rows),
                     "falseUnchanged": sum(row["falseUnchanged"] for row in rows)}
    return out


def report(result: dict[str, Any]) -> str:
    """The markdown report: the summary table, the per-round table and each wrong answer's reason."""
    summary = summarise(result)
    ref = summary.get("playwright-mcp")
    lines = ["| server | tokens per round (median) | tokens, all rounds | + baseline looks | rounds correct | "
             "false \"Unchanged\" | vs @playwright/mcp: median / all rounds / with baselines |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, s in summary.items():
        ratio = "–"
        if ref and ref["median"] and ref["total"]:
            ratio = (f"{s['median'] / ref['median']:.0%} / {s['total'] / ref['total']:.0%} / "
                     f"{(s['total'] + s['baseline']) / (ref['total'] + ref['baseline']):.0%}")
        lines.append(f"| {name} {result['servers'][name]} | {s['median']:,.0f} | {s['total']:,} | {s['baseline']:,} | "
                     f"{s['correct']}/{s['rounds']} | {s['falseUnchanged']} | {ratio} |")
    names = list(result["servers"])
    lines += ["", "| round | state | " + " | ".join(names) + " |", "|---|---|" + "---:|" * len(names)]
    wrong = []
    for r in result["rounds"]:
        cells = []
        for name in names:
            e = r["servers"].get(name)
            if e is None:
                cells.append("–")
                continue
            cells.append(f"{e['tokens']:,} {'✓' if e['correct'] else '✗'}")
            if not e["correct"]:
                wrong.append(f"- {r['name']} / {name}: {e['reason']}")
        lines.append(f"| {r['name']}: {r['what']} | {r['state']} | " + " | ".join(cells) + " |")
    if wrong:
        lines += ["", "Wrong answers:", *wrong]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--servers`` (default all three), ``--out`` (default ``bench-out``), ``--timeout``."""
    ap = argparse.ArgumentParser(prog="python -m bench.verify_loop", description=__doc__.splitlines()[0])
    ap.add_argument("--servers", default=",".join(SERVER_NAMES))
    ap.add_argument("--out", type=Path, default=Path("bench-out"))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per tool call (default: %(default)s)")
    ap.add_argument("--hmr", action="store_true",
                    help="edit under the Vite dev server (hot reload, no reload by the servers) instead of rebuilding")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.servers.split(",") if s.strip()]
    if bad := [n for n in names if n not in SERVER_NAMES]:
        print(f"error: unknown server(s) {', '.join(bad)}", file=sys.stderr)
        return 2
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    started = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    try:
        result = anyio.run(lambda: run_loop(names, timeout=args.timeout, hmr=args.hmr, log=log))
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    result["date"] = started
    text = report(result)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"verify-loop-{result['mode']}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    how = "hot reload (Vite dev server)" if args.hmr else f"rebuild + reload, builds {sum(result['builds']):.0f} s"
    print(f"Verify loop, {started} ({len(result['rounds'])} rounds, {how})\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
