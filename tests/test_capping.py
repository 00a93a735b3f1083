"""Unit tests of token counting and capping (no browser)."""

from __future__ import annotations

import json

import pytest

from browser_ctx.core import tokens
from browser_ctx.core.capping import _prefix_ends, _token_ends, cap
from browser_ctx.core.tokens import count_tokens, encoding


def total_tokens(c) -> int:
    return count_tokens(c.text) + count_tokens(json.dumps(c.meta, ensure_ascii=False, separators=(",", ":")))


def test_counts_match_published_o200k_examples():
    enc = encoding()
    assert enc.name == "o200k_base"
    # Round trip and a known count: "hello world" is two tokens in o200k_base.
    assert enc.decode(enc.encode("héllo wörld ✓")) == "héllo wörld ✓"
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1  # special tokens are counted as plain text


def test_small_result_is_not_truncated():
    c = cap("line one\nline two\n", max_tokens=100, max_chars=1000)
    assert not c.truncated
    assert c.text == "line one\nline two\n"
    assert c.meta == {"truncated": False, "fullLength": 18, "fullTokens": count_tokens("line one\nline two\n")}


@pytest.mark.parametrize("max_tokens", [200, 500, 2000])
def test_cut_within_budget_at_line_boundary(max_tokens):
    text = "".join(f"- item number {i} with some words\n" for i in range(2000))
    c = cap(text, max_tokens=max_tokens, max_chars=40000)
    assert c.truncated
    assert total_tokens(c) <= max_tokens
    page = text[: c.next_offset]
    assert page.endswith("\n")  # cut at a line boundary
    assert c.text.startswith(page)
    assert "call again with offset=" in c.text.splitlines()[-1]
    assert c.meta["fullLength"] == len(text)
    assert c.meta["nextOffset"] == c.next_offset
    assert c.meta["fullTokens"] == count_tokens(text)


def test_reading_on_covers_everything_exactly_once():
    text = "".join(f"Paragraph {i}: " + "lorem ipsum dolor sit amet " * 7 + "\n" for i in range(400))
    offset, pieces = 0, []
    for _ in range(200):
        c = cap(text, max_tokens=300, max_chars=40000, offset=offset)
        assert total_tokens(c) <= 300
        pieces.append(text[offset: c.next_offset if c.truncated else len(text)])
        if not c.truncated:
            break
        assert c.next_offset is not None and c.next_offset > offset
        offset = c.next_offset
    assert "".join(pieces) == text


def test_falls_back_to_whitespace_then_character():
    words = "word " * 5000  # no newlines: cut after whitespace
    c = cap(words, max_tokens=200, max_chars=40000)
    assert words[: c.next_offset].endswith(" ")
    blob = "x" * 50000  # no whitespace: cut between characters, still within budget
    c = cap(blob, max_tokens=200, max_chars=40000)
    assert c.truncated and total_tokens(c) <= 200 and c.next_offset is not None and c.next_offset > 0


def test_never_splits_a_character_and_respects_char_ceiling():
    text = "😀 ünïcödé " * 20000
    c = cap(text, max_tokens=8000, max_chars=3000)
    assert len(c.text) <= 3000
    assert c.text.encode("utf-8").decode("utf-8") == c.text
    assert text.startswith(text[: c.next_offset])


def test_extra_meta_counts_against_budget():
    text = "a line of text\n" * 3000
    extra = {"url": "http://127.0.0.1/" + "p" * 400}
    c = cap(text, max_tokens=400, max_chars=40000, extra_meta=extra)
    assert c.meta["url"] == extra["url"]
    assert total_tokens(c) <= 400


def test_offset_past_end_returns_empty_complete_page():
    c = cap("short", max_tokens=100, max_chars=100, offset=999)
    assert c.text == "" and not c.truncated and c.offset == 5


def test_cut_inside_multibyte_tokens_reads_on():
    # CJK text: o200k tokens can end in the middle of a character's UTF-8 bytes.
    sentence = "这是一个很长的中文句子，用来测试按字符截断的行为，不会在字符中间截断。"
    text = "".join(f"第{i}段。{sentence}" for i in range(150))
    offset, seen = 0, []
    for _ in range(400):
        c = cap(text, max_tokens=300, max_chars=40000, offset=offset)
        assert total_tokens(c) <= 300
        seen.append(text[offset: c.next_offset if c.truncated else len(text)])
        if not c.truncated:
            break
        assert c.next_offset is not None
        offset = c.next_offset
    assert "".join(seen) == text


def _reference_ends(window: str) -> list[int]:
    """Token ends by brute force: encode the whole window, map each token's byte end to whole characters."""
    enc = encoding()
    byte_ends, b = [], 0
    for piece in enc.decode_tokens_bytes(enc.encode(window, disallowed_special=())):
        b += len(piece)
        byte_ends.append(b)
    char_ends, c = [], 0
    for ch in window:
        c += len(ch.encode("utf-8", "surrogatepass"))
        char_ends.append(c)
    return [sum(1 for e in char_ends if e <= x) for x in byte_ends]


@pytest.mark.parametrize("text", ["plain ascii\nlines", "héllo — wörld ✓\n中文字符 😀😀 emoji",
                                  "a\ud800b lone surrogate", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🇫🇷 tokens end inside characters"])
def test_token_ends_count_whole_characters(text):
    assert _token_ends(text) == _reference_ends(text)


def test_a_cut_encodes_a_prefix_whose_tokens_are_the_whole_windows():
    """The prefix a cut encodes ends where a new pre-tokeniser piece starts whatever follows: not before a slash
    after a break (``word,\\n/x`` is one piece) nor before white space running on to another break (``a\\n \\nb``)."""
    window = "\n".join(["word,", "/x", "a", "  ", "  c", "q", "中文字符" * 9, "\u00a0", "\u00a0c", "zz"] * 150)
    whole = _token_ends(window)
    for wanted in range(1, 400, 3):
        prefix, ends = _prefix_ends(window, wanted)
        assert window.startswith(prefix) and len(ends) > wanted
        assert ends == whole[:len(ends)], wanted


def test_long_texts_counted_again_come_from_a_bounded_cache():
    texts = [f"line {i} " * 200 for i in range(tokens.COUNT_CACHE_SIZE + 5)]
    first = [count_tokens(t) for t in texts]
    assert [count_tokens(t) for t in texts] == first == [len(encoding().encode(t)) for t in texts]
    assert len(tokens._counts) <= tokens.COUNT_CACHE_SIZE
