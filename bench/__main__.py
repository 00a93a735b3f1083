"""``python -m bench``: browser-ctx against @playwright/mcp and chrome-devtools-mcp on a corpus of saved pages.

Serves the corpus from localhost, drives the three servers through the mcp SDK's stdio client page by page
(interleaved), counts o200k tokens over everything the client receives, writes ``report.md``, ``results.json``,
``summary.json`` and ``pages/<page>.json`` to ``--out`` (default ``bench-out/``) and prints the report.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import anyio

from browser_ctx.browser.launcher import find_executable
from browser_ctx.settings import LaunchSettings

from . import verify_loop
from .corpus import discover
from .fidelity import main as fidelity_main
from .report import markdown_report, plot_growth, summarise
from .run import TEXT_CALLS, Options, run_benchmark
from .servers import SERVER_NAMES, build_specs, chromium_version

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (REPO / ".." / "shared" / "corpus" / "readability").resolve()


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                    help="folder of NAME/source.html or *.html pages (default: %(default)s)")
    ap.add_argument("--limit", type=int, default=None, help="run only the first N pages (sorted by name)")
    ap.add_argument("--pages", default=None, help="comma-separated page names to run (folder names or file stems)")
    ap.add_argument("--servers", default=",".join(SERVER_NAMES),
                    help="comma-separated servers (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder (default: %(default)s)")
    ap.add_argument("--fixtures", type=Path, default=REPO / "fixtures",
                    help="fixtures folder holding events/console-flood.html and events/network-heavy.html")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per tool call (default: %(default)s)")
    ap.add_argument("--text-calls", type=int, default=TEXT_CALLS,
                    help="most browser_text calls per page in browser-ctx's answer strategy (default: %(default)s)")
    ap.add_argument("--keep-text", action="store_true", help="also write every result's text under OUT/text/")
    ap.add_argument("--no-plot", action="store_true", help="skip the PNG scatter plot")
    ap.add_argument("--no-debug", action="store_true", help="skip measure 5 (console/network listings)")
    ap.add_argument("--quiet", action="store_true", help="no per-page progress on stderr")
    ap.add_argument("--verify-loop", action="store_true",
                    help="run the verify-loop measure on the shop app instead (python -m bench.verify_loop; "
                         "uses --servers, --out, --timeout)")
    ap.add_argument("--fidelity", action="store_true",
                    help="run the fidelity measure instead (python -m bench.fidelity: the shop app's states and "
                         "fixtures/semantics pages against Chromium's accessibility tree; takes --servers, --out, "
                         "--timeout, --quiet and its own --states, --gaps)")
    return ap


def _jsonable(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the process exit code (0 when it ran, 2 on bad arguments)."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if "--fidelity" in raw:
        raw.remove("--fidelity")
        return fidelity_main(raw)
    args = _parser().parse_args(argv)
    if args.verify_loop:
        return verify_loop.main(["--servers", args.servers, "--out", str(args.out), "--timeout", str(args.timeout)])
    log = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    try:
        pages = discover(args.corpus)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.pages:
        wanted = [p.strip() for p in args.pages.split(",") if p.strip()]
        by_name = {p.name: p for p in pages}
        unknown = [w for w in wanted if w not in by_name]
        if unknown:
            print(f"error: no such page(s) in {args.corpus}: {', '.join(unknown)}", file=sys.stderr)
            return 2
        pages = [by_name[w] for w in wanted]
    if args.limit is not None:
        pages = pages[: max(0, args.limit)]
    names = [s.strip() for s in args.servers.split(",") if s.strip()]
    bad = [n for n in names if n not in SERVER_NAMES]
    if bad:
        print(f"error: unknown server(s) {', '.join(bad)}; choose from {', '.join(SERVER_NAMES)}", file=sys.stderr)
        return 2
    specs = build_specs(names, log=log)
    if not specs:
        print("error: no server to benchmark", file=sys.stderr)
        return 2
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    executable = find_executable(LaunchSettings(offline_external=True))
    started = _dt.datetime.now(_dt.UTC)
    fixtures = None if args.no_debug or not args.fixtures.is_dir() else args.fixtures
    opts = Options(corpus=args.corpus, pages=pages, out=out, fixtures=fixtures,
                   call_timeout=args.timeout, keep_text=args.keep_text, text_calls=args.text_calls, log=log)
    log(f"Benchmarking {', '.join(s.name for s in specs)} on {len(pages)} page(s) from {args.corpus} ...")
    results = anyio.run(run_benchmark, specs, opts)
    node = shutil.which("node")
    env = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "corpus": str(args.corpus),
        "corpusBytes": sum(p.html_bytes for p in pages),
        "chromium": chromium_version(executable),
        "executable": executable,
        "node": subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() if node else None,
        "machine": (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
                    f"Python {platform.python_version()}"),
        "command": "python -m bench " + shlex.join(argv if argv is not None else sys.argv[1:]),
    }
    summary = summarise(results)
    if not args.no_plot:
        note = plot_growth(results, out / "growth.png")
        if note:
            log(note)
            env["plotNote"] = note
        else:
            env["plot"] = "growth.png"
    report = markdown_report(results, summary, env)
    (out / "report.md").write_text(report)
    (out / "results.json").write_text(json.dumps(_jsonable({"env": env, **results}), indent=1, ensure_ascii=False))
    (out / "summary.json").write_text(json.dumps(_jsonable({"env": env, **summary}), indent=1, ensure_ascii=False))
    print(report)
    log(f"Wrote {out / 'report.md'}, {out / 'results.json'}, {out / 'summary.json'} and {out / 'pages'}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
