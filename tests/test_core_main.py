"""Main-content detection on HTML strings (pure core, no browser)."""

from __future__ import annotations

from browser_ctx.core.main_content import main_content
from browser_ctx.core.markdown import render_markdown

LEAD = "The city council voted on Tuesday to approve the new transit plan after months of debate."
BODY = ("Supporters said the plan would cut commute times across the region, while critics warned "
        "about the cost of the project and the disruption during construction. ")

NAV = ('<header><a href="/">Site</a><nav><ul>' + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(15))
       + "</ul></nav></header>")
FOOTER = ('<footer><p>Copyright Example News. All rights reserved worldwide, see our terms of use.</p>'
          + "".join(f'<a href="/f{i}">Footer link {i}</a>' for i in range(10)) + "</footer>")
SIDEBAR = ('<aside><h3>Most read</h3><ul>' + "".join(f'<li><a href="/r{i}">Popular story number {i} headline</a></li>'
                                                    for i in range(10)) + "</ul></aside>")


def text_of(html: str) -> str:
    return render_markdown(main_content(html))


def test_single_main_is_preferred_and_boilerplate_left_out():
    html = f"<body>{NAV}<main><h1>Transit plan</h1><p>{LEAD}</p><p>{BODY * 3}</p></main>{SIDEBAR}{FOOTER}</body>"
    out = main_content(html)
    assert out.startswith("<main>")
    text = text_of(html)
    assert text.startswith("# Transit plan\n\n" + LEAD)
    assert "Section 3" not in text and "Footer link" not in text and "Popular story" not in text


def test_article_is_picked_over_nav_footer_and_sidebar():
    html = (f"<body>{NAV}<div class='wrap'><article><h1>Transit plan</h1><p>{LEAD}</p><p>{BODY * 4}</p></article>"
            f"{SIDEBAR}</div>{FOOTER}</body>")
    out = main_content(html)
    assert out.startswith("<article>")
    text = text_of(html)
    assert LEAD in text
    assert "Section 3" not in text and "Footer link" not in text and "Popular story" not in text


def test_several_similar_articles_give_their_common_parent():
    posts = "".join(f"<article><h2>Post {i}</h2><p>{BODY}</p></article>" for i in range(5))
    html = f"<body>{NAV}<div class='feed'>{posts}</div>{FOOTER}</body>"
    out = main_content(html)
    assert out.startswith('<div class="feed">')
    text = text_of(html)
    for i in range(5):
        assert f"## Post {i}" in text
    assert "Footer link" not in text


def test_density_fallback_without_semantic_tags():
    html = (f"<body><div class='top'>{''.join(f'<a href=/m{i}>Menu item {i}</a> ' for i in range(30))}</div>"
            f"<div class='page'><div class='story'><h1>Transit plan</h1><p>{LEAD}</p>"
            + "".join(f"<p>{BODY}</p>" for _ in range(6))
            + "</div><div class='comments'><p>Great article, thanks for sharing it with all of us here!</p></div></div>"
            f"<div class='bottom'>{''.join(f'<a href=/b{i}>Bottom link {i}</a> ' for i in range(30))}</div></body>")
    text = text_of(html)
    assert text.startswith("# Transit plan\n\n" + LEAD)
    assert "Menu item" not in text and "Bottom link" not in text


def test_lead_paragraph_beside_the_body_container_is_kept():
    # The lead sits in a sibling of the element holding most of the text.
    html = (f"<body>{NAV}<div class='article'><div class='perex'><p>{LEAD}</p></div>"
            f"<div class='share'><a href='/fb'>Facebook</a><a href='/tw'>Twitter</a><a href='/m'>Mail</a></div>"
            f"<div class='article-content'>{''.join(f'<p>{BODY}</p>' for _ in range(8))}</div></div>{FOOTER}</body>")
    text = text_of(html)
    assert LEAD in text
    assert "Section 3" not in text and "Footer link" not in text


def test_first_paragraph_of_the_article_is_never_dropped():
    html = (f"<body>{NAV}<div id='content'><h1>Transit plan</h1><p>{LEAD}</p><div class='body'>"
            + "".join(f"<p>{BODY}</p>" for _ in range(10)) + f"</div></div>{SIDEBAR}{FOOTER}</body>")
    text = text_of(html)
    assert LEAD in text
    assert text.index(LEAD) < text.index(BODY.strip()[:40])


def test_navigation_inside_the_main_content_is_removed():
    html = (f"<body><main><nav aria-label='Breadcrumb'><a href='/'>Home</a> › <a href='/news'>News</a></nav>"
            f"<h1>Transit plan</h1><p>{LEAD}</p><p>{BODY}</p></main></body>")
    text = text_of(html)
    assert "Breadcrumb" not in text and "Home" not in text
    assert LEAD in text


def test_small_main_does_not_win_over_the_real_content():
    html = (f"<body><main><p>Cookie settings</p></main><div class='story'><h1>Transit plan</h1><p>{LEAD}</p>"
            + "".join(f"<p>{BODY}</p>" for _ in range(6)) + "</div></body>")
    text = text_of(html)
    assert LEAD in text


def test_page_without_paragraphs_falls_back_to_body():
    html = "<body><div><span>Just</span> <b>a</b> <i>few words</i></div><ul><li>one</li><li>two</li></ul></body>"
    out = main_content(html)
    assert out.startswith("<body>")
    assert render_markdown(out) == "Just a few words\n\n- one\n- two"


def test_hidden_content_and_scripts_are_not_in_the_result():
    html = (f"<body><main><h1>T</h1><p>{LEAD}</p><p hidden>HIDDEN_TEXT</p><script>var SCRIPT_TEXT=1</script>"
            f"<!-- COMMENT_TEXT --><p style='display:none'>NONE_TEXT</p></main></body>")
    out = main_content(html)
    for bad in ("HIDDEN_TEXT", "SCRIPT_TEXT", "COMMENT_TEXT", "NONE_TEXT"):
        assert bad not in out


def test_empty_and_deterministic():
    assert main_content("") == ""
    html = f"<body>{NAV}<article><p>{LEAD}</p><p>{BODY}</p></article>{FOOTER}</body>"
    assert main_content(html) == main_content(html)


def test_small_page_keeps_all_its_text():
    html = ("<body><h1>NOISE_HEADING</h1><p>SHORT_ONE</p><div>A line of text that is long enough</div>"
            "<p>SHORT_TWO</p></body>")
    text = text_of(html)
    for word in ("NOISE_HEADING", "SHORT_ONE", "A line of text", "SHORT_TWO"):
        assert word in text
