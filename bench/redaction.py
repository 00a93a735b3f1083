"""False redactions on real traffic: what one session redacts, remembers and scrubs (``python -m bench.redaction``).

One browser-ctx session (``serve`` over stdio, the mcp SDK client) reads, in this order: the shop app
(``fixtures/apps/shop/dist``), JupyterLab (a real app with a JSON API: its workspace state, contents and
sessions APIs, a token in the URL, an ``_xsrf`` cookie; run locally from a cache venv) and the readability
corpus pages (``../shared/corpus/readability``, served from localhost). Every page gets ``browser_navigate``,
``browser_snapshot``, ``browser_text``, ``browser_console_messages`` and ``browser_network_requests``; JupyterLab's
requests are also read one by one (headers and bodies).

The server runs with its :class:`~browser_ctx.core.redact.Redactor` instrumented (:func:`serve`): every value
redacted in place (by name or shape), whether it was remembered, and every by-value scrub of a later output (the
value and the text around it) go to a JSON-lines log. The report counts, per source: values redacted in place
(distinct), values remembered, by-value scrubs, and lists every remembered value and every scrub with its context,
for a person to judge which are not secrets.

    .venv/bin/python -m bench.redaction                   # shop app, JupyterLab, whole corpus
    .venv/bin/python -m bench.redaction --limit 20        # the first 20 corpus pages
    .venv/bin/python -m bench.redaction --code /tmp/old   # the server's browser_ctx from another folder
    .venv/bin/python -m bench.redaction --install-jupyter # create the JupyterLab venv first (pip, PyPI)

``--code DIR`` measures another revision: ``git archive HEAD~1 browser_ctx | tar -x -C DIR``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.corpus import corpus_dir, list_pages, serve_corpus
from tests.support.site import FIXTURES, serve_directory

REPO = Path(__file__).resolve().parents[1]
#: The JupyterLab venv (``--install-jupyter`` creates it).
CACHE = Path(os.environ.get("BROWSER_CTX_BENCH_CACHE") or Path.home() / ".cache" / "browser-ctx-bench")
JUPYTER_VENV = CACHE / "jupyter"
JUPYTERLAB = "jupyterlab==4.6.6"
MARKER = "[redacted]"


# -- the instrumented server ----------------------------------------------------------------------------

def serve(log_path: str) -> int:
    """Run ``browser-ctx serve --offline-external`` with the Redactor logging to ``log_path`` (JSON lines)."""
    redactor = importlib.import_module("browser_ctx.core.redact.redactor")
    rules = importlib.import_module("browser_ctx.core.redact.rules")
    log = open(log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - open for the process's life
    cls = redactor.Redactor
    remember, scrub = cls.remember, cls.scrub

    def logged_remember(self: Any, value: str) -> None:
        before = len(self._secrets)
        remember(self, value)
        if self.enabled and value and value.strip() and value.strip() != MARKER:
            log.write(json.dumps({"ev": "found", "value": value.strip(), "kept": len(self._secrets) > before}) + "\n")

    def logged_scrub(self: Any, text: str) -> str:
        out = scrub(self, text)
        pattern = getattr(self, "_pattern", None)
        if self.enabled and text and pattern is not None:
            shaped = rules.redact_text(text)  # pure: what scrub replaced by value comes after this
            for m in pattern.finditer(shaped):
                log.write(json.dumps({"ev": "scrub", "value": m.group(0),
                                      "context": shaped[max(0, m.start() - 40):m.end() + 40]}) + "\n")
        return out

    cls.remember, cls.scrub = logged_remember, logged_scrub
    cli = importlib.import_module("browser_ctx.cli")
    return int(cli.main(["serve", "--offline-external"]))


# -- JupyterLab ------------------------------------------------------------------------------------------

def install_jupyter() -> None:
    """Create :data:`JUPYTER_VENV` and ``pip install`` :data:`JUPYTERLAB` into it."""
    subprocess.run([sys.executable, "-m", "venv", str(JUPYTER_VENV)], check=True)
    subprocess.run([str(JUPYTER_VENV / "bin" / "pip"), "install", "-q", JUPYTERLAB], check=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def jupyter_lab(token: str) -> Iterator[str | None]:
    """Run JupyterLab on 127.0.0.1 in a fresh folder holding one notebook; yield its base URL (``None`` when
    :data:`JUPYTER_VENV` has no ``jupyter``)."""
    exe = JUPYTER_VENV / "bin" / "jupyter"
    if not exe.exists():
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bench-jupyter-") as tmp:
        root = Path(tmp) / "work"
        root.mkdir()
        notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Sales figures"]},
                              {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                               "source": ["total = sum([3, 4, 5])"]}],
                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (root / "Sales.ipynb").write_text(json.dumps(notebook))
        (root / "notes.txt").write_text("File name conventions: rename old files.\n")
        port = _free_port()
        env = {**os.environ, "JUPYTER_CONFIG_DIR": f"{tmp}/config", "JUPYTER_DATA_DIR": f"{tmp}/data",
               "JUPYTER_RUNTIME_DIR": f"{tmp}/runtime", "JUPYTERLAB_WORKSPACES_DIR": f"{tmp}/workspaces"}
        proc = subprocess.Popen([str(exe), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
                                 f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
                                 "--LabApp.news_url=", "--LabApp.check_for_updates_class="
                                 "jupyterlab.NeverCheckForUpdate"],
                                env=env, stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/lab.log", "w"))  # noqa: SIM115
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError("JupyterLab did not start: "
                                           + Path(f"{tmp}/lab.log").read_text()[-500:]) from None
                    time.sleep(0.5)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


# -- the client ---------------------------------------------------------------------------------------

def _text(result: Any) -> str:
    parts = [getattr(c, "text", "") for c in result.content if getattr(c, "type", "") == "text"]
    return "\n".join(parts) + json.dumps(result.structured_content or {}, ensure_ascii=False)


class Reader:
    """Calls tools and counts the markers in what comes back."""

    def __init__(self, session: ClientSession) -> None:
        self.s = session
        self.markers = 0
        self.calls = 0

    async def call(self, name: str, **args: Any) -> str:
        try:
            with anyio.fail_after(120):
                result = await self.s.call_tool(name, args)
        except TimeoutError:
            return ""
        text = _text(result)
        self.calls += 1
        self.markers += text.count(MARKER)
        return text

    async def read_page(self, url: str) -> None:
        await self.call("browser_navigate", url=url)
        await self.call("browser_snapshot")
        await self.call("browser_text")
        await self.call("browser_console_messages")
        await self.call("browser_network_requests")


async def shop(r: Reader, site: str) -> None:
    await r.read_page(f"{site}/apps/shop/dist/index.html")
    for tab in ("Orders", "Help"):
        await r.call("browser_click", target=f'role=tab[name="{tab}"]')
        await r.call("browser_snapshot")


async def jupyter(r: Reader, base: str, token: str) -> None:
    await r.call("browser_network_requests")
    await r.call("browser_navigate", url=f"{base}/lab/tree/Sales.ipynb?token={token}")
    await r.call("browser_wait_for", text="Sales figures", timeout=60)
    await r.call("browser_snapshot")
    await r.call("browser_click", target='role=menuitem[name="File"]')
    await r.call("browser_snapshot")
    await r.call("browser_press_key", key="Escape")
    await r.call("browser_click", target='role=tab[name="File Browser (Ctrl+Shift+F)"]')
    await r.call("browser_snapshot")
    await r.call("browser_text")
    await r.call("browser_console_messages")
    listing = await r.call("browser_network_requests", all=True, static=True)
    last = max((int(n) for n in re.findall(r"#(\d+)", listing)), default=0)
    for index in range(1, last + 1):
        for part in ("request-headers", "request-body", "response-body"):
            await r.call("browser_network_request", index=index, part=part)


def summarise(log: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and lists of one phase's log lines."""
    found = [e for e in log if e["ev"] == "found"]
    scrubs = [e for e in log if e["ev"] == "scrub"]
    return {"redactedInPlace": len({e["value"] for e in found}), "remembered": sorted({e["value"] for e in found
                                                                                       if e["kept"]}),
            "scrubs": len(scrubs), "scrubbedValues": dict(Counter(e["value"] for e in scrubs).most_common()),
            "scrubContexts": [e["context"] for e in scrubs[:40]], "found": sorted({e["value"] for e in found})}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    log_path = Path(tempfile.mkstemp(prefix="bench-redaction-", suffix=".jsonl")[1])
    # browser_ctx (of --code, when given) is first on the path before anything imports it.
    paths = [str(Path(args.code).resolve())] if args.code else []
    serve_args = ["-c", f"import sys; sys.path[:0] = {paths!r}; from bench.redaction import serve; "
                        f"sys.exit(serve({str(log_path)!r}))"]
    params = StdioServerParameters(command=sys.executable, args=serve_args, cwd=str(REPO), env=dict(os.environ))
    phases: dict[str, dict[str, Any]] = {}
    corpus = Path(args.corpus) if args.corpus else corpus_dir()
    token = secrets.token_hex(24)

    def read_log(start: int) -> tuple[list[dict[str, Any]], int]:
        data = log_path.read_bytes()
        return [json.loads(line) for line in data[start:].splitlines() if line.strip()], len(data)

    with serve_directory(FIXTURES) as port, jupyter_lab(token) as lab, contextlib.ExitStack() as stack:
        corpus_base = stack.enter_context(serve_corpus(corpus)) if corpus else None
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            r = Reader(session)
            offset = 0
            steps: list[tuple[str, Any]] = [("shop", lambda: shop(r, f"http://127.0.0.1:{port}"))]
            if lab:
                steps.append(("jupyterlab", lambda: jupyter(r, lab, token)))
            else:
                print(f"JupyterLab skipped: no {JUPYTER_VENV}/bin/jupyter (run with --install-jupyter)")
            if corpus and corpus_base:
                pages = list_pages(corpus)[:args.limit] if args.limit else list_pages(corpus)

                async def read_corpus() -> None:
                    for page in pages:
                        await r.read_page(corpus_base + page.path)
                steps.append((f"corpus ({len(pages)} pages)", read_corpus))
            for name, step in steps:
                markers, calls = r.markers, r.calls
                started = time.monotonic()
                await step()
                entries, offset = read_log(offset)
                phases[name] = {**summarise(entries), "markers": r.markers - markers, "calls": r.calls - calls,
                                "seconds": round(time.monotonic() - started, 1)}
                print(f"{name}: {phases[name]['calls']} calls, {phases[name]['markers']} markers", flush=True)
    log_path.unlink()
    return {"code": args.code or str(REPO), "jupyterToken": token, "phases": phases}


