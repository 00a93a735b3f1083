"""What an agent must see and act on in widgets built without ARIA (issue 24, done-when 1; issue 26, item 9).

End to end through the real MCP stdio client and a real Chromium, on the pages under
``fixtures/agent-widgets/``, built from real third-party code vendored in ``fixtures/vendor/`` (jQuery UI,
jquery-treeview, Selectric, Select2, Quill 1, CodeMirror 5 and 6, Monaco). Every ref comes from a
``browser_snapshot`` or an action record, never from a selector guessed from the page's markup; what an
action did is read back from the page's own ``#status`` line (written by the page's handlers or the widget's
own API). No test uses ``browser_evaluate``.

Snapshot lines are matched loosely: a role word, a quoted name, optional hints and state words, a ref
(``button "Send" [e21]``); a control only its class names is written as CSS writes the class, and a run of
such icons, or of controls named by a glyph, shares a line (``clickable .like [e21], .star [e22]``,
``clickable "-" [e3], "+" [e4]``); a ref inside running text is
``[Egestas](e14)``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text, result_tokens

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: maxTokens every call here is checked against (the server default).
DEFAULT_CAP = 2000
#: A ref: ``e12`` (``f1e3`` inside a frame).
_REF = r"((?:f\d+)?e\d+)"
#: State words read from a widget's classes; ``not pressed`` and ``pressed=false`` say the opposite.
_ON = re.compile(r"(?<!not )\b(pressed|active|selected|checked|on)\b(?!\s*[=:]\s*false)")
#: The editors' text: a blank line between the first two lines.
SQL = "select *\n\nfrom customers\nwhere id = 1"


class Driver:
    """Calls tools, checks each result against the cap and its error flag, finds refs and lines in results."""

    def __init__(self, session: Any, site: str) -> None:
        self.session = session
        self.site = site
        self.last = ""

    async def call(self, name: str, ok: bool = True, **args: Any) -> str:
        assert name != "browser_evaluate", "an agent must manage without browser_evaluate"
        result = await self.session.call_tool(name, args)
        text = result_text(result)
        tokens = result_tokens(result)
        assert tokens <= args.get("maxTokens", DEFAULT_CAP), f"{name}: {tokens} tokens"
        assert bool(result.is_error) is (not ok), f"{name} {args}: {text}"
        self.last = text
        return text

    async def open(self, page: str, wait_text: str | None = None) -> str:
        """Navigate to ``fixtures/agent-widgets/<page>``, wait for ``wait_text`` if given; return a snapshot."""
        await self.call("browser_navigate", url=f"{self.site}/agent-widgets/{page}")
        if wait_text:
            await self.call("browser_wait_for", text=wait_text, time=15)
        return await self.snapshot()

    async def snapshot(self) -> str:
        return await self.call("browser_snapshot", force=True)

    async def status(self) -> str:
        return (await self.call("browser_text", target="#status")).strip()


def ref_of(text: str, pattern: str) -> str:
    """The ref on the first line where ``pattern`` (a regex that ends before the ref, state words allowed
    between) is followed by ``[eN]``, or the ``(eN)`` of a ``[words](eN)`` pattern."""
    m = re.search(pattern + r"[^\n\[]*\[" + _REF + r"\]", text) or re.search(pattern + r"\(" + _REF + r"\)", text)
    assert m, f"no ref for {pattern!r} in:\n{text}"
    return m.group(m.lastindex or 1)


def line_of(text: str, name: str) -> str:
    """The first line naming ``name`` in quotes (or as ``[name](eN)``) that has a ref."""
    quoted = re.escape(f'"{name}"')
    for line in text.splitlines():
        if (re.search(quoted, line) and re.search(r"\[" + _REF + r"\]", line)) \
                or re.search(r"\[" + re.escape(name) + r"\]\(" + _REF + r"\)", line):
            return line
    raise AssertionError(f"no line with a ref for {name!r} in:\n{text}")


def state_after_name(line: str, name: str) -> str:
    """The part of ``line`` after the quoted ``name`` (so a name like "On" cannot pass for a state)."""
    return line.split(f'"{name}"', 1)[-1]


async def click_and_read(drv: Driver, ref: str) -> str:
    await drv.call("browser_click", target=ref)
    return await drv.status()


@pytest.fixture
async def drv(site: str):
    async with mcp_session() as session:
        yield Driver(session, site)


# --- icon-only controls -----------------------------------------------------------------------------------

async def test_icons_with_their_own_listeners(drv: Driver) -> None:
    """Background-image icons with a click listener each (no cursor, no text): each is a clickable line named
    by its class, and clicking its ref runs its handler."""
    snap = await drv.open("icons-listeners.html")
    for cls, word in (("like", "Liked"), ("retweet", "Retweeted"), ("star", "Starred"), ("trash", "Deleted")):
        ref = ref_of(snap, rf'(?:clickable |, )\.{cls} ')
        assert await click_and_read(drv, ref) == word, (cls, snap)


async def test_icons_with_a_delegated_listener(drv: Driver) -> None:
    """The same icons, handled by one listener on their container (``event.target.closest``) and shown with
    a pointer cursor: each icon still has its own line and ref."""
    snap = await drv.open("icons-delegated.html")
    refs = {cls: ref_of(snap, rf'(?:clickable |, )\.{cls} ') for cls in ("like", "retweet", "star", "trash")}
    assert len(set(refs.values())) == 4, snap
    assert await click_and_read(drv, refs["star"]) == "Starred"
    assert await click_and_read(drv, refs["trash"]) == "Deleted"


async def test_icons_named_by_title_svg_alt_and_icon_font(drv: Driver) -> None:
    """Names in the issue's order: ``title``, ``<use href="#icon-star">``, ``<img alt>``, an SVG ``<title>``,
    icon-font text; no class hint where a real name exists."""
    snap = await drv.open("icons-named.html")
    for name, word in (("Send", "Sent"), ("star", "Starred"), ("Forward", "Forwarded"), ("Archive", "Archived"),
                       ("delete", "Deleted")):
        ref = ref_of(snap, rf'clickable "{name}" ')
        line = line_of(snap, name)
        assert "(named by" not in line and not re.search(r"\s[.#][\w-]+ \[", line), snap  # no class or id hint
        assert await click_and_read(drv, ref) == word, (name, snap)


async def test_quantity_picker_spans(drv: Driver) -> None:
    """The ``-``/``+`` spans of a quantity picker have refs; two clicks on + and one on - leave 2."""
    snap = await drv.open("quantity.html")
    plus = ref_of(snap, r'(?:clickable |, )"(?:\+|[^"\n]*plus[^"\n]*)"')
    minus = ref_of(snap, r'(?:clickable |, )"(?:-|[^"\n]*minus[^"\n]*)"')
    assert plus != minus, snap
    await drv.call("browser_click", target=plus)
    assert await click_and_read(drv, plus) == "Quantity: 3"
    assert await click_and_read(drv, minus) == "Quantity: 2"


# --- words acting as links --------------------------------------------------------------------------------

async def test_words_in_a_paragraph_keep_their_ref(drv: Driver) -> None:
    """A clickable word deep inside a long paragraph stays in its text line as ``[Egestas](eN)``; a phone
    book's "Email: ..." span has a ref; both refs work."""
    snap = await drv.open("inline-words.html")
    m = re.search(r"\[Egestas\]\(" + _REF + r"\)", snap)
    assert m, snap
    line = next(x for x in snap.splitlines() if "[Egestas](" in x)
    assert "maecenas" in line or "mattis molestie" in line, f"the word is not in its text line: {line}"
    assert await click_and_read(drv, m.group(1)) == "Clicked Egestas"
    email = ref_of(snap, r'(?:clickable "Email: ada@example\.com"|\[Email: ada@example\.com\])')
    assert await click_and_read(drv, email) == "Mail to ada@example.com"


