"""One scripted order on the component-library app, as an agent would place it: calls and tokens per server.

The order (``fixtures/apps/shop``, served from localhost): fill "Full name" and "Email", choose the
country Spain (Radix Select), the tags Gift and Express (react-select multi), the delivery date
2026-12-15 (react-datepicker's calendar: the day cell), submit ("Place order", MUI), and check the
"Order placed" toast and the "Last order" line. Every ref comes from what the server returned (its
snapshot or an action's result); a ref in neither the last result nor the last snapshot costs one
``browser_snapshot`` call. No
selector is guessed and no ``browser_evaluate`` is used.

- **browser-ctx**: ``browser_snapshot``, ``browser_fill_form`` (name, email and country as a combobox),
  ``browser_select_option`` (both tags), clicks on the date field and the day cell, ``browser_click``
  on submit, ``browser_verify`` (auto-waiting) for the toast and the summary.
- **@playwright/mcp** 0.0.83 (when Node.js is present; installed as ``python -m bench`` does, see
  :mod:`bench.servers`): its ``browser_fill_form`` for the two text fields (its ``combobox`` type needs a
  native select), clicks to open each widget and pick each option by ref, ``browser_wait_for`` for the
  toast and the summary.

Tokens are o200k over everything the client receives (:mod:`bench.client`), plus the tool definitions
(``tools/list``) once. Run: ``python -m bench.widget_order [--servers browser-ctx,playwright-mcp]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio

from tests.support.site import FIXTURES, serve_directory

from .client import CallRecord, Connection, connect
from .servers import build_specs

__all__ = ["Order", "run_order", "main"]

APP = "apps/shop/dist/index.html"
SUMMARY = "Last order: Ada Lovelace, Spain, Gift + Express, 2026-12-15"
DAY = "Choose Tuesday, December 15th, 2026"
#: A ref at the end of a snapshot line: ``[e12]`` (browser-ctx) or ``[ref=e12]`` (@playwright/mcp).
_REF = r"\[(?:ref=)?((?:f\d+)?e\d+)\]"


@dataclass
class Order:
    """The calls one server needed for the order, and whether it went through."""

    server: str
    tools_tokens: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    placed: bool = False
    note: str = ""

    @property
    def tokens(self) -> int:
        """Tokens of every call's result (tool definitions not included)."""
        return sum(c.tokens for c in self.calls)


class _Agent:
    """Calls tools on one connection and finds refs in what came back."""

    def __init__(self, conn: Connection, order: Order) -> None:
        self.conn = conn
        self.order = order
        self.last = ""
        self.snapshot = ""

    async def call(self, tool: str, **args: Any) -> CallRecord:
        rec = await self.conn.call(tool, args)
        self.order.calls.append(rec)
        self.last = rec.text
        if rec.is_error:
            raise RuntimeError(f"{tool} failed: {rec.error}")
        return rec

    async def ref(self, pattern: str, *, fresh: bool = False) -> str:
        """The ref of the first line matching ``pattern``: from the last result, else from the last snapshot
        (an agent remembers the form's fields; not with ``fresh``, for what a click just opened), else from a
        new snapshot."""
        for text in (self.last, "" if fresh else self.snapshot, None):
            if text is None:
                text = self.snapshot = (await self.call("browser_snapshot")).text
            m = re.search(pattern + r"[^\n]*?" + _REF, text)
            if m:
                return m.group(1)
        raise RuntimeError(f"no ref for {pattern!r} in the snapshot")


async def _browser_ctx(agent: _Agent, url: str) -> None:
    await agent.call("browser_navigate", url=url)
    agent.snapshot = (await agent.call("browser_snapshot")).text
    name, email = await agent.ref(r'textbox "Full name"'), await agent.ref(r'textbox "Email"')
    country, tags = await agent.ref(r'combobox(?: "Country")? '), await agent.ref(r'combobox "Tags"')
    date, submit = await agent.ref(r'textbox "Delivery date"'), await agent.ref(r'(?i)button "Place order"')
    await agent.call("browser_fill_form", fields=[
        {"target": name, "name": "Full name", "type": "textbox", "value": "Ada Lovelace"},
        {"target": email, "name": "Email", "type": "textbox", "value": "ada@example.com"},
        {"target": country, "name": "Country", "type": "combobox", "value": "Spain"}])
    await agent.call("browser_select_option", target=tags, values=["Gift", "Express"])
    await agent.call("browser_click", target=date)
    await agent.call("browser_click", target=await agent.ref(f'gridcell "{DAY}"', fresh=True))
    await agent.call("browser_click", target=submit)
    for text in ("Order placed", SUMMARY):
        if (await agent.call("browser_verify", text=text, timeout=10_000)).text != "PASS":
            raise RuntimeError(f"not shown: {text}")


