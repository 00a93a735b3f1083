"""No source file in browser_ctx/ over 500 lines (the house rule: small modules named for what they own)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "browser_ctx"
LIMIT = 500


def test_no_source_file_over_500_lines() -> None:
    sources = [p for p in PACKAGE.rglob("*") if p.suffix in {".py", ".js"} and p.is_file()]
    assert len(sources) > 50  # the package is there
    over = {str(p.relative_to(PACKAGE)): n for p in sources
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert over == {}, f"split these files: {over}"
