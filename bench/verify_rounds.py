"""The scripted rounds of the verify-loop measure and the mechanical rule that decides a round's answer.

Pure: no browser, no server, no files (the edits are applied to strings by :func:`apply_edit`), so the
rules are unit-tested (``tests/test_verify_rounds.py``). :mod:`bench.verify_loop` runs the rounds.

A round is one edit of the shop app's source (``fixtures/apps/shop/src``, on a copy), a rebuild, and a
check by each server in the page state the round is about (``form`` at load, ``invalid`` after an empty
submit, ``dialog`` with "Terms of service" open, ``orders`` on the Orders tab, ``placed`` after a valid
submit). Edits accumulate: a round's source is the previous round's plus its own edits.

The rule (:func:`judge`), applied to the text of every call the server made in the round:

- **present text** is what the server says the page shows now. For a full answer (a whole snapshot, a
  console listing, an action's result) that is the whole text. For a ``since`` answer of browser-ctx
  (``Changes since …``) it is the ``+`` lines, the ``~`` lines up to ``(was: …)``, and the lines that are
  not a change line at all (journal notes such as ``Shown and gone: toast "…"``, summaries such as
  ``dialog "…" opened``); ``-`` lines and ``(was: …)`` say what went. ``Unchanged since …`` has no
  present text. A journal line (``Shown and gone: toast "Order confirmed" (1.5 s)``) shows its text was on
  the page in the round: it counts for the expected texts, never as the old text still shown.
- A **changing** round is correct when every expected text is in the present text and the old text
  (if any) is not in the present text of the calls that describe the page (console listings left out: an
  error listed from before the fix is history, not the page).
- The **no-change** round is correct when no change is reported: for browser-ctx the look answers
  ``Unchanged since …`` or lists no ``+``/``-``/``~`` line other than the notice that lines were
  re-rendered with new refs (a reload hands out new refs; no text changed); the other two servers
  always return the whole page, so any answer without an error counts as correct.
- A **false "Unchanged"** is a look of browser-ctx that reports no change (``Unchanged since …``, or
  nothing but the re-rendered-with-new-refs notice) in a round whose page changed.

Matching is on text with whitespace collapsed and case kept (the edits choose distinctive words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Edit", "Round", "ROUNDS", "STATES", "Verdict", "apply_edit", "split_answer", "judge", "is_unchanged"]

#: Page states a round is checked in, and what reaches them from a fresh load.
STATES = {
    "form": "the Order tab at load",
    "invalid": 'the Order tab after "Place order" with empty fields',
    "dialog": '"Read terms" clicked: the "Terms of service" dialog open',
    "orders": "the Orders tab (DataGrid, page 1 of 8)",
    "placed": 'name and email filled, "Place order" clicked, until "Last order" shows',
}


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` by ``new`` in ``path`` (relative to the app folder); ``old`` must occur exactly once."""

    path: str
    old: str
    new: str

    def reverse(self) -> Edit:
        """The edit that undoes this one."""
        return Edit(self.path, self.new, self.old)


@dataclass(frozen=True)
class Round:
    """One scripted round.

    Attributes:
        name: short id (table rows).
        what: one-line description of the edit.
        state: a key of :data:`STATES`.
        edits: applied to the app's source before the rebuild (none for the no-change round).
        expect: texts that must be in the present text (see the module docstring).
        gone: text that must not be in it (the old text), or ``None``.
        console: the round is about an error: browser-ctx also lists the console (the others always do).
        changes: the page changes in this round (``False`` only for the no-change round).
        reload: the edit changes initial state (a hot reload keeps the mounted component's), so the check
            reloads under hot reload too.
        container: where the edit shows, as an agent that made it knows (a target), and ``container_tool``
            the read of it (``browser_text`` for prose, ``browser_snapshot`` for a grid): browser-ctx reads it
            when its since answer shows the change only as a fold or a cut line (see :mod:`bench.verify_loop`).
    """

    name: str
    what: str
    state: str
    edits: tuple[Edit, ...] = ()
    expect: tuple[str, ...] = ()
    gone: str | None = None
    console: bool = False
    changes: bool = True
    container: str | None = None
    container_tool: str = "browser_text"
    reload: bool = False


_THROW = Edit("src/OrderForm.jsx", "export default function OrderForm() {\n",
              "export default function OrderForm() {\n  throw new Error('Order form failed: price table missing');\n")

_DIALOG = 'role=dialog[name="Terms of service"]'

