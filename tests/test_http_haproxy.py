"""The scale-out recipe end to end: ``deploy/haproxy.cfg`` in front of two ``browser-ctx serve --transport http``
servers, four MCP clients through it, then one backend killed.

Checks: HAProxy learns each session from the ``Mcp-Session-Id`` response header and keeps it on its server (no
"Session not found" while that server lives), sessions stay isolated, /healthz takes the dead server out of
rotation within seconds, sessions on the live server keep working, and clients of the dead one recover by
initializing again. Skipped where haproxy is not installed (``scripts/_env.sh`` installs it for ``.ci/run``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from tests.support.client import TEST_SERVER_ARGS, result_text
from tests.test_http_transport import TOKEN, http_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "haproxy.cfg"
#: Ports named in deploy/haproxy.cfg: the frontend, then the two servers.
SHIPPED_PORTS = (8930, 8931, 8932)
#: Viewport width per backend: how a client tells which server it landed on.
WIDTHS = (1111, 1222)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        assert proc.poll() is None, f"{what} exited with {proc.returncode}"
        assert time.monotonic() < deadline, f"{what} did not listen on {port}"
        time.sleep(0.1)


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)


@contextlib.contextmanager
def backend(port: int, width: int, log: Path) -> Iterator[subprocess.Popen]:
    """A browser-ctx HTTP server on 127.0.0.1:``port`` in its own process group (killed whole at exit)."""
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "browser_ctx", "serve", "--transport", "http", "--port",
                                 str(port), "--auth-token", TOKEN, "--viewport-size", f"{width}x700", "--access-log",
                                 *TEST_SERVER_ARGS], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                kill_group(proc)


def haproxy_config(front: int, servers: tuple[int, int], stats: Path) -> str:
    """The shipped config with this test's ports, plus an admin socket to read server states."""
    text = CONFIG.read_text()
    for old, new in zip(SHIPPED_PORTS, (front, *servers), strict=True):
        assert f"127.0.0.1:{old}" in text
        text = text.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
    return text.replace("global\n", f"global\n    stats socket {stats} level admin\n", 1)


