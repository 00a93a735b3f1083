"""Condensed snapshot and page outline on HTML strings (pure core, no browser)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from browser_ctx.core.main_content import main_content
from browser_ctx.core.markdown import render_markdown, render_text
from browser_ctx.core.outline import Outline, outline, render_card
from browser_ctx.core.snapshot import SnapshotOptions, render_snapshot
from browser_ctx.core.tokens import count_tokens

PAGE = "http://localhost:8000/shop/index.html"


def snap(body: str, **kw) -> str:
    return render_snapshot(f"<html><body>{body}</body></html>", url=kw.pop("url", PAGE), **kw)


def lines(text: str) -> list[str]:
    return text.split("\n")


# --------------------------------------------------------------------------- noise and hidden


def test_noise_and_hidden_content_never_appear():
    html = """
    <html><head><title>T</title><style>.x{color:red}</style><script>var SECRET_JS=1</script>
    <meta name="description" content="META_TEXT"></head><body>
    <p>Visible paragraph</p>
    <script>document.write('SCRIPT_TEXT')</script><noscript>NOSCRIPT_TEXT</noscript>
    <template><p>TEMPLATE_TEXT</p></template>
    <!-- COMMENT_TEXT -->
    <div hidden>HIDDEN_ATTR</div>
    <div aria-hidden="true">ARIA_HIDDEN</div>
    <div style="display: none">DISPLAY_NONE</div>
    <div style="color:red; visibility:hidden">VIS_HIDDEN</div>
    <div style="opacity:0">OPACITY_ZERO</div>
    <span class="sr-only">SR_ONLY</span>
    <input type="hidden" name="csrf" value="CSRF_TOKEN">
    <svg><path d="M0 0L10 10"/><text>SVG_TEXT</text></svg>
    <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" alt="Logo">
    <a href="data:text/html;base64,PHNjcmlwdD4=">Data link</a>
    <object data="x.swf">OBJECT_TEXT</object>
    <details><summary>More</summary><p>CLOSED_DETAILS</p></details>
    </body></html>"""
    out = render_snapshot(html, url=PAGE)
    assert "Visible paragraph" in out
    assert 'img "Logo"' in out
    for bad in ("SECRET_JS", "META_TEXT", "SCRIPT_TEXT", "NOSCRIPT_TEXT", "TEMPLATE_TEXT", "COMMENT_TEXT",
                "HIDDEN_ATTR", "ARIA_HIDDEN", "DISPLAY_NONE", "VIS_HIDDEN", "OPACITY_ZERO", "SR_ONLY",
                "CSRF_TOKEN", "SVG_TEXT", "M0 0", "base64", "iVBOR", "PHNjcmlwdD4", "OBJECT_TEXT", "CLOSED_DETAILS",
                "color:red"):
        assert bad not in out, bad
    assert 'link "Data link" → data:…' in out
    assert 'summary "More" collapsed' in out


def test_named_svg_becomes_an_image():
    out = snap('<svg aria-label="Company logo"><path d="M1 1"/></svg><svg role="img"><title>Chart</title><rect/></svg>')
    assert 'img "Company logo", "Chart"' in out  # adjacent images share a line
    assert "M1 1" not in out


def test_open_details_content_is_shown():
    out = snap("<details open><summary data-ref='e1'>Specs</summary><p>Weight 3 kg</p></details>")
    assert 'summary "Specs" [e1] expanded' in out
    assert "Weight 3 kg" in out


# --------------------------------------------------------------------------- forms and controls


def test_password_value_is_never_shown():
    out = snap("""<form data-name="Login">
        <input type="password" data-ref="e1" data-name="Password" data-filled="yes">
        <input type="password" name="pw2" value="hunter2-raw-secret" data-ref="e2">
        <input type="password" data-ref="e3" data-name="Empty one" data-filled="no">
        </form>""")
    assert "hunter2" not in out
    assert 'password "Password" [e1] (filled)' in out
    assert "[e2] (filled)" in out
    assert 'password "Empty one" [e3] (empty)' in out


def test_form_controls_show_role_name_ref_state_and_value():
    out = snap("""<form data-name="Signup">
      <label>Email <input type="email" data-ref="e5" data-name="Email" data-value="a@b.c"></label>
      <label><input type="checkbox" data-ref="e7" data-name="Remember me" checked> Remember me</label>
      <input type="radio" data-ref="e8" data-name="Plan A" disabled>
      <select data-ref="e9" data-name="Country"><option>France</option><option selected>Spain</option></select>
      <textarea data-ref="e10" data-name="Bio" data-value="Hello there"></textarea>
      <button data-ref="e11" aria-expanded="false">Sign up</button>
    </form>""")
    assert 'form "Signup":' in out
    assert '  textbox "Email" [e5] = "a@b.c"' in out
    assert '  checkbox "Remember me" [e7] checked' in out
    assert '  radio "Plan A" [e8] disabled' in out
    assert '  select "Country" [e9] = "Spain" (2 options: France, Spain)' in out
    assert '  textbox "Bio" [e10] = "Hello there"' in out
    assert '  button "Sign up" [e11] collapsed' in out
    # The label text is not repeated as a separate text line.
    assert not {"Email", "text: Email", "Remember me", "text: Remember me"} & {x.strip() for x in lines(out)}, out


def test_raw_html_labels_name_their_fields():
    out = snap("""<form><label for="q">Search terms</label><input id="q" name="q" value="cats">
      <input type="submit" value="Go"><input aria-label="Zip code" name="zip"></form>""")
    assert 'textbox "Search terms" = "cats"' in out
    assert 'button "Go"' in out
    assert 'textbox "Zip code"' in out
    assert not {"Search terms", "text: Search terms"} & {x.strip() for x in lines(out)}, out


def test_contenteditable_is_a_textbox_with_its_value():
    out = snap('<div data-ref="e11" data-value="Draft text">Draft text</div>'
               '<div contenteditable aria-label="Notes">raw edit</div><span data-ref="e3">Odd</span>')
    assert 'textbox [e11] = "Draft text"' in out
    assert 'textbox "Notes" = "raw edit"' in out
    assert 'clickable "Odd" [e3]' in out


def test_fieldset_and_dialog_are_containers():
    out = snap("""<fieldset><legend>Shipping</legend><input data-ref="e1" data-name="Street"></fieldset>
      <dialog open data-name="Confirm"><p>Are you sure?</p><button data-ref="e2">OK</button></dialog>""")
    assert 'group "Shipping":\n  textbox "Street" [e1]' in out
    assert 'dialog "Confirm":\n  Are you sure?\n  button "OK" [e2]' in out


# --------------------------------------------------------------------------- links


def test_links_are_shortened_relative_and_tracking_free():
    out = snap("""<nav data-name="Main">
      <a href="http://localhost:8000/docs?utm_source=nl&page=2" data-ref="e1">Docs</a>
      <a href="https://other.example/x?fbclid=abc" data-ref="e2">Other</a>
      <a href="http://localhost:8000/shop/index.html#reviews" data-ref="e3">Reviews</a>
      <a href="javascript:void(0)" data-ref="e4">Menu</a></nav>""")
    assert 'link "Docs" [e1] → /docs?page=2' in out
    assert 'link "Other" [e2] → https://other.example/x' in out
    assert 'link "Reviews" [e3] → #reviews' in out
    assert 'link "Menu" [e4] → javascript:' in out
    assert "utm_source" not in out and "fbclid" not in out


def test_urls_quoted_in_text_lose_their_trackers():
    out = snap('<p>Visit https://shop.example/p?utm_source=mail&amp;id=3 today</p>'
               '<a href="https://y.example/?fbclid=1" data-ref="e1">https://y.example/?fbclid=1</a>')
    assert "Visit https://shop.example/p?id=3 today" in lines(out)
    assert 'link "https://y.example/" [e1] → https://y.example/' in out
    assert "utm_source" not in out and "fbclid" not in out


def test_5kb_tracking_url_is_shortened_in_the_snapshot():
    href = "https://ads.example.com/landing/product-page.html?" + "&".join(
        f"utm_x{i}=" + "v" * 45 for i in range(100)) + "&gclid=" + "G" * 500
    assert len(href) > 5000
    out = snap(f'<a href="{href}" data-ref="e1">Deal</a>')
    line = next(x for x in lines(out) if "Deal" in x)
    assert line.startswith('link "Deal" [e1] → https://ads.example.com/')
    assert line.endswith("product-page.html")
    assert len(line) < 120
    assert "gclid" not in out and "vvvvvvvvvv" not in out


def test_links_inside_text_keep_their_refs():
    out = snap('<p>Read the <a href="/docs" data-ref="e4">manual</a> before '
               '<a href="/x" data-ref="e5">installing</a>.</p>')
    assert lines(out)[-1] == "Read the [manual](e4) before [installing](e5)."


def test_long_text_is_cut_at_a_boundary_with_the_rest_counted_and_refs_kept():
    sentence = "This sentence is about something quite ordinary. "
    body = sentence * 20 + '<a href="/late" data-ref="e9">late link</a> ' + sentence * 5
    out = snap(f"<p>{body}</p>")
    text_line = next(x for x in lines(out) if x.startswith("This sentence"))
    assert "[late link](e9)" in text_line
    m = re.search(r"\(\+([\d,]+) chars\)$", text_line)
    assert m, text_line
    assert int(m.group(1).replace(",", "")) > 1000
    assert "ordinary.… " in text_line  # cut after a sentence end
    assert len(text_line) < 250


def test_image_only_link_is_named_by_alt_and_img_never_shows_src():
    out = snap('<a href="/home" data-ref="e1"><img src="/logo.png" alt="Acme home"></a>'
               '<img src="/big.jpg" alt="A cat">')
    assert 'link "Acme home" [e1] → /home' in out
    assert 'img "A cat"' in out
    assert ".png" not in out and ".jpg" not in out


# --------------------------------------------------------------------------- structure


def test_landmarks_and_headings_nest_only_meaningful_structure():
    out = render_snapshot("""<body><header><a href="/" data-ref="e1">Home</a>
      <nav data-name="Main"><div><div><a href="/docs" data-ref="e2">Docs</a></div></div></nav></header>
      <main><div class="wrap"><div><h1>Welcome</h1><p>First   paragraph
      text.</p></div></div></main><footer><p>© 2024</p></footer></body>""", title="Shop", url="http://localhost:8000/")
    assert out == "\n".join([
        "Page: Shop — http://localhost:8000/",
        "banner:",
        '  link "Home" [e1] → /',
        '  navigation "Main":',
        '    link "Docs" [e2] → /docs',
        "main:",
        '  heading 1 "Welcome"',
        "  First paragraph text.",
        "contentinfo:",
        "  © 2024",
    ])


def test_heading_levels_and_heading_links():
    out = snap('<h2>Install<span><a href="/edit" data-ref="e3">edit</a></span></h2>'
               '<h3><a href="/post/1" data-ref="e4">First post</a></h3>'
               '<div role="heading" aria-level="4">Aria heading</div>')
    assert 'heading 2 "Install" [edit](e3)' in out
    assert 'heading 3 "First post" link [e4] → /post/1' in out
    assert 'heading 4 "Aria heading"' in out


def test_consecutive_inline_content_merges_into_one_line():
    out = snap("<div>Price: <b>12</b> <i>EUR</i><span> per</span> month</div>")
    assert lines(out)[-1] == "Price: 12 EUR per month"


def test_nested_lists():
    out = snap("<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Veg</li></ul>")
    assert out.split("\n")[1:] == [
        "list 2 items:",
        "  - Fruit",
        "    list 2 items:",
        "      - Apple",
        "      - Pear",
        "  - Veg",
    ]


def test_folding_keeps_exact_count_and_top_sentinel():
    items = ['<li class="card"><span>TOP_SENTINEL</span> <a href="/item/0" data-ref="e1">Open</a></li>']
    items += [f'<li class="card"><span>Card {i}</span> <a href="/item/{i}" data-ref="e{i + 1}">Open</a></li>'
              for i in range(1, 2999)]
    items.append('<li class="card"><span>BOTTOM_SENTINEL</span> <a href="/item/2999" data-ref="e3000">Open</a></li>')
    out = snap('<ul class="cards">' + "".join(items) + "</ul>")
    assert "list 3,000 items:" in out
    assert "- TOP_SENTINEL [Open](e1)" in out
    assert "- Card 1 [Open](e2)" in out
    assert "- Card 2 [Open](e3)" in out
    assert "… 2,997 more similar items" in out
    assert "Card 3 " not in out and "BOTTOM_SENTINEL" not in out
    assert count_tokens(out) < 150


def test_dissimilar_siblings_are_not_folded():
    items = "".join(f'<li class="{"a" if i % 2 else "b"}">Item {i}</li>' for i in range(10))
    out = snap(f"<ul>{items}</ul>")
    assert "more similar" not in out
    assert "Item 9" in out


def test_fold_thresholds_are_options():
    items = "".join(f"<li>Item {i}</li>" for i in range(10))
    out = snap(f"<ul>{items}</ul>", options=SnapshotOptions(fold_min=4, fold_show=2))
    assert "Item 1" in out and "Item 2" not in out
    assert "… 8 more similar items" in out
    out = snap(f"<ul>{items}</ul>", options=SnapshotOptions(fold_min=0))
    assert "Item 9" in out


def test_siblings_with_per_item_class_variants_fold():
    names = ["news", "sport", "weather", "travel", "culture", "future", "music", "food"]
    items = "".join(f'<li class="orb-nav-{n}"><a href="/{n}" data-ref="e{i}">{n.title()}</a></li>'
                    for i, n in enumerate(names))
    out = snap(f"<nav><ul>{items}</ul></nav>")
    assert 'link "Weather" [e2] → /weather' in out
    assert "Travel" not in out
    assert "… 5 more similar items" in out
    # a fold never hides fewer than 5 items: a run of 7 is shown whole
    out = snap(f"<nav><ul>{items.rsplit('<li', 1)[0]}</ul></nav>")
    assert "Music" in out and "more similar" not in out, out


def test_link_urls_option():
    html = '<a href="/docs" data-ref="e1">Docs</a><a href="/icon" data-ref="e2"><img src="x.png"></a>'
    out = snap(html, options=SnapshotOptions(link_urls=False))
    assert 'link "Docs" [e1]\n' in out + "\n" and "/docs" not in out
    assert "link [e2] → /icon" in out


def test_form_fields_are_never_folded():
    fields = "".join(f'<div class="field"><input data-ref="e{i}" data-name="Field {i}"></div>' for i in range(12))
    out = snap(f"<form>{fields}</form>")
    for i in range(12):
        assert f'textbox "Field {i}" [e{i}]' in out


def test_inline_link_runs_fold_on_one_line():
    links = ", ".join(f'<a href="/u/{i}" data-ref="e{i}">user{i}</a>' for i in range(500))
    out = snap(f"<p>Liked by {links}</p>")
    assert "[user0](e0), [user1](e1), [user2](e2)" in out
    assert "497 more similar items" in out
    assert "user3" not in out


def test_table_is_cropped_with_header_and_counts():
    rows = "".join(f"<tr><td>Name{i}</td><td>{i}</td><td>City{i}</td><td>x</td><td>y</td></tr>" for i in range(120))
    out = snap(f'<table data-name="Prices"><thead><tr><th>Name</th><th>Age</th><th>City</th><th>A</th><th>B</th></tr>'
               f"</thead><tbody>{rows}</tbody></table>")
    assert 'table "Prices" 5 cols × 120 rows: Name | Age | City | A | B' in out
    assert "  row: Name0 | 0 | City0 | x | y" in out
    assert "  row: Name2 | 2 | City2 | x | y" in out
    assert "Name3" not in out
    assert "  … 117 more rows" in out


def test_table_columns_and_cells_are_cropped():
    cells = "".join(f"<td>{'long cell text ' * 10}{i}</td>" for i in range(12))
    out = snap(f"<table><tr>{''.join(f'<th>H{i}</th>' for i in range(12))}</tr><tr>{cells}</tr></table>",
               options=SnapshotOptions(table_cols=4, cell_chars=20))
    header = next(x for x in lines(out) if x.startswith("table"))
    assert header.endswith("H0 | H1 | H2 | H3 | …")
    row = next(x for x in lines(out) if "row:" in x)
    assert row.count("|") == 4 and all(len(c.strip()) <= 20 for c in row[7:].split("|"))


def test_layout_tables_render_as_content():
    out = snap('<table><tr><td><table><tr><td>Nested</td></tr></table></td>'
               '<td><a href="/a" data-ref="e1">Story</a></td></tr></table>')
    assert "table" not in out.split("\n", 1)[1]
    assert "Nested" in out and 'link "Story" [e1]' in out


def test_frames_nest_their_content():
    out = snap('<div><bc-frame data-frame="f1" data-url="http://localhost:8000/frame-child.html?utm_source=z">'
               '<h1>Child</h1><button data-ref="f1e1">Inside</button></bc-frame></div>')
    assert 'frame f1 (http://localhost:8000/frame-child.html):\n  heading 1 "Child"\n  button "Inside" [f1e1]' in out


def test_every_interactive_ref_outside_folds_is_kept():
    parts = []
    for i in range(40):
        kind = i % 4
        if kind == 0:
            parts.append(f'<p>Text {i} with <a href="/l{i}" data-ref="e{i}">link {i}</a></p>')
        elif kind == 1:
            parts.append(f'<div><button data-ref="e{i}">Button {i}</button></div>')
        elif kind == 2:
            parts.append(f'<section><input data-ref="e{i}" data-name="Input {i}"></section>')
        else:
            parts.append(f'<span><a href="/s{i}" data-ref="e{i}">Span link {i}</a></span>')
    out = snap("".join(parts))
    for i in range(40):
        assert re.search(rf"\be{i}\b", out), i


def test_prose_runs_fold_after_a_few_paragraphs():
    paras = "".join(f"<p>Paragraph number {i} has some words in it.</p>" for i in range(20))
    out = snap(paras)
    assert "Paragraph number 2 " in out and "Paragraph number 3 " not in out
    assert "… 17 more paragraphs (" in out
    out = snap(paras, options=SnapshotOptions(prose_show=0))
    assert "Paragraph number 19" in out


def test_snapshot_is_deterministic_and_empty_page_is_marked():
    items = "".join(f'<li><a href="/{i}" data-ref="e{i}">x{i}</a></li>' for i in range(50))
    html = "<main><h1>A</h1>" + items + "</main>"
    assert snap(html) == snap(html)
    assert render_snapshot("<html><body><div hidden>x</div></body></html>", title="Blank", url=PAGE) == \
        f"Page: Blank — {PAGE}\n(empty page)"
    assert render_snapshot("") == "(empty page)"


def test_snapshot_is_much_smaller_than_the_html():
    items = "".join(f'<div class="row"><div class="c"><span class="t">Product {i}</span>'
                    f'<a class="btn" href="/p/{i}?utm_source=list" data-ref="e{i}">Buy</a></div></div>'
                    for i in range(400))
    html = f"<main><h1>Catalogue</h1>{items}</main>"
    out = snap(html)
    assert count_tokens(out) * 20 < count_tokens(html)


# --------------------------------------------------------------------------- outline and card


def test_outline_counts_headings_landmarks_and_controls():
    html = """<header><nav><a href="/a">A</a><a href="/b">B</a></nav></header>
    <main><h1>Title</h1><h2>Section one</h2><section aria-label="Extra"><h2>Two</h2></section>
    <form role="search"><input type="search" name="q"><button>Go</button></form>
    <form><input type="checkbox"><input type="radio"><select><option>x</option></select>
    <textarea></textarea><input type="password"><div role="slider" aria-valuenow="3"></div></form>
    <h3 hidden>Hidden heading</h3></main><aside>side</aside><footer>f</footer>"""
    o = outline(html)
    assert o.headings == ((1, "Title"), (2, "Section one"), (2, "Two"))
    assert o.total_headings == 3
    assert o.landmarks == {"banner": 1, "navigation": 1, "main": 1, "complementary": 1, "contentinfo": 1,
                           "search": 1, "form": 1, "region": 1}
    assert o.interactive == {"links": 2, "buttons": 1, "textboxes": 3, "checkboxes": 1, "radios": 1,
                             "selects": 1, "other": 1}


def test_outline_keeps_first_twelve_headings_cut_to_80_chars():
    html = "".join(f"<h2>Heading {i} {'word ' * 30}</h2>" for i in range(30))
    o = outline(html)
    assert len(o.headings) == 12 and o.total_headings == 30
    assert all(len(t) <= 80 for _, t in o.headings)
    assert o.headings[0][1].startswith("Heading 0 ") and o.headings[0][1].endswith("…")


def test_render_card_is_compact_even_for_huge_pages():
    sections = "".join(f"<h2>Section {i}</h2><p>{'text ' * 50}<a href='/x{i}'>link</a></p>" for i in range(3000))
    html = "<main>" + sections + "</main>"
    card = render_card(url="https://example.com/big?utm_source=x", status=200, title="Big page",
                       outline=outline(html), console_errors=2, failed_requests=1, notes=("Redirected from /old",))
    assert card.startswith("Page: Big page — https://example.com/big (HTTP 200)")
    assert "Headings (12 of 3,000):" in card
    assert "  h2 Section 0" in card and "Section 12" not in card
    assert "Landmarks: main 1" in card
    assert "Interactive: 3,000 links" in card
    assert "Load: 2 console errors, 1 failed request" in card
    assert "Note: Redirected from /old" in card
    assert count_tokens(card) < 300


def test_render_card_with_nothing():
    card = render_card(url="file:///tmp/x.html", status=None, title="", outline=Outline())
    assert card.split("\n") == [
        "Page: (none) — file:///tmp/x.html (HTTP status unknown)",
        "Headings: none",
        "Landmarks: none",
        "Interactive: none",
        "Load: no console errors, no failed requests",
    ]


# --------------------------------------------------------------------------- robustness

_TAGS = ["div", "span", "p", "a href='/x' data-ref='e1'", "ul", "li", "table", "tr", "td", "th", "h2", "form",
         "input data-ref='e2'", "button", "nav", "main", "pre", "code", "bc-frame data-frame='f1'", "select",
         "option", "img alt='pic'", "br", "details", "summary", "label", "script", "style", "svg", "dialog open"]
_piece = st.one_of(
    st.sampled_from([f"<{t}>" for t in _TAGS]),
    st.sampled_from([f"</{t.split()[0]}>" for t in _TAGS]),
    st.text(alphabet="abc XYZ&;\n\t\"'=/é漢", max_size=12),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_piece, max_size=60))
def test_renderers_never_fail_on_tag_soup_and_are_deterministic(pieces):
    html = "".join(pieces) + "<script>LEAK_SCRIPT</script><style>LEAK_STYLE</style>"
    for render in (lambda h: render_snapshot(h, url=PAGE), render_markdown, render_text,
                   lambda h: render_markdown(main_content(h))):
        first = render(html)
        assert isinstance(first, str)
        assert render(html) == first
        assert "LEAK_SCRIPT" not in first and "LEAK_STYLE" not in first
    outline(html)


def test_a_part_of_a_page_has_no_page_line_of_its_own():
    part = '<form><button data-ref="e3">Send</button><a href="/help">Help</a></form>'
    whole = render_snapshot(part, url="http://localhost:8000/shop")
    assert whole.startswith("Page: (untitled) — http://localhost:8000/shop\n"), whole
    alone = render_snapshot(part, url="http://localhost:8000/shop", page_line=False)
    assert "Page:" not in alone and 'button "Send" [e3]' in alone, alone
    assert alone == "\n".join(whole.splitlines()[1:])  # the same lines, links still relative to the page


def test_lists_of_up_to_20_choices_are_shown_whole():
    def listbox(n: int) -> str:
        items = "".join(f'<div role="option" data-ref="e{i}">Country {i}</div>' for i in range(1, n + 1))
        return f'<div role="listbox" data-name="Country">{items}</div>'

    six = render_snapshot(listbox(6))
    assert all(f'"Country {i}" [e{i}]' in six for i in range(1, 7)) and "more similar" not in six, six
    twenty = render_snapshot(listbox(20))
    assert '"Country 20" [e20]' in twenty and "more similar" not in twenty, twenty
    many = render_snapshot(listbox(21))
    assert "… 18 more similar items" in many, many  # a longer list still folds, and says how many
    plain = "".join(f'<li><a href="/n{i}">News {i}</a></li>' for i in range(1, 9))
    assert "more similar items" in render_snapshot(f"<ul>{plain}</ul>")  # other runs fold as before


def test_card_numbers_and_one_time_codes_are_shown_only_as_filled():
    page = ('<form><input aria-label="Card" autocomplete="cc-number" value="4111 1111 1111 1111">'
            '<input aria-label="CVC" autocomplete="cc-csc" value="123">'
            '<input aria-label="Reference" value="4242-4242-4242-4242">'
            '<input aria-label="Code" autocomplete="one-time-code" value="918273">'
            '<input aria-label="Order" value="1234567890123">'  # 13 digits, not Luhn-valid: an ordinary value
            '<input aria-label="Empty card" autocomplete="cc-number"></form>')
    out = render_snapshot(page)
    for secret in ("4111", '= "123"', "4242", "918273"):
        assert secret not in out, out
    assert out.count("(filled)") == 4 and '"Empty card" (empty)' in out, out
    assert '= "1234567890123"' in out, out
