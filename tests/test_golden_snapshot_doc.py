"""docs/snapshot-format.md cannot drift from what the server renders: every example block it marks
``<!-- golden: NAME -->`` is byte-equal to ``tests/golden/snapshot/NAME.txt`` (or ``NAME.json``), the files
``tests/test_golden_snapshot_e2e.py`` checks against the real server. Fast: reads files only."""

from __future__ import annotations

import difflib
from pathlib import Path

from tests.support.golden import CASES, DOC, GOLDEN_DIR, REGENERATE, doc_blocks, sync_doc

#: The doc shows at least this many golden examples.
LEAST_BLOCKS = 8


def test_every_case_has_its_golden_file() -> None:
    missing = [c.name for c in CASES if not (GOLDEN_DIR / f"{c.name}.txt").is_file()]
    assert not missing, f"no golden file for {missing}; generate them with: {REGENERATE}"
    names = {c.name for c in CASES}
    stray = sorted(p.name for p in GOLDEN_DIR.iterdir() if p.name.rsplit(".", 1)[0] not in names)
    assert not stray, f"golden files of no case in tests/support/golden.py: {stray}"


def test_the_doc_marks_golden_blocks_and_each_names_a_file() -> None:
    blocks = doc_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= LEAST_BLOCKS, f"only {len(blocks)} golden blocks in {DOC.name}"
    unknown = [name for name, path, _ in blocks if not path.is_file()]
    assert not unknown, f"{DOC.name} marks blocks of no golden file: {unknown}"


def test_every_golden_block_of_the_doc_equals_its_file() -> None:
    problems = []
    for name, path, body in doc_blocks(DOC.read_text(encoding="utf-8")):
        if not path.is_file():
            continue
        want = path.read_text(encoding="utf-8")
        if body != want:
            diff = "".join(difflib.unified_diff(want.splitlines(keepends=True), body.splitlines(keepends=True),
                                                f"tests/golden/snapshot/{path.name}", f"{DOC.name} ({name})"))
            problems.append(diff)
    assert not problems, (f"{DOC.name} differs from the golden files; regenerate with: {REGENERATE}\n"
                          + "\n".join(problems))


def test_a_changed_block_is_found_and_sync_restores_it(tmp_path: Path) -> None:
    doc = DOC.read_text(encoding="utf-8")
    _, path, body = doc_blocks(doc)[0]
    edited = tmp_path / "doc.md"
    edited.write_text(doc.replace(body, "an edited example\n", 1), encoding="utf-8")
    assert doc_blocks(edited.read_text(encoding="utf-8"))[0][2] == "an edited example\n"
    assert sync_doc(edited)
    assert doc_blocks(edited.read_text(encoding="utf-8"))[0][2] == path.read_text(encoding="utf-8")
