"""Property-based fuzzing of every tool over the real stdio client (Hypothesis).

Every tool that ``tools/list`` reports (the server runs with ``--caps all``) is called with random and
hostile arguments: wrong types, huge strings, negative and enormous numbers, unicode, malformed
selectors and regexes, unknown refs, ``javascript:``/``file:``/``data:`` URLs, path traversal in file
names. Each call must return a valid result (within its token cap) or a one-line ``isError``; the server
must stay up, and at the end the page the fuzzing started on must still be there, intact.

Calls that could legitimately change what page is shown (closing the browser, going back, opening,
closing or selecting tabs, navigating to a real page) are always given at least one invalid argument,
so they must be refused before doing anything; everything else may be valid or not.

The number of calls is bounded (``FUZZ_CALLS``, default 150; seed ``FUZZ_SEED``); the test prints the calls made,
errors by kind, and the server's memory before and after.
"""

from __future__ import annotations

import collections
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.from_thread
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.site import serve_directory
from tests.test_faults import rss_mb, server_pids

pytestmark = pytest.mark.e2e

FUZZ_CALLS = int(os.environ.get("FUZZ_CALLS", "150"))
#: Hypothesis seed: the same calls on every run unless FUZZ_SEED is set.
FUZZ_SEED = int(os.environ.get("FUZZ_SEED", "20261129"))
#: Longest a fuzzed call may take (the server's own --timeout-call is 15 s).
CALL_LIMIT_S = 90
SENTINEL = "FUZZ-SENTINEL-4417"

PAGE = f"""<!doctype html><title>fuzz target</title>
<h1>Fuzz target</h1><p id="sentinel">{SENTINEL}</p>
<label for="name">Name</label><input id="name" name="name">
<select id="pick"><option>one</option><option>two</option></select>
<button id="count" onclick="this.textContent = 'clicked ' + (++window.clicks)">count</button>
<form onsubmit="return false"><input id="q"><button type="submit">search</button></form>
<script>window.clicks = 0;</script>"""

HOSTILE_SELECTORS = [
    "div[[[", ">>>", "text=", "role=button[name=", "xpath=//[", "e99999", "f9e1", "f999e2", "e0", "bcref=e1",
    "#no-such-id", ".nope >> .nada", "css=:has(", "internal:control=enter-frame", "data-testid=", "role=",
    "text=/(a+)+$/", "text=/[/", "nth=-1", "#id\"'<>", ":root:root:root:not(*)", "a:nth-child(-n+1000000000)",
    "[" * 500, "e" + "9" * 40, "🙂", "\u202e#sentinel", "", " ", "\x00", "h1 >> nth=99",
]
HOSTILE_URLS = [
    "javascript:alert(1)", "JAVASCRIPT:alert(document.cookie)", "file:///etc/passwd", "file://localhost/etc/shadow",
    "data:text/html,<h1>x</h1>", "chrome://settings", "view-source:http://127.0.0.1/", "about:blank", "ftp://x/",
    "http://127.0.0.1:1/", "http://localhost:9/", "http://[::1", "http://%00/", "http://a b/", "../../etc/passwd",
    "//evil.example/", "https://example.invalid/" + "a" * 5000, "", "   ", "\u0000", "blob:http://x/1", "ws://x/",
]
HOSTILE_PATHS = ["../../../../etc/passwd", "/etc/shadow", "..\\..\\windows\\win.ini", "a/../../b", "\x00.png",
                 "/", ".", "~/.ssh/id_rsa", "x" * 5000 + ".png", "con.png", "😀.png"]
HOSTILE_KEYS = ["NotAKey", "Ctrl+Alt+Nothing", "Shift+", "+", "", "F99", "Control+Control", "🙂", "a" * 300]
HOSTILE_JS = ["} {", "throw new Error('x')", "() => { throw 1 }", "null", "undefined", "() => 1",
              "() => new Promise(() => {})", "document.title", "(el) => el.textContent", "x".join(["("] * 200)]
HOSTILE_NUMBERS = [-1, -(2**31), 2**31, 2**53, 10**30, -(10**30), 0, 1.5, -0.5, 1e308]
HOSTILE_VALUES = [None, [], {}, [1, "a"], {"a": {"b": [None]}}, True, "", "x" * 100_000, 10**40]

#: Tools whose valid calls may change which page is shown; their calls always carry an invalid argument.
STATE_CHANGING = {"browser_close", "browser_navigate_back", "browser_tabs", "browser_navigate"}

text_any = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)


