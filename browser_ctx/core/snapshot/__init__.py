"""The condensed page summary returned by ``browser_snapshot``.

:func:`render_snapshot` turns a walked tree (or raw HTML) into a compact outline, one
element per line, indented two spaces per level of *meaningful* structure only
(landmarks, forms, fieldsets, dialogs, lists, tables, articles, frames, ARIA widget
containers; plain ``div``/``span``/``section`` wrappers add no level). Real output for
a page with a header, a login form, a 120-row table, a 3,000-item list and a frame::

    Page: Shop — http://localhost:8000/
    banner:
      link "Home" [e1] → /
      navigation "Main":
        list 2 items:
          - link "Docs" [e2] → /docs
          - link "Blog" [e3] → /blog
    main:
      heading 1 "Welcome"
      First paragraph, whitespace-collapsed, with a [guide](e4) inline. It goes on until it is cut… (+67 chars)
      clickable .reply [e9], .like [e13]
      form "Login":
        textbox "Email" [e5] = "a@b.c"
        password "Password" [e6] (filled)
        checkbox "Remember me" [e7] checked
        button "Sign in" [e8]
      table "Prices" 3 cols × 120 rows: Name | Age | City
        row: Person 0 | 20 | Oslo
        row: Person 1 | 21 | Oslo
        row: Person 2 | 22 | Oslo
        … 117 more rows
      list 3,000 items:
        - Card 1 [Open](e10)
        - Card 2 [Open](e11)
        - Card 3 [Open](e12)
        … 2,997 more similar items
    frame f1 (http://localhost:8000/frame-child.html):
      heading 1 "Child"
      button "Inside" [f1e1]

Line kinds:

- ``role "name" [ref] states = "value" → url``: an interactive element (see
  :func:`browser_ctx.core.dom.is_interactive`). The ref appears when the element has
  ``data-ref``; states are words like ``checked``, ``disabled``, ``expanded`` (``collapsed folder (by
  class)``: read from its classes); a password shows only ``(filled)``/``(empty)``, never its value; links end
  with ``→`` and their URL shortened by :func:`browser_ctx.core.urls.shorten_url` against the page URL. An
  element only its class token or id names is named as CSS writes it (``clickable .like [e4]``,
  ``textbox #answer-input [e7]``; :func:`browser_ctx.core.roles.name_token`), and a run of such elements of one
  role with nothing between them shares one line (``clickable .reply [e2], .retweet [e3]``).
- ``…`` (a bare line): the inline content of one block (paragraph, list item, cell…), merged into
  one line; labelled ``text: …`` when it starts as another kind of line could (a lower-case word, ``- ``,
  ``… ``, ``(``, ``Page:``; :func:`.lines.needs_label`). Links inside running text appear as ``[text](ref)``;
  text beyond ``max_text_chars`` is replaced by ``…`` while links after it keep their refs, and the line
  ends with ``(+N chars)``. Other controls inside text get their own line.
- ``heading N "text"``; ``img "alt"``; ``code: …`` for ``pre``.
- ``- …``: a list item (its first line; further content nested below it).
- ``kind "name":`` a container (``banner``, ``navigation``, ``main``, ``complementary``,
  ``contentinfo``, ``search``, ``region``, ``form``, ``group`` (fieldset), ``dialog``,
  ``article``, ``list N items``, ``tablist``, ``menu``, ``alert`` …) with its content nested.
- ``table "name" C cols × R rows: header | cells``, the first ``table_rows`` rows as
  ``row: a | b``, then ``… N more rows``.
- ``… N more similar items``: the rest of a run of similar siblings (same tag, role and
  child-tag structure; class lists equal or sharing a token or a stem such as
  ``nav-news``/``nav-sport``), folded after the first ``fold_show`` when the run has at least
  ``fold_min`` items. N is exact. Items containing form fields never fold. A run of inline
  siblings (links separated by commas, say) folds inside its text line.
- ``… N more paragraphs (M chars)``: plain text lines past the first ``prose_show`` of a run.
- ``frame ID "name" (url):`` a child frame (``bc-frame``) with its content nested (the
  name and URL parts appear when known; an unread frame has no colon and no content).
- ``video "name"`` / ``audio "name"``; a raw-HTML ``iframe`` (not spliced) as
  ``frame "name" (src)``.

Never shown: scripts, styles, templates, comments, hidden content, SVG data, ``data:``
payloads, image ``src``, tracking query parameters, password values.

The stages, one module each: :mod:`.render` walks the tree, :mod:`.inline` gathers inline text into lines,
:mod:`.tables` lays out tables and grids, :mod:`.folding` folds runs and names the call that shows them, and
:mod:`.lines` holds the structured :class:`~.lines.Line` every stage reads (kind, label, body, refs, character
counts) and renders to text only at the end; :mod:`.fit` chooses which folds a budget needs and :mod:`.page`
puts it together. Knobs are in :mod:`.options`.
"""

from __future__ import annotations

from .lines import Line
from .options import UNFOLDED, SnapshotOptions
from .page import coverage, render_lines, render_snapshot

__all__ = ["SnapshotOptions", "UNFOLDED", "Line", "coverage", "render_lines", "render_snapshot"]
