"""The servers the benchmark drives, how they are installed and how they are launched.

Every server launches the same Chromium binary (the one :func:`browser_ctx.browser.launcher.find_executable`
finds), headless, ``--no-sandbox`` when running as root, with the same flags as browser-ctx's
``--offline-external`` (every host but localhost/127.0.0.1 resolves to nothing: saved pages reference
external hosts and each failed lookup costs 15-23 s here) and with Chromium's background networking off.

The two Node servers are pinned (:data:`PINS`) and installed with npm into :data:`NODE_CACHE`
(``~/.cache/browser-ctx-bench/node`` unless ``BROWSER_CTX_BENCH_CACHE`` is set), with every browser
download disabled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from browser_ctx.browser.launcher import BASE_ARGS, find_executable
from browser_ctx.settings import OFFLINE_EXTERNAL_RULES, LaunchSettings

__all__ = [
    "PINS", "NODE_CACHE", "ServerSpec", "SERVER_NAMES", "chromium_flags", "chromium_version",
    "ensure_node_packages", "node_available", "build_specs",
]

#: npm packages and the versions the benchmark compares against.
PINS: dict[str, str] = {"@playwright/mcp": "0.0.83", "chrome-devtools-mcp": "1.11.0"}

#: Folder holding ``node_modules`` for the pinned packages.
NODE_CACHE = Path(os.environ.get("BROWSER_CTX_BENCH_CACHE") or Path.home() / ".cache" / "browser-ctx-bench") / "node"

#: Server names, in the order results are reported.
SERVER_NAMES = ("browser-ctx", "playwright-mcp", "chrome-devtools-mcp")

#: Environment that stops every Node package from downloading a browser.
NO_DOWNLOAD_ENV = {
    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    "PUPPETEER_SKIP_DOWNLOAD": "1",
    "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1",
    "PUPPETEER_SKIP_CHROME_HEADLESS_SHELL_DOWNLOAD": "1",
    "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1",
}


@dataclass
class ServerSpec:
    """How to start one server and which tools the benchmark calls on it.

    Attributes:
        name: one of :data:`SERVER_NAMES`.
        version: package version (browser-ctx's own from its metadata).
        command / args / env: the stdio launch (``env`` is merged over the parent environment).
        navigate: ``(tool, argument name of the URL, extra arguments)``.
        snapshot: tool name of the page read (its natural snapshot), called with no arguments.
        console / network: tool names of the console and network listings (measure 5), or ``None``.
        debug_args: arguments for those listings (default: none), keyed by tool name.
        dialog_marker / dialog_call: a result whose text contains ``dialog_marker`` reports an open JavaScript
            dialog (an ``alert()`` in a saved page blocks the server until it is answered); the benchmark then
            makes ``dialog_call`` (tool, arguments), as an agent would. ``None`` for browser-ctx, which answers
            dialogs itself.
        temp_dirs: folders created for this launch (output dirs, config files); removed by :meth:`cleanup`.
    """

    name: str
    version: str
    command: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    navigate: tuple[str, str, dict] = ("browser_navigate", "url", {})
    snapshot: str = "browser_snapshot"
    console: str | None = None
    network: str | None = None
    debug_args: dict[str, dict] = field(default_factory=dict)
    dialog_marker: str | None = None
    dialog_call: tuple[str, dict] | None = None
    temp_dirs: list[str] = field(default_factory=list)

    def navigate_call(self, url: str) -> tuple[str, dict]:
        """Return ``(tool, arguments)`` that load ``url``."""
        tool, arg, extra = self.navigate
        return tool, {**extra, arg: url}

    def cleanup(self) -> None:
        """Remove the temporary folders made for this launch."""
        for d in self.temp_dirs:
            shutil.rmtree(d, ignore_errors=True)
        self.temp_dirs.clear()


def chromium_flags() -> list[str]:
    """Chromium flags given to the Node servers: browser-ctx's base flags, no sandbox as root, offline rules."""
    args = [a for a in BASE_ARGS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    args.append(f"--host-resolver-rules={OFFLINE_EXTERNAL_RULES}")
    return args


def chromium_version(executable: str | None = None) -> str:
    """Return ``chromium --version`` output (``"Chromium 142.0.7444.175 built on Debian ..."``), or ``"unknown"``."""
    exe = executable or find_executable(LaunchSettings(offline_external=True))
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def node_available() -> str | None:
    """Return the path of ``node`` if both ``node`` and ``npm`` are on PATH, else ``None``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    return node if node and npm else None


def _installed_version(package: str) -> str | None:
    manifest = NODE_CACHE / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def ensure_node_packages(log=print) -> dict[str, str]:
    """Install the pinned packages into :data:`NODE_CACHE` with npm if missing or at another version.

    Returns ``{package: installed version}`` for the packages that are usable (empty when Node.js or npm is
    missing, or npm failed; the reason is passed to ``log``). Browser downloads are disabled.
    """
    if not node_available():
        log("Node.js/npm not found on PATH: benchmarking browser-ctx alone.")
        return {}
    missing = [p for p, v in PINS.items() if _installed_version(p) != v]
    if missing:
        NODE_CACHE.mkdir(parents=True, exist_ok=True)
        pkg = NODE_CACHE / "package.json"
        if not pkg.exists():
            pkg.write_text(json.dumps({"name": "browser-ctx-bench-node", "private": True}) + "\n")
        specs = [f"{p}@{PINS[p]}" for p in missing]
        log(f"Installing {' '.join(specs)} into {NODE_CACHE} with npm ...")
        try:
            proc = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--save-exact", *specs],
                cwd=NODE_CACHE, env={**os.environ, **NO_DOWNLOAD_ENV}, capture_output=True, text=True, timeout=600,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            log(f"npm install failed ({exc}): benchmarking browser-ctx alone.")
            return {}
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            log("npm install failed:\n  " + "\n  ".join(tail))
    return {p: v for p in PINS if (v := _installed_version(p)) == PINS[p]}


def _browser_ctx_version() -> str:
    try:
        return version("browser-ctx")
    except PackageNotFoundError:  # a source checkout that was never installed
        return "unknown"


def _node_bin(package: str) -> str:
    """Path of the package's CLI entry script (run with ``node``)."""
    root = NODE_CACHE / "node_modules" / package
    manifest = json.loads((root / "package.json").read_text())
    bin_field = manifest.get("bin")
    if isinstance(bin_field, dict):
        rel = next(iter(bin_field.values()))
    else:
        rel = bin_field
    return str(root / rel)


def browser_ctx_spec(python: str | None = None) -> ServerSpec:
    """browser-ctx: ``<python> -m browser_ctx serve --offline-external`` (browser found the usual way)."""
    return ServerSpec(
        name="browser-ctx", version=_browser_ctx_version(), command=python or sys.executable,
        args=["-m", "browser_ctx", "serve", "--offline-external"],
        navigate=("browser_navigate", "url", {}), snapshot="browser_snapshot",
        console="browser_console_messages", network="browser_network_requests",
    )


def playwright_mcp_spec(executable: str) -> ServerSpec:
    """@playwright/mcp: launch options through ``--config``; files go to a temporary ``--output-dir``."""
    tmp = tempfile.mkdtemp(prefix="bench-pwmcp-")
    config = {
        "browser": {
            "browserName": "chromium",
            "isolated": True,
            "launchOptions": {"executablePath": executable, "headless": True, "args": chromium_flags()},
        },
        "outputDir": os.path.join(tmp, "out"),
    }
    config_path = os.path.join(tmp, "config.json")
    with open(config_path, "w") as fh:
        json.dump(config, fh, indent=2)
    return ServerSpec(
        name="playwright-mcp", version=PINS["@playwright/mcp"], command=shutil.which("node") or "node",
        args=[_node_bin("@playwright/mcp"), "--config", config_path, "--headless", "--isolated",
              "--output-dir", os.path.join(tmp, "out")],
        env=dict(NO_DOWNLOAD_ENV),
        navigate=("browser_navigate", "url", {}), snapshot="browser_snapshot",
        console="browser_console_messages", network="browser_network_requests",
        # Their schema lists these defaulted parameters as required: send the defaults.
        debug_args={"browser_console_messages": {"level": "info"}, "browser_network_requests": {"static": False}},
        dialog_marker="### Modal state", dialog_call=("browser_handle_dialog", {"accept": True}),
        temp_dirs=[tmp],
    )


def chrome_devtools_mcp_spec(executable: str) -> ServerSpec:
    """chrome-devtools-mcp: ``--executablePath --headless --isolated --chromeArg=...``, no telemetry, no page ids."""
    tmp = tempfile.mkdtemp(prefix="bench-cdmcp-")
    args = [_node_bin("chrome-devtools-mcp"), f"--executablePath={executable}", "--headless", "--isolated",
            "--no-usage-statistics", "--no-performance-crux", "--no-page-id-routing"]
    args += [f"--chromeArg={a}" for a in chromium_flags()]
    return ServerSpec(
        name="chrome-devtools-mcp", version=PINS["chrome-devtools-mcp"], command=shutil.which("node") or "node",
        args=args, env={**NO_DOWNLOAD_ENV, "TMPDIR": tmp},
        navigate=("navigate_page", "url", {"type": "url"}), snapshot="take_snapshot",
        console="list_console_messages", network="list_network_requests",
        dialog_marker="# Open dialog", dialog_call=("handle_dialog", {"action": "accept"}),
        temp_dirs=[tmp],
    )


def build_specs(names: list[str], log=print, python: str | None = None) -> list[ServerSpec]:
    """Return launch specs for the requested servers, installing the Node ones if needed.

    Node servers whose package could not be installed are left out, with a message to ``log``.
    """
    executable = find_executable(LaunchSettings(offline_external=True))
    specs: list[ServerSpec] = []
    installed: dict[str, str] = {}
    if any(n != "browser-ctx" for n in names):
        installed = ensure_node_packages(log)
    for name in names:
        if name == "browser-ctx":
            specs.append(browser_ctx_spec(python))
        elif name == "playwright-mcp":
            if "@playwright/mcp" in installed:
                specs.append(playwright_mcp_spec(executable))
            else:
                log("@playwright/mcp is not available: skipped.")
        elif name == "chrome-devtools-mcp":
            if "chrome-devtools-mcp" in installed:
                specs.append(chrome_devtools_mcp_spec(executable))
            else:
                log("chrome-devtools-mcp is not available: skipped.")
        else:
            raise ValueError(f"unknown server {name!r}; choose from {', '.join(SERVER_NAMES)}")
    return specs
