"""Console and network tools end to end: ``browser-ctx serve`` over stdio, driven by the mcp SDK client.

Every result of every tool called here is checked for ``SECRET_`` (the secrets page plants
SECRET_A…SECRET_E in a cookie, a query string, two headers and a JSON POST body, then echoes them
into responses and the console), and for staying within its token cap.
"""

from __future__ import annotations

import json

import anyio
import pytest

import tests.support.event_routes  # noqa: F401 - registers the dynamic routes
from browser_ctx.core.tokens import count_tokens
from tests.support.client import mcp_session, result_text, result_tokens

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


class Client:
    def __init__(self, session) -> None:
        self.s = session
        self.outputs: list[str] = []

    async def call(self, name: str, **args):
        result = await self.s.call_tool(name, args)
        text = result_text(result)
        blob = text + json.dumps(result.structured_content or {}, ensure_ascii=False)
        self.outputs.append(blob)
        assert "SECRET_" not in blob, f"{name} {args} leaked: {blob[:1500]}"
        assert result_tokens(result) <= args.get("maxTokens", 2000), (name, args)
        return result

    async def ok(self, name: str, **args) -> str:
        result = await self.call(name, **args)
        assert not result.is_error, f"{name} {args}: {result_text(result)}"
        return result_text(result)


async def until(c: Client, tool: str, args: dict, needle: str, timeout: float = 300.0) -> str:
    """Call ``tool`` every second until its text contains ``needle`` (pages here are slow under load)."""
    deadline = anyio.current_time() + timeout
    while True:
        text = await c.ok(tool, **args)
        if needle in text or anyio.current_time() > deadline:
            assert needle in text, text
            return text
        await anyio.sleep(1.0)


async def test_events_tools_are_listed_with_playwright_names():
    async with mcp_session() as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        console = tools["browser_console_messages"].input_schema["properties"]
        assert console["level"]["enum"] == ["error", "warning", "info", "debug"]
        assert {"pattern", "since", "limit", "all", "maxTokens", "offset"} <= set(console)
        net = tools["browser_network_requests"].input_schema["properties"]
        assert {"filter", "status", "failed", "resourceTypes", "method", "static", "since", "limit"} <= set(net)
        one = tools["browser_network_request"].input_schema
        assert one["required"] == ["index"]
        assert one["properties"]["part"]["enum"] == ["request-headers", "request-body", "response-headers",
                                                     "response-body"]


async def test_no_secret_in_any_output_of_any_tool(site):
    async with mcp_session() as s:
        c = Client(s)
        # Open the tab first: the events tools wait until its capture is attached, so the navigation
        # below is captured from its first request (see the report on BrowserSession._adopt).
        await c.ok("browser_network_requests")
        await c.ok("browser_navigate", url=f"{site}/events/secrets.html")
        await c.ok("browser_wait_for", text="All loaded.")
        await c.ok("browser_snapshot")
        await c.ok("browser_text")
        console = await c.ok("browser_console_messages", level="debug")
        assert "cookie is [redacted]" in console or "cookie is sid=[redacted]" in console
        assert "retrying with key [redacted] and token [redacted]" in console
        listing = await c.ok("browser_network_requests", static=True, all=True)
        assert "access_token=[redacted]" in listing
        rows = {int(ln.split()[0].split("…")[0][1:]): ln for ln in listing.splitlines() if ln.startswith("#")}
        indexes = list(rows)
        assert len(indexes) >= 3
        seen = ""
        for index in indexes:
            seen += await c.ok("browser_network_request", index=index)
            for part in ("request-headers", "request-body", "response-headers", "response-body"):
                seen += await c.ok("browser_network_request", index=index, part=part)
        assert "Authorization: [redacted]" in seen
        assert "X-Api-Key: [redacted]" in seen
        assert "Set-Cookie: [redacted]" in seen
        assert '"password":"[redacted]"' in seen
        echo = next(i for i, ln in rows.items() if "/events/api/echo" in ln)
        selected = await c.ok("browser_network_request", index=echo, select="$.authorization")
        assert selected == '"[redacted]"' or selected == '"Bearer [redacted]"'
        # The page reads its own cookie: evaluation output is scrubbed too.
        result = await c.call("browser_evaluate", function="() => document.cookie + ' ' + document.body.innerHTML")
        if not result.is_error:
            assert "[redacted]" in result_text(result)
        # Reading on with offset must not leak either.
        doc = next(i for i, ln in rows.items() if "secrets.html" in ln)
        first = await c.call("browser_network_request", index=doc, part="response-body", maxTokens=200)
        if first.structured_content.get("truncated"):
            await c.ok("browser_network_request", index=doc, part="response-body", maxTokens=200,
                       offset=first.structured_content["nextOffset"])
        assert all("SECRET_" not in out for out in c.outputs)


