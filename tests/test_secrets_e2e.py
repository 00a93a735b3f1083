"""Secrets outside the documented names never reach the model: ``browser-ctx serve`` over stdio, the
mcp SDK client, and ``fixtures/hostile/secrets.html`` served from localhost.

The page plants secrets where only shape or context gives them away: its own URL fragment
(``#access_token=…``), ``?code=``/``?refresh_token=`` and a fetch URL's fragment, headers named with
"key", a ``Basic`` credential in a custom header, a JWT path segment, a multipart body with a password
field and a file, a text-only multipart body, GraphQL variables and inline arguments, socket.io
frames, named server-sent events, objects and arrays logged to the console, and an uncaught error
holding ``postgres://admin:s3cr3t@db.internal``. Every result of every tool called here (text and
structured content) is checked for every sentinel, and for staying within its token cap.
"""

from __future__ import annotations

import base64
import json
import re

import anyio
import pytest

import tests.support.hostile_routes  # noqa: F401 - registers the dynamic routes
from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.hostile_routes import JWT

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: Every planted secret: the LEAK… words (one pattern), the JWT, the postgres password, the Basic
#: credential's base64, and the base64 of the file's planted bytes.
SENTINELS = (JWT, JWT.split(".")[1], "s3cr3t", base64.b64encode(b"ann:LEAKBASICPASSWORD").decode(),
             base64.b64encode(b"password=LEAKINSIDEFILE").decode()[:20])
LEAK = re.compile(r"LEAK[A-Z]+")

PAGE = "/hostile/secrets.html#access_token=LEAKPAGEFRAGMENT&id_token=LEAKPAGEIDTOKEN&state=ok"


class Client:
    """Calls tools and checks every result for every sentinel and for its token cap."""

    def __init__(self, session) -> None:
        self.s = session
        self.calls = 0

    async def call(self, name: str, **args):
        result = await self.s.call_tool(name, args)
        self.check(f"{name} {args}", result_text(result) + json.dumps(result.structured_content or {},
                                                                      ensure_ascii=False))
        assert result_tokens(result) <= args.get("maxTokens", 2000), (name, args)
        return result

    def check(self, what: str, blob: str) -> None:
        """Fail if ``blob`` (one output of ``what``) holds any sentinel."""
        self.calls += 1
        leaked = LEAK.findall(blob) + [s for s in SENTINELS if s in blob]
        assert not leaked, f"{what} leaked {leaked}: {blob[:2000]}"

    async def ok(self, name: str, **args) -> str:
        result = await self.call(name, **args)
        assert not result.is_error, f"{name} {args}: {result_text(result)}"
        return result_text(result)


async def until(c: Client, tool: str, args: dict, needle: str, timeout: float = 120.0) -> str:
    """Call ``tool`` every half second until its text contains ``needle``."""
    deadline = anyio.current_time() + timeout
    while True:
        text = await c.ok(tool, **args)
        if needle in text or anyio.current_time() > deadline:
            assert needle in text, text
            return text
        await anyio.sleep(0.5)


