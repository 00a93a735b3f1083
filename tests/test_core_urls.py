"""URL clean-up: tracking removal and display shortening (pure functions)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from browser_ctx.core.urls import clip_middle, shorten_url, strip_tracking


def test_strip_tracking_drops_known_trackers_and_keeps_the_rest_in_order():
    url = ("https://shop.example/p?id=7&utm_source=news&utm_medium=mail&fbclid=AbC&q=a%20b"
           "&gclid=1&dclid=2&msclkid=3&mc_cid=4&mc_eid=5&_ga=6&_gl=7&igshid=8&ref_src=9&spm=10&yclid=11#frag")
    assert strip_tracking(url) == "https://shop.example/p?id=7&q=a%20b#frag"


def test_strip_tracking_is_case_insensitive_and_removes_empty_query():
    assert strip_tracking("https://a.example/x?UTM_Campaign=z&FBCLID=y") == "https://a.example/x"
    assert strip_tracking("https://a.example/x?utm_source=z#top") == "https://a.example/x#top"


def test_strip_tracking_leaves_urls_without_trackers_unchanged():
    for url in ("https://a.example/", "https://a.example/x?page=2&sort=asc", "/relative?q=1", "mailto:a@b.c"):
        assert strip_tracking(url) == url


def test_shorten_same_origin_is_relative():
    base = "http://localhost:8000/docs/index.html"
    assert shorten_url("http://localhost:8000/blog/post?id=3", base=base) == "/blog/post?id=3"
    assert shorten_url("http://localhost:8000/", base=base) == "/"
    assert shorten_url("http://localhost:8000", base=base) == "/"


def test_shorten_fragment_on_same_page_is_only_the_fragment():
    base = "http://localhost:8000/docs/index.html?x=1"
    assert shorten_url("http://localhost:8000/docs/index.html?x=1#install", base=base) == "#install"


def test_shorten_other_origin_stays_absolute_without_trackers():
    base = "http://localhost:8000/"
    assert shorten_url("http://127.0.0.1:8000/a?utm_source=x&b=2", base=base) == "http://127.0.0.1:8000/a?b=2"
    assert shorten_url("https://other.example/path", base=base) == "https://other.example/path"


def test_shorten_collapses_data_and_javascript_urls():
    payload = "data:image/png;base64," + "A" * 5000
    assert shorten_url(payload) == "data:…"
    assert shorten_url("javascript:void(0)") == "javascript:"
    assert shorten_url("  JavaScript:alert(1)") == "javascript:"


def test_shorten_5kb_tracking_url_keeps_host_and_path_end_within_limit():
    url = ("https://news.example.com/world/2024/05/some-long-article-title-here.html?utm_source=x&"
           + "&".join(f"utm_term{i}=" + "z" * 40 for i in range(100)) + "&fbclid=" + "Q" * 1000)
    assert len(url) > 5000
    short = shorten_url(url, limit=80)
    assert len(short) <= 80
    assert short.startswith("https://news.example.com/")
    assert short.endswith("some-long-article-title-here.html")
    assert "utm" not in short and "fbclid" not in short


def test_shorten_long_non_tracking_query_is_cut_with_ellipsis():
    url = "https://api.example.com/search?q=" + "x" * 500
    short = shorten_url(url, limit=60)
    assert len(short) <= 60
    assert short.startswith("https://api.example.com/search?")
    assert "…" in short


def test_shorten_long_path_cut_in_the_middle():
    url = "https://example.com/" + "segment/" * 30 + "final-page.html"
    short = shorten_url(url, limit=70)
    assert len(short) <= 70
    assert short.startswith("https://example.com/segment/")
    assert short.endswith("/final-page.html")
    assert "…" in short


@settings(max_examples=300, deadline=None)
@given(
    path=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/-_.%", max_size=400),
    query=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789=&_-", max_size=400),
    host=st.text(alphabet="abcdefghijklmnopqrstuvwxyz.", min_size=1, max_size=120),
    limit=st.integers(min_value=12, max_value=200),
    same=st.booleans(),
)
def test_shorten_never_exceeds_limit(path, query, host, limit, same):
    url = f"https://{host}/{path}" + (f"?{query}" if query else "")
    base = f"https://{host}/" if same else "https://elsewhere.example/"
    short = shorten_url(url, base=base, limit=limit)
    assert len(short) <= limit
    assert short  # never empty


def test_shorten_is_deterministic():
    url = "https://example.com/" + "a/" * 100 + "?utm_source=1&x=" + "y" * 300
    assert shorten_url(url) == shorten_url(url)


def test_clip_middle_keeps_both_ends_and_says_what_it_left_out():
    url = "http://127.0.0.1:8000/events/page.html?q=" + "x" * 60_000 + "&end=1:12"
    out = clip_middle(url, 200)
    assert len(out) <= 200 and out.startswith("http://127.0.0.1:8000/events/page.html?q=x")
    assert out.endswith("&end=1:12")
    left_out = int(out.split("…[", 1)[1].split(" chars", 1)[0].replace(",", ""))
    assert len(out) - len(f"…[{left_out:,} chars]…") + left_out == len(url)
    assert clip_middle("short", 200) == "short"