#: The rounds, in order. Row 1020 ("Greta Okafor") is the 20th of the 25 rows on the grid's page 1; the dialog's
#: fourth paragraph and the end of its long first one: browser-ctx's snapshot folded the row and the paragraph
#: and cut the line until grids and open dialogs were shown whole (f5f6cf8, e02dd65).
ROUNDS: tuple[Round, ...] = (
    Round("no-change", "rebuild with no edit", "form", changes=False),
    Round("label", 'label "Full name" → "Recipient name"', "form",
          (Edit("src/OrderForm.jsx", '<label htmlFor="name">Full name</label>',
                '<label htmlFor="name">Recipient name</label>'),),
          expect=("Recipient name",), gone="Full name"),
    Round("throw", "OrderForm throws at render (error in the console, the form gone)", "form", (_THROW,),
          expect=("price table missing",), gone="New order", console=True),
    Round("fix", "the throw removed again", "form", (_THROW.reverse(),),
          expect=("New order",), gone="price table missing", console=True),
    Round("validation", 'empty-name message "Full name is required" → "Tell us who receives the order"',
          "invalid",
          (Edit("src/OrderForm.jsx", "required: 'Full name is required'",
                "required: 'Tell us who receives the order'"),),
          expect=("Tell us who receives the order",), gone="Full name is required"),
    Round("dialog", 'open dialog, 4th paragraph: "never sell them to third parties" → '
          '"never share them with advertisers"', "dialog",
          (Edit("src/TermsDialog.jsx", "never sell them to third parties", "never share them with advertisers"),),
          expect=("never share them with advertisers",), gone="never sell them to third parties",
          container=_DIALOG),
    Round("cut", 'open dialog, end of the long 1st paragraph: "paid by the recipient" → '
          '"paid by the buyer on delivery"', "dialog",
          (Edit("src/TermsDialog.jsx", "are paid by the recipient.", "are paid by the buyer on delivery."),),
          expect=("paid by the buyer on delivery",), gone="paid by the recipient", container=_DIALOG),
    Round("grid-row", 'DataGrid page 1, row 20 of 25: customer "Greta Okafor" → "Zora Hurston"', "orders",
          (Edit("src/OrdersGrid.jsx", "rows={rows}",
                "rows={rows.map((r) => (r.id === 1020 ? { ...r, customer: 'Zora Hurston' } : r))}"),),
          expect=("Zora Hurston",), gone="Greta Okafor", container='role=grid[name="Orders"]',
          container_tool="browser_snapshot"),
    Round("page-size", 'the grid shows 100 rows a page instead of 25', "orders",
          (Edit("src/OrdersGrid.jsx", "paginationModel: { pageSize: 25, page: 0 }",
                "paginationModel: { pageSize: 100, page: 0 }"),
           Edit("src/OrdersGrid.jsx", "pageSizeOptions={[25]}", "pageSizeOptions={[25, 100]}")),
          expect=("1–100 of 200",), gone="1–25 of 200", reload=True),
    Round("deep-row", 'row 1090, the 90th of the 100 (past the 50 a snapshot shows): "Luca Moreau" → "Octavia Butler"',
          "orders",
          (Edit("src/OrdersGrid.jsx", "(r.id === 1020 ? { ...r, customer: 'Zora Hurston' } : r)",
                "(r.id === 1020 ? { ...r, customer: 'Zora Hurston' } : "
                "r.id === 1090 ? { ...r, customer: 'Octavia Butler' } : r)"),),
          expect=("Octavia Butler",), gone="Luca Moreau", container='role=row[name*="1090"]',
          container_tool="browser_snapshot"),
    Round("toast", 'toast after the async submit: "Order placed" → "Order confirmed"', "placed",
          (Edit("src/OrderForm.jsx", "toast.success('Order placed'", "toast.success('Order confirmed'"),),
          expect=("Order confirmed",), gone="Order placed"),
)


def apply_edit(source: str, edit: Edit) -> str:
    """Return ``source`` with ``edit`` applied. Raises ``ValueError`` unless ``edit.old`` occurs exactly once."""
    n = source.count(edit.old)
    if n != 1:
        raise ValueError(f"{edit.path}: expected 1 occurrence of {edit.old[:60]!r}, found {n}")
    return source.replace(edit.old, edit.new)


_WS = re.compile(r"\s+")
#: The notice a ``since`` answer gives for lines whose text stayed but whose refs are new (after a reload).
_RERENDERED = re.compile(r"^~ \d+ lines? re-rendered with new refs")
_WAS = re.compile(r" \(was: .*\)$")


#: The journal's report of UI that appeared and went between calls (a toast, an alert, a dialog).
_SHOWN_AND_GONE = "Shown and gone:"