async def test_no_secret_outside_the_documented_names_reaches_any_output(site):
    async with mcp_session() as s:
        c = Client(s)
        await c.ok("browser_network_requests")  # the tab's capture is attached before the page loads
        card = await c.ok("browser_navigate", url=site + PAGE)
        assert "access_token=[redacted]" in card
        await c.ok("browser_wait_for", text="All loaded.")
        await c.ok("browser_snapshot")
        await c.ok("browser_text", links=True)
        tabs = await c.ok("browser_tabs", action="list")
        assert "access_token=[redacted]" in tabs

        console = await until(c, "browser_console_messages", {"level": "debug"}, "db down")
        assert 'password: "[redacted]"' in console and 'token: "[redacted]"' in console
        assert "Bearer [redacted]" in console
        assert "postgres://admin:[redacted]@db.internal" in console
        await c.ok("browser_console_messages", level="debug", all=True)
        # A pattern cannot fish them out (written so that its echo is not itself the 6-character password,
        # too short to be remembered and scrubbed from other outputs).
        await c.ok("browser_console_messages", pattern="LEAK|s3cr3?t")

        await until(c, "browser_network_requests", {"static": True, "all": True}, "/hostile/api/sse")
        listing = await c.ok("browser_network_requests", static=True, all=True)
        assert "code=[redacted]" in listing and "refresh_token=[redacted]" in listing
        assert "/hostile/api/reset/[redacted]" in listing
        # Lines may fold several requests (#6…#8 ×3): read every index up to the last one.
        last = max(int(n) for n in re.findall(r"#(\d+)", listing))
        assert last >= 10, listing
        rows = range(1, last + 1)
        seen = {}
        for index in rows:
            detail = await c.ok("browser_network_request", index=index)
            for part in ("request-headers", "request-body", "response-headers", "response-body"):
                detail += "\n" + await c.ok("browser_network_request", index=index, part=part)
            seen[index] = detail
        everything = "\n".join(seen.values())
        assert "apikey: [redacted]" in everything.lower()
        assert "x-goog-api-key: [redacted]" in everything.lower()
        assert "ocp-apim-subscription-key: [redacted]" in everything.lower()
        assert "Basic [redacted]" in everything
        # The multipart body with a file: parts by name, the file by name, type and size, no base64.
        with_file = next(t for t in seen.values() if 'avatar: file "avatar.png"' in t)
        assert 'avatar: file "avatar.png", image/png, 6,000 bytes' in with_file
        assert 'password = "[redacted]"' in with_file and 'user = "ann"' in with_file
        assert not re.search(r"[A-Za-z0-9+/]{200,}", with_file), with_file
        text_only = next(t for t in seen.values() if 'note = "see token=[redacted]"' in t)
        assert 'password = "[redacted]"' in text_only
        graphql = next(t for t in seen.values() if '"query":"mutation(' in t)
        assert '"variables":{"pw":"[redacted]"}' in graphql and 'otp: \\"[redacted]\\"' in graphql
        socket = next(t for t in seen.values() if "WebSocket: closed" in t)
        assert '42["auth","[redacted]"]' in socket
        sse = next(t for t in seen.values() if "EventSource: closed" in t)
        assert "token: [redacted]" in sse and "done" in sse

        # A capture cut short is an MCP resource: its listing and its pages are scrubbed too.
        first = await c.call("browser_network_request", index=1, part="response-body", maxTokens=200)
        assert first.structured_content.get("truncated"), result_text(first)
        listed = (await s.list_resources()).resources
        assert listed
        for resource in listed:
            c.check("resources/list", resource.model_dump_json())
            read = await s.read_resource(f"{resource.uri}?offset=100&maxTokens=400")
            c.check("resources/read", "".join(getattr(part, "text", "") for part in read.contents))

        # The page's own script reads its fragment: the value was remembered and is scrubbed.
        evaluated = await c.call("browser_evaluate", function="() => location.hash + ' ' + document.title")
        if not evaluated.is_error:
            assert "access_token=[redacted]" in result_text(evaluated)
        assert c.calls > 60


async def test_errors_pass_through_the_same_scrubber(site):
    """A failing call's one-line error is scrubbed like any result: a navigation to a ``user:pass@`` URL
    that cannot load, and an evaluate that throws an error holding a database URL and a token."""
    async with mcp_session() as s:
        c = Client(s)
        failed = await c.call("browser_navigate", url="http://admin:LEAKNAVPASSWORD@127.0.0.1:9/")
        assert failed.is_error, result_text(failed)  # the Client checked it for the password
        await c.ok("browser_navigate", url=f"{site}/hostile/secrets.html")
        thrown = await c.call("browser_evaluate", function="() => { throw new Error('no db at postgres://admin:' + "
                                                           "'s3' + 'cr3t@db.internal, token=' + 'LE' + 'AKTHROWN') }")
        assert thrown.is_error, result_text(thrown)
        assert "postgres://admin:[redacted]@db.internal" in result_text(thrown)


async def test_card_numbers_and_one_time_codes_never_reach_a_read(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/semantics/sensitive.html"})
        outputs = [await s.call_tool(tool, args) for tool, args in (
            ("browser_snapshot", {"maxTokens": 8000}), ("browser_text", {"format": "text"}),
            ("browser_snapshot", {"target": "form"}))]
        seen = "\n".join(result_text(r) + json.dumps(r.structured_content) for r in outputs)
        for secret in ("4111 1111 1111 1111", "4242424242424242", "918273", "hunter2"):
            assert secret not in seen, seen
        assert re.search(r'textbox "Card number" \[e\d+\] \(filled\)', seen), seen


async def test_a_card_number_typed_into_a_plain_field_is_read_back_only_as_filled(site: str) -> None:
    """The read-back of a type follows the reads' rule: a Luhn-valid run of digits in a plain field is shown as
    filled, in the record, in the next read and in the next action's record."""
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/walks/fields.html"})
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        ref = re.search(r'textbox "Plain" \[(e\d+)\]', snap)
        assert ref is not None, snap
        typed = await s.call_tool("browser_type", {"target": ref.group(1), "text": "4111 1111 1111 1111"})
        after = [typed, await s.call_tool("browser_snapshot", {}),
                 await s.call_tool("browser_click", {"target": "#add"})]
        seen = "\n".join(result_text(r) + json.dumps(r.structured_content) for r in after)
        assert "4111" not in seen, seen
        assert 'It now shows: "(filled)"' in result_text(typed), result_text(typed)
        assert re.search(r'textbox "Plain" \[e\d+\] \(filled\)', result_text(after[1])), result_text(after[1])
