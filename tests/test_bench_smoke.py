"""Smoke test of the benchmark (``python -m bench``): browser-ctx alone on the first 3 corpus pages.

Plus unit tests (no browser) of the answer check: ground-truth questions and reading snapshot formats as text.

The smoke test runs the real command in a subprocess (real Chromium, real stdio MCP client) into a temporary folder
and checks that the report and the raw JSON exist and hold a browser-ctx row with numbers. Skipped only when the corpus
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

from bench.corpus import Question, answered, discover, extract_reading, normalise, normalise_loose

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus" / "readability").resolve()

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus folder {CORPUS} is absent")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))


@pytest.mark.e2e
@needs_corpus
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


# ---------------------------------------------------------------------------------------------- answer check units


def _found(answer: str, text: str, fmt: str) -> tuple[bool, bool]:
    return answered(Question("first", answer), normalise(text),
                    normalise_loose(extract_reading(text, fmt)))


def test_aria_yaml_paragraph_split_by_a_link_is_read_through() -> None:
    snap = (
        "- paragraph [ref=e13]:\n"
        "  - text: So finally you're\n"
        '  - link "testing your frontend JavaScript code" [ref=e15] [cursor=pointer]:\n'
        "    - /url: /code/2013/testing/\n"
        '  - text: "? Great! The more you write \\"tests\\""\n'
    )
    answer = 'So finally you\'re testing your frontend JavaScript code? Great! The more you write "tests"'
    assert _found(answer, snap, "aria-yaml") == (False, True)
    # roles, refs and URLs are not page text
    reading = extract_reading(snap, "aria-yaml")
    assert "ref=" not in reading and "/code/2013" not in reading and "paragraph" not in reading


def test_cdp_snapshot_text_runs_and_link_names_are_read_through() -> None:
    snap = (
        'uid=1_9 "So finally you\'re "\n'
        'uid=1_10 link "testing your frontend JavaScript code" url="http://x/testing/"\n'
        'uid=1_12 "? Great! The more you write tests"\n'
        'uid=1_13 heading "Title" level="2"\n'
    )
    assert _found("So finally you're testing your frontend JavaScript code? Great!", snap, "cdp-a11y") == (False, True)
    reading = extract_reading(snap, "cdp-a11y")
    assert "uid=" not in reading and "http://x" not in reading and 'level="2"' not in reading


def test_markdown_markup_is_stripped_and_case_folded() -> None:
    md = "# Heading\n\nThe **quick** [brown fox](http://f/) jumps\nover the _lazy_ dog."
    assert _found("the quick brown fox jumps over the lazy dog.", md, "markdown") == (True, True)
    assert _found("the quick brown cat", md, "markdown") == (False, False)


def test_questions_from_ground_truth(tmp_path: Path) -> None:
    page = tmp_path / "p1"
    page.mkdir()
    (page / "source.html").write_text("<p>x</p>")
    (page / "expected-metadata.json").write_text(json.dumps({"title": "  A   Title ", "byline": ""}))
    long = ["First long paragraph " + "a" * 60, "Second   long paragraph " + "b" * 60, "Third " + "c" * 70]
    (page / "expected.html").write_text("<p>short</p>" + "".join(f"<p>{t}</p>" for t in long))
    (tmp_path / "p2").mkdir()
    (tmp_path / "p2" / "source.html").write_text("<p>y</p>")
    pages = discover(tmp_path)
    assert [p.name for p in pages] == ["p1", "p2"]
    q = {x.kind: x.answer for x in pages[0].questions}
    assert q == {"title": "A Title", "first": long[0][:60], "middle": "Second long paragraph " + "b" * 38}
    assert pages[1].questions == [] and pages[0].url_path == "/p1/source.html"
