"""The pure half of browser/semantics.py: parsing CDP's AX nodes and joining names onto a walked tree."""

from __future__ import annotations

import json

from browser_ctx.browser import semantics
from browser_ctx.browser.semantics import NodeSemantics
from browser_ctx.core.tree import Walked, from_wire, to_html


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


def _walk(*children: object) -> Walked:
    """A walk of ``<body>`` holding ``children`` (wire nodes: ``[tag, attrs, ...children]`` or strings)."""
    return from_wire(json.dumps(["body", 0, *children]))


def _attrs(walked: Walked) -> list[dict[str, str]]:
    """The attributes of the body's element children, in order."""
    assert walked.root is not None
    return [c.attrs for c in walked.root.children if not c.is_text]


def test_join_puts_names_on_the_marked_nodes_by_index() -> None:
    walked = _walk(["button", {"data-ax": "0", "data-name": "walker", "data-ref": "e1"}],
                   ["a", {"href": "/x", "data-ax": "1", "data-ref": "e2"}, "go"],
                   ["p", 0, 'text with data-ax="0" data-name="kept as text"'],
                   ["input", {"type": "text", "data-ax": "2", "data-name": "mine", "data-ref": "e3"}],
                   ["nav", {"data-ax": "3", "data-name": "fallback"}])
    answers = [NodeSemantics(role="button", name="Delete  item\n"),
               NodeSemantics(role="link", name='Say "hi" <now> & ' + "x" * 300),
               NodeSemantics(role="textbox", name=""),
               None]
    semantics.apply_semantics(walked.semantic, answers, max_name_chars=20)
    button, link, para, field, nav = _attrs(walked)
    assert button == {"data-name": "Delete item", "data-ref": "e1"}
    assert link == {"href": "/x", "data-ref": "e2", "data-name": 'Say "hi" <now> & xx\u2026'}
    assert para == {} and walked.root is not None
    assert 'data-ax="0" data-name="kept as text"' in walked.root.children[2].text_content()  # text never rewritten
    assert field == {"type": "text", "data-ref": "e3"}  # Chromium says: no name
    assert nav == {"data-name": "fallback"}  # no answer: the walker's name stays


def test_join_ignored_node_keeps_walker_name_and_unmarked_nodes_are_untouched() -> None:
    walked = _walk(["div", 0, ["span", {"role": "button", "data-ax": "0", "data-ref": "e1"}, "x"]])
    semantics.apply_semantics(walked.semantic, [NodeSemantics(role="none", name="Z", ignored=True)])
    assert walked.root is not None
    assert to_html(walked.root) == '<body><div><span role="button" data-ref="e1">x</span></div></body>'
    plain = _walk(["p", 0, "plain"])
    semantics.apply_semantics(plain.semantic, [])
    assert plain.root is not None and to_html(plain.root) == "<body><p>plain</p></body>"


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
    walked = _walk(["div", {"role": "combobox", "data-ax": "0", "data-name": "x", "data-ref": "e1"}, "Spain"],
                   ["input", {"data-ax": "1", "data-ref": "e2", "type": "text", "data-value": "Ada"}],
                   ["input", {"data-ax": "2", "data-ref": "e3", "type": "password", "data-filled": "yes"}],
                   ["a", {"href": "/a", "data-ax": "3", "data-ref": "e4"}, "a"])
    answers = [NodeSemantics(role="combobox", name="Country", value="Spain"),
               NodeSemantics(role="textbox", name="Full name", value="Ada", invalid="true"),
               NodeSemantics(role="textbox", name="Password", value="\u2022\u2022\u2022"),
               NodeSemantics(role="link", name="a", value="http://x/a")]
    semantics.apply_semantics(walked.semantic, answers)
    combo, field, password, link = _attrs(walked)
    assert combo == {"role": "combobox", "data-name": "Country", "data-ref": "e1", "data-value": "Spain"}
    assert field == {"data-ref": "e2", "type": "text", "data-value": "Ada", "data-name": "Full name",
                     "aria-invalid": "true"}
    assert password == {"data-ref": "e3", "type": "password", "data-filled": "yes", "data-name": "Password"}
    assert link == {"href": "/a", "data-ref": "e4", "data-name": "a"}


def test_join_keeps_the_page_casing_when_only_css_text_transform_differs() -> None:
    walked = _walk(["button", {"data-ax": "0", "data-name": "Place order", "data-ref": "e1"}],
                   ["button", {"data-ax": "1", "data-name": "Save", "data-ref": "e2"}])
    answers = [NodeSemantics(role="button", name="PLACE ORDER"), NodeSemantics(role="button", name="SAVE DRAFT")]
    semantics.apply_semantics(walked.semantic, answers)
    first, second = _attrs(walked)
    assert first["data-name"] == "Place order"
    assert second["data-name"] == "SAVE DRAFT"