# --- tree, slider, autocomplete, menus, date picker -------------------------------------------------------

async def test_treeview_folders_and_files(drv: Driver) -> None:
    """jquery-treeview: folders and files are told apart, with expanded/collapsed from the plugin's classes;
    clicking a collapsed folder's ref expands it and shows its children; a file's ref opens it."""
    snap = await drv.open("treeview.html")
    pictures, documents, notes = (line_of(snap, n) for n in ("Pictures", "Documents", "notes.txt"))
    assert re.search(r"\bcollapsed\b", pictures) and re.search(r"\bfolder\b", pictures), pictures
    assert re.search(r"\bexpanded\b", documents) and re.search(r"\bfolder\b", documents), documents
    assert re.search(r"\bfile\b", notes) and not re.search(r"\bfolder\b", notes), notes
    assert "cat.png" not in snap, snap  # inside the collapsed folder
    assert await click_and_read(drv, ref_of(snap, r'"Pictures"')) == "Expanded Pictures"
    snap = await drv.snapshot()
    assert re.search(r"\bexpanded\b", line_of(snap, "Pictures")), snap
    assert re.search(r"\bfile\b", line_of(snap, "cat.png")), snap
    assert await click_and_read(drv, ref_of(snap, r'"notes\.txt"')) == "Opened notes.txt"


