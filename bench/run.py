"""The benchmark run: every server started once, pages visited interleaved, results collected per page.

Per page, each server (in an order rotated page by page, so machine noise hits all alike) runs:

1. its navigate tool on the page URL, then its snapshot tool with no arguments (measure 2);
2. its tokens-to-answer strategy (measure 3): browser-ctx reads on with ``browser_text`` (no target; then
   ``offset = nextOffset`` while ``truncated``, at most :data:`TEXT_CALLS` calls in all), reusing the same
   navigation; the others' strategy is the navigate + snapshot already made.

Then the debug pages (measure 5) when the fixtures exist. Each server runs in its own task behind a
job channel, so a crashed server is restarted without disturbing the others.
"""

from __future__ import annotations

import contextlib
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectSendStream

import tests.support.event_routes  # noqa: F401 - registers the /events/... routes the debug pages fetch
from browser_ctx._http import serve_directory as serve_corpus
from tests.support.site import ROUTES, serve_directory

from .client import CallRecord, Connection, connect
from .corpus import Page, answered, extract_reading, normalise, normalise_loose
from .servers import ServerSpec

__all__ = ["Options", "Worker", "run_benchmark", "TEXT_CALLS", "DEBUG_PAGES", "REFUSE_TOKENS", "WARN_TOKENS"]

#: At most this many ``browser_text`` calls per page in browser-ctx's answer strategy.
TEXT_CALLS = 5
#: Claude Code refuses a tool result over this many tokens, and warns over :data:`WARN_TOKENS`.
REFUSE_TOKENS = 25_000
WARN_TOKENS = 10_000
#: Fixture pages for measure 5, relative to the fixtures folder: (label, candidate paths, first found wins).
DEBUG_PAGES = (
    ("console flood", ("events/console-flood.html", "events/flood.html")),
    ("network heavy", ("events/network-heavy.html", "events/network.html")),
)
#: How each server's results are read back into plain text for the loose answer check.
FORMATS = {"browser-ctx": "markdown", "playwright-mcp": "aria-yaml", "chrome-devtools-mcp": "cdp-a11y"}


@dataclass
class Options:
    """Run options (see ``python -m bench --help``)."""

    corpus: Path
    pages: list[Page]
    out: Path
    fixtures: Path | None = None
    call_timeout: float = 120.0
    keep_text: bool = False
    text_calls: int = TEXT_CALLS
    debug_wait: float = 2.0
    log: Any = None  # callable(str) for progress lines (default: stderr)


@dataclass
class _Job:
    tool: str
    args: dict[str, Any]
    timeout: float
    done: anyio.Event = field(default_factory=anyio.Event)
    result: CallRecord | None = None


