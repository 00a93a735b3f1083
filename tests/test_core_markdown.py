"""Markdown and plain-text rendering of HTML strings (pure core, no browser)."""

from __future__ import annotations

from browser_ctx.core.markdown import render_markdown, render_text


def md(body: str, **kw) -> str:
    return render_markdown(f"<html><body>{body}</body></html>", **kw)


def test_headings_paragraphs_and_emphasis():
    out = md("<h1>Title</h1><p>Some <em>very</em> <strong>important</strong>   text\n here.</p>"
             "<h3>Sub <small>part</small></h3><p>Second.</p>")
    assert out == "# Title\n\nSome very important text here.\n\n### Sub part\n\nSecond."


def test_lists_unordered_ordered_nested():
    out = md("<ul><li>One</li><li>Two<ol><li>Alpha</li><li>Beta<ul><li>deep</li></ul></li></ol></li></ul>"
             "<ol start='3'><li>three</li><li>four</li></ol>")
    assert out == ("- One\n- Two\n  1. Alpha\n  2. Beta\n     - deep\n\n3. three\n4. four")


def test_links_as_text_or_markdown_with_short_urls():
    body = ('<p>See <a href="http://localhost:8000/docs/intro?utm_source=x&amp;v=2">the docs</a> and '
            '<a href="javascript:void(0)">menu</a>.</p>')
    assert md(body) == "See the docs and menu."
    assert md(body, links=True) == "See [the docs](http://localhost:8000/docs/intro?v=2) and menu."
    assert md(body, links=True, url="http://localhost:8000/") == "See [the docs](/docs/intro?v=2) and menu."


def test_tables_as_pipe_tables():
    out = md("<table><caption>Prices</caption><tr><th>Name</th><th>Price</th></tr>"
             "<tr><td>Tea | green</td><td>3</td></tr><tr><td colspan=2>Total</td></tr></table>")
    assert out == ("Prices\n\n| Name | Price |\n| --- | --- |\n| Tea \\| green | 3 |\n| Total | |")


def test_layout_tables_render_their_content():
    out = md("<table><tr><td><h2>Story</h2><p>Body text.</p></td><td><p>Side</p></td></tr></table>")
    assert out == "## Story\n\nBody text.\n\nSide"


def test_pre_and_code():
    out = md('<p>Run <code>pip install x</code> first.</p>'
             '<pre class="language-python">def f():\n    return 1\n\n\n\nprint(f())\n</pre>')
    assert out == "Run `pip install x` first.\n\n```python\ndef f():\n    return 1\n\nprint(f())\n```"


def test_code_with_backticks_uses_other_fences():
    out = md("<pre>use ``` fences</pre><p><code>a`b</code></p>")
    assert out == "~~~\nuse ``` fences\n~~~\n\n``a`b``"


def test_images_alt_in_brackets_or_dropped():
    out = md('<p><img src="a.png" alt="A chart"> and <img src="data:image/png;base64,AAAA"></p>')
    assert out == "[A chart] and"
    assert "base64" not in out


def test_blockquote_hr_and_br():
    out = md("<blockquote><p>Quoted one</p><p>Quoted two</p></blockquote><hr><p>Line one<br>Line two</p>")
    assert out == "> Quoted one\n>\n> Quoted two\n\n---\n\nLine one\nLine two"


def test_frames_are_introduced_by_a_marker_line():
    out = md('<p>Outer</p><div><bc-frame data-frame="f2" data-url="http://localhost:8000/child.html">'
             "<h2>Inner</h2><p>Frame text</p></bc-frame></div>")
    assert out == "Outer\n\n--- frame f2 (http://localhost:8000/child.html) ---\n\n## Inner\n\nFrame text"


def test_hidden_and_noise_dropped_and_forms_reduced_to_text():
    out = md("""<p>Keep</p><p hidden>HIDDEN</p><div style="display:none">NONE</div><script>JS</script>
    <style>p{}</style><!-- COMMENT --><span aria-hidden="true">ARIA</span>
    <form><label>Name <input value="typed value"></label><select><option>OPTION</option></select>
    <textarea>TEXTAREA</textarea><button>Send</button></form>""")
    assert out == "Keep\n\nName Send"


def test_no_runs_of_blank_lines_and_no_trailing_spaces():
    out = md("<div><p>a</p>\n\n\n<div><div></div><p>  </p></div>\n\n<p>b   </p><br><br><br><p>c</p></div>")
    assert out == "a\n\nb\n\nc"
    assert "\n\n\n" not in out
    assert all(line == line.rstrip() for line in out.split("\n"))


def test_empty_input():
    assert render_markdown("") == ""
    assert render_text("<html><body><div hidden>x</div></body></html>") == ""


def test_render_text_one_block_per_line_without_markup():
    out = render_text("<h1>Title</h1><p>Para <a href='/x'>link</a> <code>code</code>.</p>"
                      "<ul><li>One</li><li>Two</li></ul><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>"
                      "<pre>x = 1\n  y = 2</pre><blockquote>Quote</blockquote>")
    assert out == "Title\nPara link code.\nOne\nTwo\nA | B\n1 | 2\nx = 1\n  y = 2\nQuote"


def test_markdown_is_deterministic():
    sections = "".join(f"<h2>S{i}</h2><p>t{i} <a href='/a{i}'>l</a></p><ul><li>x</li></ul>" for i in range(200))
    html = "<main>" + sections + "</main>"
    assert render_markdown(html, links=True) == render_markdown(html, links=True)