async def test_jquery_ui_slider_handles(drv: Driver) -> None:
    """jQuery UI slider handles are ``slider`` lines with a ref and their value (42); ArrowRight after a click
    on the ref moves the handle to 43; the range slider shows both of its handles."""
    snap = await drv.open("slider.html")
    sliders = [line for line in snap.splitlines()
               if re.match(r"\s*(?:- )?slider\b", line) and re.search(r"\[e\d+\]", line)]
    assert len(sliders) == 3, snap  # volume, and the range's two handles
    assert re.search(r"\b42\b", sliders[0]), sliders[0]
    ref = ref_of(sliders[0], r"\bslider\b")
    await drv.call("browser_click", target=ref)
    await drv.call("browser_press_key", key="ArrowRight")
    assert await drv.status() == "Volume: 43; price: 75 - 300"
    snap = await drv.snapshot()
    moved = next(line for line in snap.splitlines() if f"[{ref}]" in line)
    assert re.search(r"\b43\b", moved) and not re.search(r"\b42\b", moved), moved


async def test_jquery_ui_autocomplete_suggestion(drv: Driver) -> None:
    """Typing "Mor" shows the suggestion "Morocco" with a ref; clicking it fills the field."""
    snap = await drv.open("autocomplete.html")
    field = ref_of(snap, r'textbox "Country"')
    await drv.call("browser_type", target=field, text="Mor")
    await drv.call("browser_wait_for", text="Morocco", time=10)
    snap = await drv.snapshot()
    assert await click_and_read(drv, ref_of(snap, r'(?:"Morocco"|\[Morocco\])')) == "Chose Morocco"
    assert await drv.call("browser_verify", target=field, value="Morocco") == "PASS"


async def test_menu_without_roles(drv: Driver) -> None:
    """A plain ul/li menu bar whose items have click listeners and no role: the open submenu's "New" has a
    ref that works; opening "Edit" shows "Undo" with a ref."""
    snap = await drv.open("menu-plain.html")
    assert await click_and_read(drv, ref_of(snap, r'"New"')) == "Chose File > New"
    await drv.call("browser_click", target=ref_of(snap, r'"Edit"'))
    snap = await drv.snapshot()
    assert await click_and_read(drv, ref_of(snap, r'"Undo"')) == "Chose Edit > Undo"


