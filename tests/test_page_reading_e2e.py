"""Reads of pages written as others write them, through the stdio client: CSS counters in generated text."""

from __future__ import annotations

import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_css_counters_in_generated_text_are_read(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/walks/counters.html"})
        text = result_text(await s.call_tool("browser_text", {"format": "text"}))
        for want in ("Step 1: Create an account", "Step 2: Confirm your email", "Step 3: Choose a plan",
                     "Step 1: Compare the plans", "Step 2: Pick one", "Step 4: Pay"):
            assert want in text, text  # a nested list counts on its own, then the outer one goes on
        assert "Part 1. Sign up" in text or "Part I. Sign up" in text, text
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        assert "Step 4: Pay" in snap, snap


async def test_a_table_row_reads_with_its_cells_apart_and_the_header(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/walks/orders.html"})
        row = result_text(await s.call_tool("browser_text", {"target": "table tbody tr:first-child"}))
        assert "218Ana" not in row and "| 218 | Ana Silva 8 | Hanoi | 499.97 | paid | 2026-10-18 |" in row, row
        assert "| Order | Customer | City |" in row, row  # the header of the table the row is in
        cell = result_text(await s.call_tool("browser_text", {"target": "tbody tr:nth-child(2) td:nth-child(2)"}))
        assert "Bo Chen" in cell and "Customer" in cell, cell
        plain = result_text(await s.call_tool("browser_text", {"target": "tbody tr:first-child", "format": "text"}))
        assert "218 | Ana Silva 8 | Hanoi" in plain, plain


async def test_generated_images_are_not_read_as_text(site):
    """``content: url("…")`` is an image: its URL is not text (a preload list of them read as one long line of
    URLs), while the strings beside it are."""
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/walks/pseudo-images.html"})
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        assert "New: Spring catalogue" in snap, snap
        assert ".png" not in snap and "img/" not in snap, snap
        text = result_text(await s.call_tool("browser_text", {"format": "text"}))
        assert "New: Spring catalogue" in text and ".png" not in text, text