async def _playwright_mcp(agent: _Agent, url: str) -> None:
    await agent.call("browser_navigate", url=url)  # its result links the snapshot (a file), so refs need a read
    name, email = await agent.ref(r'textbox "Full name"'), await agent.ref(r'textbox "Email"')
    await agent.call("browser_fill_form", fields=[
        {"target": name, "element": "Full name", "name": "Full name", "type": "textbox", "value": "Ada Lovelace"},
        {"target": email, "element": "Email", "name": "Email", "type": "textbox", "value": "ada@example.com"}])
    await agent.call("browser_click", target=await agent.ref(r'combobox "Country"'), element="Country")
    await agent.call("browser_click", target=await agent.ref(r'option "Spain"', fresh=True), element="Spain")
    for tag in ("Gift", "Express"):
        await agent.call("browser_click", target=await agent.ref(r'combobox "Tags"'), element="Tags")
        await agent.call("browser_click", target=await agent.ref(f'option "{tag}"', fresh=True), element=tag)
    await agent.call("browser_click", target=await agent.ref(r'textbox "Delivery date"'), element="Delivery date")
    await agent.call("browser_click", target=await agent.ref(f'gridcell "{DAY}"', fresh=True), element=DAY)
    await agent.call("browser_click", target=await agent.ref(r'(?i)button "Place order"'), element="Place order")
    for text in ("Order placed", SUMMARY):
        await agent.call("browser_wait_for", text=text)


async def run_order(server: str, site: str) -> Order:
    """Place the order on ``server`` (``browser-ctx`` or ``playwright-mcp``) against the app under ``site``."""
    specs = build_specs([server], log=lambda m: print(m, file=sys.stderr))
    order = Order(server)
    if not specs:
        order.note = "not available"
        return order
    spec = specs[0]
    try:
        async with connect(spec) as conn:
            order.server = f"{server} {spec.version}"
            order.tools_tokens = conn.tools_tokens
            agent = _Agent(conn, order)
            steps = _browser_ctx if server == "browser-ctx" else _playwright_mcp
            try:
                await steps(agent, f"{site}/{APP}")
                order.placed = True
            except RuntimeError as exc:
                order.note = str(exc)[:200]
    finally:
        spec.cleanup()
    return order


def _table(orders: list[Order]) -> str:
    lines = ["| server | order placed | calls | result tokens | tool-definition tokens | largest result |",
             "|---|---|---:|---:|---:|---:|"]
    for o in orders:
        biggest = max((c.tokens for c in o.calls), default=0)
        placed = "yes" if o.placed else f"no ({o.note})"
        lines.append(f"| {o.server} | {placed} | {len(o.calls)} | {o.tokens:,} | {o.tools_tokens:,} | {biggest:,} |")
    return "\n".join(lines)


async def _main(servers: list[str], verbose: bool) -> None:
    with serve_directory(FIXTURES) as port:
        site = f"http://127.0.0.1:{port}"
        orders = [await run_order(s, site) for s in servers]
    for o in orders:
        if verbose:
            print(f"\n{o.server}:")
            for c in o.calls:
                error = f"  ERROR {c.error}" if c.is_error else ""
                print(f"  {c.tool:<24} {c.tokens:>6,} tokens  {c.seconds:5.2f} s{error}")
    print(_table(orders))


def main(argv: list[str] | None = None) -> None:
    """Command line: ``--servers`` (comma-separated, default both), ``-v`` lists every call."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default="browser-ctx,playwright-mcp")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    anyio.run(_main, [s.strip() for s in a.servers.split(",") if s.strip()], a.verbose)


if __name__ == "__main__":
    main()