async def test_jquery_ui_menu_is_shown_whole(drv: Driver) -> None:
    """A six-item jQuery UI menu fits the cap, so every item is shown with its ref (no fold), once."""
    snap = await drv.open("menu-jqueryui.html")
    assert "more similar" not in snap, snap
    refs = {name: ref_of(snap, f'"{name}"') for name in
            ("Reply", "Reply all", "Forward", "Archive", "Mark as unread", "Export")}
    assert len(set(refs.values())) == 6, snap
    assert await click_and_read(drv, refs["Archive"]) == "Chose Archive"


async def test_jquery_ui_datepicker_prev_next(drv: Driver) -> None:
    """The datepicker's Prev/Next (``<a title>`` without href) have refs named "Prev"/"Next" that page; the
    calendar is redrawn on each page, so the next snapshot's refs are used."""
    snap = await drv.open("datepicker.html")
    assert ref_of(snap, r'"Prev"') != ref_of(snap, r'"Next"')
    assert await click_and_read(drv, ref_of(snap, r'"Next"')) == "Showing April 2026"
    snap = await drv.snapshot()
    assert "April 2026" in snap, snap
    assert await click_and_read(drv, ref_of(snap, r'"Prev"')) == "Showing March 2026"


async def test_a_popup_calendar_record_names_the_read_that_shows_its_days(drv: Driver) -> None:
    """Opening a popup datepicker summarises its table in the record with a read that works
    (``browser_snapshot target='#ui-datepicker-div'``, not a bare "browser_snapshot"); that read gives each
    day a ref, and clicking one chooses it."""
    snap = await drv.open("datepicker-popup.html")
    opened = await drv.call("browser_click", target=ref_of(snap, r'textbox "Date"'))
    m = re.search(r"browser_snapshot target='([^']+)'", opened)
    assert m and m.group(1) == "#ui-datepicker-div", opened
    days = await drv.call("browser_snapshot", target=m.group(1))
    assert await click_and_read(drv, ref_of(days, r"\[24\]")) == "Chose 03/24/2026", days


# --- replacement dropdowns --------------------------------------------------------------------------------

@pytest.mark.parametrize(("page", "trigger"), [("selectric.html", ".selectric .label"),
                                               ("select2.html", "#select2-country-container")])
async def test_replacement_dropdown_is_one_combobox(drv: Driver, page: str, trigger: str) -> None:
    """Selectric / Select2 hide the native select and draw a trigger: one ``combobox "Country"`` line with the
    shown value and the options by name, whose ref takes ``browser_select_option``; the native select, the
    page's change handler and the visible trigger all follow."""
    snap = await drv.open(page)
    combos = [line for line in snap.splitlines() if re.search(r'combobox "Country"', line)]
    assert len(combos) == 1, snap
    assert '"Spain"' in combos[0] and "France" in combos[0] and "Germany" in combos[0], combos[0]
    ref = ref_of(combos[0], r'combobox "Country"')
    await drv.call("browser_select_option", target=ref, values=["France"])
    assert await drv.call("browser_verify", target="select", value="France") == "PASS"
    assert await drv.status() == "Country: France"
    assert (await drv.call("browser_text", target=trigger)).strip() == "France"


# --- Quill, file rows, class toggles ---------------------------------------------------------------------

async def test_quill_toolbar_buttons_are_named(drv: Driver) -> None:
    """Quill 1's toolbar buttons (``<button class="ql-bold">`` with an SVG) are named by their class
    (``.ql-bold``, ``.ql-italic``), and clicking the ref formats the selected word."""
    snap = await drv.open("quill.html")
    bold = ref_of(snap, r'(?:button |, )\.ql-bold ')
    italic = ref_of(snap, r'(?:button |, )\.ql-italic ')
    assert bold != italic
    assert await click_and_read(drv, bold) == "bold: on; italic: off"
    assert await click_and_read(drv, italic) == "bold: on; italic: on"


