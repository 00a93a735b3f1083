"""browser_pdf_save and browser_start_tracing / browser_stop_tracing through the real stdio client: a PDF that
pypdf opens with the page count the result gives, and a trace zip holding what ``playwright show-trace`` reads
(trace.trace events, trace.network, resources/ bodies, screencast frames), as a trace Playwright writes."""

from __future__ import annotations

import json
import zipfile

import pytest
from pypdf import PdfReader

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_pdf_and_trace_files(site, tmp_path):
    async with mcp_session("--caps", "core", "--caps", "pdf", "--caps", "devtools", "--output-dir",
                           str(tmp_path)) as s:
        async def call(tool: str, **args):
            result = await s.call_tool(tool, args)
            assert not result.is_error, (tool, result_text(result))
            return result

        async def error(tool: str, **args) -> str:
            result = await s.call_tool(tool, args)
            assert result.is_error, (tool, result_text(result))
            return result_text(result)

        assert "No trace is being recorded" in await error("browser_stop_tracing")
        started = await call("browser_start_tracing")
        assert "Tracing started" in result_text(started)
        assert "already being recorded" in await error("browser_start_tracing")
        await call("browser_navigate", url=f"{site}/testing/form.html")
        await call("browser_click", target="#save")
        stopped = await call("browser_stop_tracing", filename="traces/t.zip")
        assert "outside the output folder" in await error("browser_pdf_save", filename="../escape.pdf")
        pdf = await call("browser_pdf_save")
        named = await call("browser_pdf_save", filename="form.pdf")
        assert "No trace is being recorded" in await error("browser_stop_tracing")

    trace = tmp_path / "traces" / "t.zip"
    meta, text = stopped.structured_content, result_text(stopped)
    assert meta["path"] == str(trace) and meta["bytes"] == trace.stat().st_size
    assert f"npx playwright show-trace {trace}" in text
    with zipfile.ZipFile(trace) as z:
        names = z.namelist()
        events = [json.loads(line) for line in z.read("trace.trace").decode().splitlines() if line.strip()]
        network = [json.loads(line) for line in z.read("trace.network").decode().splitlines() if line.strip()]
        bodies = {n: z.read(n) for n in names if n.startswith("resources/")}
    assert meta["entries"] == len(names)
    kinds = {e.get("type") for e in events}
    assert {"context-options", "before", "after", "frame-snapshot", "screencast-frame"} <= kinds, kinds
    assert any(e.get("type") == "before" and e.get("method") == "click" for e in events)
    assert any(e["type"] == "resource-snapshot" and e["snapshot"]["request"]["url"].endswith("/testing/form.css")
               for e in network)
    assert any(b"background: #b91c1c" in body for body in bodies.values())  # form.css kept for the snapshots
    shots = [n for n in names if n.endswith(".jpeg")]
    assert shots and f"{len(shots)} screenshots" in text

    for result in (pdf, named):
        meta = result.structured_content
        reader = PdfReader(meta["path"])
        assert len(reader.pages) == meta["pages"] >= 2  # the form page is 2,400 px of filler long
        assert meta["bytes"] == (tmp_path / meta["path"]).stat().st_size
        assert f"{meta['pages']} pages, {meta['bytes']:,} bytes" in result_text(result)
        assert "Profile" in reader.pages[0].extract_text()
    assert named.structured_content["path"] == str(tmp_path / "form.pdf")
    assert pdf.structured_content["path"].startswith(str(tmp_path / "page-"))