def report(result: dict[str, Any]) -> str:
    lines = [f"browser_ctx from {result['code']}", "",
             "| source | calls | markers shown | values redacted in place | remembered | by-value scrubs |",
             "|---|---|---|---|---|---|"]
    for name, p in result["phases"].items():
        lines.append(f"| {name} | {p['calls']} | {p['markers']} | {p['redactedInPlace']} | {len(p['remembered'])} "
                     f"| {p['scrubs']} |")
    token = result["jupyterToken"]
    for name, p in result["phases"].items():
        shown = [v if v != token else "<the JupyterLab token>" for v in p["remembered"]]
        lines += ["", f"## {name}", f"redacted in place ({len(p['found'])}): {json.dumps(p['found'])[:3000]}",
                  f"remembered ({len(shown)}): {json.dumps(shown)[:3000]}",
                  f"scrubbed by value: {json.dumps(p['scrubbedValues'])[:2000]}"]
        lines += [f"  ...{c!r}..." for c in p["scrubContexts"][:15]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.redaction", description=__doc__.split("\n")[0])
    parser.add_argument("--code", help="run the server's browser_ctx from this folder (another revision)")
    parser.add_argument("--corpus", help="corpus folder (default ../shared/corpus/readability)")
    parser.add_argument("--limit", type=int, default=0, help="the first N corpus pages only")
    parser.add_argument("--install-jupyter", action="store_true", help=f"pip install {JUPYTERLAB} into {JUPYTER_VENV}")
    parser.add_argument("--out", help="write the result as JSON here")
    args = parser.parse_args(argv)
    if args.install_jupyter:
        install_jupyter()
    result = anyio.run(run, args)
    print(report(result))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