async def test_quill_colour_swatches_are_named_by_their_value(drv: Driver) -> None:
    """Quill's colour swatches (``span.ql-picker-item`` with only ``data-value`` and a background colour, all one
    class) are each named by their value as CSS selects it, in the record of opening the picker and in the
    snapshot; the record of a click names the swatch the same way, and the word is coloured."""
    snap = await drv.open("quill.html")
    rec = await drv.call("browser_click", target=ref_of(snap, r"button \.ql-picker-label "))
    assert ref_of(rec, r'\+ button \[data-value="#e60000"\] ')
    assert "more similar lines (browser_snapshot shows them)" in rec, rec
    snap = await drv.snapshot()
    values = re.findall(r'button \[data-value="(#[0-9a-f]{6})"\] \[e\d+\]', snap)
    assert len(values) == 34 and len(set(values)) == 34, snap
    green = ref_of(snap, r'button \[data-value="#008a00"\] ')
    rec = await drv.call("browser_click", target=green)
    assert rec.startswith(f'Clicked button [data-value="#008a00"] [{green}].'), rec
    assert await drv.status() == "bold: off; italic: off; color: #008a00"


async def test_swatches_without_any_name_are_named_by_colour(drv: Driver) -> None:
    """Swatches with nothing but a background colour get a ref each, named by the colour they paint."""
    snap = await drv.open("swatches.html")
    names = re.findall(r'clickable "(rgb\([\d, ]+\))" \[e\d+\] \(named by colour\)', snap)
    assert names == ["rgb(204, 0, 0)", "rgb(0, 170, 0)", "rgb(0, 0, 204)", "rgb(255, 204, 0)"], snap
    assert await click_and_read(drv, ref_of(snap, r'"rgb\(0, 170, 0\)"')) == "Picked green"


async def test_file_rows_all_have_refs(drv: Driver) -> None:
    """Every row of a file list has a ref, not only the selected one; the selection (a class) is shown and
    moves when another row is clicked."""
    snap = await drv.open("file-list.html")
    names = ("budget.xlsx", "minutes.docx", "photo.jpg", "plan.pdf", "notes.txt", "readme.md")
    lines = {n: line_of(snap, n) for n in names}
    assert _ON.search(state_after_name(lines["budget.xlsx"], "budget.xlsx")), lines
    assert not _ON.search(state_after_name(lines["plan.pdf"], "plan.pdf")), lines
    assert await click_and_read(drv, ref_of(lines["plan.pdf"], r'"plan\.pdf"')) == "Selected plan.pdf"
    snap = await drv.snapshot()
    assert _ON.search(state_after_name(line_of(snap, "plan.pdf"), "plan.pdf")), snap
    assert not _ON.search(state_after_name(line_of(snap, "budget.xlsx"), "budget.xlsx")), snap


async def test_toggles_state_from_class(drv: Driver) -> None:
    """Toggles whose state is only a class word (``active``, ``on``, ``is-checked``) show a state word, and
    the word follows a click."""
    snap = await drv.open("toggles.html")
    for name, on in (("Grid", True), ("List", False), ("Wi-Fi", True), ("Bluetooth", False), ("Unread", True),
                     ("Flagged", False)):
        assert bool(_ON.search(state_after_name(line_of(snap, name), name))) is on, (name, snap)
    await drv.call("browser_click", target=ref_of(line_of(snap, "List"), r'"List"'))
    await drv.call("browser_click", target=ref_of(line_of(snap, "Wi-Fi"), r'"Wi-Fi"'))
    assert await drv.status() == "Grid on; List on; Wi-Fi off; Bluetooth off; Unread on; Flagged off"
    snap = await drv.snapshot()
    assert _ON.search(state_after_name(line_of(snap, "List"), "List")), snap
    assert not _ON.search(state_after_name(line_of(snap, "Wi-Fi"), "Wi-Fi")), snap


# --- exact values and code editors ------------------------------------------------------------------------

