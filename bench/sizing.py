"""Sizing figures for the README: memory per browser context, per-call latency local vs remote, contexts per GB.

1. Memory: one ``browser-ctx browser-server`` (one Chromium) and one ``browser-ctx serve --transport http
   --ws-endpoint`` server; K MCP clients (default 8) each open a session (its own context) and navigate to a
   corpus page; then each navigates through ``--pages`` more pages. Memory is the summed PSS (proportional set
   size, from ``/proc/PID/smaps_rollup``: shared pages split between the processes sharing them) of every
   Chromium process of the pool, read with the browser idle, after the first page of each context, and after
   the navigations. Per context = (after − idle) / K. Contexts per GB = 1024 / per-context MB.
2. Latency: a stdio ``browser-ctx serve`` launching its own Chromium (local) against one connected to the
   browser server over Playwright's WebSocket on localhost (remote; a real network adds its round trips):
   median wall time of ``browser_navigate``, ``browser_text`` (force) and ``browser_snapshot`` (force) over the
   same pages, after a warm-up.

Pages: the readability corpus (``../shared/corpus/readability/*/source.html``) when present, else the
fixtures. Usage: ``python -m bench.sizing [--contexts 8] [--pages 10] [--calls 10] [--corpus DIR]``
(Linux: reads /proc).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from browser_ctx._http import serve_directory
from tests.support.client import mcp_session
from tests.support.site import FIXTURES

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "readability"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def chromium_pss_mb(root: int) -> float:
    total_kb = 0
    for pid in descendants(root):
        with contextlib.suppress(OSError):
            if "chrom" not in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace"):
                continue
            m = re.search(r"^Pss:\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup").read_text(), re.M)
            total_kb += int(m.group(1)) if m else 0
    return total_kb / 1024


@contextlib.contextmanager
def process(args: list[str], ready: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start ``args`` and yield it with the first stderr line matching ``ready`` (a regex with one group)."""
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stderr is not None
        while True:
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError(f"{args[3]} exited before it was ready")
            m = re.search(ready, line)
            if m:
                break
        yield proc, m.group(1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextlib.asynccontextmanager
async def http_client(url: str) -> AsyncIterator[ClientSession]:
    async with create_mcp_http_client() as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def page_paths(corpus: Path) -> tuple[Path, list[str]]:
    if corpus.is_dir():
        pages = sorted(p.parent.name + "/source.html" for p in corpus.glob("*/source.html"))
        return corpus, pages
    return FIXTURES, ["article.html", "index.html", "listing.html", "hidden.html", "shadow.html"]


async def memory(site: str, pages: list[str], contexts: int, navigations: int) -> dict[str, float]:
    pool_args = [sys.executable, "-m", "browser_ctx", "browser-server", "--port", "0", "--offline-external"]
    with process(pool_args, r"(ws://\S+/)") as (pool, endpoint):
        serve = [sys.executable, "-m", "browser_ctx", "serve", "--transport", "http", "--port", "0",
                 "--ws-endpoint", endpoint, "--offline-external"]
        with process(serve, r"at (http://\S+/mcp)") as (_server, url):
            await asyncio.sleep(2)
            idle = chromium_pss_mb(pool.pid)
            async with contextlib.AsyncExitStack() as stack:
                sessions = [await stack.enter_async_context(http_client(url)) for _ in range(contexts)]
                for i, s in enumerate(sessions):
                    r = await s.call_tool("browser_navigate", {"url": f"{site}/{pages[i % len(pages)]}"})
                    assert not r.is_error
                await asyncio.sleep(2)
                first = chromium_pss_mb(pool.pid)
                for n in range(navigations):
                    for i, s in enumerate(sessions):
                        await s.call_tool("browser_navigate", {"url": f"{site}/{pages[(i + n + 1) % len(pages)]}"})
                await asyncio.sleep(2)
                after = chromium_pss_mb(pool.pid)
            await asyncio.sleep(3)
            released = chromium_pss_mb(pool.pid)
    per_first = (first - idle) / contexts
    per_after = (after - idle) / contexts
    return {"idle_mb": idle, "first_page_mb": first, "after_navigations_mb": after, "after_close_mb": released,
            "per_context_first_page_mb": per_first, "per_context_after_navigations_mb": per_after,
            "contexts_per_gb": 1024 / per_after if per_after > 0 else float("nan")}


async def latencies(s: ClientSession, site: str, pages: list[str], calls: int) -> dict[str, float]:
    await s.call_tool("browser_navigate", {"url": f"{site}/{pages[0]}"})  # warm-up: launch or connect
    times: dict[str, list[float]] = {"browser_navigate": [], "browser_text": [], "browser_snapshot": []}
    for i in range(calls):
        for tool, args in (("browser_navigate", {"url": f"{site}/{pages[i % len(pages)]}"}),
                           ("browser_text", {"force": True}), ("browser_snapshot", {"force": True})):
            t = time.perf_counter()
            r = await s.call_tool(tool, args)
            times[tool].append(time.perf_counter() - t)
            assert not r.is_error, (tool, r)
    return {tool: statistics.median(v) for tool, v in times.items()}


async def main_async(args: argparse.Namespace) -> None:
    root, pages = page_paths(args.corpus)
    with serve_directory(root) as port:
        site = f"http://127.0.0.1:{port}"
        mem = await memory(site, pages, args.contexts, args.pages)
        async with mcp_session() as s:
            local = await latencies(s, site, pages, args.calls)
        with process([sys.executable, "-m", "browser_ctx", "browser-server", "--port", "0", "--offline-external"],
                     r"(ws://\S+/)") as (_pool, endpoint):
            async with mcp_session("--ws-endpoint", endpoint) as s:
                remote = await latencies(s, site, pages, args.calls)
    print(f"pages: {root} ({len(pages)}); {args.contexts} contexts, {args.pages} navigations each")
    print("| Chromium PSS | MB |\n|---|---:|")
    for k, v in mem.items():
        print(f"| {k} | {v:,.1f} |")
    print("\n| median s per call | local launch | remote (browser-server, localhost) |\n|---|---:|---:|")
    for tool in local:
        print(f"| {tool} | {local[tool]:.3f} | {remote[tool]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contexts", type=int, default=8)
    parser.add_argument("--pages", type=int, default=10, help="navigations per context after its first page")
    parser.add_argument("--calls", type=int, default=10, help="calls of each tool for the latency medians")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of */source.html (default %(default)s)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
