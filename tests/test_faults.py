"""Faults survived, through the real server: crashes, endless scripts, self-closing tabs, navigation
during a read, a killed browser, concurrent calls, and every Chromium gone after each shutdown path.

Processes are counted from /proc: the Chromium processes descending from the server process before
shutdown, and every process still alive afterwards that belongs to one of the browser profiles they used.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.client import TEST_SERVER_ARGS, mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# -- /proc helpers -----------------------------------------------------------------------------------


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def cmdline(pid: int) -> list[str]:
    """The argv of ``pid`` (empty if gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` in the process tree."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _ppid(int(entry))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if alive(child):
                out.append(child)
                todo.append(child)
    return out


def is_chromium(pid: int) -> bool:
    argv = cmdline(pid)
    return bool(argv) and ("chrom" in os.path.basename(argv[0]) or "headless_shell" in argv[0])


def chromium_below(pid: int) -> list[int]:
    """Chromium processes (browser, zygotes, renderers, GPU, utilities) descending from ``pid``."""
    return [p for p in descendants(pid) if is_chromium(p)]


def profiles_of(pids: list[int]) -> set[str]:
    """The ``--user-data-dir`` values of ``pids`` (Playwright gives each browser its own temporary one)."""
    dirs = set()
    for p in pids:
        dirs.update(re.findall(r"--user-data-dir=(\S+)", " ".join(cmdline(p))))
    return dirs


def processes_using(profiles: set[str]) -> list[int]:
    """Live processes anywhere on the machine whose command line names one of ``profiles``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and alive(int(entry)):
            argv = " ".join(cmdline(int(entry))) + " "
            if any(f"--user-data-dir={d} " in argv for d in profiles):
                out.append(int(entry))
    return out


def browser_main(pid: int) -> int:
    """The Chromium browser process (no ``--type=``) below ``pid``."""
    # Chromium's child processes rewrite their command line into one string: search it as text.
    mains = [p for p in chromium_below(pid) if "--type=" not in " ".join(cmdline(p))]
    assert len(mains) == 1, f"expected one browser process below {pid}, found {mains}"
    return mains[0]


def server_pids() -> list[int]:
    """``browser_ctx serve`` processes started by this test process."""
    return [p for p in descendants(os.getpid()) if "browser_ctx" in cmdline(p) and "serve" in cmdline(p)]


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MB (0 if gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass  # the process is gone: 0, as documented
    return 0.0


# -- a raw stdio JSON-RPC client (so the test holds the process: signals, stdin) ----------------------


class RawServer:
    """``browser-ctx serve`` as a subprocess spoken to line by line, so a test can signal it or close stdin."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr_path: Path) -> None:
        self.proc = proc
        self.stderr_path = stderr_path
        self._id = 0

    async def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        await self.proc.stdin.drain()

    async def request(self, method: str, params: dict, timeout: float = 120) -> dict:
        self._id += 1
        await self.send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        assert self.proc.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = await self.proc.stdout.readline()
                assert line, f"server closed stdout; stderr: {self.stderr_path.read_text()[-2000:]}"
                message = json.loads(line)
                if message.get("id") == self._id:
                    assert "error" not in message, message
                    return message["result"]

    async def initialize(self) -> None:
        await self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "fault-test", "version": "0"}})
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call(self, name: str, arguments: dict, timeout: float = 120) -> dict:
        return await self.request("tools/call", {"name": name, "arguments": arguments}, timeout)

    async def wait(self, timeout: float = 60) -> int:
        async with asyncio.timeout(timeout):
            return await self.proc.wait()


@contextlib.asynccontextmanager
async def raw_server(*args: str) -> AsyncIterator[RawServer]:
    """Start ``browser-ctx serve`` with ``args``; killed at exit if still running."""
    with tempfile.TemporaryDirectory() as tmp:
        err = Path(tmp, "stderr.txt")
        with open(err, "wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "browser_ctx", "serve", *TEST_SERVER_ARGS, *args,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr)
        server = RawServer(proc, err)
        try:
            await server.initialize()
            yield server
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


def text_of(result: dict) -> str:
    return "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def one_line_error(result, what: str = "") -> str:
    """Assert ``result`` (SDK object or raw dict) is an isError result of one clean line; return its text."""
    if isinstance(result, dict):
        is_error, text = result.get("isError"), text_of(result)
    else:
        is_error, text = result.is_error, result_text(result)
    assert is_error, f"{what}: expected an error, got {text[:300]}"
    assert "\n" not in text and "Traceback" not in text and "Call log" not in text, text
    return text


def valid_or_one_line(result, what: str = "") -> str:
    """A call that may legitimately succeed or fail: either a result or a one-line error."""
    if result.is_error:
        return one_line_error(result, what)
    return result_text(result)


#: What a call on a page stuck in an endless script says: its own read timeout, or the per-call guard.
TIMED_OUT = re.compile(r"Timed out after \d+ ms|did not finish within \d+ ms")


async def warm_up(s, url: str) -> None:
    """Navigate, retrying twice: the first navigation (browser launch, first extraction) may time out on a very
    busy machine, and a page that reloads itself may interrupt a navigation away from it."""
    for _ in range(3):
        nav = await s.call_tool("browser_navigate", {"url": url})
        if not nav.is_error:
            return
        one_line_error(nav, "first navigation")
    raise AssertionError(f"three navigations to {url} failed: {result_text(nav)}")


# -- page faults (one server for all of them) -----------------------------------------------------------


async def test_page_faults(fault_site: str):
    other = fault_site.replace("127.0.0.1", "localhost")
    async with mcp_session("--allow-scheme", "chrome", "--timeout-read", "15000", "--timeout-call", "45000") as s:
        # 1. Renderer crash: the call reports it, the next call replaces the dead tab, and it reloads fine.
        await warm_up(s, f"{fault_site}/who.html?name=crash")
        crashed = await s.call_tool("browser_navigate", {"url": "chrome://crash"})
        valid_or_one_line(crashed, "navigate chrome://crash")
        after = await s.call_tool("browser_snapshot", {})
        text = valid_or_one_line(after, "snapshot after crash")
        if after.is_error:  # the crash may land after the snapshot started; the next call must recover
            after = await s.call_tool("browser_snapshot", {})
            text = result_text(after)
        assert not after.is_error and "crashed" in text, text
        nav = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=crash"})
        assert not nav.is_error and "who" in result_text(nav), result_text(nav)

        # 2. An endless script: reads time out with a clear error; the tab can be navigated away and closed.
        spin = await s.call_tool("browser_navigate", {"url": f"{fault_site}/loop.html"})
        if not spin.is_error:  # the loop may start just after the card was read
            spin = await s.call_tool("browser_snapshot", {"force": True})
        err = one_line_error(spin, "read of a spinning page")
        assert TIMED_OUT.search(err), err
        started = time.monotonic()
        err = one_line_error(await s.call_tool("browser_text", {}), "text of a spinning page")
        assert TIMED_OUT.search(err), err
        assert time.monotonic() - started < 60, "the call was not bounded"
        away = await s.call_tool("browser_navigate", {"url": f"{other}/who.html?name=away"})
        assert not away.is_error and "I am away" in result_text(
            await s.call_tool("browser_text", {"target": "#who"})), result_text(away)

        valid_or_one_line(await s.call_tool("browser_navigate", {"url": f"{fault_site}/loop.html"}), "spin again")
        closed = await s.call_tool("browser_tabs", {"action": "close"})
        assert not closed.is_error, result_text(closed)
        nav = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=fresh"})
        assert not nav.is_error, result_text(nav)
        assert "I am fresh" in result_text(await s.call_tool("browser_text", {"target": "#who"}))

        # 3. A tab closed by the page itself (a popup that calls window.close()).
        assert not (await s.call_tool("browser_navigate", {"url": f"{fault_site}/opener.html"})).is_error
        click = await s.call_tool("browser_click", {"target": "#open"})
        assert not click.is_error, result_text(click)
        listing = result_text(await s.call_tool("browser_tabs", {"action": "list"}))
        assert "closer" in listing, listing
        found = re.search(r"^- (\d+):.*closer", listing, re.M)
        assert found, listing
        index = int(found.group(1))
        select = await s.call_tool("browser_tabs", {"action": "select", "index": index})
        assert not select.is_error and "closer" in result_text(
            await s.call_tool("browser_text", {"target": "h1"})), result_text(select)
        bye = await s.call_tool("browser_click", {"target": "#bye"})
        valid_or_one_line(bye, "click that closes its own tab")
        for _ in range(3):  # the next calls land on the remaining tab, never hang
            snap = await s.call_tool("browser_snapshot", {"force": True})
            valid_or_one_line(snap, "snapshot after the tab closed itself")
        assert not snap.is_error and "opener" in result_text(snap), result_text(snap)

        # 4. Navigation during a read: a page that reloads itself every 20 ms.
        valid_or_one_line(await s.call_tool("browser_navigate", {"url": f"{fault_site}/flip.html"}), "flip")
        kinds = {"ok": 0, "error": 0}
        for _ in range(6):
            r = await s.call_tool("browser_snapshot", {"force": True})
            valid_or_one_line(r, "snapshot of a self-reloading page")
            kinds["error" if r.is_error else "ok"] += 1
        print(f"\nnavigation during read: {kinds}")
        # Leaving it: the page's own reload may interrupt our navigation (a one-line error); the next one works.
        await warm_up(s, f"{fault_site}/who.html?name=steady")

        # 5. Concurrent calls from one client: every result belongs to its own call.
        targets = ["#first", "#second", "#who"] * 4
        expected = {"#first": "first paragraph", "#second": "second paragraph", "#who": "I am steady"}
        results = await asyncio.gather(*(s.call_tool("browser_text", {"target": t, "force": True})
                                         for t in targets))
        for target, r in zip(targets, results, strict=True):
            assert not r.is_error, result_text(r)
            body = result_text(r)
            assert expected[target] in body, (target, body)
            assert all(v not in body for k, v in expected.items() if k != target), (target, body)


# -- browser killed, and shutdown paths ---------------------------------------------------------------


async def _launch_browser(server: RawServer, site: str) -> list[int]:
    result = await server.call("browser_navigate", {"url": f"{site}/who.html?name=proc"})
    assert not result.get("isError"), text_of(result)
    pids = chromium_below(server.proc.pid)
    assert pids, "no Chromium process below the server after a navigation"
    return pids


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM", "SIGINT"])
async def test_shutdown_leaves_no_chromium(fault_site: str, how: str):
    async with raw_server() as server:
        before = await _launch_browser(server, fault_site)

        if how == "stdin closed":
            # Kill the browser first: the next call reports it and relaunches, without hanging.
            main = browser_main(server.proc.pid)
            os.kill(main, signal.SIGKILL)
            killed_at = time.monotonic()
            first = await server.call("browser_snapshot", {"force": True}, timeout=90)
            recovered = first
            while recovered.get("isError"):
                assert "\n" not in text_of(recovered) and "Traceback" not in text_of(recovered)
                assert time.monotonic() - killed_at < 90, "no recovery within 90 s"
                recovered = await server.call("browser_snapshot", {"force": True}, timeout=90)
            recovery_s = time.monotonic() - killed_at
            notes = text_of(first) + text_of(recovered)
            assert "relaunched" in notes, notes
            nav = await server.call("browser_navigate", {"url": f"{fault_site}/who.html?name=again"})
            assert not nav.get("isError") and "who" in text_of(nav), text_of(nav)
            print(f"\nbrowser killed: first call after the kill {'failed' if first.get('isError') else 'recovered'}"
                  f"; recovered in {recovery_s:.2f} s (relaunch included); {text_of(first)[:160]!r}")
            before = chromium_below(server.proc.pid)
            assert main not in before

        profiles = profiles_of(before)
        assert profiles, "could not find the browser profile directories"
        started = time.monotonic()
        if how == "stdin closed":
            assert server.proc.stdin is not None
            server.proc.stdin.close()
        else:
            server.proc.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
        code = await server.wait(60)
        took = time.monotonic() - started
        await asyncio.sleep(0.5)  # let the kernel reap orphans
        left = [p for p in before if alive(p)] + processes_using(profiles)
        stderr = server.stderr_path.read_text()
        print(f"\nshutdown by {how}: exit code {code} in {took:.2f} s; Chromium processes before {len(before)}, "
              f"after {len(set(left))}")
        assert not left, f"Chromium processes left after {how}: {sorted(set(left))}"
        assert code == 0, f"exit code {code}; stderr: {stderr[-1500:]}"
        assert "Traceback" not in stderr, stderr[-3000:]
