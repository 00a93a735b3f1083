"""Memory under a console flood: peak RSS of the server and of its Playwright driver.

For each message count (1,000 and 100,000 by default) this starts a fresh ``browser-ctx serve``
(stdio, through the mcp SDK client), opens ``fixtures/events/flood.html?n=N&defer=3000`` from a local
fixtures server, waits until the server's console capture has folded all N warnings (polling
``browser_console_messages`` until it reports ``×N``), then reads from ``/proc``:

- the server process's peak RSS (``VmHWM``) and current RSS (``VmRSS``);
- the same for its Playwright driver (the ``node`` child of the server).

"Flat" means each process grew by less than 50 MB between the smallest and the largest count.
Also printed: tokens of the default ``browser_console_messages`` call at each count.

Usage: ``.venv/bin/python -m bench.console_flood [--counts 1000,100000] [--flat-mb 50] [--node-options ...]``
(Linux only: reads ``/proc``). Takes a few minutes for 100,000 messages: Chromium itself spends
about 0.5 ms per message per attached DevTools session.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import time

from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.site import FIXTURES, serve_directory


def _status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of ``pid`` in kB."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(("VmHWM:", "VmRSS:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0])
    return out


def _children(pid: int) -> list[tuple[int, str]]:
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
                kids.append((int(entry), cmd))
        except (OSError, ValueError, IndexError):
            continue
    return kids


def _server_and_driver() -> tuple[int, int | None]:
    server = next(pid for pid, cmd in _children(os.getpid()) if "browser_ctx" in cmd and " serve" in cmd)
    driver = next((pid for pid, cmd in _children(server) if "node" in cmd.split(" ")[0] or "run-driver" in cmd), None)
    return server, driver


async def run_one(base: str, n: int, timeout_s: float, node_options: str | None = None,
                  tasks: bool = False) -> dict[str, float]:
    """Flood one fresh server with ``n`` messages; return RSS figures (MB) and the call's tokens."""
    env = {"NODE_OPTIONS": node_options} if node_options else None
    async with mcp_session(env=env) as s:
        await s.call_tool("browser_console_messages", {})  # opens the tab and waits for its capture
        url = f"{base}/events/flood.html?n={n}&defer=3000{'&tasks=1' if tasks else ''}"
        nav = await s.call_tool("browser_navigate", {"url": url})
        if nav.is_error:
            raise RuntimeError(result_text(nav))
        start = time.monotonic()
        count = 0
        while time.monotonic() - start < timeout_s:
            res = await s.call_tool("browser_console_messages", {"level": "warning"})
            m = re.search(r"×(\d+) Slow frame", result_text(res))
            count = int(m.group(1)) if m else (1 if "Slow frame" in result_text(res) else 0)
            if count >= n:
                break
            await asyncio.sleep(1.0)
        seconds = time.monotonic() - start
        final = await s.call_tool("browser_console_messages", {})
        server, driver = _server_and_driver()
        srv = _status(server)
        drv = _status(driver) if driver else {"VmHWM": 0, "VmRSS": 0}
        return {"n": n, "folded": count, "seconds": seconds, "tokens": result_tokens(final),
                "server_peak": srv["VmHWM"] / 1024, "server_rss": srv["VmRSS"] / 1024,
                "driver_peak": drv["VmHWM"] / 1024, "driver_rss": drv["VmRSS"] / 1024}


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="1000,100000", help="comma-separated message counts")
    ap.add_argument("--flat-mb", type=float, default=50.0, help="growth (MB) still called flat")
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds to wait for one flood to be captured")
    ap.add_argument("--tasks", action="store_true",
                    help="log each message from a task of its own (the in-page hook then sends many small batches)")
    ap.add_argument("--node-options", default=None,
                    help="NODE_OPTIONS for the server's Playwright driver, e.g. --max-semi-space-size=1")
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    rows = []
    with serve_directory(FIXTURES) as port:
        base = f"http://127.0.0.1:{port}"
        for n in counts:
            row = await run_one(base, n, args.timeout, args.node_options, args.tasks)
            rows.append(row)
            print(f"n={n:>7,}: folded ×{row['folded']:,} in {row['seconds']:.0f}s; "
                  f"default call {row['tokens']} tokens; "
                  f"server peak RSS {row['server_peak']:.1f} MB (now {row['server_rss']:.1f}); "
                  f"driver peak RSS {row['driver_peak']:.1f} MB (now {row['driver_rss']:.1f})", flush=True)
    lo, hi = rows[0], rows[-1]
    grow_srv = hi["server_peak"] - lo["server_peak"]
    grow_drv = hi["driver_peak"] - lo["driver_peak"]
    flat = grow_srv < args.flat_mb and grow_drv < args.flat_mb
    print(f"growth {lo['n']:,} → {hi['n']:,} messages: server {grow_srv:+.1f} MB, driver {grow_drv:+.1f} MB "
          f"→ {'flat' if flat else 'NOT flat'} (threshold {args.flat_mb:.0f} MB)")
    return 0 if flat else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
