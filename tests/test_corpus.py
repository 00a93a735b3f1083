"""Corpus check: the real server, through the real MCP stdio client, on the readability corpus.

Runs when ``../shared/corpus/readability`` (see :func:`tests.support.corpus.corpus_dir`) exists; the
corpus tests are skipped, with the reason, when it does not (the helper tests at the end always run).
All 130 pages are served from localhost and the server runs with ``--offline-external``, so the saved
pages' external hosts fail fast.

One ``browser-ctx serve`` session handles every page (start-up is slow): ``browser_navigate``,
``browser_snapshot`` and ``browser_text`` (no target, default cap). In the same run, a Chromium
launched directly measures Playwright's own ``aria_snapshot(mode="ai")`` of each page for comparison.
Figures (median/p90/max tokens per tool, title found %, first sentence found %) are printed
(``pytest -s``) and written to ``corpus-report.json`` under pytest's tmp dir.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from playwright.async_api import async_playwright

from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.core.tokens import count_tokens
from browser_ctx.settings import LaunchSettings
from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.corpus import (
    CorpusPage,
    corpus_dir,
    first_sentence,
    haystack,
    list_pages,
    sentence_needle,
    serve_corpus,
    strip_markdown,
    summarise,
    title_needle,
)

CORPUS = corpus_dir()
needs_corpus = pytest.mark.skipif(
    CORPUS is None, reason="readability corpus not found at ../shared/corpus/readability (or $BROWSER_CTX_CORPUS)"
)

#: The server's default per-call cap (maxTokens not given), in o200k tokens.
DEFAULT_CAP = 2000
TOOLS = ("browser_navigate", "browser_snapshot", "browser_text")
#: Seconds one tool call may take before the page is recorded as failing and the session restarted.
CALL_TIMEOUT = 60
#: Share of pages (with a first sentence) whose first sentence must appear in browser_text.
FIRST_SENTENCE_MIN_SHARE = 0.90


class _Client:
    """One ``browser-ctx serve`` session, reopened if the transport breaks or a call hangs."""

    def __init__(self) -> None:
        self.session: ClientSession | None = None
        self.restarts = 0
        self._stack: contextlib.AsyncExitStack | None = None

    async def open(self) -> None:
        self._stack = contextlib.AsyncExitStack()
        self.session = await self._stack.enter_async_context(mcp_session())

    async def close(self) -> None:
        if self._stack is not None:
            # No timeout scope around this: the stack's own task groups must exit innermost-first
            # (stdio_client terminates, then kills, a server that does not stop).
            with contextlib.suppress(Exception):
                await self._stack.aclose()
            self._stack = None

    async def call(self, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
        """Return ``(result, None)``, or ``(None, why)`` when the call raised or timed out."""
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                assert self.session is not None, "call() before open()"
                return await self.session.call_tool(name, args), None
        except Exception as exc:  # noqa: BLE001 - recorded as this page's failure
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            await self.close()
            self.restarts += 1
            await self.open()
            return None, why


async def _mcp_pass(base: str, pages: list[CorpusPage]) -> tuple[list[dict[str, Any]], int]:
    client = _Client()
    await client.open()
    records = []
    try:
        for page in pages:
            rec: dict[str, Any] = {"name": page.name, "url": base + page.path, "errors": {}, "tokens": {},
                                   "meta": {}, "seconds": {}}
            texts: dict[str, str] = {}
            for tool in TOOLS:
                args = {"url": rec["url"]} if tool == "browser_navigate" else {}
                start = time.monotonic()
                result, failure = await client.call(tool, args)
                rec["seconds"][tool] = round(time.monotonic() - start, 2)
                if failure is not None:
                    rec["errors"][tool] = failure
                    continue
                texts[tool] = result_text(result)
                rec["tokens"][tool] = result_tokens(result)
                rec["meta"][tool] = result.structured_content
                if result.is_error:
                    rec["errors"][tool] = texts[tool][:300]
            _judge(page, rec, texts)
            records.append(rec)
    finally:
        await client.close()
    return records, client.restarts


def _judge(page: CorpusPage, rec: dict[str, Any], texts: dict[str, str]) -> None:
    titles = page.titles
    rec["title"] = titles[0] if titles else None
    rec["titles"] = list(titles)
    if titles and "browser_snapshot" in texts:
        hay = haystack(texts["browser_snapshot"])
        shown = [t for t in titles if title_needle(t) in hay]
        rec["title_found"] = bool(shown)
        # the metadata title itself (readability's pick, e.g. og:title), when there is one
        rec["metadata_title_found"] = (title_needle(titles[0]) in hay) if page.metadata.get("title") else None
    else:
        rec["title_found"] = rec["metadata_title_found"] = None
    sentence = page.first_sentence
    rec["sentence"] = sentence
    if sentence and "browser_text" in texts:
        rec["sentence_found"] = sentence_needle(sentence) in haystack(texts["browser_text"])
    else:
        rec["sentence_found"] = None
    if rec["title_found"] is False:
        rec["snapshot_head"] = texts["browser_snapshot"][:400]
    if rec["sentence_found"] is False:
        rec["text_head"] = texts["browser_text"][:600]


async def _aria_pass(base: str, pages: list[CorpusPage]) -> dict[str, dict[str, Any]]:
    """Tokens of Playwright's ``aria_snapshot(mode="ai")`` of each page, from a directly launched Chromium."""
    settings = LaunchSettings(offline_external=True)
    out: dict[str, dict[str, Any]] = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_executable(settings), args=chromium_args(settings))
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            for page in pages:
                tab = await context.new_page()
                try:
                    # Like browser_navigate: DOMContentLoaded, then up to 10 s for the load event; a slow
                    # load is still measured as far as it got.
                    await tab.goto(base + page.path, wait_until="domcontentloaded", timeout=30_000)
                    with contextlib.suppress(Exception):
                        await tab.wait_for_load_state("load", timeout=10_000)
                    aria = await tab.locator("body").aria_snapshot(mode="ai", timeout=20_000)
                    out[page.name] = {"tokens": count_tokens(aria)}
                except Exception as exc:  # noqa: BLE001 - reported, not fatal to the comparison
                    out[page.name] = {"tokens": None, "error": f"{type(exc).__name__}: {exc}"[:300]}
                finally:
                    with contextlib.suppress(Exception):
                        await tab.close()
            await context.close()
        finally:
            await browser.close()
    return out