async def test_textarea_value_keeps_its_trailing_space(drv: Driver) -> None:
    """A textarea holding "Lorem ipsum cursus eu " is shown, read and compared with its trailing space."""
    snap = await drv.open("textarea-space.html")
    assert re.search(r'"Source"[^\n]*"Lorem ipsum cursus eu "', snap), snap
    got = await drv.call("browser_text", target="#source")
    assert got.rstrip("\n") in ("Lorem ipsum cursus eu ", '"Lorem ipsum cursus eu "'), repr(got)
    assert await drv.call("browser_verify", target="#source", value="Lorem ipsum cursus eu ") == "PASS"
    fail = await drv.call("browser_verify", target="#source", value="Lorem ipsum cursus eu", timeout=300)
    assert fail.startswith("FAIL") and '"Lorem ipsum cursus eu "' in fail, fail
    await drv.call("browser_type", target=ref_of(snap, r'"Copy"'), text="Lorem ipsum cursus eu ")
    assert await drv.status() == "Copy matches"


EDITORS = [
    pytest.param("editor-codemirror5.html", id="codemirror5"),
    pytest.param("editor-codemirror6.html", id="codemirror6"),
    pytest.param("editor-monaco.html", id="monaco"),
    pytest.param("editor-contenteditable.html", id="contenteditable"),
]


@pytest.mark.parametrize("page", EDITORS)
async def test_code_editor_ref_text_and_typing(drv: Driver, page: str) -> None:
    """Issue 26 item 9: the visible editor has a ref; its text keeps the blank line (the snapshot value and
    browser_text on the ref); browser_type on the ref replaces the text, and the record and the editor's own
    API (the page's status line) show the new text."""
    snap = await drv.open(page, wait_text="from customers")
    editor = [line for line in snap.splitlines() if "select *" in line and re.search(r"\[" + _REF + r"\]", line)]
    assert len(editor) == 1, snap
    assert r'"select *\n\nfrom customers\nwhere id = 1"' in editor[0], editor[0]
    ref = ref_of(editor[0], r"")
    text = await drv.call("browser_text", target=ref)
    assert "select *\n\nfrom customers" in text or r"select *\n\nfrom customers" in text, repr(text)
    rec = await drv.call("browser_type", target=ref, text="select name from users")
    assert "select name from users" in rec, rec
    assert await drv.status() == '"select name from users"'


# --- MiniWoB++ gaps: sprite icons, wrappers, spinner buttons, SVG pie items, list boxes --------------------

async def test_sprite_icons_in_text_and_menu_items(drv: Driver) -> None:
    """click-menu-2: jQuery UI sprite icons (text-less spans painting a background image) show as
    ``img .ui-icon-…`` in the query's text and on their menu items; each item shows once (the listened-to
    ``li`` around the ``role=menuitem`` div adds no line); the item matching the query's icon is clicked."""
    snap = await drv.open("menu-icons.html")
    query = next(line for line in snap.splitlines() if "Click on the item" in line)
    icon = re.search(r"img (\.ui-icon-[\w-]+)", query)
    assert icon and icon.group(1) == ".ui-icon-zoomin", query
    item = next(line for line in snap.splitlines() if f"img {icon.group(1)}" in line and "[e" in line)
    assert re.search(r'menuitem "Zoom In" \[e\d+\]', item), snap
    for name in ("Save", "Playback", "Print...", "Zoom In", "Zoom Out"):
        assert len([x for x in snap.splitlines() if f'"{name}"' in x]) == 1, (name, snap)
    assert "clickable" not in snap, snap
    assert re.search(r'menuitem "Print\.\.\." \[e\d+\] disabled', snap), snap  # the li's state is kept
    assert await click_and_read(drv, ref_of(item, r"menuitem")) == "Chose Zoom In"