def value_for(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value of the right JSON type for parameter ``name``, chosen to be hostile (the rest: :func:`call_for`)."""
    kind = schema.get("type")
    if isinstance(kind, list):  # e.g. ["string", "integer"]
        return st.one_of(*(value_for(name, {**schema, "type": k}) for k in kind))
    lname = name.lower()
    if "enum" in schema:
        right = st.sampled_from(schema["enum"])
    elif lname in ("target", "selector", "element", "ref") or lname.endswith("target"):
        right = st.sampled_from(HOSTILE_SELECTORS) | text_any
    elif lname == "url":
        right = st.sampled_from(HOSTILE_URLS)
    elif lname in ("filename", "paths", "path"):
        right = st.sampled_from(HOSTILE_PATHS)
        if kind == "array":
            right = st.lists(right, max_size=3)
    elif lname == "key":
        right = st.sampled_from(HOSTILE_KEYS) | text_any
    elif lname == "function":
        right = st.sampled_from(HOSTILE_JS) | text_any
    elif lname in ("pattern", "filter", "select", "text", "textgone", "title", "value", "prompttext"):
        right = st.sampled_from(["(", "[", "(a+)+$", "*", "\\", "(?<=x", "a{99999999}", SENTINEL[:4]]) | text_any
    elif kind == "integer":
        right = st.sampled_from([n for n in HOSTILE_NUMBERS if isinstance(n, int)]) | st.integers(-5, 50)
    elif kind == "number":
        right = st.sampled_from(HOSTILE_NUMBERS) | st.floats(-5, 50, allow_nan=False)
    elif kind == "boolean":
        right = st.booleans()
    elif kind == "string":
        right = text_any | st.sampled_from(["x" * 100_000, "\u202e\u200b\ufeff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢" * 50])
    elif kind == "array":
        item = schema.get("items") or {}
        right = st.lists(value_for(name + "_item", item) if item else st.sampled_from(HOSTILE_VALUES), max_size=3)
    elif kind == "object":
        props = schema.get("properties") or {}
        right = st.fixed_dictionaries({}, optional={k: value_for(k, v) for k, v in props.items()})
    else:
        right = st.sampled_from(HOSTILE_VALUES)
    return right


@st.composite
def call_for(draw: st.DrawFn, tool: Any) -> tuple[str, dict[str, Any], bool]:
    """``(name, arguments, must_fail)`` for one call of ``tool``."""
    schema = tool.input_schema or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    args: dict[str, Any] = {}
    for name, prop in props.items():
        if name in required or draw(st.booleans()):
            args[name] = draw(value_for(name, prop))
    # Waiting tools wait at most ~1 s here (their clamps of enormous values are exercised by verify's timeout,
    # which the server's per-call guard bounds), so the bounded number of calls fits in a test run.
    if tool.name == "browser_wait_for":
        args["time"] = draw(st.sampled_from([0, 0.2, 1]))
    if tool.name == "browser_verify":
        args["timeout"] = draw(st.sampled_from([0, 100, 1000, 10**12]))
    # Two calls in five also break the schema: a value of any type, a missing required one, or an unknown key.
    breakage = draw(st.sampled_from(["none", "none", "none", "type", "drop", "extra"]))
    if breakage == "type" and props:
        args[draw(st.sampled_from(sorted(props)))] = draw(st.sampled_from(HOSTILE_VALUES))
    elif breakage == "drop" and required:
        args.pop(draw(st.sampled_from(sorted(required))), None)
    elif breakage == "extra":
        args[draw(st.sampled_from(["__proto__", "constructor", "maxtokens", "🙂", "x" * 200]))] = draw(
            st.sampled_from(HOSTILE_VALUES))
    must_fail = False
    if tool.name in STATE_CHANGING:
        args["__fuzz_invalid__"] = True  # unknown parameter: must be refused before doing anything
        must_fail = True
    return tool.name, args, must_fail


def kind_of(text: str) -> str:
    """A short label for an error message (for the summary)."""
    rules = [("invalid-argument", r"^Invalid arguments|must be|is required|unknown parameter|is empty"),
             ("not-found", r"^No |not found|out of range|[Ii]nvalid \w+ filter"),
             ("refused-scheme", r"^Refused"), ("selector", r"selector|No element|matches|[Rr]ef "),
             ("timeout", r"Timed out|did not finish"), ("navigation", r"Could not load|net::ERR_"),
             ("path", r"[Pp]ath|outside|allowed roots|file"), ("script", r"[Ee]valuat|script|JavaScript"),
             ("key", r"[Kk]ey"), ("tab", r"[Tt]ab"), ("page", r"page|browser")]
    for label, pattern in rules:
        if re.search(pattern, text):
            return label
    return "other: " + " ".join(text.split()[:4])[:40]


@dataclass
class Fuzz:
    portal: Any
    session: Any
    tools: list[Any]
    site: str
    server_pid: int
    calls: int = 0
    ok: int = 0
    errors: collections.Counter = field(default_factory=collections.Counter)
    samples: dict[str, str] = field(default_factory=dict)
    by_tool: collections.Counter = field(default_factory=collections.Counter)

    def call(self, name: str, args: dict[str, Any]) -> Any:
        async def run() -> Any:
            with anyio.fail_after(CALL_LIMIT_S):
                return await self.session.call_tool(name, args)
        return self.portal.call(run)


@pytest.fixture(scope="module")
def fuzz(fault_site: str, tmp_path_factory) -> Iterator[Fuzz]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "fuzz.html").write_text(PAGE, encoding="utf-8")
    with serve_directory(root, routes={}) as port, anyio.from_thread.start_blocking_portal() as portal:
        site = f"http://127.0.0.1:{port}"
        before = set(server_pids())
        with portal.wrap_async_context_manager(
                mcp_session("--caps", "all", "--timeout-read", "8000", "--timeout-call", "15000",
                            "--timeout-navigation", "15000", "--output-dir", str(root / "out"))) as session:
            pids = [p for p in server_pids() if p not in before]
            assert len(pids) == 1, pids
            tools = portal.call(session.list_tools).tools
            f = Fuzz(portal, session, tools, site, pids[0])
            nav = f.call("browser_navigate", {"url": f"{site}/fuzz.html"})
            assert not nav.is_error, result_text(nav)
            yield f


def _check(f: Fuzz, name: str, args: dict[str, Any], must_fail: bool, result: Any) -> None:
    f.calls += 1
    f.by_tool[name] += 1
    shown = json.dumps(args, default=str)[:300]
    if result.is_error:
        text = result_text(result)
        assert text.strip(), f"{name} {shown}: empty error"
        assert "\n" not in text and "Traceback" not in text and "Call log" not in text, f"{name} {shown}: {text}"
        assert len(text) <= 700, f"{name} {shown}: error of {len(text)} characters"
        kind = kind_of(text)
        f.errors[kind] += 1
        f.samples.setdefault(kind, f"{name}: {text[:150]}")
        return
    assert not must_fail, f"{name} {shown}: an invalid call succeeded: {result_text(result)[:300]}"
    f.ok += 1
    assert result.content, f"{name} {shown}: empty result"
    max_tokens = args.get("maxTokens", 2000)
    budget = min(max(int(max_tokens), 200), 8000)
    tokens = result_tokens(result)
    assert tokens <= budget, f"{name} {shown}: {tokens} tokens over its cap {budget}"


def test_fuzz_every_tool(fuzz: Fuzz):
    names = sorted(t.name for t in fuzz.tools)
    assert len(names) >= 3, names
    rss_before = rss_mb(fuzz.server_pid)

    @settings(max_examples=FUZZ_CALLS, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @seed(FUZZ_SEED)
    @given(data=st.data())
    def one_call(data: st.DataObject) -> None:
        tool = data.draw(st.sampled_from(fuzz.tools), label="tool")
        name, args, must_fail = data.draw(call_for(tool), label="call")
        result = fuzz.call(name, args)
        _check(fuzz, name, args, must_fail, result)

    one_call()

    # The server is up and the page the fuzzing started on is still there, with its content.
    assert sorted(t.name for t in fuzz.portal.call(fuzz.session.list_tools).tools) == names
    page = fuzz.call("browser_text", {"target": "#sentinel", "force": True})
    assert not page.is_error and SENTINEL in result_text(page), result_text(page)
    tabs = result_text(fuzz.call("browser_tabs", {"action": "list"}))
    assert "(current)" in tabs and "/fuzz.html" in tabs.split("(current)", 1)[1].splitlines()[0], tabs
    rss_after = rss_mb(fuzz.server_pid)
    errors = sum(fuzz.errors.values())
    print(f"\nfuzz: {fuzz.calls} calls over {len(names)} tools, {fuzz.ok} valid results, {errors} one-line errors; "
          f"server RSS {rss_before:.0f} MB -> {rss_after:.0f} MB")
    for kind, n in fuzz.errors.most_common():
        print(f"  {n:4d}  {kind:18s} e.g. {fuzz.samples[kind]}")
    per_tool = ", ".join(f"{k.removeprefix('browser_')}={v}" for k, v in sorted(fuzz.by_tool.items()))
    print("  calls per tool: " + per_tool)
    assert fuzz.calls >= FUZZ_CALLS // 2
