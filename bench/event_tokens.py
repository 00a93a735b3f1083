"""Tokens of the default console/network call versus the raw listing of the same events.

For the console-flood page (``fixtures/events/flood.html``, 20,000 warnings) and the network-heavy
page (``fixtures/events/network.html``) this opens the page in a real browser session (the server's
own :class:`BrowserSession`), calls ``browser_console_messages`` and ``browser_network_requests``
with default arguments through the server pipeline, and prints their o200k tokens beside the tokens
of the *raw listing* of the same events: every event on its own line, unfiltered, unfolded,
untruncated, as recorded by a CDP session of the same page loaded in a plain Playwright browser (no
browser-ctx, so no console hook: there a flood reaches CDP message by message):

- console: ``[type] text (url:line)`` per ``Runtime.consoleAPICalled`` (arguments joined as
  DevTools does), the full error description (message and whole stack) per
  ``Runtime.exceptionThrown``, ``[level] text (url)`` per ``Log.entryAdded``;
- network: ``[METHOD] url => [status] statusText type bytes`` per request, one line per redirect
  hop, failures with their ``net::ERR_…`` text, static resources included.

Usage: ``.venv/bin/python -m bench.event_tokens``
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import async_playwright

import tests.support.event_routes  # noqa: F401 - registers the dynamic routes
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.session import BrowserSession
from browser_ctx.core.console_payloads import format_args
from browser_ctx.core.tokens import count_tokens
from browser_ctx.server.pipeline import call_tool
from browser_ctx.server.tools import console, network
from browser_ctx.settings import LaunchSettings, Settings
from tests.support.client import result_tokens
from tests.support.site import FIXTURES, serve_directory

SPECS = {t.name: t for t in console.TOOLS + network.TOOLS}


class RawRecorder:
    """Records every console and network event of a page as raw listing lines."""

    def __init__(self) -> None:
        self.console: list[str] = []
        self.network: list[str] = []
        self._requests: dict[str, dict[str, Any]] = {}

    def attach(self, cdp: Any) -> None:
        cdp.on("Runtime.consoleAPICalled", self._console)
        cdp.on("Runtime.exceptionThrown", self._exception)
        cdp.on("Log.entryAdded", self._log)
        cdp.on("Network.requestWillBeSent", self._request)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.loadingFailed", self._failed)

    def _console(self, p: dict[str, Any]) -> None:
        frames = (p.get("stackTrace") or {}).get("callFrames") or [{}]
        f = frames[0]
        self.console.append(f"[{p.get('type')}] {format_args(p.get('args') or [])} "
                            f"({f.get('url', '')}:{int(f.get('lineNumber', 0)) + 1})")

    def _exception(self, p: dict[str, Any]) -> None:
        d = p.get("exceptionDetails") or {}
        exc = d.get("exception") or {}
        self.console.append(f"[error] {d.get('text', '')} {exc.get('description') or exc.get('value', '')}")

    def _log(self, p: dict[str, Any]) -> None:
        e = p.get("entry") or {}
        self.console.append(f"[{e.get('level')}] {e.get('text', '')} ({e.get('url', '')})")

    def _request(self, p: dict[str, Any]) -> None:
        rid = p["requestId"]
        if p.get("redirectResponse") and rid in self._requests:
            old = self._requests[rid]
            r = p["redirectResponse"]
            self.network.append(f"[{old['method']}] {old['url']} => [{r.get('status')}] {r.get('statusText', '')} "
                                f"{old['type']}")
        req = p.get("request") or {}
        self._requests[rid] = {"method": req.get("method"), "url": req.get("url"),
                               "type": str(p.get("type", "Other")).lower(), "status": None, "text": ""}

    def _response(self, p: dict[str, Any]) -> None:
        r = self._requests.get(p["requestId"])
        if r is not None:
            r["status"] = p["response"].get("status")
            r["text"] = p["response"].get("statusText", "")

    def _finished(self, p: dict[str, Any]) -> None:
        r = self._requests.pop(p["requestId"], None)
        if r is not None:
            self.network.append(f"[{r['method']}] {r['url']} => [{r['status']}] {r['text']} {r['type']} "
                                f"{int(p.get('encodedDataLength') or 0)}")

    def _failed(self, p: dict[str, Any]) -> None:
        r = self._requests.pop(p["requestId"], None)
        if r is not None:
            self.network.append(f"[{r['method']}] {r['url']} => {p.get('errorText')} {r['type']}")

    def flush(self) -> None:
        """Requests that never finished (bodies not read) still get their line."""
        for r in self._requests.values():
            self.network.append(f"[{r['method']}] {r['url']} => [{r['status']}] {r['text']} {r['type']}")
        self._requests.clear()


async def record_raw(base: str, page: str, done: str, launch: LaunchSettings) -> RawRecorder:
    """Load the page in a plain Playwright browser (no browser-ctx, so no console hook: a flood reaches
    CDP there) and record every event from a CDP session of it."""
    raw = RawRecorder()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_executable(launch), args=chromium_args(launch))
        try:
            tab = await browser.new_page()
            cdp = await tab.context.new_cdp_session(tab)
            raw.attach(cdp)
            for domain in ("Network", "Runtime", "Log"):
                await cdp.send(f"{domain}.enable")
            await tab.goto(f"{base}/events/{page}", wait_until="commit", timeout=120_000)
            await tab.wait_for_function(done, timeout=600_000)
            await cdp.send("Runtime.evaluate", {"expression": "0"})  # the recorder is up to date
            await asyncio.sleep(1.0)
            raw.flush()
        finally:
            await browser.close()
    return raw


async def measure(base: str, page: str, done: str) -> dict[str, int]:
    settings = Settings(launch=LaunchSettings(offline_external=True))
    async with BrowserSession(settings) as session:
        tab = await session.current_tab()
        await tab.events.start()
        await tab.page.goto(f"{base}/events/{page}", wait_until="commit", timeout=120_000)
        await tab.page.wait_for_function(done, timeout=600_000)
        await tab.events.sync(timeout=600)
        await asyncio.sleep(1.0)
        out = {}
        for tool in ("browser_console_messages", "browser_network_requests"):
            result = await call_tool(SPECS[tool], {}, session, settings)
            out[tool] = result_tokens(result)
    raw = await record_raw(base, page, done, settings.launch)
    out["raw_console"] = count_tokens("\n".join(raw.console))
    out["raw_network"] = count_tokens("\n".join(raw.network))
    out["console_events"] = len(raw.console)
    out["network_lines"] = len(raw.network)
    return out


async def main() -> None:
    with serve_directory(FIXTURES) as port:
        base = f"http://127.0.0.1:{port}"
        for label, page in (("console flood", "flood.html"), ("network heavy", "network.html")):
            r = await measure(base, page, "window.__done === true")
            print(f"{label} ({page}): browser_console_messages {r['browser_console_messages']} tokens vs raw "
                  f"{r['raw_console']:,} tokens ({r['console_events']:,} lines); browser_network_requests "
                  f"{r['browser_network_requests']} tokens vs raw {r['raw_network']:,} tokens "
                  f"({r['network_lines']:,} lines)", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
