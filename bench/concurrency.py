"""Concurrent clients of one HTTP server: latency, throughput, memory and errors (issue 15 item 4).

Starts one ``browser-ctx serve --transport http`` on 127.0.0.1 (it launches its own Chromium; each client gets its
own browser context) and the fault pages site (``who.html``, ``counter.html``). First one client alone for
``--solo`` seconds (the single-client median), then ``--clients`` clients at once for ``--seconds``, each in its
own MCP session looping ``browser_navigate`` + ``browser_snapshot`` + ``browser_click``. Every call is timed from
the client; any error result or raised call counts as an error.

Reported: calls, errors, calls/s, p50/p95/max call latency (all tools, and per tool), the single-client median,
the server's RSS and Chromium's PSS (all its processes) at the end, per client context, and the CPU each kind of
process used per second of the run (the server's Python process, Playwright's Node driver, Chromium): on 2 CPUs a
sum near 2 means the machine, not a lock, is what clients wait for.

Usage: ``python -m bench.concurrency [--clients 20] [--seconds 120] [--solo 20] [--json FILE]`` (localhost only;
prints a markdown table). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.sizing import chromium_pss_mb, descendants, http_client, process
from tests.support.fault_pages import serve_fault_pages

__all__ = ["main"]

#: Seconds one call may take before it counts as an error.
CALL_TIMEOUT_S = 60.0


@dataclass
class Run:
    """Calls made in one phase: ``(tool, seconds, ok, error)``."""

    calls: list[tuple[str, float, bool, str]] = field(default_factory=list)


async def _loop(run: Run, url: str, site: str, who: int, until: float) -> None:
    async with http_client(url) as s:
        steps: list[tuple[str, dict[str, Any]]] = [
            ("browser_navigate", {"url": f"{site}/counter.html?c={who}"}),
            ("browser_snapshot", {"force": True}),
            ("browser_click", {"target": "#inc"}),
        ]
        while time.monotonic() < until:
            for tool, args in steps:
                t0 = time.perf_counter()
                try:
                    r = await asyncio.wait_for(s.call_tool(tool, args), CALL_TIMEOUT_S)
                    ok, err = not r.is_error, ""
                    if r.is_error:
                        err = " ".join(getattr(c, "text", "") for c in r.content)[:120]
                except Exception as exc:  # noqa: BLE001 - every failure is a data point
                    ok, err = False, f"{type(exc).__name__}: {exc}"[:120]
                run.calls.append((tool, time.perf_counter() - t0, ok, err))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else float("nan")


def cpu_seconds(root: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by the server process ``root`` and its descendants, by kind:
    ``server`` (the Python process), ``driver`` (Playwright's Node driver), ``browser`` (every Chromium process)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {"server": 0.0, "driver": 0.0, "browser": 0.0}
    for pid in [root, *descendants(root)]:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / tick
            exe = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            kind = "server" if pid == root else ("driver" if "node" in exe else "browser" if "chrom" in exe else "")
            if kind:
                out[kind] += used
    return out


def _rss_mb(pid: int) -> float:
    m = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(m.group(1)) / 1024 if m else float("nan")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    """Run both phases and return the figures."""
    with serve_fault_pages() as site:
        serve = [sys.executable, "-m", "browser_ctx", "serve", "--transport", "http", "--port", "0",
                 "--offline-external", "--max-sessions", str(max(args.clients + 2, 4))]
        with process(serve, r"at (http://\S+/mcp)") as (server, url):
            solo = Run()
            await _loop(solo, url, site, 0, time.monotonic() + args.solo)
            many = Run()
            cpu0 = cpu_seconds(server.pid)
            started = time.monotonic()
            until = started + args.seconds
            await asyncio.gather(*(_loop(many, url, site, i, until) for i in range(args.clients)))
            elapsed = time.monotonic() - started
            cpu1 = cpu_seconds(server.pid)
            rss = _rss_mb(server.pid)
            pss = chromium_pss_mb(server.pid)
    solo_times = [t for _, t, ok, _ in solo.calls if ok]
    times = [t for _, t, _, _ in many.calls]
    errors = [e for _, _, ok, e in many.calls if not ok]
    per_tool = {tool: [t for name, t, _, _ in many.calls if name == tool]
                for tool in ("browser_navigate", "browser_snapshot", "browser_click")}
    solo_tool = {tool: [t for name, t, ok, _ in solo.calls if name == tool and ok] for tool in per_tool}
    return {
        "clients": args.clients, "seconds": round(elapsed, 1), "calls": len(many.calls), "errors": len(errors),
        "errorKinds": sorted(set(errors))[:5], "callsPerSecond": round(len(many.calls) / elapsed, 2),
        "p50": round(_pct(times, 0.5), 3), "p95": round(_pct(times, 0.95), 3), "max": round(max(times), 3),
        "soloMedian": round(statistics.median(solo_times), 3) if solo_times else None,
        "soloCalls": len(solo.calls),
        "perTool": {k: {"p50": round(_pct(v, 0.5), 3), "p95": round(_pct(v, 0.95), 3),
                        "solo": round(statistics.median(solo_tool[k]), 3) if solo_tool[k] else None}
                    for k, v in per_tool.items()},
        "serverRssMb": round(rss, 1), "chromiumPssMb": round(pss, 1),
        "chromiumPssMbPerClient": round(pss / max(1, args.clients), 1),
        "cpuSecondsPerSecond": {k: round((cpu1[k] - cpu0[k]) / elapsed, 2) for k in cpu0},
    }


def markdown(r: dict[str, Any]) -> str:
    """The figures as a markdown table."""
    ratio = r["p95"] / r["soloMedian"] if r.get("soloMedian") else float("nan")
    rows = [
        ("clients × seconds", f"{r['clients']} × {r['seconds']}"),
        ("calls (errors)", f"{r['calls']:,} ({r['errors']})"),
        ("calls/s", f"{r['callsPerSecond']:.2f}"),
        ("latency p50 / p95 / max (s)", f"{r['p50']:.3f} / {r['p95']:.3f} / {r['max']:.3f}"),
        ("single-client median (s)", f"{r['soloMedian']:.3f}" if r.get("soloMedian") else "–"),
        ("p95 ÷ single-client median", f"{ratio:.1f}×"),
        *((f"{tool} p50 / p95 (s); alone: median, p95 ÷ it",
           f"{v['p50']:.3f} / {v['p95']:.3f}; " + (f"{v['solo']:.3f}, {v['p95'] / v['solo']:.1f}×" if v.get("solo")
                                                    else "–")) for tool, v in r["perTool"].items()),
        ("server RSS (MB)", f"{r['serverRssMb']:,.0f}"),
        ("Chromium PSS (MB; per client)", f"{r['chromiumPssMb']:,.0f} ({r['chromiumPssMbPerClient']:,.0f})"),
        ("CPU s per s: server / driver / browser",
         " / ".join(f"{r['cpuSecondsPerSecond'][k]:.2f}" for k in ("server", "driver", "browser"))),
    ]
    return "| figure | value |\n|---|---:|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--solo", type=float, default=20.0, help="seconds of the single-client phase first")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    print(markdown(result))
    if result["errorKinds"]:
        print("errors:", *result["errorKinds"], sep="\n  ")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