def _shown(text: str) -> str:
    """The journal lines of ``text``: what was shown in the round and is gone now."""
    return "\n".join(line for line in text.splitlines() if _SHOWN_AND_GONE in line)


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def is_unchanged(text: str) -> bool:
    """Whether a browser-ctx read answered ``Unchanged since …`` (possibly after ``[notes]``)."""
    return any(line.startswith("Unchanged since ") for line in text.splitlines())


#: How a ``since`` answer says the page changed only in parts the read folds or cuts (no line to show).
_UNSEEN = re.compile(r"the page changed (?:in|inside|elsewhere in) what")


def _says_changed_unseen(text: str) -> bool:
    return bool(_UNSEEN.search(text)) and not text.startswith("Unchanged since ")


def split_answer(text: str, diff: bool = True) -> tuple[str, str, bool]:
    """Split one result into ``(present, gone, reports_change)``.

    ``reports_change`` is true when the result lists a ``+``/``-``/``~`` change line other than the
    re-rendered-with-new-refs notice; only browser-ctx's ``since`` answers and action records carry them,
    so with ``diff=False`` (the other servers, whose YAML snapshots start lines with ``- ``) the whole
    text is present. See the module docstring.
    """
    lines = text.splitlines()
    if not diff:
        return text, "", False
    if is_unchanged(text):
        return "", "", False
    if not any(line.startswith("Changes since ") for line in lines) and not any(
            line[:2] in ("+ ", "- ", "~ ") for line in lines):
        return text, "", False
    present: list[str] = []
    gone: list[str] = []
    change = False
    for line in lines:
        head = line[:2]
        if _SHOWN_AND_GONE in line:
            gone.append(line)
        elif head == "- ":
            gone.append(line[2:])
            change = True
        elif head in ("+ ", "~ "):
            if _RERENDERED.match(line):
                continue
            change = True
            body = line[2:]
            was = _WAS.search(body)
            if was:
                gone.append(was.group(0))
                body = body[:was.start()]
            present.append(body)
        else:
            present.append(line)
    return "\n".join(present), "\n".join(gone), change


@dataclass
class Verdict:
    """How one server answered one round.

    Attributes:
        correct: by the rule of the module docstring.
        false_unchanged: browser-ctx's look reported no change although the page changed.
        missing: expected texts not found in the present text.
        stale: the old text was still in the present text.
        reason: one line for the report (empty when correct).
    """

    correct: bool
    false_unchanged: bool = False
    missing: list[str] = field(default_factory=list)
    stale: bool = False
    reason: str = ""


def judge(rnd: Round, texts: Sequence[str], *, look: str | None, errors: Iterable[str] = (),
          diffs: bool = False, page_texts: Sequence[str] | None = None) -> Verdict:
    """Decide one server's answer to ``rnd``.

    Args:
        rnd: the round.
        texts: the text of every call the server made in the round's check, in order.
        look: the text of the round's look (the snapshot call), or ``None`` if it failed.
        errors: first lines of calls that returned an error (any error makes the round wrong).
        diffs: the server answers ``since`` reads (browser-ctx): the no-change rule and false
            "Unchanged" apply to its look.
        page_texts: the texts that describe the page now (default ``texts``): the old text must be absent
            from these; the runner passes the look and the calls after it, console listings left out (an error
            listed from before the fix is history, and a read before the round's action shows the page before it).

    Returns:
        A :class:`Verdict`.
    """
    errors = list(errors)
    if errors or look is None:
        return Verdict(False, reason="error: " + (errors[0] if errors else "no look"))
    if not rnd.changes:
        if not diffs:
            return Verdict(True)
        _, _, change = split_answer(look)
        return Verdict(not change, reason="" if not change else "reported a change: " + _norm(look)[:160])
    false_unchanged = diffs and not split_answer(look)[2] and not _says_changed_unseen(look)
    present = _norm("\n".join(split_answer(t, diffs)[0] + "\n" + _shown(t) for t in texts))
    missing = [e for e in rnd.expect if _norm(e) not in present]
    page = _norm("\n".join(split_answer(t, diffs)[0] for t in (texts if page_texts is None else page_texts)))
    stale = rnd.gone is not None and _norm(rnd.gone) in page
    reasons = []
    if false_unchanged:
        reasons.append("reported no change")
    if missing:
        reasons.append("not shown: " + ", ".join(repr(m) for m in missing))
    if stale:
        reasons.append(f"still shows {rnd.gone!r}")
    return Verdict(not (missing or stale or false_unchanged), false_unchanged, missing, stale, "; ".join(reasons))