def _pct(hits: int, total: int) -> float | None:
    return round(100 * hits / total, 1) if total else None


def _report(records: list[dict[str, Any]], aria: dict[str, dict[str, Any]], restarts: int,
            seconds: float) -> dict[str, Any]:
    titled = [r for r in records if r["title_found"] is not None]
    with_sentence = [r for r in records if r["sentence_found"] is not None]
    report = {
        "pages": len(records),
        "seconds": round(seconds, 1),
        "session_restarts": restarts,
        "tokens": {tool: summarise([r["tokens"][tool] for r in records if tool in r["tokens"]]) for tool in TOOLS},
        "aria_snapshot_ai": summarise([a["tokens"] for a in aria.values() if a["tokens"] is not None]),
        "title_found_pct": _pct(sum(r["title_found"] for r in titled), len(titled)),
        "title_checked": len(titled),
        "metadata_title_found_pct": _pct(sum(bool(r["metadata_title_found"]) for r in records),
                                         sum(r["metadata_title_found"] is not None for r in records)),
        "first_sentence_found_pct": _pct(sum(r["sentence_found"] for r in with_sentence), len(with_sentence)),
        "first_sentence_checked": len(with_sentence),
        "truncated_pct": {tool: _pct(sum(bool((r["meta"].get(tool) or {}).get("truncated")) for r in records),
                                     len(records)) for tool in TOOLS},
        "failing": {
            "errors": {r["name"]: r["errors"] for r in records if r["errors"]},
            "title_missing": {r["name"]: {"titles": r["titles"], "snapshot_head": r.get("snapshot_head")}
                              for r in records if r["title_found"] is False},
            "sentence_missing": {r["name"]: {"sentence": r["sentence"], "text_head": r.get("text_head")}
                                 for r in records if r["sentence_found"] is False},
            "aria_errors": {k: v["error"] for k, v in aria.items() if v.get("error")},
        },
        "per_page": [{"name": r["name"], "tokens": r["tokens"], "aria": aria.get(r["name"], {}).get("tokens"),
                      "seconds": r["seconds"], "title_found": r["title_found"],
                      "sentence_found": r["sentence_found"]} for r in records],
    }
    return report


