"""The tool registry: families registered explicitly, special cases as ToolSpec fields, schemas as published."""

from __future__ import annotations

import pytest

from browser_ctx._errors import InvalidArgument
from browser_ctx.server.app import select_tools
from browser_ctx.server.pipeline import validate_arguments
from browser_ctx.server.tools import FAMILIES, all_tools


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
