"""Smoke test of the benchmark (``python -m bench``): browser-ctx alone on the first 3 corpus pages.

Runs the real command in a subprocess (real Chromium, real stdio MCP client) into a temporary folder and checks
that the report and the raw JSON exist and hold a browser-ctx row with numbers. Skipped only when the corpus
folder (``../shared/corpus/readability``) is absent.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus" / "readability").resolve()

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus folder {CORPUS} is absent")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))


def test_bench_smoke_browser_ctx_alone(tmp_path: Path) -> None:
    out = tmp_path / "bench-out"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--servers", "browser-ctx", "--limit", "3", "--out", str(out),
         "--corpus", str(CORPUS), "--no-plot", "--no-debug", "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]

    report = (out / "report.md").read_text()
    assert report in proc.stdout  # the report is printed too
    row = next((line for line in report.splitlines() if line.startswith("| browser-ctx ")), None)
    assert row is not None, report[:2000]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # tool-definition tokens, snapshot median / p90 / max, results > 25k, answered %, tokens to answer, seconds
    assert re.fullmatch(r"[\d,]+", cells[1]) and int(cells[1].replace(",", "")) > 0, row
    assert re.fullmatch(r"[\d,]+ / [\d,]+ / [\d,]+", cells[2]), row
    assert re.fullmatch(r"\d+", cells[3]), row
    assert re.fullmatch(r"\d+% \(\d+/\d+\)", cells[4]), row
    assert re.fullmatch(r"[\d,]+", cells[5]) and int(cells[5].replace(",", "")) > 0, row
    assert re.fullmatch(r"\d+\.\d\d", cells[6]), row

    summary = json.loads((out / "summary.json").read_text())
    s = summary["servers"]["browser-ctx"]
    assert s["pages"] == 3
    assert _number(s["toolsTokens"]) and s["toolsTokens"] > 0
    for key in ("median", "p90", "max"):
        assert _number(s["snapshot"][key]) and s["snapshot"][key] > 0
    assert s["errors"] == 0, s
    assert s["questions"] > 0 and _number(s["answeredPct"])

    results = json.loads((out / "results.json").read_text())
    assert [p["page"] for p in results["pages"]] == sorted(p["page"] for p in results["pages"])
    page_files = sorted((out / "pages").glob("*.json"))
    assert len(page_files) == 3
    for f in page_files:
        page = json.loads(f.read_text())
        rec = page["servers"]["browser-ctx"]
        assert rec["navigate"]["tool"] == "browser_navigate" and not rec["navigate"]["isError"]
        assert rec["snapshot"]["tool"] == "browser_snapshot" and rec["snapshot"]["tokens"] > 0
        assert rec["strategy"][1]["tool"] == "browser_text"
        assert rec["strategyTokens"] == sum(c["tokens"] for c in rec["strategy"])
