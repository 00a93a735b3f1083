"""``--caps perf`` and ``--caps emulation`` end to end: ``browser-ctx serve`` over stdio, the pages of
``fixtures/perf/`` with known problems, each found and named with its element or source location.

No timing is asserted on its own: the throttled load is compared with an unthrottled one of the same page in the
same test, with a margin of a second and a half where slow-3g adds two seconds to every request.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests.support.perf_routes  # noqa: F401 - registers the slow routes
from tests.support.client import mcp_session, result_text, result_tokens
from tests.test_tools_list_budget import tools_list_cost

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CAPS = ("--caps", "default", "--caps", "perf", "--caps", "emulation")


async def ok(session, name: str, **args) -> tuple[str, dict]:
    result = await session.call_tool(name, args)
    text = result_text(result)
    assert not result.is_error, f"{name} {args}: {text}"
    assert result_tokens(result) <= 2000, (name, result_tokens(result))
    return text, result.structured_content or {}


async def record(session, url: str, *, reload: bool = True, then=None) -> tuple[str, dict]:
    await ok(session, "browser_navigate", url=url)
    await ok(session, "browser_performance", action="start", reload=reload)
    if then is not None:
        await then()
    return await ok(session, "browser_performance", action="stop")


async def test_slow_lcp_image_and_the_render_blocking_script_are_named(site, tmp_path):
    async with mcp_session(*CAPS, "--output-dir", str(tmp_path)) as s:
        text, meta = await record(s, f"{site}/perf/lcp.html")
        assert 'img#hero "Spring collection"' in text.split("\n")[1], text
        assert "/perf/slow-image.png" in text.split("\n")[1]
        assert "render delay: rendering waited for render-blocking /perf/slow-script.js" in text, text
        assert "Render-blocking: /perf/slow-script.js" in text
        assert meta["lcpMs"] >= 1200  # the script is served after 1.2 s and blocks the first paint
        trace = Path(meta["trace"])
        assert trace.is_relative_to(tmp_path) and json.loads(trace.read_text())["traceEvents"]
        more, _ = await ok(s, "browser_performance", insight="LCPBreakdown")
        assert "Phases of the last: ttfb" in more and "Render-blocking before it: /perf/slow-script.js" in more
        bad = await s.call_tool("browser_performance", {"insight": "Nope"})
        assert bad.is_error and "choose from LCPBreakdown" in result_text(bad)
        bad = await s.call_tool("browser_performance", {"action": "stop"})
        assert bad.is_error and "No performance recording is running" in result_text(bad)


async def test_layout_shift_names_what_moved_and_the_image_without_dimensions(site):
    async with mcp_session(*CAPS) as s:
        text, meta = await record(s, f"{site}/perf/shift.html")
        assert meta["cls"] > 0.01, text
        assert 'moved div#story "The town council' in text, text
        assert 'likely cause: img#banner "Town hall" has no width/height' in text


async def test_slow_click_handler_is_named_with_its_element_and_source_location(site):
    async with mcp_session(*CAPS) as s:
        async def click():
            await ok(s, "browser_click", target="#filter")

        text, meta = await record(s, f"{site}/perf/slow-click.html", reload=False, then=click)
        inp = next(line for line in text.splitlines() if line.startswith("INP"))
        assert meta["inpMs"] >= 300, text
        assert 'click on button#filter "Apply filters" [e1]' in inp
        assert "handler applyFilters (/perf/handlers.js:7:22)" in inp, inp
        assert "LCP: none in this recording" in text


async def test_long_task_in_a_minified_bundle_is_source_mapped(site):
    async with mcp_session(*CAPS) as s:
        text, _ = await record(s, f"{site}/perf/long-task.html")
        tasks = next(line for line in text.splitlines() if line.startswith("Long tasks"))
        assert "buildReport (src/report.js:8:10)" in tasks, text
        more, _ = await ok(s, "browser_performance", insight="LongTasks")
        assert "buildReport (src/report.js:8:10)" in more


async def test_memory_names_the_detached_dom_that_grows_per_click(site, tmp_path):
    async with mcp_session(*CAPS, "--output-dir", str(tmp_path)) as s:
        await ok(s, "browser_navigate", url=f"{site}/perf/leak.html")
        first, meta = await ok(s, "browser_memory")
        assert "JS heap:" in first and "see what grew" in first
        assert Path(meta["snapshot"]).is_relative_to(tmp_path) and Path(meta["snapshot"]).stat().st_size > 10_000
        for _ in range(2):
            await ok(s, "browser_click", target="#refresh")
        second, meta = await ok(s, "browser_memory")
        grew = next(line for line in second.splitlines() if line.startswith("Grew:"))
        assert grew.startswith("Grew: Detached <li> +2,000"), second
        assert "Leak suspect: Detached <li> +2,000" in second
        assert meta["domNodesGrown"] >= 2000


async def test_throttled_load_is_slower_and_the_page_sees_geolocation_and_colour_scheme(site):
    async with mcp_session(*CAPS) as s:
        _, plain = await record(s, f"{site}/perf/shift.html")
        text, meta = await ok(s, "browser_emulate", network="slow-3g", cpuThrottling=2, colorScheme="dark",
                              geolocation={"latitude": 48.8584, "longitude": 2.2945})
        assert "network slow-3g" in text and meta["emulation"]["cpuThrottling"] == 2
        card, _ = await ok(s, "browser_navigate", url=f"{site}/perf/shift.html")
        assert "Emulation: CPU 2× slower; network slow-3g" in card
        await ok(s, "browser_performance", action="start", reload=True)
        report, throttled = await ok(s, "browser_performance", action="stop")
        assert "emulation in force: CPU 2× slower; network slow-3g" in report
        assert throttled["lcpMs"] > plain["lcpMs"] + 1500, (plain, throttled)
        seen, _ = await ok(s, "browser_evaluate", function=(
            "() => new Promise(r => navigator.geolocation.getCurrentPosition("
            "p => r([matchMedia('(prefers-color-scheme: dark)').matches, p.coords.latitude, p.coords.longitude]),"
            " e => r(e.message)))"))
        assert json.loads(seen) == [True, 48.8584, 2.2945]
        now, _ = await ok(s, "browser_emulate")
        assert now.startswith("Emulation in force now on this tab: CPU 2× slower")
        cleared, _ = await ok(s, "browser_emulate", network="none", cpuThrottling=None, colorScheme=None,
                              geolocation=None)
        assert cleared == "Emulation cleared: nothing is emulated on this tab."
        card, _ = await ok(s, "browser_navigate", url=f"{site}/perf/shift.html")
        assert "Emulation:" not in card
        bad = await s.call_tool("browser_emulate", {"timezone": "Mars/Olympus"})
        assert bad.is_error and "timezone" in result_text(bad)


async def test_perf_and_emulation_tool_definitions_are_opt_in_and_small():
    perf_tokens, perf_names = await tools_list_cost("perf")
    emu_tokens, emu_names = await tools_list_cost("emulation")
    _, default_names = await tools_list_cost("default")
    print(f"\ntools/list tokens: perf {len(perf_names)} tools {perf_tokens}; emulation {len(emu_names)} tool "
          f"{emu_tokens}")
    assert perf_names == ["browser_performance", "browser_memory"] and emu_names == ["browser_emulate"]
    assert not set(perf_names + emu_names) & set(default_names)
    assert perf_tokens <= 400 and emu_tokens <= 300