async def test_jquery_ui_spinner_buttons(drv: Driver) -> None:
    """use-spinner: the spinner's arrows (``<a role=button aria-hidden=true>``, no text) each have a ref and
    a class name; the wrapper adds no line; two clicks on the down arrow leave -2."""
    snap = await drv.open("spinner.html")
    assert not re.search(r"^\s*button\s*$", snap, re.M), snap  # no bare button line
    assert "clickable" not in snap, snap
    assert re.search(r'spinbutton "Select a value:" \[e\d+\] = "0"', snap), snap
    up = ref_of(snap, r"(?:button |, )\.ui-spinner-up ")
    down = ref_of(snap, r"(?:button |, )\.ui-spinner-down ")
    assert up != down, snap
    await drv.call("browser_click", target=down)
    assert await click_and_read(drv, down) == "Value: -2"
    assert await click_and_read(drv, up) == "Value: -1"


async def test_svg_pie_menu_items(drv: Driver) -> None:
    """click-pie: SVG ``<text>`` items with cursor:pointer classes and click listeners get refs named by their
    text; folded to a dot they are not shown; "+" spreads them and "B"'s ref chooses B."""
    snap = await drv.open("pie.html")
    assert not re.search(r'(?:clickable |, )"[ABCD]"', snap), snap  # drawn too small to see
    await drv.call("browser_click", target=ref_of(snap, r'(?:clickable |, )"\+"'))
    snap = await drv.snapshot()
    refs = {name: ref_of(snap, f'(?:clickable |, )"{name}"') for name in "ABCD"}
    assert len(set(refs.values())) == 4, snap
    assert await click_and_read(drv, refs["B"]) == "Chose B"


async def test_list_box_and_dropdown_options(drv: Driver) -> None:
    """click-scroll-list: a ``<select multiple>`` list box shows its options by name (it fits), and so does
    a dropdown; the chosen option shows as the value; ``browser_select_option`` on the ref picks one."""
    snap = await drv.open("listbox.html")
    line = next(x for x in snap.splitlines() if "#options" in x)
    assert re.search(r"\(8 options: Marshall Islands, Norway, .*Portugal, Qatar\)", line), snap
    size = next(x for x in snap.splitlines() if '"Size"' in x)
    assert re.search(r'= "Medium" \(3 options: Small, Medium, Large\)', size), size
    await drv.call("browser_select_option", target=ref_of(line, r"select"), values=["Portugal"])
    assert await drv.status() == "Chose Portugal; size Medium"
    snap = await drv.snapshot()
    assert re.search(r'#options \[e\d+\] = "Portugal" \(8 options', snap), snap


# --- a jQuery UI sortable (MiniWoB++ drag-items) ----------------------------------------------------------

async def test_sortable_items_get_refs_and_a_drag_puts_the_item_where_the_target_was(drv: Driver) -> None:
    """The plain ``li`` items of a jQuery UI ``.sortable()`` (its listener is on the ``ul``; no cursor, tabindex or
    ARIA) each get a ref, and are not taken for slider handles (``ui-sortable-handle``). ``browser_drag`` (in the
    default tool set) onto another item puts the dragged item at that item's place, down the list and up."""
    tools = {t.name for t in (await drv.session.list_tools()).tools}
    assert "browser_drag" in tools
    snap = await drv.open("sortable.html")
    refs = {n: ref_of(snap, rf'clickable "{n}" ') for n in ("Ada", "Bea", "Cyd", "Dot", "Eve")}
    assert "slider" not in snap, snap
    rec = await drv.call("browser_drag", startTarget=refs["Ada"], endTarget=refs["Cyd"])
    assert rec.startswith(f'Dragged clickable "Ada" [{refs["Ada"]}] onto clickable "Cyd" [{refs["Cyd"]}].'), rec
    assert await drv.status() == "Order: Bea, Cyd, Ada, Dot, Eve"
    await drv.call("browser_drag", startTarget=refs["Eve"], endTarget=refs["Cyd"])
    assert await drv.status() == "Order: Bea, Eve, Cyd, Ada, Dot"
