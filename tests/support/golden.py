"""Golden examples of ``browser_snapshot`` (and one action record): fixture pages rendered by the real server.

Each :class:`Case` is a fixture page and the tool calls made on it in a fresh tab; the last call's result is the
example. ``tests/test_golden_snapshot_e2e.py`` renders every case through the stdio client and a real Chromium and
compares it with ``tests/golden/snapshot/<name>.txt`` (the text blocks the client receives, joined by a line
break) and, when the result has structured fields besides ``fingerprint``, ``<name>.json`` (compact JSON, as
sent). ``docs/snapshot-format.md`` embeds some of them, each block marked ``<!-- golden: NAME -->`` (or
``NAME.json``); ``tests/test_golden_snapshot_doc.py`` checks those blocks are byte-equal to the files.

What varies between runs is normalised: the fixture server's port (``127.0.0.1:PORT``, ``localhost:PORT``), and
the ``fingerprint`` field is left out (it hashes the page with its URLs, port included). Refs need nothing: a new
tab numbers them from ``e1`` and a page's walk hands them out in the same order on every load.

Regenerate (files and the doc's blocks) with ``BROWSER_CTX_UPDATE_GOLDEN=1``; see :data:`UPDATE_ENV`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Case", "CASES", "GOLDEN_DIR", "DOC", "UPDATE_ENV", "NEXT_OFFSET", "normalise", "result_files",
           "doc_blocks", "sync_doc", "REGENERATE"]

ROOT = Path(__file__).resolve().parents[2]
#: Where the golden files live.
GOLDEN_DIR = ROOT / "tests" / "golden" / "snapshot"
#: The doc that embeds them.
DOC = ROOT / "docs" / "snapshot-format.md"
#: Set to ``1`` to write the golden files from what the server renders now (and refresh the doc's blocks).
UPDATE_ENV = "BROWSER_CTX_UPDATE_GOLDEN"
#: The one command that regenerates everything.
REGENERATE = f"{UPDATE_ENV}=1 .venv/bin/python -m pytest tests/test_golden_snapshot_e2e.py -q"
#: An argument value standing for the ``nextOffset`` of the call before.
NEXT_OFFSET = "<nextOffset>"


@dataclass(frozen=True)
class Case:
    """One example: ``page`` (a path under ``fixtures/``) opened in a new tab, then ``calls`` in order, each
    ``(tool, arguments)``; the last call's result is the example. ``shows``: what it is there to show."""

    name: str
    page: str
    shows: str
    calls: tuple[tuple[str, dict[str, Any]], ...] = field(default=(("browser_snapshot", {}),))


CASES: tuple[Case, ...] = (
    Case("states", "semantics/states.html", "roles, names, refs, states, a form, a tab list, a dialog"),
    Case("values", "values/fields.html", "field values exactly as held, JSON-quoted"),
    Case("inline-refs", "agent-widgets/inline-words.html", "refs inside running text, list items"),
    Case("inline-refs-cut", "agent-widgets/inline-words.html", "a long text line cut to fit, its ref kept",
         (("browser_snapshot", {"maxTokens": 250}),)),
    Case("no-aria", "agent-widgets/treeview.html", "controls without ARIA: names and states from class words"),
    Case("dropdown", "agent-widgets/selectric.html", "a select behind a replacement dropdown: one combobox"),
    Case("slider", "agent-widgets/slider.html", "slider handles without ARIA: value from position"),
    Case("table", "semantics/table-spans.html", "a table with spans, an ARIA grid with aria-rowcount"),
    Case("frames", "iframe.html", "a same-origin and a cross-origin frame, their refs prefixed"),
    Case("shadow", "shadow.html", "open and closed shadow roots read in place"),
    Case("folds", "semantics/folds.html", "a page folded to fit maxTokens, each fold naming its call",
         (("browser_snapshot", {"maxTokens": 400}),)),
    Case("folds-whole", "semantics/folds.html", "the same page at the default maxTokens: it fits, shown whole"),
    Case("target", "semantics/folds.html", "a targeted read: nothing folded, cut by the cap",
         (("browser_snapshot", {"target": "#topics", "maxTokens": 300}),)),
    Case("target-offset", "semantics/folds.html", "reading on from nextOffset",
         (("browser_snapshot", {"target": "#topics", "maxTokens": 300}),
          ("browser_snapshot", {"target": "#topics", "maxTokens": 300, "offset": NEXT_OFFSET}))),
    Case("partial", "listing.html", "a page larger than the read collects: part of the document",
         (("browser_snapshot", {"maxTokens": 500}),)),
    Case("record", "agent-widgets/toggles.html", "an action's change record",
         (("browser_snapshot", {}), ("browser_click", {"target": "e2"}))),
)

_PORT = re.compile(r"\b(127\.0\.0\.1|localhost):\d+\b")


def normalise(text: str) -> str:
    """``text`` with the fixture server's port replaced by ``PORT``."""
    return _PORT.sub(r"\1:PORT", text)


def result_files(result: Any) -> dict[str, str]:
    """The golden files of one MCP result: ``{".txt": text, ".json": structured}`` (``.json`` only when there
    are structured fields besides ``fingerprint``), normalised, each ending with a line break."""
    text = "\n".join(getattr(c, "text", "") for c in result.content if getattr(c, "type", "") == "text")
    out = {".txt": normalise(text) + "\n"}
    meta = {k: v for k, v in (result.structured_content or {}).items() if k != "fingerprint"}
    if meta:
        out[".json"] = normalise(json.dumps(meta, ensure_ascii=False, separators=(",", ":"))) + "\n"
    return out


#: A marked block: ``<!-- golden: NAME -->`` on its own line, then a fenced block (three or more backticks).
_BLOCK = re.compile(r"^<!-- golden: (?P<name>[\w.-]+) -->\n(?P<fence>`{3,})(?P<lang>\w*)\n(?P<body>.*?)^(?P=fence)$",
                    re.M | re.S)


def _file_of(name: str) -> Path:
    return GOLDEN_DIR / (name if name.endswith(".json") else name + ".txt")


def doc_blocks(doc: str) -> list[tuple[str, Path, str]]:
    """Every marked block of ``doc``: ``(name, golden file, block text)``, the text as between the fences."""
    return [(m["name"], _file_of(m["name"]), m["body"]) for m in _BLOCK.finditer(doc)]


def sync_doc(path: Path = DOC) -> bool:
    """Rewrite every marked block of the doc at ``path`` from its golden file; return whether it changed."""
    doc = path.read_text(encoding="utf-8")

    def fill(m: re.Match[str]) -> str:
        body = _file_of(m["name"]).read_text(encoding="utf-8")
        return f"<!-- golden: {m['name']} -->\n{m['fence']}{m['lang']}\n{body}{m['fence']}"

    new = _BLOCK.sub(fill, doc)
    if new != doc:
        path.write_text(new, encoding="utf-8")
    return new != doc
