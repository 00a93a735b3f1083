"""Side by side with chrome-devtools-mcp 1.11.0 on the performance fixtures (``fixtures/perf/``), in one run.

For each question an agent asks, each server is driven the way its tools are meant to be used, one call after
another, until what it has returned names the cause (or its calls run out); the figure is the o200k tokens of
everything those calls returned (:mod:`bench.client`), navigation and interaction included.

- "what makes LCP slow?" (``lcp.html``): the LCP element (``hero``) and the render-blocking script
  (``slow-script.js``) that held it back;
- "what shifted?" (``shift.html``): the element that moved (``story``) and the image without dimensions
  (``banner``);
- "which handler is slow?" (``slow-click.html``, after a click): the handler (``applyFilters``) and its file
  (``handlers.js``);
- "which long task?" (``long-task.html``): the original function and file through the bundle's source map
  (``buildReport``, ``src/report.js``);
- "what leaks?" (``leak.html``, two heap measures around two clicks): the detached ``<li>`` elements that grew.

browser-ctx runs with ``--caps default --caps perf --caps emulation``; chrome-devtools-mcp with its defaults plus
``--experimentalMemory`` for its heap tools. Run: ``.venv/bin/python -m bench.perf_compare [--verbose]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import tests.support.perf_routes  # noqa: F401 - registers the slow routes
from browser_ctx.core.tokens import count_tokens
from tests.support.site import FIXTURES, serve_directory

from .client import CallRecord, Connection, compact_json, connect
from .servers import ServerSpec, build_specs, chromium_version

#: Per question: (label, page, strings that must all appear in what the server returned).
QUESTIONS: list[tuple[str, str, tuple[str, ...]]] = [
    ("what makes LCP slow?", "lcp.html", ("hero", "slow-script.js")),
    ("what shifted?", "shift.html", ("story", "banner")),
    ("which handler is slow?", "slow-click.html", ("applyFilters", "handlers.js")),
    ("which long task?", "long-task.html", ("buildReport", "src/report.js")),
    ("what leaks?", "leak.html", ("Detached <li>",)),
]


#: The tools of each family, by server (name patterns), whose definitions are measured.
FAMILIES: dict[str, dict[str, str]] = {
    "browser-ctx": {"performance": "browser_performance", "memory": "browser_memory", "emulation": "browser_emulate"},
    "chrome-devtools-mcp": {"performance": "performance_.*", "memory": ".*heapsnapshot.*",
                            "emulation": "emulate"},
}


@dataclass
class Answer:
    """What one server returned for one question."""

    calls: list[CallRecord] = field(default_factory=list)
    found: bool = False

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.calls)

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.calls)


Step = Callable[[Answer], Awaitable[None]]


def _has(answer: Answer, needles: tuple[str, ...]) -> bool:
    text = answer.text
    return all(n in text for n in needles)


async def _run(conn: Connection, needles: tuple[str, ...], steps: list[tuple[str, dict] | Callable]) -> Answer:
    """Make the calls in order (a callable builds the next call from what came back), stopping once the cause
    is named."""
    answer = Answer()
    for step in steps:
        tool, args = step(answer) if callable(step) else step
        answer.calls.append(await conn.call(tool, args, timeout=180))
        if _has(answer, needles) and not tool.startswith(("browser_navigate", "navigate_page", "take_snapshot")):
            answer.found = True
            break
    return answer


def _uid(answer: Answer, name: str) -> str:
    """The uid chrome-devtools-mcp's snapshot gives the element named ``name``."""
    m = re.search(r'uid=(\S+) \w+ "' + re.escape(name) + '"', answer.text)
    return m.group(1) if m else "missing"


def _insight_set(answer: Answer) -> str:
    m = re.search(r"insight set id:\s*(\S+)", answer.text, re.I) or re.search(r"insightSetId[\"':= ]+(\w+)",
                                                                                answer.text)
    return m.group(1) if m else "NAVIGATION_0"


def browser_ctx_steps(url: str, page: str) -> list:
    perf = "browser_performance"
    if page == "slow-click.html":
        return [("browser_navigate", {"url": url}), (perf, {"action": "start"}),
                ("browser_click", {"target": "text=Apply filters"}), (perf, {"action": "stop"}),
                (perf, {"insight": "INPBreakdown"})]
    if page == "leak.html":
        return [("browser_navigate", {"url": url}), ("browser_memory", {}),
                ("browser_click", {"target": "text=Refresh"}), ("browser_click", {"target": "text=Refresh"}),
                ("browser_memory", {})]
    insight = {"lcp.html": "LCPBreakdown", "shift.html": "CLSCulprits", "long-task.html": "LongTasks"}[page]
    return [("browser_navigate", {"url": url}), (perf, {"action": "start", "reload": True}),
            (perf, {"action": "stop"}), (perf, {"insight": insight})]


