"""Summaries and the Markdown report from the raw results of :func:`bench.run.run_benchmark`."""

from __future__ import annotations

import math
from typing import Any

from .run import REFUSE_TOKENS, WARN_TOKENS, median, percentile
from .servers import SERVER_NAMES

__all__ = ["summarise", "markdown_report", "BUCKETS", "plot_growth"]

#: HTML size buckets (bytes, upper bound exclusive) for the growth table.
BUCKETS: list[tuple[str, int]] = [
    ("< 10 KB", 10_000), ("10-50 KB", 50_000), ("50-100 KB", 100_000), ("100-250 KB", 250_000),
    ("250-500 KB", 500_000), ("500 KB-1 MB", 1_000_000), ("≥ 1 MB", 10**12),
]


def _bucket(size: int) -> str:
    for label, upper in BUCKETS:
        if size < upper:
            return label
    return BUCKETS[-1][0]


def _servers(results: dict[str, Any]) -> list[str]:
    present = {n for p in results["pages"] for n in p["servers"]}
    return [n for n in SERVER_NAMES if n in present] + sorted(present - set(SERVER_NAMES))


def summarise(results: dict[str, Any]) -> dict[str, Any]:
    """Return per-server figures: measures 1-4 (see ``bench/README.md`` for definitions)."""
    names = _servers(results)
    pages = results["pages"]
    # Pages where every server answered every question (loose rule): the equal-success set.
    equal = [p for p in pages if p["questions"] and all(
        all(a["loose"] for a in p["servers"][n]["answers"].values()) for n in names if n in p["servers"])]
    out: dict[str, Any] = {"servers": {}, "pagesEqualSuccess": len(equal), "pages": len(pages)}
    for n in names:
        rows = [p["servers"][n] for p in pages if n in p["servers"]]
        snap = [r["snapshot"]["tokens"] for r in rows if not r["snapshot"]["isError"]]
        nav = [r["navigate"]["tokens"] for r in rows if not r["navigate"]["isError"]]
        read = [r["navigate"]["tokens"] + r["snapshot"]["tokens"] for r in rows]
        # Every distinct call: navigate, snapshot, and browser-ctx's browser_text reads (its strategy after the
        # navigate); the Node servers' strategy is the same navigate + snapshot, not counted twice.
        uniq = [c for r in rows for c in [r["navigate"], r["snapshot"]]
                + (r["strategy"][1:] if n == "browser-ctx" else r.get("dialogCalls", []))]
        secs = [c["seconds"] for r in rows for c in (r["navigate"], r["snapshot"]) if not c["isError"]]
        asked = sum(len(r["answers"]) for r in rows)
        loose = sum(a["loose"] for r in rows for a in r["answers"].values())
        strict = sum(a["strict"] for r in rows for a in r["answers"].values())
        by_kind: dict[str, list[int]] = {}
        for r in rows:
            for kind, a in r["answers"].items():
                by_kind.setdefault(kind, [0, 0])
                by_kind[kind][0] += a["loose"]
                by_kind[kind][1] += 1
        meta = results["servers"].get(n, {})
        out["servers"][n] = {
            "version": meta.get("version", "?"),
            "toolsTokens": meta.get("toolsTokens"),
            "tools": meta.get("tools"),
            "pages": len(rows),
            "snapshot": {"median": median(snap), "p90": percentile(snap, 90), "max": max(snap, default=math.nan)},
            "navigate": {"median": median(nav), "p90": percentile(nav, 90), "max": max(nav, default=math.nan)},
            "pageRead": {"median": median(read), "p90": percentile(read, 90), "max": max(read, default=math.nan),
                         "total": sum(read)},
            "over10k": sum(c["tokens"] > WARN_TOKENS for c in uniq),
            "over25k": sum(c["tokens"] > REFUSE_TOKENS for c in uniq),
            "calls": len(uniq),
            "errors": sum(bool(c["isError"]) for c in uniq),
            "secondsPerCall": median(secs),
            "secondsNavigate": median([r["navigate"]["seconds"] for r in rows]),
            "secondsSnapshot": median([r["snapshot"]["seconds"] for r in rows]),
            "questions": asked,
            "answeredLoose": loose,
            "answeredStrict": strict,
            "answeredPct": 100.0 * loose / asked if asked else math.nan,
            "answeredStrictPct": 100.0 * strict / asked if asked else math.nan,
            "byKind": {k: {"answered": v[0], "asked": v[1]} for k, v in sorted(by_kind.items())},
            "tokensToAnswer": sum(r["strategyTokens"] for r in rows),
            "tokensToAnswerEqual": sum(p["servers"][n]["strategyTokens"] for p in equal if n in p["servers"]),
            "strategyCalls": sum(len(r["strategy"]) for r in rows),
            "snapshotTruncated": sum(bool(r.get("snapshotTruncated")) for r in rows),
            "unchangedReplies": sum(r.get("unchangedReplies", 0) for r in rows),
            "unchangedPages": sum(bool(r.get("unchangedReplies")) for r in rows),
        }
    # Growth: snapshot tokens by HTML size bucket.
    growth = []
    for label, _ in BUCKETS:
        bucket_pages = [p for p in pages if _bucket(p["htmlBytes"]) == label]
        if not bucket_pages:
            continue
        row: dict[str, Any] = {"bucket": label, "pages": len(bucket_pages), "servers": {}}
        for n in names:
            vals = [p["servers"][n]["snapshot"]["tokens"] for p in bucket_pages if n in p["servers"]]
            ans = [p["servers"][n]["strategyTokens"] for p in bucket_pages if n in p["servers"]]
            row["servers"][n] = {"median": median(vals), "max": max(vals, default=math.nan),
                                 "answerMedian": median(ans)}
        growth.append(row)
    out["growth"] = growth
    return out


