"""The README's scale-out recipe under load, with one backend killed midway.

Starts, all on 127.0.0.1: one ``browser-ctx browser-server`` (the browser pool, with a token), two
``browser-ctx serve --transport http --ws-endpoint …`` servers, and HAProxy with ``deploy/haproxy.cfg`` (ports
substituted, plus an admin socket to read server states). Then N clients (default 4) loop through the balancer
for the whole run, each in its own MCP session: navigate to its own page, read it back (``browser_text``, checked
to be its own: isolation), navigate to a counter, click, verify, snapshot. At ``--kill-at`` (fraction of the run)
backend s1 is killed with SIGKILL (its whole process group), and started again ``--restart-after`` seconds later.

A client whose call fails (its server died) records the error and initializes a new session (the balancer sends
it to a live server). Reported: tool calls, errors (and their kinds), latency p50/p95 before and after the kill,
how long HAProxy took to take s1 out of rotation and to put it back, and each affected client's recovery time
(kill → its first successful call after the kill).

Usage: ``python -m bench.scale_out [--seconds 300] [--clients 4] [--kill-at 0.5] [--restart-after 30]
[--json FILE]`` (needs ``haproxy``; localhost only). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.client import result_text
from tests.support.fault_pages import serve_fault_pages

CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "haproxy.cfg"
SHIPPED_PORTS = (8930, 8931, 8932)
TOKEN = "bench-scale-out-token"
CALL_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing listens on {port} after {timeout} s")
        time.sleep(0.1)


def start(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as err:
        return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


def server_states(stats: Path) -> dict[str, str]:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(stats))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
    return {r[1]: r[17].split(" ")[0] for r in rows if r[0] == "browser_ctx" and r[1] not in ("BACKEND", "FRONTEND")}


@dataclass
class Call:
    client: int
    tool: str
    started: float  # seconds since the run started
    seconds: float
    ok: bool
    error: str = ""


@dataclass
class Run:
    t0: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)
    sessions: int = 0
    kill_at: float | None = None
    down_at: float | None = None
    restart_at: float | None = None
    up_again_at: float | None = None
    isolation_failures: int = 0

    def now(self) -> float:
        return time.monotonic() - self.t0


@contextlib.asynccontextmanager
async def client(url: str) -> AsyncIterator[ClientSession]:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def timed(run: Run, who: int, s: ClientSession, tool: str, args: dict[str, Any], expect: str = "") -> str:
    started = run.now()
    try:
        r = await asyncio.wait_for(s.call_tool(tool, args), CALL_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - every failure is a data point; the caller starts a new session
        leaf: BaseException = exc
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        run.calls.append(Call(who, tool, started, run.now() - started, False, f"{type(leaf).__name__}: {leaf}"[:120]))
        raise
    text = result_text(r)
    ok = not r.is_error and expect in text
    if expect and not r.is_error and expect not in text:
        run.isolation_failures += 1
    run.calls.append(Call(who, tool, started, run.now() - started, ok, "" if ok else text[:120]))
    return text


async def agent(run: Run, who: int, lb: str, site: str, until: float) -> None:
    name = f"client{who}"
    while run.now() < until:
        try:
            async with client(lb) as s:
                run.sessions += 1
                while run.now() < until:
                    await timed(run, who, s, "browser_navigate", {"url": f"{site}/who.html?name={name}"})
                    await timed(run, who, s, "browser_text", {"target": "#who", "force": True}, f"I am {name}")
                    await timed(run, who, s, "browser_navigate", {"url": f"{site}/counter.html"})
                    await timed(run, who, s, "browser_click", {"target": "#inc"})
                    await timed(run, who, s, "browser_verify", {"target": "#n", "text": "count 1"}, "PASS")
                    await timed(run, who, s, "browser_snapshot", {"force": True})
        except Exception:  # noqa: BLE001 - the session is gone (recorded by timed()); start a new one
            await asyncio.sleep(0.2)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def report(run: Run, seconds: float, clients: int) -> dict[str, Any]:
    kill = run.kill_at if run.kill_at is not None else float("inf")
    before = [c for c in run.calls if c.started < kill]
    after = [c for c in run.calls if c.started >= kill]
    errors = [c for c in run.calls if not c.ok]
    kinds: dict[str, int] = {}
    for c in errors:
        kind = re.sub(r"\d+", "N", c.error)[:60]
        kinds[kind] = kinds.get(kind, 0) + 1
    recovery: dict[int, float] = {}
    if run.kill_at is not None:
        for who in range(clients):
            # A call in flight when the server died fails too: count failures that ended after the kill.
            failed = [c for c in run.calls if c.client == who and c.started + c.seconds >= kill and not c.ok]
            if failed:
                first_fail = min(c.started + c.seconds for c in failed)
                later_ok = [c.started + c.seconds for c in run.calls
                            if c.client == who and c.ok and c.started >= first_fail]
                if later_ok:
                    recovery[who] = min(later_ok) - kill
    return {
        "seconds": seconds, "clients": clients, "sessions": run.sessions, "calls": len(run.calls),
        "errors": len(errors), "error_kinds": kinds, "isolation_failures": run.isolation_failures,
        "p50_s": pct([c.seconds for c in run.calls if c.ok], 0.5),
        "p95_s": pct([c.seconds for c in run.calls if c.ok], 0.95),
        "p50_before_s": pct([c.seconds for c in before if c.ok], 0.5),
        "p95_before_s": pct([c.seconds for c in before if c.ok], 0.95),
        "p50_after_s": pct([c.seconds for c in after if c.ok], 0.5),
        "p95_after_s": pct([c.seconds for c in after if c.ok], 0.95),
        "kill_at_s": run.kill_at,
        "out_of_rotation_s": None if run.down_at is None or run.kill_at is None else run.down_at - run.kill_at,
        "back_in_rotation_s": (None if run.up_again_at is None or run.restart_at is None
                               else run.up_again_at - run.restart_at),
        "recovery_s": recovery,
        "recovery_max_s": max(recovery.values()) if recovery else None,
        "calls_per_s": len(run.calls) / seconds,
        "median_calls_per_client": statistics.median(
            [sum(1 for c in run.calls if c.client == w) for w in range(clients)]),
    }


def markdown(r: dict[str, Any]) -> str:
    def s(v: Any) -> str:
        return "n/a" if v is None else f"{v:.2f} s" if isinstance(v, float) else str(v)

    rows = [
        ("duration / clients / sessions opened", f"{r['seconds']:.0f} s / {r['clients']} / {r['sessions']}"),
        ("tool calls (per second)", f"{r['calls']:,} ({r['calls_per_s']:.1f})"),
        ("errors", f"{r['errors']} ({'; '.join(f'{k} ×{n}' for k, n in r['error_kinds'].items()) or 'none'})"),
        ("isolation failures (a client saw another's page)", r["isolation_failures"]),
        ("latency p50 / p95, all successful calls", f"{s(r['p50_s'])} / {s(r['p95_s'])}"),
        ("p50 / p95 before the kill", f"{s(r['p50_before_s'])} / {s(r['p95_before_s'])}"),
        ("p50 / p95 after the kill", f"{s(r['p50_after_s'])} / {s(r['p95_after_s'])}"),
        ("s1 killed at", s(r["kill_at_s"])),
        ("s1 out of rotation after the kill (HAProxy checks)", s(r["out_of_rotation_s"])),
        ("affected clients' recovery (kill → next success)",
         ", ".join(f"client{w} {v:.2f} s" for w, v in sorted(r["recovery_s"].items())) or "none affected"),
        ("s1 back in rotation after its restart", s(r["back_in_rotation_s"])),
    ]
    return "| measure | value |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


@contextlib.contextmanager
def topology(tmp: Path) -> Iterator[tuple[str, Path, list[Any]]]:
    """Browser pool, two servers, HAProxy; yields (balancer URL, stats socket, [s1 args, s1 proc holder])."""
    pool_port, front, p1, p2 = free_port(), free_port(), free_port(), free_port()
    stats = tmp / "haproxy.sock"
    pool = start([sys.executable, "-m", "browser_ctx", "browser-server", "--port", str(pool_port), "--auth-token",
                  TOKEN, "--offline-external"], tmp / "pool.log")
    procs = [pool]
    holder: list[Any] = []
    try:
        wait_port(pool_port)
        serve = [sys.executable, "-m", "browser_ctx", "serve", "--transport", "http", "--auth-token", TOKEN,
                 "--ws-endpoint", f"ws://127.0.0.1:{pool_port}/", "--remote-header", f"Authorization: Bearer {TOKEN}",
                 "--offline-external"]
        s1_args = [*serve, "--port", str(p1)]
        s1 = start(s1_args, tmp / "s1.log")
        s2 = start([*serve, "--port", str(p2)], tmp / "s2.log")
        procs += [s1, s2]
        text = CONFIG.read_text()
        for old, new in zip(SHIPPED_PORTS, (front, p1, p2), strict=True):
            text = text.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
        text = text.replace("global\n", f"global\n    stats socket {stats} level admin\n", 1)
        (tmp / "haproxy.cfg").write_text(text)
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise SystemExit("haproxy is not installed (Debian: apt-get install haproxy)")
        proxy = start([haproxy, "-db", "-f", str(tmp / "haproxy.cfg")], tmp / "haproxy.log")
        procs.append(proxy)
        for port in (p1, p2, front):
            wait_port(port)
        holder += [s1_args, s1, tmp / "s1.log"]
        yield f"http://127.0.0.1:{front}/mcp", stats, holder
    finally:
        if holder:
            procs.append(holder[1])  # s1 as restarted
        for proc in reversed(procs):
            stop(proc)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp_name, serve_fault_pages() as site:
        tmp = Path(tmp_name)
        with topology(tmp) as (lb, stats, s1):
            deadline = time.monotonic() + 60
            while server_states(stats) != {"s1": "UP", "s2": "UP"}:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"servers not UP: {server_states(stats)}")
                await asyncio.sleep(0.2)
            run = Run()
            until = args.seconds
            tasks = [asyncio.create_task(agent(run, i, lb, site, until)) for i in range(args.clients)]
            await asyncio.sleep(args.seconds * args.kill_at)
            os.killpg(s1[1].pid, signal.SIGKILL)
            s1[1].wait(30)
            run.kill_at = run.now()
            print(f"killed s1 at {run.kill_at:.1f} s", file=sys.stderr)
            while run.down_at is None or run.restart_at is None or run.up_again_at is None:
                state = server_states(stats).get("s1")
                if run.down_at is None and state == "DOWN":
                    run.down_at = run.now()
                if run.down_at is not None and run.restart_at is None and run.now() - run.kill_at >= args.restart_after:
                    s1[1] = start(s1[0], s1[2])
                    run.restart_at = run.now()
                if run.restart_at is not None and state == "UP":
                    run.up_again_at = run.now()
                if run.now() > until:
                    break
                await asyncio.sleep(0.1)
            await asyncio.gather(*tasks)
            return report(run, args.seconds, args.clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--kill-at", type=float, default=0.5, help="fraction of the run at which s1 is killed")
    parser.add_argument("--restart-after", type=float, default=30, help="seconds after the kill s1 is restarted")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    print(markdown(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
