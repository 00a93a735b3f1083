"""The pure condensing behind ``browser_performance``, ``browser_memory`` and ``browser_emulate``: trace summaries,
the report's metrics and wording, heap aggregation and growth, and emulation settings checked and described."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from browser_ctx._errors import InvalidArgument
from browser_ctx.core import emulation, heap, perf
from browser_ctx.core.sourcemap import LoadedMap
from browser_ctx.core.trace import Location, summarise_trace
from tests.support.site import FIXTURES

PAGE = "http://127.0.0.1:8000/perf/page.html"


def _thread_events(pid: int = 7, frame: str = "F1") -> list[dict]:
    return [
        {"name": "TracingStartedInBrowser", "ph": "I", "pid": 1, "tid": 1, "ts": 0,
         "args": {"data": {"frames": [{"frame": frame, "isOutermostMainFrame": True, "processId": pid}]}}},
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": 70, "args": {"name": "CrRendererMain"}},
        {"name": "thread_name", "ph": "M", "pid": 99, "tid": 990, "args": {"name": "CrRendererMain"}},
    ]


def _x(name: str, ts: float, dur: float, pid: int = 7, tid: int = 70, **data) -> dict:
    return {"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": ts * 1000, "dur": dur * 1000,
            "args": {"data": data} if data else {}}


def test_trace_summary_finds_the_page_thread_its_long_tasks_and_the_click_handler():
    events = _thread_events() + [
        {"name": "navigationStart", "ph": "R", "pid": 7, "tid": 70, "ts": 100_000,
         "args": {"data": {"documentLoaderURL": PAGE, "isOutermostMainFrame": True}}},
        _x("RunTask", 200, 300),
        _x("EventDispatch", 201, 295, type="click"),
        _x("FunctionCall", 202, 290, url="http://127.0.0.1:8000/app.js", lineNumber=7, columnNumber=22,
           functionName="applyFilters"),
        _x("RunTask", 600, 80),
        _x("TimerFire", 600, 79),
        _x("FunctionCall", 600, 78, url="http://127.0.0.1:8000/dist/report.js", lineNumber=1, columnNumber=75,
           functionName="r"),
        _x("RunTask", 800, 10),
        _x("Layout", 800, 6),
        _x("RunTask", 100, 900, pid=99, tid=990),  # another tab's renderer: ignored
    ]
    s = summarise_trace(events)
    assert s.threads == 1 and s.navigated
    assert [round(t.duration) for t in s.long_tasks] == [300, 80]
    first, second = s.long_tasks
    assert first.kind == "click event" and first.start == pytest.approx(100)
    assert first.location == Location("http://127.0.0.1:8000/app.js", 7, 22, "applyFilters")
    assert second.location is not None and second.location.function == "r"
    dispatch = s.dispatches[0].location
    assert s.dispatches[0].type == "click" and dispatch is not None and dispatch.function == "applyFilters"
    assert s.categories["script"] == pytest.approx(295 + 79)  # the dispatch and the timer count as script too
    assert s.categories["layout"] == pytest.approx(6)
    assert s.long_task_count == 2 and s.long_task_total == pytest.approx(380)


def test_trace_without_the_page_thread_is_empty():
    s = summarise_trace([{"name": "RunTask", "ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 9e5}])
    assert s.threads == 0 and not s.long_tasks and not s.categories


def _entries(**over) -> dict:
    base = {
        "url": PAGE, "since": 0, "nav": {"ttfb": 40, "dcl": 1300, "load": 1330},
        "lcp": [{"start": 1400, "size": 320000, "url": "http://127.0.0.1:8000/hero.png",
                 "element": {"tag": "img", "id": "hero", "name": "Spring collection", "ref": "", "selector": "#hero"}}],
        "resources": [
            {"url": "http://127.0.0.1:8000/hero.png", "blocking": "non-blocking", "transfer": 3000, "start": 70,
             "requestStart": 80, "end": 700, "duration": 630},
            {"url": "http://127.0.0.1:8000/slow.js", "blocking": "blocking", "transfer": 329, "start": 60,
             "requestStart": 70, "end": 1330, "duration": 1270},
        ],
        "shifts": [], "events": [], "frames": [], "longTasks": [], "unsizedImages": [],
    }
    base.update(over)
    return base


def test_lcp_phases_and_the_cause_named_in_the_report():
    p = perf.lcp_phases(_entries())
    assert p is not None
    assert (p["ttfb"], p["loadDelay"], p["loadTime"], p["renderDelay"]) == (40, 40, 620, 700)
    report = perf.render_report(_entries(), None, {}, trace_path="/tmp/t.json", emulation="", seconds=2.0,
                                reload=True)
    text = report.text
    assert 'LCP 1,400 ms (good): img#hero "Spring collection"' in text
    assert "render delay: rendering waited for render-blocking /slow.js (until 1,330 ms)" in text
    assert '→ {insight: "LCPBreakdown"}' in text and "Performance panel: /tmp/t.json" in text
    assert text.endswith('More on a line: browser_performance {insight: "<name after →>"}.')
    assert "Render-blocking: /slow.js (1,270 ms, 329 B)" in text
    assert report.meta["lcpMs"] == 1400 and "no throttling" in text


def test_report_says_the_throttling_in_force():
    report = perf.render_report(_entries(), None, {}, trace_path=None, emulation="CPU 4× slower", seconds=1,
                                reload=False)
    assert "emulation in force: CPU 4× slower" in report.text and report.meta["emulation"] == "CPU 4× slower"


def test_cls_takes_the_largest_session_window_and_names_the_unsized_image():
    story = {"tag": "div", "id": "story", "name": "The town council", "selector": "#story"}
    shifts: list[Mapping[str, Any]] = [{"start": 500, "value": 0.09, "sources": [{"element": story, "moved": 281}]},
              {"start": 900, "value": 0.05, "sources": [{"element": story, "moved": 40}]},
              {"start": 3000, "value": 0.12, "sources": []},
              {"start": 3100, "value": 0.5, "recentInput": True, "sources": []}]
    value, window = perf.cls_windows(shifts)
    assert value == pytest.approx(0.14) and len(window) == 2
    banner = {"tag": "img", "id": "banner", "name": "Town hall", "src": "http://127.0.0.1:8000/banner.png"}
    entries = _entries(shifts=shifts, unsizedImages=[banner], lcp=[],
                       resources=[{"url": banner["src"], "end": 480, "duration": 400, "transfer": 2000}])
    text = perf.render_report(entries, None, {}, trace_path=None, emulation="", seconds=1, reload=True).text
    assert 'CLS 0.140 (needs improvement): 2 shifts from 0.50 s moved div#story "The town council" by 281 px' in text
    assert 'likely cause: img#banner "Town hall" has no width/height (loaded at 0.48 s)' in text


def test_slowest_interaction_with_its_handler_source_mapped():
    button = {"tag": "button", "id": "filter", "name": "Apply filters", "ref": "e1"}
    events: list[Mapping[str, Any]] = [
              {"name": "pointerdown", "interaction": 5, "start": 1000, "duration": 360, "processingStart": 1004,
               "processingEnd": 1010},
              {"name": "click", "interaction": 5, "start": 1000, "duration": 360, "processingStart": 1010,
               "processingEnd": 1330, "element": button},
              {"name": "keydown", "interaction": 9, "start": 2000, "duration": 40, "processingStart": 2001,
               "processingEnd": 2010}]
    found = perf.interactions(events)
    assert [i["name"] for i in found] == ["click", "keydown"]
    assert found[0]["inputDelay"] == 4 and found[0]["processing"] == 326 and found[0]["presentation"] == 30
    dist = FIXTURES / "perf" / "dist"
    bundle = "http://127.0.0.1:8000/perf/dist/report.js"
    maps = {bundle: LoadedMap((dist / "report.js.map").read_bytes(), (dist / "report.js").read_text())}
    trace = summarise_trace(_thread_events() + [
        _x("RunTask", 1000, 340), _x("EventDispatch", 1001, 330, type="click"),
        _x("FunctionCall", 1002, 320, url=bundle, lineNumber=1, columnNumber=75, functionName="r")])
    text = perf.render_report(_entries(events=events), trace, maps, trace_path=None, emulation="", seconds=1,
                              reload=False).text
    assert ('INP 360 ms (needs improvement): click on button#filter "Apply filters" [e1]: input delay 4 ms, '
            "processing 326 ms, presentation 30 ms; handler buildReport (src/report.js:8:10)") in text
    assert "in buildReport (src/report.js:8:10)" in perf.render_insight("LongTasks", _entries(), trace, maps)


def test_long_animation_frame_script_is_mapped_from_its_character_position():
    dist = FIXTURES / "perf" / "dist"
    bundle = "http://127.0.0.1:8000/perf/dist/report.js"
    maps = {bundle: LoadedMap((dist / "report.js.map").read_bytes(), (dist / "report.js").read_text())}
    script = {"url": bundle, "fn": "r", "at": 74, "duration": 300, "type": "user-callback", "invoker": "setTimeout"}
    assert perf.frame_script(script, maps, PAGE) == "buildReport (src/report.js:8:10)"
    assert perf.frame_script({**script, "url": "http://127.0.0.1:8000/x.js"}, maps, PAGE) == "r (/x.js)"


def test_every_insight_renders():
    for name in perf.INSIGHTS:
        assert perf.render_insight(name, _entries(), None, {}).strip()


def _snapshot(nodes: list[tuple[str, str, int, int]]) -> dict:
    """A heap snapshot of (type, name, self_size, detachedness) nodes."""
    types = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native", "synthetic"]
    strings = [""]
    flat: list[int] = []
    for i, (kind, name, size, detached) in enumerate(nodes):
        strings.append(name)
        flat += [types.index(kind), len(strings) - 1, i + 1, size, 0, 0, detached]
    return {"snapshot": {"meta": {"node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id",
                                                  "detachedness"], "node_types": [types]}},
            "nodes": flat, "edges": [], "strings": strings}


def test_heap_groups_by_class_and_says_what_grew():
    before_nodes = [("synthetic", "(GC roots)", 0, 0), ("object", "Object", 100, 0), ("string", "a", 20, 0)]
    groups, count, total = heap.aggregate(_snapshot(before_nodes))
    assert groups == {"Object": [1, 100], "(string)": [1, 20]} and count == 3 and total == 120
    leak = [("native", "<li>", 100, 2)] * 2000 + [("native", "HTMLLIElement", 50, 1)]
    after_groups, _n, _t = heap.aggregate(_snapshot(before_nodes + leak + [("string", "b", 5000, 0)]))
    assert after_groups["Detached <li>"] == [2000, 200_000] and after_groups["HTMLLIElement"] == [1, 50]
    before = heap.Measure(1000, 2000, {"nodes": 20, "jsEventListeners": 3, "documents": 1}, groups)
    now = heap.Measure(5000, 9000, {"nodes": 2021, "jsEventListeners": 3, "documents": 1}, after_groups,
                       path="/tmp/h.heapsnapshot")
    text = heap.render(now, before)
    assert "DOM nodes +2,001" in text
    assert "Grew: Detached <li> +2,000 (+195.3 kB); HTMLLIElement +1" in text  # detached first, then the page's types
    assert "Leak suspect: Detached <li> +2,000" in text and "Detached DOM: 2,000 nodes" in text
    assert "see what grew" in heap.render(now, None)


def test_heap_snapshot_without_meta_is_refused():
    with pytest.raises(ValueError, match="not a heap snapshot"):
        heap.aggregate({"nodes": []})


def test_emulation_settings_are_checked_and_described():
    state = emulation.check({"cpuThrottling": 4, "network": "Slow-3G", "geolocation": {"latitude": 51.5,
                             "longitude": -0.12}, "colorScheme": "dark", "timezone": "Asia/Tokyo", "maxTokens": 5})
    assert state["network"] == "slow-3g" and state["geolocation"]["accuracy"] == 50
    text = emulation.describe(state)
    assert text.startswith("CPU 4× slower; network slow-3g (400 kbit/s down, 400 up, 2,000 ms latency)")
    assert "geolocation 51.5,-0.12" in text and "colour scheme dark" in text and "timezone Asia/Tokyo" in text
    assert emulation.throttling(state) == "CPU 4× slower; network slow-3g (400 kbit/s down, 400 up, 2,000 ms latency)"
    assert emulation.check({"cpuThrottling": 1, "network": "none", "locale": None}) == {
        "cpuThrottling": None, "network": None, "locale": None}
    assert emulation.network_conditions("slow-3g") == {"offline": False, "latency": 2000,
                                                       "downloadThroughput": 50_000, "uploadThroughput": 50_000}
    assert emulation.network_conditions(None)["downloadThroughput"] == -1
    assert emulation.network_conditions({"download": 1000, "upload": 0, "latency": 10})["uploadThroughput"] == -1


@pytest.mark.parametrize("args, message", [
    ({"cpuThrottling": 50}, "cpuThrottling must be a number from 1 to 20"),
    ({"network": "5g"}, "network must be one of slow-3g"),
    ({"network": {"down": 1}}, "network as an object takes download"),
    ({"geolocation": {"latitude": 95, "longitude": 0}}, "geolocation.latitude must be a number from -90 to 90"),
    ({"geolocation": "London"}, "geolocation takes {latitude, longitude"),
    ({"colorScheme": "blue"}, "colorScheme must be one of light, dark"),
    ({"timezone": ""}, "timezone must be a non-empty string"),
])
def test_emulation_refuses_bad_values_in_one_line(args, message):
    with pytest.raises(InvalidArgument, match=message.replace("{", r"\{")):
        emulation.check(args)
