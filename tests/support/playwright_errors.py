"""Collect real Playwright and Chromium error messages for the classifier's tests (``tests/test_error_kind.py``).

Run ``.venv/bin/python -m tests.support.playwright_errors`` after a Playwright or Chromium upgrade: it triggers each
error on a localhost page and rewrites ``tests/support/playwright_errors.json`` (``{name: {type, message}}``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import threading
import time
from collections.abc import Awaitable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

from playwright.async_api import Page, Route, async_playwright

from browser_ctx.browser.launcher import find_executable
from browser_ctx.settings import LaunchSettings

DATA = Path(__file__).with_suffix(".json")

_PAGE = (b"<html><body><button id=dis disabled>D</button><button id=hid style='display:none'>H</button>"
         b"<div style='position:relative'><button id=cov>C</button>"
         b"<div id=over style='position:absolute;inset:0;background:#fff'></div></div>"
         b"<input id=ro readonly value=x><div id=div>div</div><select id=sel><option>a</option></select>"
         b"<iframe id=fr src='/frame'></iframe><button id=mv style='animation: m 0.1s infinite'>M</button>"
         b"<button id=off style='position:fixed;left:-500px;top:10px'>off</button>"
         b"<style>@keyframes m{from{margin-left:0}to{margin-left:100px}}</style></body></html>")
_GOOD = "Basic " + base64.b64encode(b"u:good").decode()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        return

    def do_GET(self) -> None:
        status, body = 200, b"<p>x</p>"
        if self.path == "/":
            body = _PAGE
        elif self.path == "/auth" and self.headers.get("Authorization") != _GOOD:
            status = 401
        elif self.path == "/slow":
            time.sleep(3)
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="R"')
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a request Playwright aborted
            self.wfile.write(body)


async def _collect(base: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}

    async def grab(name: str, call: Awaitable[Any]) -> None:
        try:
            await call
        except Exception as exc:  # noqa: BLE001 - collecting every kind is the point
            out[name] = {"type": type(exc).__name__, "message": str(exc)}

    async def abort(route: Route) -> None:
        await route.abort("aborted" if route.request.url.endswith("/aborted") else "failed")

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_executable(LaunchSettings()))
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(base + "/")
        t = 1500
        await grab("click_disabled", page.locator("#dis").click(timeout=t))
        await grab("click_hidden", page.locator("#hid").click(timeout=t))
        await grab("click_covered", page.locator("#cov").click(timeout=t))
        await grab("click_unstable", page.locator("#mv").click(timeout=t))
        await grab("click_outside_viewport", page.locator("#off").click(timeout=t))
        await grab("fill_readonly", page.locator("#ro").fill("y", timeout=t))
        await grab("fill_div", page.locator("#div").fill("y", timeout=t))
        await grab("select_on_div", page.locator("#div").select_option("a", timeout=t))
        await grab("select_missing_label", page.locator("#sel").select_option(label=["zz"], timeout=t))
        await grab("select_missing_value", page.locator("#sel").select_option(["zz"], timeout=t))
        for name, selector in (("css", "div["), ("css_hash", "#"), ("css_invalid", "a:nth-child(x)"),
                               ("xpath", "xpath=//["), ("role", "role=button[name="), ("empty_role", "role="),
                               ("unknown_engine", "bcpin=probe")):
            await grab(f"selector_{name}", page.locator(selector).count())
        await grab("strict_mode", page.locator("button").click(timeout=t))
        await grab("locator_timeout", page.locator("#nope").click(timeout=500))
        await grab("wait_for_timeout", page.locator("#hid").wait_for(state="visible", timeout=500))
        await grab("unknown_key", page.keyboard.press("Foo"))
        await grab("tracing_stop_unstarted", ctx.tracing.stop())
        await ctx.tracing.start()
        await grab("tracing_start_twice", ctx.tracing.start())
        await ctx.tracing.stop()
        await grab("evaluate_throws", page.evaluate("() => { throw new Error('boom') }"))
        await grab("evaluate_syntax", page.evaluate("() => {"))
        handle = await page.query_selector("#div")
        await page.evaluate("() => document.getElementById('div').remove()")
        if handle is not None:
            await grab("handle_click_detached", handle.click(timeout=t))
        frame = page.frames[1]
        await page.evaluate("() => document.getElementById('fr').remove()")
        await grab("frame_evaluate_detached", frame.evaluate("1"))
        await grab("frame_locator_detached", frame.locator("p").count())
        cdp = await ctx.new_cdp_session(page)
        await grab("cdp_bad_context", cdp.send("Runtime.callFunctionOn",
                                               {"functionDeclaration": "() => 1", "executionContextId": 99999}))
        await grab("cdp_bad_frame", cdp.send("Page.createIsolatedWorld", {"frameId": "NOPE"}))
        await grab("cdp_no_resource", cdp.send("Network.getResponseBody", {"requestId": "nope"}))
        pending = asyncio.ensure_future(page.evaluate("() => new Promise(() => {})"))
        await asyncio.sleep(0.2)
        await page.goto(base + "/x")
        await grab("evaluate_navigated", pending)
        await grab("goto_unsafe_port", page.goto("http://127.0.0.1:1/"))
        await grab("goto_dns", page.goto("http://nonexistent.invalid/"))
        await grab("goto_timeout", page.goto(base + "/slow", timeout=300))
        await grab("goto_url_credentials_refused", page.goto(base.replace("http://", "http://u:bad@") + "/auth"))
        await page.route("**/aborted", abort)
        await page.route("**/failed", abort)
        await grab("goto_route_aborted", page.goto(base + "/aborted"))
        await grab("goto_route_failed", page.goto(base + "/failed"))
        slow = asyncio.ensure_future(page.goto(base + "/slow"))
        await asyncio.sleep(0.3)
        await page.goto(base + "/x")
        await grab("goto_interrupted", slow)
        await cdp.detach()
        await grab("cdp_after_detach", cdp.send("Runtime.evaluate", {"expression": "1"}))
        cdp = await ctx.new_cdp_session(page)
        await page.close()
        await grab("closed_title", page.title())
        await grab("closed_click", page.locator("#x").click(timeout=t))
        await grab("cdp_page_closed", cdp.send("Runtime.evaluate", {"expression": "1"}))
        await grab("new_cdp_session_closed_page", ctx.new_cdp_session(page))
        crashing: Page = await ctx.new_page()
        await crashing.goto(base + "/")
        await grab("goto_crash", crashing.goto("chrome://crash"))
        await grab("crashed_evaluate", crashing.evaluate("1"))
        orphan = await ctx.new_page()
        await browser.close()
        await grab("browser_closed_evaluate", orphan.evaluate("1"))
        await grab("browser_closed_new_page", ctx.new_page())
    return out


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        found = asyncio.run(_collect(f"http://127.0.0.1:{server.server_address[1]}"))
    finally:
        server.shutdown()
    data = {"playwright": version("playwright"), "errors": dict(sorted(found.items()))}
    DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(found)} errors -> {DATA}")


if __name__ == "__main__":
    main()
