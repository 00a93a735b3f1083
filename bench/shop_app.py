"""A working copy of the shop app (``fixtures/apps/shop``) for benchmarks that edit it: installed, built, served hot.

The committed app is never touched: :func:`prepare_app` copies its source into a folder of the caller's and
links ``node_modules`` from :data:`SHOP_CACHE`, where ``npm ci`` of the app's lockfile runs once (again only
when ``package-lock.json`` changes). :func:`build_app` runs ``vite build`` of the copy; :class:`DevServer` runs
the Vite dev server (hot reload) and counts the updates it sends; :func:`write_source` saves an edit in one step.
Used by :mod:`bench.verify_loop`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio

from .servers import NODE_CACHE, node_available

__all__ = ["APP", "SHOP_CACHE", "APP_FILES", "HMR_SETTLE", "HMR_WAIT", "DevServer", "prepare_app", "build_app",
           "write_source"]

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "fixtures" / "apps" / "shop"
#: Where ``npm ci`` of the app's lockfile is kept between runs.
SHOP_CACHE = NODE_CACHE.parent / "shop-node"
#: What of the app is copied (``dist/`` and ``node_modules`` are not).
APP_FILES = ("package.json", "package-lock.json", "index.html", "vite.config.js", "src")
def prepare_app(work: Path, log=print) -> Path:
    """Copy the app's source into ``work/shop`` and link ``node_modules`` from :data:`SHOP_CACHE`.

    ``npm ci`` runs into the cache when it has no install of the current ``package-lock.json``. Returns the
    copy's folder. Raises ``RuntimeError`` when Node.js/npm is missing or ``npm ci`` fails.
    """
    if not node_available():
        raise RuntimeError("Node.js and npm are needed to build the app")
    lock = (APP / "package-lock.json").read_bytes()
    stamp = SHOP_CACHE / ".lock-sha256"
    digest = hashlib.sha256(lock).hexdigest()
    if not (stamp.exists() and stamp.read_text() == digest and (SHOP_CACHE / "node_modules").is_dir()):
        SHOP_CACHE.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(APP / name, SHOP_CACHE / name)
        log(f"npm ci of the shop app into {SHOP_CACHE} ...")
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=SHOP_CACHE, capture_output=True,
                              text=True, timeout=900)
        if proc.returncode != 0:
            raise RuntimeError("npm ci failed: " + " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:]))
        stamp.write_text(digest)
    app = work / "shop"
    app.mkdir(parents=True)
    for name in APP_FILES:
        src = APP / name
        if src.is_dir():
            shutil.copytree(src, app / name)
        else:
            shutil.copy2(src, app / name)
    (app / "node_modules").symlink_to(SHOP_CACHE / "node_modules", target_is_directory=True)
    return app


def write_source(path: Path, text: str) -> None:
    """Replace ``path`` in one step, as editors save: the dev server's watcher must never read a half-written file
    (it did: "Could not Fast Refresh (export "default" removed)", then the app failed to load)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def build_app(app: Path, out: Path) -> float:
    """``vite build`` of ``app`` into ``out`` (emptied first); returns the seconds it took. Raises on failure."""
    t0 = time.perf_counter()
    proc = subprocess.run(["node", str(app / "node_modules" / "vite" / "bin" / "vite.js"), "build", "--outDir",
                           str(out), "--emptyOutDir", "--logLevel", "error"], cwd=app, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError("vite build failed: " + (proc.stderr or proc.stdout).strip()[-500:])
    return time.perf_counter() - t0


#: Seconds a browser is given to fetch and apply a hot update after the dev server sent it.
HMR_SETTLE = 2.0
#: Seconds to wait for the dev server to send an update after an edit.
HMR_WAIT = 15.0


class DevServer:
    """``vite`` (the dev server, hot reload) of ``app`` on a free localhost port; counts the updates it sends."""

    def __init__(self, app: Path) -> None:
        self.app = app
        self.updates = 0
        self.lines: list[str] = []
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> DevServer:
        self.proc = subprocess.Popen(
            ["node", str(self.app / "node_modules" / "vite" / "bin" / "vite.js"), "--host", "127.0.0.1", "--port",
             str(self.port), "--strictPort"], cwd=self.app, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url, timeout=5) as resp:  # noqa: S310 - our own localhost server
                    resp.read()
                with urllib.request.urlopen(self.url + "src/main.jsx", timeout=30) as resp:  # noqa: S310
                    resp.read()
                return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError("the Vite dev server did not start: " + " | ".join(self.lines[-3:]))

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            if "hmr update" in line or "page reload" in line:
                self.updates += 1

    async def wait(self, before: int) -> bool:
        """Wait until an update after ``before`` was sent (at most :data:`HMR_WAIT` s), then :data:`HMR_SETTLE` s."""
        deadline = time.monotonic() + HMR_WAIT
        while self.updates <= before and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        await anyio.sleep(HMR_SETTLE)
        return self.updates > before

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