def _n(v: float | int | None, pct: bool = False, secs: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if pct:
        return f"{v:.0f}%"
    if secs:
        return f"{v:.2f}"
    return f"{round(v):,}"


def headline_table(summary: dict[str, Any]) -> str:
    """The headline Markdown table: one row per server."""
    lines = [
        "| Server | Tool-definition tokens | Snapshot tokens median / p90 / max | Results > 25k | "
        "Questions answered | Tokens to answer (total) | Median s per call |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n, s in summary["servers"].items():
        sn = s["snapshot"]
        lines.append(
            f"| {n} {s['version']} | {_n(s['toolsTokens'])} | {_n(sn['median'])} / {_n(sn['p90'])} / {_n(sn['max'])} | "
            f"{s['over25k']} | {_n(s['answeredPct'], pct=True)} ({s['answeredLoose']}/{s['questions']}) | "
            f"{_n(s['tokensToAnswer'])} | {_n(s['secondsPerCall'], secs=True)} |"
        )
    return "\n".join(lines)


def markdown_report(results: dict[str, Any], summary: dict[str, Any], env: dict[str, Any]) -> str:
    """Render the full report (headline, environment, measures 1-5, definitions, how to reproduce)."""
    S = summary["servers"]
    out = [f"# browser-ctx benchmark — {env['date']}", ""]
    out += [headline_table(summary), ""]
    out += [
        f"- Corpus: `{env['corpus']}` — {summary['pages']} pages ({env['corpusBytes']:,} bytes of HTML), "
        f"served from localhost.",
        f"- Chromium: {env['chromium']} (`{env['executable']}`), headless, same binary and flags for every server.",
        "- Servers: " + "; ".join(f"{n} {s['version']}" for n, s in S.items()) + f"; Node {env.get('node') or '–'}.",
        f"- Machine: {env['machine']}. Wall time: {results['wallSeconds']:.0f} s for the whole run.",
        f"- Command: `{env['command']}`",
        "",
        "Tokens: o200k_base over everything the client receives from a call (all text parts plus the structured "
        "content as compact JSON; images are not text). *Snapshot* = the server's page-read tool with no arguments "
        "right after navigating (browser-ctx `browser_snapshot`, default cap; @playwright/mcp `browser_snapshot`; "
        "chrome-devtools-mcp `take_snapshot`). *Results > 25k* counts navigate and snapshot calls (and browser-ctx's "
        "`browser_text` reads) over 25,000 tokens, the size Claude Code refuses. *Questions answered*: title, byline "
        "(when the corpus has one), first sentence and a middle sentence of the article, each found in what the "
        "server's fixed strategy returned (browser-ctx: `browser_navigate` + `browser_text` reading on with `offset`, "
        "at most 5 calls; the others: navigate + snapshot), with no single result over 25,000 tokens. "
        "*Tokens to answer*: total tokens of those strategies over all pages. *Median s per call*: navigate and "
        "snapshot calls.",
        "",
        "## 1. Tool-definition cost",
        "",
        "| Server | Tools | `tools/list` tokens |",
        "|---|---:|---:|",
    ]
    out += [f"| {n} | {s['tools']} | {_n(s['toolsTokens'])} |" for n, s in S.items()]
    out += [
        "",
        "## 2. Page read: navigate + snapshot on every page",
        "",
        "| Server | Navigate tokens median / p90 / max | Snapshot tokens median / p90 / max | Navigate + snapshot "
        "total | Calls > 10k | Calls > 25k | Errors | Median s navigate / snapshot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, s in S.items():
        nv, sn = s["navigate"], s["snapshot"]
        out.append(
            f"| {n} | {_n(nv['median'])} / {_n(nv['p90'])} / {_n(nv['max'])} | {_n(sn['median'])} / {_n(sn['p90'])} / "
            f"{_n(sn['max'])} | {_n(s['pageRead']['total'])} | {s['over10k']} | {s['over25k']} | {s['errors']} / "
            f"{s['calls']} | {_n(s['secondsNavigate'], secs=True)} / {_n(s['secondsSnapshot'], secs=True)} |"
        )
    if "browser-ctx" in S:
        out += ["", f"browser-ctx snapshots cut at the default cap (reading on possible with `offset`): "
                    f"{S['browser-ctx']['snapshotTruncated']} of {S['browser-ctx']['pages']} pages."]
    kinds = sorted({k for s in S.values() for k in s["byKind"]})
    out += [
        "",
        "## 3. Tokens to answer",
        "",
        f"Equal-success set: the {summary['pagesEqualSuccess']} pages on which every server answered every question.",
        "",
        "| Server | Answered | " + " | ".join(kinds) + " | Literal match | Tokens to answer (all pages) | "
        "Tokens on the equal-success set | Calls |",
        "|---|---:|" + "---:|" * len(kinds) + "---:|---:|---:|---:|",
    ]
    for n, s in S.items():
        cells = " | ".join(
            f"{s['byKind'][k]['answered']}/{s['byKind'][k]['asked']}" if k in s["byKind"] else "–" for k in kinds)
        out.append(
            f"| {n} | {_n(s['answeredPct'], pct=True)} | {cells} | {_n(s['answeredStrictPct'], pct=True)} | "
            f"{_n(s['tokensToAnswer'])} | {_n(s['tokensToAnswerEqual'])} | {s['strategyCalls']} |"
        )
    for n, s in S.items():
        if s.get("unchangedReplies"):
            out += ["", f"{n} answered {s['unchangedReplies']} read(s) on {s['unchangedPages']} page(s) with "
                        "\"Unchanged since …\" (a page whose content is identical to one read before in the same "
                        "session, e.g. the corpus's near-duplicate test pages); the answers are then not in what came "
                        "back and count as missed."]
    out += [
        "",
        "*Answered* reads each result as text first: the snapshot trees of @playwright/mcp (YAML) and "
        "chrome-devtools-mcp (uid lines) split one paragraph into text runs and link names on separate lines, so "
        "their structure (roles, refs, `/url:` lines, `uid=`, attributes, quotes) is removed and whitespace ignored "
        "before looking for the answer. *Literal match* is the plain rule: the whitespace-collapsed, "
        "markdown-stripped, case-folded answer as a substring of the raw results (no 25k result).",
        "",
        "## 4. Growth: snapshot tokens by page size (HTML bytes)",
        "",
        "| HTML size | Pages | " + " | ".join(f"{n} median / max" for n in S) + " |",
        "|---|---:|" + "---:|" * len(S),
    ]
    for row in summary["growth"]:
        out.append(f"| {row['bucket']} | {row['pages']} | " + " | ".join(
            f"{_n(row['servers'][n]['median'])} / {_n(row['servers'][n]['max'])}" if n in row["servers"] else "–"
            for n in S) + " |")
    if env.get("plot"):
        out += ["", f"![snapshot tokens against HTML bytes]({env['plot']})"]
    elif env.get("plotNote"):
        out += ["", env["plotNote"]]
    out += ["", "## 5. Debug output: console and network listings", ""]
    dbg = results.get("debug") or {}
    if dbg.get("pages"):
        out += ["| Page | Server | Console listing tokens | Network listing tokens | Navigate s |",
                "|---|---|---:|---:|---:|"]
        for page, per in dbg["pages"].items():
            for n, e in per.items():
                def cell(x):
                    if x is None:
                        return "no such tool"
                    return _n(x["tokens"]) + (" (error)" if x["isError"] else "")
                out.append(f"| {page} | {n} | {cell(e['console'])} | {cell(e['network'])} | "
                           f"{_n(e['navigate']['seconds'], secs=True)} |")
        if dbg.get("missing"):
            out += ["", f"Missing fixtures (skipped): {', '.join(dbg['missing'])}."]
    else:
        out.append(f"Skipped: {dbg.get('skipped', 'not run')}.")
    out += [
        "",
        "## Reproduce",
        "",
        "```sh",
        ".venv/bin/python -m bench                      # all servers, whole corpus, report in bench-out/",
        ".venv/bin/python -m bench --limit 10           # first 10 pages",
        ".venv/bin/python -m bench --pages aclu,wapo-1  # named pages",
        ".venv/bin/python -m bench --servers browser-ctx",
        "```",
        "",
        "Raw results: `results.json` (everything) and `pages/<page>.json` (one page, every server's calls) beside "
        "this report; server logs in `logs/`.",
    ]
    return "\n".join(out) + "\n"


def plot_growth(results: dict[str, Any], path) -> str | None:
    """Write a scatter plot (snapshot tokens against HTML bytes, log-log) to ``path``.

    Returns ``None`` on success, else a one-line note (matplotlib missing: ``pip install -e '.[plot]'``).
    """
    try:
        import matplotlib  # noqa: PLC0415 - optional heavy dependency (the plot extra), loaded only to plot

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415 - as above; after use("Agg")
    except ImportError:
        return "Plot skipped: matplotlib is not installed (`pip install -e '.[plot]'` to get the PNG scatter plot)."
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    markers = {"browser-ctx": "o", "playwright-mcp": "s", "chrome-devtools-mcp": "^"}
    for n in _servers(results):
        xs = [p["htmlBytes"] for p in results["pages"] if n in p["servers"]]
        ys = [max(1, p["servers"][n]["snapshot"]["tokens"]) for p in results["pages"] if n in p["servers"]]
        ax.scatter(xs, ys, s=14, alpha=0.7, marker=markers.get(n, "o"), label=n)
    ax.axhline(REFUSE_TOKENS, color="red", lw=0.8, ls="--", label="25k (Claude Code refuses)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("HTML size (bytes)")
    ax.set_ylabel("snapshot tokens (o200k)")
    ax.set_title("Tokens per snapshot call against page size")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return None
