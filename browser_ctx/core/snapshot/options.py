"""The knobs of :func:`~browser_ctx.core.snapshot.render_snapshot` and the constants its stages share.

All lengths are characters (Python ``str`` code points), not tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SnapshotOptions", "DEFAULTS", "UNFOLDED", "FOLD_LEAST", "DIALOG_TEXT_CHARS", "WHOLE_WORD_CHARS",
           "LONG_WORD_CHARS"]


@dataclass(frozen=True)
class SnapshotOptions:
    """Knobs of :func:`render_snapshot`. All lengths are characters, not tokens.

    Attributes:
        max_text_chars: text characters kept per ``text:`` line (and per ``code:`` line)
            before the rest is cut with ``… (+N chars)``. Default 120.
        name_chars: characters kept of an accessible name or heading text (``…`` marks a
            cut). Default 80.
        value_chars: characters kept of a form field's current value. Default 60.
        table_rows: body rows shown per table of more than ``table_rows_whole`` rows (the rest is counted,
            on a fold line naming the target that shows them all). Default 3.
        table_rows_whole: a table of at most this many body rows is shown whole. Default 20.
        grid_rows_whole: the same for an ARIA grid (``role=grid|treegrid``), whose rows an agent acts on and
            which renders one page or one viewport of its rows (a DataGrid page of 25). Default 50.
        table_cols: columns shown per table row (more become ``| …``). Default 8.
        cell_chars: characters kept per table cell. Default 40.
        fold_min: a run of at least this many similar siblings is folded. Default 6.
        fold_show: items shown at the start of a folded run. Default 3.
        choice_fold_min: a run of choices an agent picks from (ARIA roles option, menuitem, tab, radio,
            treeitem, gridcell) folds only from this many items (default 21): a list of 20 or fewer
            is shown whole, so no option it offers is hidden.
        url_limit: maximum length of a shown URL (see ``shorten_url``). Default 60.
        inline_link_urls: also show URLs of links inside running text
            (``[text](e4 → /url)``). Default ``False`` (they show only their ref).
        prose_show: in a run of consecutive plain ``text:`` lines (no links or controls) at
            the same level, lines after the first ``prose_show`` are replaced by one
            ``… N more paragraphs (M chars)`` line; ``0`` keeps them all. Lines holding refs
            are never folded. Default 3.
        link_urls: end link lines with ``→ url``. ``False`` shows URLs only for links
            without a name (about a quarter fewer tokens on typical pages). Default ``True``.
    """

    max_text_chars: int = 120
    name_chars: int = 80
    value_chars: int = 60
    table_rows: int = 3
    table_rows_whole: int = 20
    grid_rows_whole: int = 50
    table_cols: int = 8
    cell_chars: int = 40
    fold_min: int = 6
    choice_fold_min: int = 21
    fold_show: int = 3
    url_limit: int = 60
    inline_link_urls: bool = False
    prose_show: int = 3
    link_urls: bool = True


#: The fewest items (similar siblings, table rows, paragraphs) a fold hides: a shorter run is shown whole.
FOLD_LEAST = 5

#: The default options.
DEFAULTS = SnapshotOptions()

#: A single word (no space) of at most this many characters that would be cut at the end of a text line is kept
#: whole instead (a SHA-512 hash, a key, a long slug): a cut value is useless to an agent.
WHOLE_WORD_CHARS = 256
#: ... when it has at least this many characters (shorter words are cut at a word boundary as prose is).
LONG_WORD_CHARS = 40

#: Characters kept per text line in an open dialog and in a targeted snapshot (else ``max_text_chars``).
DIALOG_TEXT_CHARS = 2000

#: Options of a targeted snapshot: nothing inside the elements asked for is folded (runs of similar items,
#: table rows, paragraphs), so the target a fold line names shows what it folded in one call (the cap and
#: ``offset`` still apply).
UNFOLDED = SnapshotOptions(fold_min=0, table_rows_whole=1 << 30, grid_rows_whole=1 << 30, prose_show=0,
                           max_text_chars=DIALOG_TEXT_CHARS)
