"""The pure half of browser/semantics.py: parsing CDP's AX nodes and joining names into visible HTML."""

from __future__ import annotations

from browser_ctx.browser import semantics
from browser_ctx.browser.semantics import NodeSemantics


def test_parse_node_reads_properties_and_counts() -> None:
    node = {"nodeId": "7", "ignored": False, "backendDOMNodeId": 42,
            "role": {"type": "role", "value": "checkbox"}, "name": {"type": "computedString", "value": "Mixed"},
            "properties": [{"name": "checked", "value": {"type": "tristate", "value": "mixed"}},
                           {"name": "invalid", "value": {"type": "token", "value": "false"}},
                           {"name": "required", "value": {"type": "boolean", "value": True}},
                           {"name": "expanded", "value": {"type": "booleanOrUndefined", "value": False}},
                           {"name": "level", "value": {"type": "integer", "value": 2}}]}
    sem = semantics.parse_node(node, {"aria-rowindex": "12", "aria-rowcount": "many"})
    assert (sem.role, sem.name, sem.backend_node_id, sem.level) == ("checkbox", "Mixed", 42, 2)
    assert sem.invalid is None and sem.required and sem.checked == "mixed"
    assert (sem.row_index, sem.row_count) == (12, None)
    assert sem.states == ("required", "checked=mixed", "collapsed")
    assert semantics.parse_node({"role": {"value": "generic"}, "ignored": True}).ignored


def test_join_replaces_marked_names_only_inside_tags() -> None:
    html = ('<body><button data-ax="0" data-name="walker" data-ref="e1"></button>'
            '<a href="/x" data-ax="1" data-ref="e2">go</a>'
            '<p>text with data-ax="0" data-name="kept as text"</p>'
            '<input type="text" data-ax="2" data-name="mine" data-ref="e3">'
            '<nav data-ax="3" data-name="fallback"></nav></body>')
    answers = [NodeSemantics(role="button", name="Delete  item\n"),
               NodeSemantics(role="link", name='Say "hi" <now> & ' + "x" * 300),
               NodeSemantics(role="textbox", name=""),
               None]
    out = semantics.join_semantics(html, answers, max_name_chars=20)
    assert '<button data-name="Delete item" data-ref="e1">' in out
    assert '<a href="/x" data-name="Say &quot;hi&quot; &lt;now&gt; &amp; xx\u2026" data-ref="e2">' in out
    assert 'text with data-ax="0" data-name="kept as text"' in out  # text is never rewritten
    assert '<input type="text" data-ref="e3">' in out  # Chromium says: no name
    assert '<nav data-name="fallback">' in out  # no answer: the walker's name stays
    assert "data-ax" not in out.replace('data-ax="0" data-name="kept', "")


def test_join_ignored_node_keeps_walker_name_and_plain_html_is_untouched() -> None:
    html = '<div><span role="button" data-ax="0" data-ref="e1">x</span></div>'
    assert semantics.join_semantics(html, [NodeSemantics(role="none", name="Z", ignored=True)]) == \
        '<div><span role="button" data-ref="e1">x</span></div>'
    assert semantics.join_semantics("<p>plain</p>", []) == "<p>plain</p>"


def test_empty_name_falls_back_to_placeholder_or_title_source() -> None:
    name = {"type": "computedString", "value": "",
            "sources": [{"type": "relatedElement", "nativeSource": "labelfor", "value": {"value": ""}},
                        {"type": "attribute", "attribute": "title"},
                        {"type": "placeholder", "attribute": "placeholder",
                         "attributeValue": {"type": "string", "value": "SEARCH"}, "superseded": True}]}
    node = {"role": {"value": "textbox"}, "name": name}
    assert semantics.parse_node(node).name == "SEARCH"
    assert semantics.parse_node({"role": {"value": "textbox"}, "name": {"value": ""}}).name == ""


def test_join_adds_invalid_and_custom_control_values_only_where_the_walker_had_none() -> None:
    html = ('<div role="combobox" data-ax="0" data-name="x" data-ref="e1">Spain</div>'
            '<input data-ax="1" data-ref="e2" type="text" data-value="Ada">'
            '<input data-ax="2" data-ref="e3" type="password" data-filled="yes">'
            '<a href="/a" data-ax="3" data-ref="e4">a</a>')
    answers = [NodeSemantics(role="combobox", name="Country", value="Spain"),
               NodeSemantics(role="textbox", name="Full name", value="Ada", invalid="true"),
               NodeSemantics(role="textbox", name="Password", value="\u2022\u2022\u2022"),
               NodeSemantics(role="link", name="a", value="http://x/a")]
    out = semantics.join_semantics(html, answers)
    assert '<div role="combobox" data-name="Country" data-value="Spain" data-ref="e1">' in out
    assert '<input data-name="Full name" aria-invalid="true" data-ref="e2" type="text" data-value="Ada">' in out
    assert '<input data-name="Password" data-ref="e3" type="password" data-filled="yes">' in out
    assert '<a href="/a" data-name="a" data-ref="e4">' in out


def test_join_keeps_the_page_casing_when_only_css_text_transform_differs() -> None:
    html = ('<button data-ax="0" data-name="Place order" data-ref="e1"></button>'
            '<button data-ax="1" data-name="Save" data-ref="e2"></button>')
    answers = [NodeSemantics(role="button", name="PLACE ORDER"), NodeSemantics(role="button", name="SAVE DRAFT")]
    out = semantics.join_semantics(html, answers)
    assert '<button data-name="Place order" data-ref="e1">' in out
    assert '<button data-name="SAVE DRAFT" data-ref="e2">' in out