async def test_flood_and_network_pages_through_stdio(site):
    async with mcp_session() as s:
        c = Client(s)
        await c.ok("browser_console_messages")
        nav = await c.call("browser_navigate", url=f"{site}/events/flood.html?defer=3000")
        assert not nav.is_error, result_text(nav)
        await until(c, "browser_console_messages", {"level": "warning"}, "×20000 Slow frame")
        res = await c.call("browser_console_messages")
        text = result_text(res)
        lines = text.splitlines()
        warn = next(i for i, ln in enumerate(lines) if "×20000 Slow frame" in ln)
        err = next(i for i, ln in enumerate(lines) if ln.startswith("[error] flood finished after 20000"))
        levels = [ln.split("]")[0] + "]" for ln in lines[1:] if ln.startswith("[")]
        assert err < warn and levels == sorted(levels, key=lambda lv: lv != "[error]")  # errors first
        flood_tokens = result_tokens(res)
        assert flood_tokens < 400
        await c.ok("browser_navigate", url=f"{site}/events/network.html")
        await until(c, "browser_console_messages", {}, "network done")
        res = await c.call("browser_network_requests")
        text = result_text(res)
        assert "×300" in text and "CORS" in text and "ERR_ABORTED" in text
        net_tokens = result_tokens(res)
        assert net_tokens < 800
        cursor = res.structured_content["cursor"]
        again = await c.ok("browser_network_requests", since=cursor)
        assert "no requests" in again
        print(f"\ndefault-call tokens: console flood {flood_tokens}, network-heavy {net_tokens}")


async def test_secret_in_a_page_url_is_scrubbed_from_every_part_of_the_result(site):
    """A token in the URL the agent navigates to is redacted by name on capture and then scrubbed from
    every later result, structured content included (the page card's ``url`` field)."""
    async with mcp_session() as s:
        c = Client(s)
        await c.ok("browser_network_requests")
        await c.ok("browser_navigate", url=f"{site}/events/cyclic.html?access_token=SECRET_Q")
        assert "access_token=[redacted]" in await c.ok("browser_network_requests")
        assert "SECRET_Q" not in await c.ok("browser_text")


async def test_a_60k_character_url_stays_within_the_cap_everywhere(site):
    """URLs are cut in the middle in structured fields and in listings (the text is capped by tokens
    anyway; a 60,000-character URL in a structured field once cost ~30,000 tokens)."""
    async with mcp_session() as s:
        c = Client(s)
        await c.ok("browser_navigate", url=f"{site}/events/long-url.html")  # within the cap (Client checks)
        out = await until(c, "browser_console_messages", {}, "logged at a very long URL")
        assert "chars]…" in out and count_tokens(out) < 1000
        result = await c.call("browser_snapshot")
        assert len(json.dumps(result.structured_content)) < 5000


def _sections(listing: str) -> dict[str, list[str]]:
    """The request lines of a listing by the URL of their section's header (one section: ``""``)."""
    out: dict[str, list[str]] = {}
    url = ""
    for line in listing.splitlines():
        if line.startswith("— page "):
            url = line.split("): ", 1)[1].rsplit(" —", 1)[0]
        elif line.startswith("#"):
            out.setdefault(url, []).append(line)
    return out


async def test_a_workers_request_from_its_first_message_is_listed_on_its_page(site):
    """A worker started at parse time fetches a 500 in its first message handler and never reads the
    body: the request is listed on that page right after the navigation and after a wait, with its
    status and "(worker)", and never on the next page (issue 26, item 3)."""
    async with mcp_session() as s:
        c = Client(s)
        await c.ok("browser_network_requests")
        page = f"{site}/events/worker-message.html"
        await c.ok("browser_navigate", url=page)
        for _ in range(2):
            listing = await c.ok("browser_network_requests")
            rows = [ln for ln in listing.splitlines() if "/events/api/worker-data" in ln]
            assert len(rows) == 1 and "→ 500" in rows[0] and rows[0].endswith("(worker)"), listing
            await c.ok("browser_wait_for", text="Worker answered 500")
            await c.ok("browser_wait_for", time=1)
        console = await c.ok("browser_console_messages")
        assert "[error] worker-data answered 500 (/events/worker-message.js:5) (worker)" in console, console
        await c.ok("browser_navigate", url=f"{site}/events/cyclic.html")
        assert "/events/api/worker-data" not in await c.ok("browser_network_requests")
        assert "worker-data answered" not in await c.ok("browser_console_messages")
        everything = _sections(await c.ok("browser_network_requests", all=True))
        mine = [url for url, rows in everything.items() for ln in rows if "/events/api/worker-data" in ln]
        assert mine == ["/events/worker-message.html"] or mine == [page], everything