def server_states(stats: Path) -> dict[str, str]:
    """``{"s1": "UP", "s2": "DOWN", …}`` from HAProxy's ``show stat``."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(stats))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
    return {r[1]: r[17].split(" ")[0] for r in rows if r[0] == "browser_ctx" and r[1] not in ("BACKEND", "FRONTEND")}


@dataclass
class Agent:
    name: str
    width: int = 0
    reads: int = 0
    errors: list[str] = field(default_factory=list)


async def which_backend(s: ClientSession) -> int:
    r = await s.call_tool("browser_evaluate", {"function": "() => window.innerWidth"})
    assert not r.is_error, result_text(r)
    found = [w for w in WIDTHS if str(w) in result_text(r)]
    assert len(found) == 1, result_text(r)
    return found[0]


async def read_own(s: ClientSession, agent: Agent) -> None:
    r = await s.call_tool("browser_text", {"target": "#who", "force": True})
    text = result_text(r)
    assert not r.is_error and f"I am {agent.name}" in text, (agent.name, text)
    assert all(f"I am {other}" not in text for other in ("a0", "a1", "a2", "a3") if other != agent.name), text
    agent.reads += 1


@contextlib.asynccontextmanager
async def agent_session(lb: str, site: str, agent: Agent) -> AsyncIterator[ClientSession]:
    async with http_client(lb, TOKEN) as s:
        for _ in range(2):
            nav = await s.call_tool("browser_navigate", {"url": f"{site}/who.html?name={agent.name}"})
            assert not nav.is_error, result_text(nav)
        agent.width = await which_backend(s)
        yield s


async def test_haproxy_sticky_sessions_and_a_killed_backend(fault_site: str, tmp_path: Path):
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.skip("haproxy is not installed (Debian: apt-get install haproxy; scripts/_env.sh installs it)")
    front, p1, p2 = free_port(), free_port(), free_port()
    stats = Path(tempfile.mkdtemp()) / "haproxy.sock"
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(haproxy_config(front, (p1, p2), stats))
    lb = f"http://127.0.0.1:{front}/mcp"
    started = time.monotonic()
    with backend(p1, WIDTHS[0], tmp_path / "s1.log") as s1, backend(p2, WIDTHS[1], tmp_path / "s2.log") as s2:
        proxy = subprocess.Popen([haproxy, "-db", "-f", str(cfg)], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=open(tmp_path / "haproxy.log", "wb"),
                                 start_new_session=True)
        try:
            wait_port(p1, s1, "server 1")
            wait_port(p2, s2, "server 2")
            wait_port(front, proxy, "haproxy")
            deadline = time.monotonic() + 30
            while server_states(stats) != {"s1": "UP", "s2": "UP"}:
                assert time.monotonic() < deadline, server_states(stats)
                await asyncio.sleep(0.2)

            agents = [Agent(f"a{i}") for i in range(4)]
            killed = asyncio.Event()
            phase_one = asyncio.Barrier(len(agents) + 1)

            async def run(agent: Agent) -> None:
                try:
                    async with agent_session(lb, fault_site, agent) as s:
                        for _ in range(4):
                            await read_own(s, agent)
                        await phase_one.wait()
                        await killed.wait()
                        for _ in range(4):
                            await read_own(s, agent)
                except Exception as exc:  # noqa: BLE001 - recorded and judged by which server the agent was on
                    while isinstance(exc, ExceptionGroup) and exc.exceptions:
                        exc = exc.exceptions[0]
                    agent.errors.append(f"{type(exc).__name__}: {exc}"[:300])
                if agent.errors:  # its server died: a new session (initialize again) must work at once
                    async with agent_session(lb, fault_site, agent) as s:
                        assert agent.width == WIDTHS[1], agent
                        await read_own(s, agent)

            tasks = [asyncio.create_task(run(a)) for a in agents]
            await phase_one.wait()
            on_s1 = [a.name for a in agents if a.width == WIDTHS[0]]
            on_s2 = [a.name for a in agents if a.width == WIDTHS[1]]
            assert on_s1 and on_s2, f"leastconn spread the four sessions as {on_s1} / {on_s2}"
            assert not any(a.errors for a in agents), [a.errors for a in agents]

            kill_group(s1)  # the whole server with its Chromium, as if its machine died
            kill_at = time.monotonic()
            while server_states(stats).get("s1") != "DOWN":
                assert time.monotonic() - kill_at < 15, server_states(stats)
                await asyncio.sleep(0.1)
            out_after = time.monotonic() - kill_at
            killed.set()
            await asyncio.wait_for(asyncio.gather(*tasks), 120)

            for a in agents:
                if a.name in on_s2:
                    assert not a.errors, (a.name, a.errors)  # its server lives: no "Session not found", no error
                    assert a.reads == 8, a
                else:
                    assert a.errors and a.reads == 5, a  # lost with its server, then a fresh session on s2
            # New sessions all land on the live server.
            async with http_client(lb, TOKEN) as s:
                nav = await s.call_tool("browser_navigate", {"url": f"{fault_site}/who.html?name=late"})
                assert not nav.is_error and await which_backend(s) == WIDTHS[1]
            logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("s*.log"))
            assert "Traceback" not in logs, logs[-3000:]
            print(f"\nHAProxy e2e: sessions on s1 {on_s1}, on s2 {on_s2}; s1 out of rotation {out_after:.1f} s after "
                  f"the kill; errors on s1 sessions {[a.errors[0][:80] for a in agents if a.errors]}; "
                  f"took {time.monotonic() - started:.0f} s")
        finally:
            proxy.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proxy.wait(10)
            kill_group(proxy)
            with contextlib.suppress(OSError):
                stats.unlink()
                stats.parent.rmdir()