def devtools_steps(url: str, page: str, folder: str) -> list:
    before, after = os.path.join(folder, "before.heapsnapshot"), os.path.join(folder, "after.heapsnapshot")
    nav = ("navigate_page", {"type": "url", "url": url})

    def insight(name: str) -> Callable[[Answer], tuple[str, dict]]:
        return lambda a: ("performance_analyze_insight", {"insightSetId": _insight_set(a), "insightName": name})

    if page == "slow-click.html":
        return [nav, ("take_snapshot", {}), ("performance_start_trace", {"reload": False, "autoStop": False}),
                lambda a: ("click", {"uid": _uid(a, "Apply filters")}), ("performance_stop_trace", {}),
                insight("INPBreakdown"), insight("LongTasks")]
    if page == "leak.html":
        return [nav, ("take_snapshot", {}), ("take_heapsnapshot", {"filePath": before}),
                lambda a: ("click", {"uid": _uid(a, "Refresh")}), lambda a: ("click", {"uid": _uid(a, "Refresh")}),
                ("take_heapsnapshot", {"filePath": after}),
                ("compare_heapsnapshots", {"baseFilePath": before, "currentFilePath": after}),
                ("get_heapsnapshot_summary", {"filePath": after})]
    names = {"lcp.html": ["LCPBreakdown", "RenderBlocking", "LCPDiscovery"],
             "shift.html": ["CLSCulprits"], "long-task.html": ["LongTasks", "ThirdParties"]}[page]
    return [nav, ("performance_start_trace", {"reload": True, "autoStop": True})] + [insight(n) for n in names]


async def ask(spec: ServerSpec, base: str, verbose: bool) -> dict[str, Answer]:
    answers: dict[str, Answer] = {}
    folder = spec.env.get("TMPDIR") or tempfile.mkdtemp(prefix="bench-perf-")  # the one root it writes in
    if folder not in spec.temp_dirs:
        spec.temp_dirs.append(folder)
    async with connect(spec) as conn:
        costs = {family: sum(count_tokens(compact_json(t)) for t in conn.tools_raw.get("tools", [])
                             if re.fullmatch(pattern, t.get("name", "")))
                 for family, pattern in FAMILIES[spec.name].items()}
        print(f"  {spec.name}: tool definitions (o200k tokens) " + ", ".join(f"{k} {v:,}" for k, v in costs.items()),
              flush=True)
        for label, page, needles in QUESTIONS:
            url = f"{base}/perf/{page}"
            steps = browser_ctx_steps(url, page) if spec.name == "browser-ctx" else devtools_steps(url, page, folder)
            answers[label] = answer = await _run(conn, needles, steps)
            print(f"  {spec.name:20s} {label:24s} found={answer.found!s:5s} {answer.tokens:6,d} tokens "
                  f"in {len(answer.calls)} calls", flush=True)
            if verbose:
                for c in answer.calls:
                    print(f"    --- {c.tool} {c.arguments} ({c.tokens} tokens){' ERROR' if c.is_error else ''}")
                    print("      " + c.text[:3000].replace("\n", "\n      "))
    return answers


def table(results: dict[str, dict[str, Answer]]) -> str:
    names = list(results)
    head = "| question | " + " | ".join(f"{n} tokens (calls) / cause found" for n in names) + " | ratio |"
    lines = [head, "|---|" + "---:|" * len(names) + "---:|"]
    for label, _page, _needles in QUESTIONS:
        cells = []
        for n in names:
            a = results[n][label]
            cells.append(f"{a.tokens:,} ({len(a.calls)}) / {'yes' if a.found else 'no'}")
        ratio = ""
        if len(names) == 2 and results[names[1]][label].tokens:
            ratio = f"{results[names[0]][label].tokens / results[names[1]][label].tokens:.0%}"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--verbose", action="store_true", help="print every call's text")
    parser.add_argument("--servers", default="browser-ctx,chrome-devtools-mcp")
    opts = parser.parse_args()
    specs = build_specs(opts.servers.split(","))
    for spec in specs:
        if spec.name == "browser-ctx":
            spec.args += ["--caps", "default", "--caps", "perf", "--caps", "emulation"]
        elif spec.name == "chrome-devtools-mcp":
            spec.args += ["--experimentalMemory"]
    print(f"Chromium: {chromium_version()}", flush=True)
    results: dict[str, dict[str, Answer]] = {}
    with serve_directory(FIXTURES) as port:
        base = f"http://127.0.0.1:{port}"
        try:
            for spec in specs:
                results[spec.name] = await ask(spec, base, opts.verbose)
        finally:
            for spec in specs:
                spec.cleanup()
    print(table(results))
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
