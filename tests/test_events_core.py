"""Unit tests of the pure event modules: redaction, console folding/rendering, network filters/folding, bodies."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browser_ctx import InvalidArgument
from browser_ctx.core.bodies import apply_select, json_shape, looks_binary, parse_select
from browser_ctx.core.console import (
    ConsoleBuffer,
    ConsoleEntry,
    fold_key,
    level_included,
    order_entries,
    render_entry,
    select_entries,
)
from browser_ctx.core.console_payloads import (
    entry_from_console_api,
    entry_from_exception,
    entry_from_hook,
    format_args,
)
from browser_ctx.core.listing import cursor_after
from browser_ctx.core.network import (
    RequestRecord,
    SocketInfo,
    endpoint_key,
    fold_requests,
    parse_status,
    render_group,
    select_requests,
    shorten_url,
)
from browser_ctx.core.redact import (
    Redactor,
    is_secret_header,
    is_secret_name,
    looks_like_secret,
    placeholder,
    redact_body,
    redact_headers,
    redact_url,
)

# -- redaction ---------------------------------------------------------------------------------


def test_secret_header_names():
    for name in ("Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
                 "X-CSRF-Token", "X-Session-Id", "x-client-secret"):
        assert is_secret_header(name), name
    for name in ("Content-Type", "Accept", "User-Agent", "Referer", "Cache-Control"):
        assert not is_secret_header(name), name


def test_secret_field_names():
    for name in ("password", "Passwd", "access_token", "refresh-token", "client_secret", "api_key", "apiKey",
                 "session", "sessionId", "PHPSESSID", "pwd", "sid", "new_password"):
        assert is_secret_name(name), name
    for name in ("user", "page", "email", "id", "name", "sort", "limit"):
        assert not is_secret_name(name), name


def test_redact_headers_and_remember_parts():
    found: list[str] = []
    out = redact_headers({"Authorization": "Bearer SECRET_C", "Cookie": "sid=SECRET_A; theme=dark",
                          "Content-Type": "application/json", "Referer": "http://h/p?token=SECRET_X&a=1"}, found)
    assert out["Authorization"] == placeholder("Bearer SECRET_C") == "[redacted]"
    assert out["Cookie"] == "[redacted]"
    assert out["Content-Type"] == "application/json"
    assert out["Referer"] == "http://h/p?token=[redacted]&a=1"
    assert {"SECRET_C", "SECRET_A", "SECRET_X", "Bearer SECRET_C"} <= set(found)


def test_redact_url_userinfo_and_query():
    found: list[str] = []
    assert redact_url("https://ann:hunter22@example.com/x?q=1", found) == \
        "https://ann:[redacted]@example.com/x?q=1"
    assert redact_url("http://h/api?page=1&access_token=abc%2Fdef", found) == \
        "http://h/api?page=1&access_token=[redacted]"
    assert "hunter22" in found and "abc/def" in found and "abc%2Fdef" in found
    assert redact_url("not a url?token=x") == "not a url?token=x"


def test_redact_json_and_form_bodies():
    found: list[str] = []
    body = json.dumps({"user": "ann", "password": "SECRET_E", "nested": {"client_secret": "s3cr3t!",
                       "items": [{"token": 12345678}]}})
    out = redact_body(body, "application/json", found)
    parsed = json.loads(out)
    assert parsed["user"] == "ann" and parsed["password"] == "[redacted]"
    assert parsed["nested"]["client_secret"] == "[redacted]"
    assert parsed["nested"]["items"][0]["token"] == "[redacted]"
    assert {"SECRET_E", "s3cr3t!", "12345678"} <= set(found)
    assert redact_body("user=ann&password=SECRET_E", "application/x-www-form-urlencoded") == \
        "user=ann&password=[redacted]"
    # Broken JSON still loses its secret fields.
    assert "SECRET_E" not in redact_body('{"password": "SECRET_E", "x": ', "application/json")
    # Nothing secret: the text is kept byte for byte.
    assert redact_body('{"a": 1,  "b": 2}', "application/json") == '{"a": 1,  "b": 2}'


def test_redactor_scrubs_by_value_everywhere():
    r = Redactor(True)
    assert r.header("Authorization", "Bearer SECRET_C_8kQ2xZ7m") == "[redacted]"
    r.url("http://h/api?access_token=SECRET_B_3vR8zQ1w")
    r.body('{"password":"a9Zq/b7Kx+c3Lw"}', "application/json")
    text = "console: SECRET_C_8kQ2xZ7m and SECRET_B_3vR8zQ1w; encoded a9Zq%2Fb7Kx%2Bc3Lw; json \"a9Zq/b7Kx+c3Lw\""
    out = r.scrub(text)
    assert "SECRET_" not in out and "a9Zq/b7Kx+c3Lw" not in out and "a9Zq%2Fb7Kx%2Bc3Lw" not in out
    assert "[redacted]" in out
    r.remember("abc")  # too short to scrub everywhere (and a word: see tests/test_redact.py)
    assert r.scrub("abc") == "abc"


def test_redactor_disabled_is_identity():
    r = Redactor(False)
    assert r.header("Authorization", "Bearer x") == "Bearer x"
    assert r.url("http://h/?token=SECRET") == "http://h/?token=SECRET"
    assert r.body('{"password":"SECRET"}', "application/json") == '{"password":"SECRET"}'
    assert r.scrub("SECRET") == "SECRET"


@given(st.text(st.characters(exclude_categories=("Z", "C")), min_size=12, max_size=30).filter(looks_like_secret))
def test_scrub_never_leaves_a_remembered_secret(secret):
    r = Redactor(True)
    r.remember(secret)
    assert secret not in r.scrub(f"before {secret} middle {secret}, {secret} after")


# -- console -----------------------------------------------------------------------------------

def _console(kind: str, *values, url="http://h/app.js", line=4):
    args = [{"type": "string", "value": v} if isinstance(v, str) else v for v in values]
    return {"type": kind, "args": args, "stackTrace": {"callFrames": [
        {"functionName": "f", "url": url, "lineNumber": line, "columnNumber": 0}]}}


def test_levels_include_more_severe():
    assert level_included("error", "warning") and level_included("warning", "info")
    assert not level_included("debug", "info") and not level_included("info", "error")


def test_fold_key_ignores_numbers_only():
    assert fold_key("warning", "took 17ms frame 3", None) == fold_key("warning", "took 5ms frame 19999", None)
    assert fold_key("warning", "took 17ms", None) != fold_key("warning", "took 17s", None)
    assert fold_key("warning", "x 1", "a.js:1") != fold_key("error", "x 1", "a.js:1")


def test_buffer_folds_exactly_and_evicts_with_counts():
    buf = ConsoleBuffer(max_entries=3)
    for i in range(2_000):
        buf.add(entry_from_console_api(_console("warning", f"Slow frame: took {i % 97}ms")), float(i))
    for i in range(5):
        buf.add(entry_from_console_api(_console("log", f"distinct message {'abcde'[i]}")), 1e6 + i)
    entries = buf.entries()
    assert len(entries) == 3 and buf.total == 2_005
    assert buf.evicted_entries == 3 and buf.evicted_messages == 2_002
    buf2 = ConsoleBuffer(max_entries=2)
    for i in range(20_000):
        buf2.add(entry_from_console_api(_console("warning", f"Slow frame: took {i % 97}ms")), float(i))
    (only,) = buf2.entries()
    assert only.count == 20_000 and only.varies and only.first_seq == 1 and only.last_seq == 20_000
    assert only.first_time == 0.0 and only.last_time == 19_999.0
    assert "×20000" in render_entry(only)


def test_format_args_substitutions_and_previews():
    cyclic = {"type": "object", "className": "Object", "description": "Object", "preview": {
        "type": "object", "description": "Object", "overflow": False, "properties": [
            {"name": "name", "type": "string", "value": "alpha"},
            {"name": "self", "type": "object", "value": "Object"}]}}
    assert format_args([{"type": "string", "value": "cyclic:"}, cyclic]) == 'cyclic: {name: "alpha", self: {…}}'
    assert format_args([{"type": "string", "value": "%s has %d items%c"}, {"type": "string", "value": "cart"},
                        {"type": "number", "value": 3.0}, {"type": "string", "value": "color: red"}]) == \
        "cart has 3 items"
    assert format_args([{"type": "undefined"}, {"type": "object", "subtype": "null", "value": None},
                        {"type": "boolean", "value": True}]) == "undefined null true"


def test_exception_stack_is_cut_with_count():
    frames = "\n".join("    at recurse (http://h/stack.html:8:10)" for _ in range(200))
    params = {"exceptionDetails": {"text": "Uncaught", "exception": {
        "type": "object", "subtype": "error", "description": f"Error: deep failure\n{frames}"}}}
    e = entry_from_exception(params, "http://h/stack.html")
    assert e.level == "error" and e.text == "Uncaught Error: deep failure" and e.stack_total == 200
    out = render_entry(e, frames=5)
    lines = out.splitlines()
    assert lines[1] == "    at recurse (/stack.html:8:10)"
    assert len(lines) == 1 + 5 + 1 and lines[-1] == "    … 195 more frames"


def test_buffer_takes_batches_folded_in_the_page():
    buf = ConsoleBuffer(max_entries=10)
    a = buf.add(ConsoleEntry("warning", "tick 1", 6, source="/a.js:3"), 105.0, count=500, first_time=100.0)
    assert (a.count, a.first_seq, a.last_seq, a.first_time, a.last_time) == (500, 1, 500, 100.0, 105.0)
    one = ConsoleBuffer().add(ConsoleEntry("warning", "tick 1", 6, source="/a.js:3"), 1.0)
    assert a.raw_tokens == 500 * one.raw_tokens
    b = buf.add(ConsoleEntry("warning", "tick 9", 6, source="/a.js:3"), 106.0, count=2, varies=True)
    assert b is a and a.count == 502 and a.last_seq == 502 and a.varies and a.text == "tick 9"
    assert buf.seq == buf.total == 502


def test_buffer_evicts_other_levels_before_errors():
    buf = ConsoleBuffer(max_entries=3)
    err = buf.add(ConsoleEntry("error", "boom", 4), 1.0)
    for i, word in enumerate(["alpha", "beta", "gamma", "delta"]):
        buf.add(ConsoleEntry("info", word, len(word)), 2.0 + i)
    assert err in buf.entries() and [e.text for e in buf.entries()] == ["boom", "gamma", "delta"]
    assert buf.evicted_entries == 2 and buf.evicted_messages == 2


@given(st.lists(st.tuples(st.sampled_from(["error", "info", "warning"]), st.sampled_from("abcdefgh")),
                max_size=60))
@settings(deadline=None)  # the first add loads the token ranks
def test_buffer_evicts_the_least_recently_seen_other_level_first_else_the_least_recently_seen(adds):
    """Against a model: recency moves with each repeat; errors go only when nothing else is left."""
    buf = ConsoleBuffer(max_entries=4)
    model: list[tuple[str, str]] = []  # (level, word), least recently seen first
    for n, (level, word) in enumerate(adds):
        buf.add(ConsoleEntry(level, f"{word} {level}", 7), float(n))
        key = (level, word)
        if key in model:
            model.remove(key)
        model.append(key)
        while len(model) > 4:
            model.remove(next((k for k in model if k[0] != "error"), model[0]))
        assert sorted((e.level, e.text.split()[0]) for e in buf.entries()) == sorted(model)


def test_buffer_folds_within_a_section_only():
    buf = ConsoleBuffer()
    first = buf.add(ConsoleEntry("error", "same error", 10, source="/a.js:1", section=1), 1.0)
    again = buf.add(ConsoleEntry("error", "same error", 10, source="/a.js:1", section=1), 2.0)
    later = buf.add(ConsoleEntry("error", "same error", 10, source="/a.js:1", section=2), 3.0)
    assert again is first and first.count == 2
    assert later is not first and later.count == 1 and later.section == 2 and len(buf) == 2


def test_entry_from_hook_items():
    base = "http://h/page.html"
    e = entry_from_hook({"l": "warning", "t": "slow 12ms", "n": 9, "u": "http://h/app.js", "ln": 40}, base)
    assert (e.level, e.text, e.full_length, e.source, e.kind) == ("warning", "slow 12ms", 9, "/app.js:40", "console")
    big = entry_from_hook({"l": "info", "t": "x" * 4000, "n": 2_048_008, "u": "", "ln": 0}, base)
    assert big.full_length == 2_048_008 and big.source is None
    frames = ["at inner (http://h/page.html:15:30)", "at outer (http://h/page.html:14:20)"]
    trace = entry_from_hook({"l": "info", "t": "traced", "n": 6, "u": "http://h/page.html", "ln": 15,
                             "st": frames, "sc": 40}, base)
    assert trace.stack == ("at inner (/page.html:15:30)", "at outer (/page.html:14:20)") and trace.stack_total == 40
    err = entry_from_hook({"l": "error", "e": 1, "n": 60, "u": "http://h/page.html", "ln": 17,
                           "t": "caught: TypeError: bad\n    at http://h/page.html:17:9\n"
                                "    at run (http://h/x.js:1:2)"}, base)
    assert err.text == "caught: TypeError: bad" and err.stack == ("at /page.html:17:9", "at run (/x.js:1:2)")
    assert entry_from_hook({"l": "nonsense", "t": "x"}, base).level == "info"


def test_render_cuts_long_message_after_scrubbing():
    e = ConsoleEntry(level="info", text="x" * 285 + " SECRET_Z_5nM2rW8q " + "y" * 100, full_length=2_000_000)
    r = Redactor(True)
    r.remember("SECRET_Z_5nM2rW8q")
    out = render_entry(e, message_chars=300, scrub=r.scrub)
    assert "SECRET" not in out and "SECR" not in out.replace("[redacted", "")
    assert "chars in all]" in out and len(out) < 400


def test_select_and_order():
    es = [ConsoleEntry("info", "a", 1, first_seq=1, last_seq=1),
          ConsoleEntry("error", "b", 1, first_seq=2, last_seq=9),
          ConsoleEntry("warning", "c", 1, first_seq=3, last_seq=3),
          ConsoleEntry("debug", "d", 1, first_seq=4, last_seq=4)]
    assert [e.text for e in order_entries(select_entries(es))] == ["b", "a", "c"]
    assert [e.text for e in select_entries(es, level="error")] == ["b"]
    assert [e.text for e in select_entries(es, level="debug", since=3)] == ["b", "d"]
    assert [e.text for e in select_entries(es, pattern=re.compile("^[ac]$"))] == ["a", "c"]


def test_cursor_never_skips_unshown():
    assert cursor_after([5, 2, 9], {5, 2, 9}, 12) == 12
    assert cursor_after([9, 2, 5], {9, 2}, 12) == 4  # 5 unshown: the cursor stays below it
    assert cursor_after([], set(), 7) == 7


# -- network -----------------------------------------------------------------------------------

@pytest.mark.parametrize("expr,yes,no", [
    ("404", [404], [400, 200]), ("4xx", [400, 404, 499], [500, 399]), (">=400", [400, 503], [399, 0]),
    ("500-599", [500, 599], [499, 600]), ("<300", [200, 0], [300]), ("2xx,404", [204, 404], [403]),
    ("!=200", [201], [200]),
])
def test_status_filters(expr, yes, no):
    test = parse_status(expr)
    assert all(test(s) for s in yes) and not any(test(s) for s in no)


@pytest.mark.parametrize("expr", ["", "abc", "6xx", "599-500", "4x", ">=", "1000", ">=400-500"])
def test_status_filter_errors(expr):
    with pytest.raises(InvalidArgument):
        parse_status(expr)


def _rec(i, url, status=200, rtype="fetch", **kw):
    return RequestRecord(index=i, request_id=str(i), url=url, status=status, resource_type=rtype,
                         start=1.0, end=1.01, seq=i, **kw)


def test_fold_repeated_endpoints_keeps_outliers():
    recs = [_rec(i, f"http://h/api/poll?n={i}") for i in range(1, 301)]
    recs.insert(150, _rec(999, "http://h/api/poll?n=150", status=500))
    recs.append(_rec(301, "http://h/api/other"))
    groups = fold_requests(recs)
    assert [len(g) for g in groups] == [300, 1, 1]
    line = render_group(groups[0], base="http://h/page")
    assert line.startswith("#1…#300 ×300 GET /api/poll?n=300 → 200 fetch")
    assert endpoint_key("http://h/u/12/items?b=2&a=1") == endpoint_key("http://h/u/7/items?a=9&b=3")


def test_select_requests_filters():
    recs = [_rec(1, "http://h/doc", rtype="document"), _rec(2, "http://h/a.png", rtype="image"),
            _rec(3, "http://h/missing.png", status=404, rtype="image"), _rec(4, "http://h/api", method="POST"),
            RequestRecord(index=5, request_id="5", url="http://x/cors", resource_type="fetch",
                          failure="net::ERR_FAILED", blocked="CORS MissingAllowOriginHeader", seq=5)]
    kept, hidden = select_requests(recs, include_static=False)
    assert [r.index for r in kept] == [1, 3, 4, 5] and hidden == 1
    assert [r.index for r in select_requests(recs, failed=True)[0]] == [3, 5]
    assert [r.index for r in select_requests(recs, status=parse_status("4xx"))[0]] == [3]
    assert [r.index for r in select_requests(recs, method="post")[0]] == [4]
    assert [r.index for r in select_requests(recs, resource_types=["IMAGE"])[0]] == [2, 3]
    assert [r.index for r in select_requests(recs, url_pattern=re.compile(r"\.png$"), since=2)[0]] == [3]
    assert "✗ net::ERR_FAILED CORS MissingAllowOriginHeader" in render_group([recs[4]])


def test_a_request_answered_then_aborted_is_not_failed():
    """A keepalive PUT answered 204 that Chromium then reports ``net::ERR_ABORTED`` (canceled): the status is
    what happened. An abort with no answer, an error status and a body cut by the network stay failures."""
    keepalive = _rec(1, "http://h/api/workspaces/default", status=204, method="PUT", failure="net::ERR_ABORTED",
                     canceled=True)
    unanswered = _rec(2, "http://h/api/slow", status=None, failure="net::ERR_ABORTED", canceled=True)
    error = _rec(3, "http://h/api/missing", status=404, failure="net::ERR_ABORTED")
    cut = _rec(4, "http://h/big.json", status=200, failure="net::ERR_CONTENT_LENGTH_MISMATCH")
    recs = [keepalive, unanswered, error, cut]
    assert [r.failed for r in recs] == [False, True, True, True]
    assert [r.index for r in select_requests(recs, failed=True)[0]] == [2, 3, 4]
    line = render_group([keepalive])
    assert "PUT http://h/api/workspaces/default → 204 (canceled after the response)" in line and "✗" not in line
    twice = fold_requests([keepalive, _rec(5, keepalive.url, status=204, method="PUT", failure="net::ERR_ABORTED",
                                            canceled=True)])
    assert [len(g) for g in twice] == [2] and "✗" not in render_group(twice[0])

def test_render_redirects_sockets_and_long_urls():
    r = _rec(7, "http://h/r?n=0", chain=[("http://h/r?n=2", 302), ("http://h/r?n=1", 301)])
    assert render_group([r], base="http://h/") .startswith("#7 GET /r?n=2 →302 /r?n=1 →301 /r?n=0 → 200")
    frames = SocketInfo()
    ws = RequestRecord(index=8, request_id="8", url="ws://h/ws", resource_type="websocket", status=101,
                       socket=frames)
    for i in range(400):
        frames.add("↑", f"ping {i}")
        frames.add("↓", f"echo {i}")
    line = render_group([ws])
    assert "WS ws://h/ws" in line and "open, ↑400 ↓400 frames" in line and '↓"echo 399"' in line
    long = "http://h/path?" + "&".join(f"key{i}=value{i}" for i in range(100))
    short = shorten_url(long, max_chars=80)
    assert len(short) <= 80 and "…" in short and short.startswith("http://h/path")
    assert shorten_url("http://h/a/b?x=1", base="http://h/page") == "/a/b?x=1"
    assert shorten_url("http://other/a", base="http://h/page") == "http://other/a"


# -- bodies ------------------------------------------------------------------------------------

def test_json_shape_and_select():
    value = {"items": [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(5000)], "total": 5000,
             "next": None}
    shape = json_shape(value)
    assert '"items": array[5000] of {' in shape and '"id": int' in shape and '"tags": array[2] of str' in shape
    assert '"total": int' in shape and '"next": null' in shape
    assert len(shape) < 300
    assert apply_select(value, "$.items[2].name") == "n2"
    assert apply_select(value, "items[-1].id") == 4999
    assert apply_select(value, "$.items[0:3].id") == [0, 1, 2]
    assert apply_select(value, '$["total"]') == 5000
    assert apply_select(value, "$") is value
    assert parse_select("$.a[*].b") == [("key", "a"), ("all", None), ("key", "b")]


@pytest.mark.parametrize("expr,words", [
    ("$.nope", "keys there: items"), ("$.items[9]", "out of range"), ("$.total.x", "not an object"),
    ("$..x", "Invalid select"), ("$.items[", "Invalid select"),
])
def test_select_errors(expr, words):
    with pytest.raises(InvalidArgument, match=re.escape(words)):
        apply_select({"items": [1, 2], "total": 2}, expr)


def test_binary_detection():
    assert looks_binary("image/png") and looks_binary("application/octet-stream")
    assert not looks_binary("image/svg+xml") and not looks_binary("application/json", "{}")
    assert looks_binary("", "ab\x00cd")


def test_a_pattern_match_past_the_cut_shows_the_window_around_it():
    text = "ValidationError: " + "schema dump, " * 130 + 'Cause: property "email" must match format "email"'
    entry = ConsoleEntry(level="error", text=text, full_length=len(text))
    plain = render_entry(entry, message_chars=300)
    assert "Cause" not in plain and f"[{len(text):,} chars in all]" in plain
    focused = render_entry(entry, message_chars=300, focus=re.compile("Cause"))
    assert focused.startswith("[error] ValidationError: schema dump")
    assert f"of {len(text):,} around the match]" in focused
    assert 'Cause: property "email" must match format "email"' in focused and len(focused) < 400
    early = render_entry(entry, message_chars=300, focus=re.compile("ValidationError"))
    assert early == plain  # a match within the cut changes nothing
