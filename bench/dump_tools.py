"""Dump each Node server's ``tools/list`` to ``docs/reference/`` and print its o200k token cost.

Usage: ``python -m bench.dump_tools [--out docs/reference] [--servers playwright-mcp,chrome-devtools-mcp]``.
Writes ``<package>-<version>-tools.json`` (the tool objects exactly as received: name, description, inputSchema,
and annotations etc. when the server sends them) and prints one line per server with its token count.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio

from .client import connect
from .servers import build_specs

FILE_NAMES = {
    "playwright-mcp": "playwright-mcp-{version}-tools.json",
    "chrome-devtools-mcp": "chrome-devtools-mcp-{version}-tools.json",
    "browser-ctx": "browser-ctx-{version}-tools.json",
}


async def _dump(names: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for spec in build_specs(names):
        try:
            async with connect(spec) as conn:
                tools = conn.tools_raw.get("tools", [])
                path = out / FILE_NAMES[spec.name].format(version=spec.version)
                path.write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n")
                print(f"{spec.name} {spec.version}: {len(tools)} tools, tools/list = {conn.tools_tokens} tokens "
                      f"-> {path}")
        finally:
            spec.cleanup()


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (see module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m bench.dump_tools", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "reference")
    ap.add_argument("--servers", default="playwright-mcp,chrome-devtools-mcp")
    args = ap.parse_args(argv)
    anyio.run(_dump, [s.strip() for s in args.servers.split(",") if s.strip()], args.out)


if __name__ == "__main__":
    main()