def _print_report(report: dict[str, Any], path: Path) -> None:
    print(f"\n=== corpus check: {report['pages']} pages in {report['seconds']} s "
          f"({report['session_restarts']} session restarts); report: {path}")
    print(f"{'tokens per call':<28}{'median':>8}{'p90':>8}{'max':>8}{'n':>6}")
    rows = [*((tool, report["tokens"][tool]) for tool in TOOLS),
            ("aria_snapshot(mode='ai')", report["aria_snapshot_ai"])]
    for name, s in rows:
        print(f"{name:<28}{s['median']!s:>8}{s['p90']!s:>8}{s['max']!s:>8}{s['n']!s:>6}")
    print(f"title found: {report['title_found_pct']}% of {report['title_checked']} pages "
          f"(readability's metadata title itself: {report['metadata_title_found_pct']}%); "
          f"first sentence found: {report['first_sentence_found_pct']}% of {report['first_sentence_checked']} pages")
    print(f"truncated at the default cap: {report['truncated_pct']}")
    for kind, failing in report["failing"].items():
        if failing:
            print(f"{kind}: {', '.join(sorted(failing))}")


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run every corpus page through the server once; return ``{"records", "aria", "report"}``."""
    assert CORPUS is not None
    pages = list_pages(CORPUS)

    async def run() -> tuple[list[dict[str, Any]], int, dict[str, dict[str, Any]]]:
        done: dict[str, Any] = {}

        async def mcp() -> None:
            done["records"], done["restarts"] = await _mcp_pass(base, pages)

        async def aria() -> None:
            done["aria"] = await _aria_pass(base, pages)

        # The two passes use separate browsers and run side by side to keep the wall-clock time down.
        with serve_corpus(CORPUS) as base:
            async with anyio.create_task_group() as tg:
                tg.start_soon(mcp)
                tg.start_soon(aria)
        return done["records"], done["restarts"], done["aria"]

    start = time.monotonic()
    records, restarts, aria = anyio.run(run)
    report = _report(records, aria, restarts, time.monotonic() - start)
    path = tmp_path_factory.mktemp("corpus") / "corpus-report.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    _print_report(report, path)
    return {"records": records, "aria": aria, "report": report}


@pytest.mark.e2e
@needs_corpus
def test_corpus_has_all_pages(corpus_run: dict[str, Any]) -> None:
    assert CORPUS is not None
    assert len(corpus_run["records"]) == len(list_pages(CORPUS)) >= 100


@pytest.mark.e2e
@needs_corpus
def test_no_tool_errors(corpus_run: dict[str, Any]) -> None:
    failing = {r["name"]: r["errors"] for r in corpus_run["records"] if r["errors"]}
    assert not failing, f"{len(failing)} pages had tool errors: {json.dumps(failing, indent=1)[:4000]}"


@pytest.mark.e2e
@needs_corpus
def test_every_result_within_default_cap(corpus_run: dict[str, Any]) -> None:
    over = {}
    for r in corpus_run["records"]:
        for tool, tokens in r["tokens"].items():
            meta = r["meta"].get(tool)
            if tool in r["errors"]:  # an error result: only its size is checked here
                meta = {"truncated": False}
            if tokens > DEFAULT_CAP or (isinstance(meta, dict) and meta.get("truncated") and "fullLength" not in meta):
                over[f"{r['name']}:{tool}"] = {"tokens": tokens, "meta": meta}
    assert not over, f"results over {DEFAULT_CAP} tokens, or cut without their cut fields: {over}"


@pytest.mark.e2e
@needs_corpus
def test_snapshot_shows_title(corpus_run: dict[str, Any]) -> None:
    checked = [r for r in corpus_run["records"] if r["title_found"] is not None]
    missing = {r["name"]: r["titles"] for r in checked if not r["title_found"]}
    assert checked
    assert not missing, f"browser_snapshot lacks the title on {len(missing)}/{len(checked)} pages: {missing}"


@pytest.mark.e2e
@needs_corpus
def test_text_has_first_sentence_on_90_percent(corpus_run: dict[str, Any]) -> None:
    checked = [r for r in corpus_run["records"] if r["sentence_found"] is not None]
    found = sum(r["sentence_found"] for r in checked)
    missing = {r["name"]: r["sentence"] for r in checked if not r["sentence_found"]}
    assert checked
    assert found >= FIRST_SENTENCE_MIN_SHARE * len(checked), (
        f"first sentence found on {found}/{len(checked)} pages (< {FIRST_SENTENCE_MIN_SHARE:.0%}); missing: {missing}"
    )


@pytest.mark.e2e
@needs_corpus
def test_aria_snapshot_measured(corpus_run: dict[str, Any]) -> None:
    aria = corpus_run["aria"]
    measured = [a for a in aria.values() if a["tokens"] is not None]
    assert len(measured) >= 0.95 * len(corpus_run["records"]), corpus_run["report"]["failing"]["aria_errors"]


# --- the comparison helpers themselves (no corpus, no browser) ---


def test_first_sentence_rule() -> None:
    html = ("<p>Too short.</p><p>  Line one<br>line two <a href='x'>linked</a>, <script>no()</script>then a tail "
            "long enough to pass sixty characters.</p><p>Another long paragraph that comes second and is ignored.</p>")
    assert first_sentence(html) == "Line one line two linked, then a tail long enough to pass si"
    assert first_sentence("<p>short</p><div>" + "x" * 100 + "</div>") is None


def test_strip_markdown_and_needles() -> None:
    md = ("# Title\n\n> A *quoted* `bit` with [a link](http://127.0.0.1/x?a=(b)) and __bold__\n\n"
          "- item one\n1. first\n| a | b |\n|---|---|")
    assert strip_markdown(md) == "Title A quoted bit with a link and bold item one first a b"
    assert sentence_needle("Hello   WORLD_x *y*") in haystack("hello world x\n\ny and more")
    assert sentence_needle("Something absent entirely") not in haystack("hello world")
    long_title = "A very long title " * 10
    assert title_needle(long_title) == sentence_needle(long_title[:40].rstrip())
