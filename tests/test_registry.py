"""The tool registry: families registered explicitly, special cases as ToolSpec fields, schemas as published."""

from __future__ import annotations

import pytest

from browser_ctx._errors import InvalidArgument
from browser_ctx.core.ledger import Ledger
from browser_ctx.server.app import INSTRUCTIONS, instructions, select_tools
from browser_ctx.server.pipeline import validate_arguments
from browser_ctx.server.tools import FAMILIES, all_tools
from browser_ctx.settings import CapSettings


def test_every_family_is_registered_once_in_order():
    names = [t.name for t in all_tools()]
    assert len(names) == len(set(names)) == sum(len(f.TOOLS) for f in FAMILIES)
    assert names[:3] == ["browser_navigate", "browser_snapshot", "browser_text"]
    assert names[-1] == "browser_ctx_stats"


def test_special_cases_are_spec_fields():
    specs = {t.name: t for t in all_tools()}
    assert {n for n, t in specs.items() if t.runs_page_code} == {"browser_evaluate"}
    assert {n: t.baseline for n, t in specs.items() if t.baseline} == {
        "browser_navigate": "page", "browser_snapshot": "target", "browser_text": "page"}
    without = {t.name for t in select_tools(("all",), evaluate=False)}
    assert without == {t.name for t in select_tools(("all",))} - {"browser_evaluate"}


def test_screenshot_rejects_element_as_its_docs_say():
    spec = {t.name: t for t in all_tools()}["browser_take_screenshot"]
    assert "element" not in spec.input_schema()["properties"]
    with pytest.raises(InvalidArgument, match="unknown parameter.*element"):
        validate_arguments(spec, {"element": "the logo"})
    assert validate_arguments(spec, {"target": "#logo", "maxTokens": 500}) == {"target": "#logo", "maxTokens": 500}


def test_instructions_state_this_servers_caps() -> None:
    assert "default 2000, max 8000" in INSTRUCTIONS
    assert "default 500, max 3000" in instructions(CapSettings(default_max_tokens=500, ceiling_tokens=3000))


def test_instructions_explain_the_snapshot_notation() -> None:
    # bare text lines, class-word and id names, runs of them on one line, state from classes
    for said in ("a bare line is page text", "'text:'", ".like or #search", "clickable .reply [e2], .like [e3]",
                 "'(by class)'"):
        assert said in INSTRUCTIONS, said


def test_ledger_counts_measurable_reads_by_flag_not_by_name() -> None:
    ledger = Ledger()
    ledger.record("my_read", 10, measurable=True)  # a read whose baseline was not measured
    ledger.record("browser_snapshot", 10)  # a name alone no longer makes a read
    assert ledger.totals().measurable == 1
    assert "Measured baselines: 0 calls" in ledger.render()