class Worker:
    """One server running in its own task; :meth:`call` sends it a job and waits for the record."""

    def __init__(self, spec: ServerSpec, errlog_path: Path):
        self.spec = spec
        self.errlog_path = errlog_path
        self.conn: Connection | None = None
        self.tools_tokens = 0
        self.tool_names: set[str] = set()
        self.start_seconds: list[float] = []
        self.restarts = 0
        self._send: MemoryObjectSendStream[_Job] | None = None
        self._tg: TaskGroup | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    async def start(self, tg: TaskGroup) -> None:
        """Start (or restart) the server in task group ``tg`` and wait until it has listed its tools."""
        self._tg = tg
        send, recv = anyio.create_memory_object_stream[_Job](1)
        self._send = send
        await tg.start(self._serve, recv)

    async def _serve(self, recv, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        with open(self.errlog_path, "a") as errlog:
            started = False
            try:
                async with connect(self.spec, errlog=errlog) as conn:
                    self.conn = conn
                    self.tools_tokens = conn.tools_tokens
                    self.tool_names = {t.get("name") for t in conn.tools_raw.get("tools", [])}
                    self.start_seconds.append(conn.start_seconds)
                    started = True
                    task_status.started()
                    async with recv:
                        async for job in recv:
                            job.result = await conn.call(job.tool, job.args, timeout=job.timeout)
                            dead = job.result.raised and not await self._alive(conn)
                            if dead:
                                self.conn = None  # before done: the next call() restarts the server
                                errlog.write(f"[bench] {self.name} stopped answering; restarting\n")
                            job.done.set()
                            if dead:
                                break
            except Exception as exc:  # noqa: BLE001 - a server that fails to start is reported, not fatal
                errlog.write(f"[bench] {self.name} failed: {exc!r}\n")
                if not started:
                    raise
            finally:
                self.conn = None

    @staticmethod
    async def _alive(conn: Connection) -> bool:
        with anyio.move_on_after(10):
            try:
                await conn.session.send_ping()
                return True
            except Exception:  # noqa: BLE001 - any failure to answer a ping means the server is gone
                return False
        return False

    async def call(self, tool: str, args: dict[str, Any] | None = None, timeout: float = 120.0) -> CallRecord:
        """Run one tool call on this server (restarting it first if it died); never raises."""
        if self.conn is None:
            self.restarts += 1
            try:
                assert self._tg is not None, "call() before start()"
                await self.start(self._tg)
            except Exception as exc:  # noqa: BLE001 - a server that cannot restart is a recorded failure
                return CallRecord(tool=tool, arguments=dict(args or {}), is_error=True, raised=True,
                                  error=f"server could not be restarted: {exc}")
        job = _Job(tool, dict(args or {}), timeout)
        assert self._send is not None  # set by start()
        try:
            await self._send.send(job)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.conn = None
            return CallRecord(tool=tool, arguments=dict(args or {}), is_error=True, raised=True,
                              error="server exited")
        await job.done.wait()
        assert job.result is not None  # _serve sets it before done
        return job.result

    async def stop(self) -> None:
        """Close the job channel; the server task then shuts the server down."""
        if self._send is not None:
            await self._send.aclose()


# ------------------------------------------------------------------------------------------------ per page

def _truncated(rec: CallRecord) -> tuple[bool, int | None]:
    s = rec.structured or {}
    nxt = s.get("nextOffset")
    return bool(s.get("truncated")), (int(nxt) if isinstance(nxt, (int, float)) else None)


async def _page_for_server(w: Worker, page: Page, url: str, opts: Options) -> tuple[dict, dict[str, str]]:
    """Run measures 2 and 3 for one server on one page. Returns (JSON record, {call label: text})."""
    spec = w.spec
    dialogs: list[CallRecord] = []

    async def answer_dialogs(rec: CallRecord) -> bool:
        """Answer open dialogs the result reports (at most 5 in a row); True if there was one."""
        seen = False
        while spec.dialog_marker and spec.dialog_call and spec.dialog_marker in rec.text and len(dialogs) < 5:
            seen = True
            rec = await w.call(*spec.dialog_call, opts.call_timeout)
            dialogs.append(rec)
        return seen

    tool, args = spec.navigate_call(url)
    nav = await w.call(tool, args, opts.call_timeout)
    await answer_dialogs(nav)
    snap = await w.call(spec.snapshot, {}, opts.call_timeout)
    if await answer_dialogs(snap):
        dialogs.append(snap)  # the blocked attempt counts too
        snap = await w.call(spec.snapshot, {}, opts.call_timeout)
    strategy = [nav]
    texts = {"navigate": nav.text, "snapshot": snap.text}
    if spec.name == "browser-ctx":
        reads: list[CallRecord] = []
        rec = await w.call("browser_text", {}, opts.call_timeout)
        reads.append(rec)
        while len(reads) < opts.text_calls and not rec.is_error:
            more, nxt = _truncated(rec)
            if not more or nxt is None:
                break
            rec = await w.call("browser_text", {"offset": nxt}, opts.call_timeout)
            reads.append(rec)
        strategy += reads
        for i, r in enumerate(reads):
            texts[f"text{i + 1}"] = r.text
    else:
        strategy.append(snap)
    strategy += dialogs  # answering a dialog is part of getting the page read

    fmt = FORMATS.get(spec.name, "markdown")
    joined = "\n".join(r.text for r in strategy)
    strict_hay = normalise(joined)
    loose_hay = normalise_loose("\n".join(extract_reading(r.text, fmt) for r in strategy))
    over = any(r.tokens > REFUSE_TOKENS for r in strategy)
    answers = {}
    for q in page.questions:
        strict, loose = answered(q, strict_hay, loose_hay)
        answers[q.kind] = {"strict": strict and not over, "loose": loose and not over,
                           "foundIgnoringLimit": loose}
    record = {
        "navigate": nav.summary(),
        "snapshot": snap.summary(),
        "strategy": [r.summary() for r in strategy],
        "strategyTokens": sum(r.tokens for r in strategy),
        "strategyOverRefuse": over,
        "dialogCalls": [d.summary() for d in dialogs],
        # browser-ctx answers a repeated identical read with "Unchanged since <fingerprint>" instead of the text
        "unchangedReplies": sum(r.text.lstrip().startswith("Unchanged since") for r in [snap, *strategy]),
        "answers": answers,
    }
    if spec.name == "browser-ctx":
        record["snapshotTruncated"] = _truncated(snap)[0]
        record["snapshotFullTokens"] = (snap.structured or {}).get("fullTokens")
    return record, texts


class _Activity:
    """Time of the last dynamic-route request seen by the fixtures site (monotonic seconds)."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def wrap(self, handler):
        def wrapped(h):
            self.last = time.monotonic()
            try:
                return handler(h)
            finally:
                self.last = time.monotonic()
        return wrapped


@contextlib.contextmanager
def _fixtures_site(root: Path):
    """Serve the fixtures folder with the test suite's dynamic routes (``/events/api/...``).

    Yields ``(port, activity)``; ``activity`` is an :class:`_Activity` that records when a route last ran.
    """
    activity = _Activity()
    saved = dict(ROUTES)
    ROUTES.update({path: activity.wrap(fn) for path, fn in saved.items()})
    try:
        with serve_directory(root) as port:
            yield port, activity
    finally:
        ROUTES.clear()
        ROUTES.update(saved)


async def _settle(activity: _Activity | None, least: float, idle: float = 2.0, most: float = 30.0) -> float:
    """Wait at least ``least`` s, then until the dynamic routes were idle ``idle`` s (at most ``most`` s in all)."""
    t0 = time.monotonic()
    await anyio.sleep(least)
    while activity is not None and time.monotonic() - t0 < most and time.monotonic() - activity.last < idle:
        await anyio.sleep(0.2)
    return time.monotonic() - t0


async def _debug_pages(workers: list[Worker], opts: Options, log) -> dict[str, Any]:
    """Measure 5: each server's console and network listing, natural arguments, on the fixtures' debug pages."""
    if opts.fixtures is None:
        return {"skipped": "no fixtures folder (or --no-debug)"}
    found = [(label, next((c for c in cands if (opts.fixtures / c).is_file()), None)) for label, cands in DEBUG_PAGES]
    missing = [" or ".join(cands) for (label, cands), (_, rel) in zip(DEBUG_PAGES, found, strict=True) if rel is None]
    if missing:
        log(f"Debug output (measure 5): {', '.join(missing)} not found under {opts.fixtures}; skipped.")
    present = [(label, rel) for label, rel in found if rel]
    if not present:
        return {"skipped": f"missing {', '.join(missing)}"}
    out: dict[str, Any] = {"pages": {}, "missing": missing, "waitSeconds": opts.debug_wait}
    with _fixtures_site(opts.fixtures) as (port, activity):
        out["dynamicRoutes"] = activity is not None
        for label, rel in present:
            url = f"http://127.0.0.1:{port}/{rel}"
            per: dict[str, Any] = {}
            for w in workers:
                tool, args = w.spec.navigate_call(url)
                nav = await w.call(tool, args, opts.call_timeout)
                waited = await _settle(activity, opts.debug_wait)  # let the page finish logging / fetching
                entry: dict[str, Any] = {"navigate": nav.summary(), "waitedSeconds": round(waited, 1)}
                for kind, tname in (("console", w.spec.console), ("network", w.spec.network)):
                    if not tname or tname not in w.tool_names:
                        entry[kind] = None
                        continue
                    rec = await w.call(tname, dict(w.spec.debug_args.get(tname, {})), opts.call_timeout)
                    entry[kind] = rec.summary()
                    if opts.keep_text:
                        d = opts.out / "text" / "_debug"
                        d.mkdir(parents=True, exist_ok=True)
                        (d / f"{Path(rel).stem}.{w.name}.{kind}.txt").write_text(rec.text)
                per[w.name] = entry
            out["pages"][f"{label} ({rel})"] = per
    return out


def _rotate(items: list, k: int) -> list:
    k %= max(len(items), 1)
    return items[k:] + items[:k]


async def run_benchmark(specs: list[ServerSpec], opts: Options) -> dict[str, Any]:
    """Run every measure and return the raw results (also written page by page under ``opts.out/pages``)."""
    log = opts.log or (lambda s: print(s, file=sys.stderr, flush=True))
    pages_dir = opts.out / "pages"
    logs_dir = opts.out / "logs"
    pages_dir.mkdir(parents=True, exist_ok=True)
    logs_dir.mkdir(parents=True, exist_ok=True)
    text_dir = opts.out / "text"
    t_start = time.perf_counter()
    results: dict[str, Any] = {"pages": [], "servers": {}}
    with serve_corpus(opts.corpus) as port:
        base = f"http://127.0.0.1:{port}"
        async with anyio.create_task_group() as tg:
            workers = []
            for spec in specs:
                (logs_dir / f"{spec.name}.log").write_text("")
                w = Worker(spec, logs_dir / f"{spec.name}.log")
                try:
                    await w.start(tg)
                except Exception as exc:  # noqa: BLE001 - benchmark the others
                    log(f"{spec.name} failed to start ({exc!r}); see {w.errlog_path}. Left out.")
                    results["servers"][spec.name] = {"version": spec.version, "failedToStart": repr(exc)}
                    continue
                workers.append(w)
                log(f"{spec.name} {spec.version}: started, tools/list = {w.tools_tokens} tokens")
            # Warm-up (not measured): each server launches its browser on a tiny page.
            for w in workers:
                tool, args = w.spec.navigate_call(base + "/")
                await w.call(tool, args, opts.call_timeout)
            for i, page in enumerate(opts.pages):
                url = base + page.url_path
                entry: dict[str, Any] = {
                    "page": page.name, "url": page.url_path, "htmlBytes": page.html_bytes,
                    "questions": [{"kind": q.kind, "answer": q.answer} for q in page.questions],
                    "order": [], "servers": {},
                }
                t_page = time.perf_counter()
                for w in _rotate(workers, i):
                    entry["order"].append(w.name)
                    rec, texts = await _page_for_server(w, page, url, opts)
                    entry["servers"][w.name] = rec
                    if opts.keep_text:
                        d = text_dir / page.name
                        d.mkdir(parents=True, exist_ok=True)
                        for label, text in texts.items():
                            (d / f"{w.name}.{label}.txt").write_text(text)
                (pages_dir / f"{page.name}.json").write_text(json.dumps(entry, indent=1, ensure_ascii=False))
                results["pages"].append(entry)
                summary = "  ".join(
                    f"{n}={s['snapshot']['tokens']}" + ("!" if s["snapshot"]["isError"] else "")
                    for n, s in entry["servers"].items()
                )
                log(f"[{i + 1}/{len(opts.pages)}] {page.name} ({page.html_bytes:,} B, "
                    f"{time.perf_counter() - t_page:.1f}s): snapshot tokens {summary}")
            results["debug"] = await _debug_pages(workers, opts, log)
            for w in workers:
                results["servers"][w.name] = {
                    "version": w.spec.version, "toolsTokens": w.tools_tokens, "tools": len(w.tool_names),
                    "startSeconds": [round(s, 2) for s in w.start_seconds], "restarts": w.restarts,
                    "command": [w.spec.command, *w.spec.args],
                }
                await w.stop()
    results["wallSeconds"] = round(time.perf_counter() - t_start, 1)
    for spec in specs:
        spec.cleanup()
    return results


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of ``values``; ``nan`` when empty."""
    if not values:
        return math.nan
    s = sorted(values)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def median(values: list[float]) -> float:
    """Median of ``values``; ``nan`` when empty."""
    return statistics.median(values) if values else math.nan
