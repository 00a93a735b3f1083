"""End-to-end tests of the action tools through the real MCP stdio client, on fixtures/actions/ pages.

Each test starts ``browser-ctx serve --offline-external`` as a subprocess (``mcp_session``), drives
a real Chromium on pages served from localhost, and asserts the action records, verify results and
that no result exceeds its token cap.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.site import ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: maxTokens every call in these tests is checked against (the server default).
DEFAULT_CAP = 2000


def _sse(handler: Any) -> None:
    """An EventSource stream that sends a message every 40 ms for up to a minute: more often than settling's quiet
    window, so no gap between messages can end it before one arrives (the stream must be what settling stops on)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()
    try:
        for i in range(1, 1500):
            handler.wfile.write(f"data: {i}\n\n".encode())
            handler.wfile.flush()
            time.sleep(0.04)
    except (ConnectionError, OSError):
        pass  # the page closed the stream: nothing left to send
    handler.close_connection = True


ROUTES["/actions/sse"] = _sse


def _slow(handler: Any) -> None:
    """A response that takes 6 s to come (longer than the settle limit the test sets)."""
    time.sleep(6)
    body = b"Report ready"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _status(handler: Any) -> None:
    body = b'{"ok": true}'
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


ROUTES["/actions/slow"] = _slow
ROUTES["/actions/status"] = _status


class Driver:
    """Calls tools and checks every result against its cap."""

    def __init__(self, session: Any, site: str) -> None:
        self.session = session
        self.site = site
        self.tokens: list[tuple[str, int]] = []

    async def call(self, name: str, ok: bool = True, **args: Any) -> str:
        result = await self.session.call_tool(name, args)
        text = result_text(result)
        cap = args.get("maxTokens", DEFAULT_CAP)
        tokens = result_tokens(result)
        self.tokens.append((name, tokens))
        assert tokens <= cap, f"{name} returned {tokens} tokens > cap {cap}"
        assert bool(result.is_error) is (not ok), f"{name} {args}: {text}"
        return text

    async def open(self, page: str) -> str:
        return await self.call("browser_navigate", url=f"{self.site}/actions/{page}")

    async def ref(self, pattern: str) -> str:
        """Return the ref on the first browser_snapshot line matching ``pattern`` (regex)."""
        snap = await self.call("browser_snapshot", force=True)
        for line in snap.splitlines():
            if re.search(pattern, line):
                m = re.search(r"\[((?:f\d+)?e\d+)\]", line)
                if m:
                    return m.group(1)
        raise AssertionError(f"no ref for {pattern!r} in snapshot:\n{snap}")


@pytest.fixture
async def drv(site: str):
    async with mcp_session() as session:
        yield Driver(session, site)


@pytest.fixture
async def slow_drv(site: str):
    """A server whose actions wait up to 30 s for an element (to tell "at once" from "timed out")."""
    async with mcp_session("--timeout-action", "30000") as session:
        yield Driver(session, site)


async def test_dialog_policy_from_the_command_line(site: str) -> None:
    """``--dialogs`` sets the session's policy: here confirm is accepted and alert dismissed."""
    async with mcp_session("--dialogs", "confirm=accept,alert=dismiss") as session:
        drv = Driver(session, site)
        await drv.open("dialogs.html")
        rec = await drv.call("browser_click", target="#delete")
        assert 'Dialog confirm "Really delete your account?" → accepted (default policy' in rec, rec
        assert "+ Account deleted" in rec
        rec = await drv.call("browser_click", target="#warn")
        assert 'Dialog alert "Careful!" → dismissed (default policy)' in rec, rec


async def test_requests_in_flight_and_polling_are_reported(site: str) -> None:
    """Requests are read from the tab's capture: one still loading at the settle limit is named, and
    polling (the same URL again and again) is not waited for."""
    async with mcp_session("--settle-max-ms", "2000") as session:
        drv = Driver(session, site)
        await drv.open("busy.html")
        rec = await drv.call("browser_click", target="#slow")
        assert re.search(r"Still busy after 2 s \(1 request still loading \(\S+/actions/slow\)\)", rec), rec
        rec = await drv.call("browser_click", target="#poll")
        assert re.search(r"The network never goes quiet \(polling \S+/actions/status \(\d+ requests\)\)", rec), rec
        assert "Still busy" not in rec


async def test_form_validation_fill_form_and_select(drv: Driver) -> None:
    await drv.open("form.html")
    rec = await drv.call("browser_click", target="role=button[name='Create account']")
    assert rec.startswith('Clicked button "Create account" [e')
    assert "+ Name is required." in rec and "+ Email is required." in rec

    rec = await drv.call("browser_fill_form", fields=[
        {"target": "#name", "name": "Name", "type": "textbox", "value": "Ann"},
        {"target": "#email", "name": "Email", "type": "textbox", "value": "not-an-email"},
        {"target": "#country", "name": "Country", "type": "combobox", "value": "France"},
        {"target": "#news", "name": "News", "type": "checkbox", "value": "true"},
        {"target": "input[value=pro]", "name": "Pro", "type": "radio", "value": "true"},
        {"target": "#seats", "name": "Seats", "type": "slider", "value": "3"},
    ])
    assert rec.splitlines()[0] == "Filled 6 fields: Name, Email, Country, News, Pro, Seats."
    assert '"Ann"' in rec and "France" in rec
    assert await drv.call("browser_verify", target="#news", checked=True) == "PASS"
    assert await drv.call("browser_verify", target="#country", value="fr") == "PASS"

    rec = await drv.call("browser_click", target="text=Create account")
    assert "+ Enter a valid email address." in rec and "- Name is required." in rec
    rec = await drv.call("browser_type", target="#email", text="ann@example.com", submit=True)
    assert "Welcome, Ann! Plan pro, country fr, seats 3, news on." in rec
    assert "- Enter a valid email address." in rec

    rec = await drv.call("browser_select_option", target="#country", values=["jp"])
    assert "Selected: jp" in rec and '+ combobox "Country"' in rec.replace("select ", "combobox ") or "Japan" in rec
    out = await drv.call("browser_verify", target="#result", text="Plan free", timeout=300)
    assert out.startswith('FAIL: expected #result text to contain "Plan free", got "Welcome, Ann! Plan pro')


async def test_dialog_policy_and_handle_dialog(drv: Driver) -> None:
    await drv.open("dialogs.html")
    rec = await drv.call("browser_click", target="#delete")
    assert 'Dialog confirm "Really delete your account?" → dismissed (default policy' in rec
    assert "+ Account kept" in rec
    armed = await drv.call("browser_handle_dialog", accept=True)
    assert "next dialog will be accepted" in armed
    rec = await drv.call("browser_click", target="#delete")
    assert 'Dialog confirm "Really delete your account?" → accepted (browser_handle_dialog)' in rec
    assert "+ Account deleted" in rec
    # The armed answer is used once: the next confirm is dismissed again.
    rec = await drv.call("browser_click", target="#delete")
    assert "→ dismissed (default policy" in rec and "+ Account kept" in rec

    rec = await drv.call("browser_click", target="#ask")
    assert 'Dialog prompt "Your name?" → dismissed' in rec and "No name given" in rec
    await drv.call("browser_handle_dialog", accept=True, promptText="Ann")
    rec = await drv.call("browser_click", target="#ask")
    assert 'Dialog prompt "Your name?" → accepted with "Ann"' in rec and "+ Hello, Ann" in rec
    rec = await drv.call("browser_click", target="#warn")
    assert 'Dialog alert "Careful!" → accepted (default policy)' in rec and "+ Warned" in rec

    # An alert during load never blocks the navigation.
    t0 = time.monotonic()
    card = await drv.open("alert-on-load.html")
    assert time.monotonic() - t0 < 10
    assert "Loaded after the alert" in card
    assert await drv.call("browser_verify", text="Loaded after the alert") == "PASS"


async def test_beforeunload_after_a_click(drv: Driver) -> None:
    await drv.open("beforeunload.html")
    rec = await drv.call("browser_click", target="#edit")
    assert "+ Unsaved changes" in rec
    # Stay: dismiss the beforeunload dialog the next navigation raises.
    await drv.call("browser_handle_dialog", accept=False)
    rec = await drv.call("browser_click", target="text=Leave page")
    assert 'Dialog beforeunload "" → dismissed (browser_handle_dialog)' in rec
    assert "Navigated" not in rec
    assert await drv.call("browser_verify", url="beforeunload.html") == "PASS"
    # Default policy: leaving is allowed.
    rec = await drv.call("browser_click", target="text=Leave page")
    assert "Dialog beforeunload" in rec and "accepted (default policy)" in rec
    assert re.search(r"Navigated: \S+/beforeunload\.html → \S+/leave-target\.html \"Left the editor\"", rec)
    assert "You left the editor" in rec


async def test_popups_tabs_downloads_and_pdf(drv: Driver, tmp_path: Path) -> None:
    await drv.open("popups.html")
    rec = await drv.call("browser_click", target="text=Open help in a new tab")
    assert re.search(r'New tab \[1\] "Help" \S+/actions/popup-target\.html', rec), rec
    rec = await drv.call("browser_click", target="#open")
    assert re.search(r'New tab \[2\] "Help" \S+/popup-target\.html\?via=open', rec), rec
    rec = await drv.call("browser_click", target="#flash")
    assert re.search(r"Popup opened and closed itself: \S+/actions/self-close\.html", rec), rec

    rec = await drv.call("browser_click", target="text=Download CSV")
    m = re.search(r"Download: \"sales\.csv\", 73 B, saved to (\S+)", rec)
    assert m, rec
    saved = Path(m.group(1))
    assert saved.read_text() == (Path(__file__).parents[1] / "fixtures/actions/data.csv").read_text()
    assert "north,Q1" not in rec  # never the content
    saved.unlink()

    rec = await drv.call("browser_click", target="text=View PDF report")
    assert re.search(r"New PDF \[3\] \S+/actions/report\.pdf, 590 B", rec), rec
    listing = await drv.call("browser_tabs", action="list")
    assert listing.splitlines()[0].startswith('- 0: (current) "Popups and files"')
    assert len(listing.splitlines()) == 4
    sel = await drv.call("browser_tabs", action="select", index=1)
    assert '- 1: (current) "Help"' in sel
    assert await drv.call("browser_verify", title="Help") == "PASS"
    closed = await drv.call("browser_tabs", action="close", index=3)
    assert closed.startswith("Closed tab 3.") and "report.pdf" not in closed
    await drv.call("browser_tabs", action="select", index=0)
    bad = await drv.call("browser_tabs", ok=False, action="select", index=9)
    assert "No tab 9" in bad

    rec = await drv.call("browser_click", target="text=Open PDF here")
    assert re.search(r"Navigated: \S+/popups\.html → \S+/report\.pdf", rec), rec
    assert "PDF document, 590 B" in rec and "chrome-extension" not in rec
    rec = await drv.call("browser_navigate_back")
    assert re.search(r'Navigated: \S+/report\.pdf → \S+/popups\.html "Popups and files"', rec), rec
    new = await drv.call("browser_tabs", action="new", url=f"{drv.site}/actions/nav.html")
    assert re.search(r'- 3: \(current\) "Start page"', new), new


async def test_ref_survives_a_prepended_sibling(drv: Driver) -> None:
    await drv.open("abc.html")
    assert "Zero" not in await drv.call("browser_snapshot", force=True)
    beta = await drv.ref(r'button "Beta"')
    rec = await drv.call("browser_click", target="text=Alpha")  # arms the timer that prepends "Zero"
    assert "+ Clicked: Alpha" in rec
    rec = await drv.call("browser_wait_for", text="Zero")
    assert rec.startswith("Waited ") and "text 'Zero' appeared" in rec
    assert '+ button "Zero"' in rec or '+ button "Zero"' in (await drv.call("browser_snapshot", force=True)).replace(
        "  button", "+ button")
    rec = await drv.call("browser_click", target=beta)
    assert f'Clicked button "Beta" [{beta}]' in rec and "~ Clicked: Beta (was: Alpha)" in rec, rec
    assert await drv.call("browser_verify", target="#out", text="Clicked: Beta") == "PASS"


async def test_rerendered_list_old_refs_are_stale(slow_drv: Driver) -> None:
    drv = slow_drv
    await drv.open("rerender.html")
    banana = await drv.ref(r'"Pick Banana"')
    rec = await drv.call("browser_click", target="#refresh")
    assert "re-rendered with new refs (old refs are stale)" in rec
    t0 = time.monotonic()
    err = await drv.call("browser_click", ok=False, target=banana)
    # The server runs with a 30 s action timeout here: a stale ref fails without waiting for it.
    assert time.monotonic() - t0 < 15, "a stale ref must fail at once, not time out"
    assert err == f"Ref {banana} is stale: its element was removed or the page changed. Take a new browser_snapshot."
    made_up = await drv.call("browser_click", ok=False, target="e9999")
    assert re.fullmatch(r"Ref e9999 matches nothing on this page \(refs here go up to e\d+\): it may be mistyped\. "
                        r"Take a browser_snapshot and use a ref from it\.", made_up), made_up
    assert "mistyped" in await drv.call("browser_verify", ok=False, target="e9999", text="x")
    assert await drv.call("browser_verify", target="#out", text="Nothing picked") == "PASS"
    assert "stale" in await drv.call("browser_verify", ok=False, target=banana, text="Pick Banana")
    assert await drv.call("browser_verify", target=banana, hidden=True) == "PASS"
    fresh = await drv.ref(r'"Pick Banana"')
    assert fresh != banana
    rec = await drv.call("browser_click", target=fresh)
    assert "Picked Banana (render 2)" in rec


async def test_navigation_makes_old_refs_stale(drv: Driver) -> None:
    await drv.open("nav.html")
    press = await drv.ref(r'button "Press me"')
    link = await drv.ref(r'link "Next page"')
    rec = await drv.call("browser_click", target=link)
    assert re.search(r'Navigated: \S+/nav\.html → \S+/nav-target\.html "Next page"', rec), rec
    assert "h1 Arrived" in rec
    err = await drv.call("browser_click", ok=False, target=press)
    assert f"Ref {press} is stale" in err
    assert await drv.call("browser_verify", target="text=Press me", text="Press me") == "PASS"


async def test_eventsource_never_quiet_is_reported_not_waited_out(drv: Driver) -> None:
    await drv.open("sse.html")
    await drv.call("browser_wait_for", text="Update 2")
    rec = await drv.call("browser_click", target="#like")
    # Settling stops on its own (the stream is named, not waited out to the 5 s limit).
    assert re.search(r"The network never goes quiet \(EventSource[^)]*\(\d+ messages? while settling\)\); "
                     r"(stopped waiting after \d\.\d s|not waited for)\.", rec), rec
    assert "Still busy" not in rec
    assert "+ You liked this" in rec


async def test_contenteditable_and_code_editor_read_back(drv: Driver) -> None:
    await drv.open("editors.html")
    rec = await drv.call("browser_type", target="#notes", text="Second note")
    assert 'It now shows: "Second note"' in rec and "Warning" not in rec
    await drv.call("browser_click", target="#notes")
    await drv.call("browser_press_key", key="End")
    rec = await drv.call("browser_type", target="#notes", text=" and more", slowly=True)
    assert 'It now shows: "Second note and more"' in rec
    code = await drv.ref(r'textbox "Code"')
    rec = await drv.call("browser_type", target=code, text="let x = 1;")
    assert "Not a form field (a code editor?): clicked it, its text selected and typed over with the keyboard." in rec
    assert 'It now shows: "let x = 1;"' in rec and "Warning" not in rec
    assert await drv.call("browser_verify", target=code, text="let x = 1;") == "PASS"
    assert await drv.call("browser_verify", target="#code-input", value="") == "PASS"


async def test_typing_into_a_terminal_that_reads_keydown_goes_key_by_key(drv: Driver) -> None:
    """A terminal takes its keys from ``keydown`` on a hidden input its click focuses: text inserted at once
    reaches nothing there, and a Ctrl+A (select all) would be typed as an "a": the text goes key by key, nothing
    selected first."""
    await drv.open("terminal.html")
    terminal = await drv.ref(r'clickable "Type help')
    rec = await drv.call("browser_type", target=terminal, text="ls", submit=True)
    assert "its keys go to a hidden input: typed key by key." in rec, rec
    assert "$ ls notes.txt report.pdf $" in rec, rec


async def test_bad_input_errors_and_page_stays_usable(drv: Driver) -> None:
    await drv.open("misc.html")
    err = await drv.call("browser_click", ok=False, target=".buy")
    assert err.startswith("'.buy' matches 4 elements; actions need exactly one: button \"Buy\" [e")
    assert err.count('button "Buy" [e') == 3 and "1 more visible" in err
    err = await drv.call("browser_click", ok=False, target="#disabled")
    assert "it is disabled" in err
    err = await drv.call("browser_click", ok=False, target="#covered")
    assert 'it is covered by <div id="banner" class="cookie-banner">' in err and "intercepts pointer events" in err
    err = await drv.call("browser_click", ok=False, target="#nothing-here")
    assert "No element matches '#nothing-here'" in err
    err = await drv.call("browser_click", ok=False, target="div[[")
    assert "selector" in err.lower()
    err = await drv.call("browser_press_key", ok=False, key="NoSuchKey")
    assert "Unknown key 'NoSuchKey'" in err
    err = await drv.call("browser_wait_for", ok=False, text="Never shown", time=1)
    assert err.startswith("Timed out after 1 s waiting for text 'Never shown' to appear")
    err = await drv.call("browser_verify", ok=False)
    assert "Nothing to verify" in err
    err = await drv.call("browser_click", ok=False, target="#ok", modifiers=["Hyper"])
    assert "modifiers must be among" in err

    rec = await drv.call("browser_click", target="#load")
    assert "Console errors: 2 new — Loading failed: backend unavailable" in rec
    assert re.search(r"Failed requests: 1 new — GET \S+/actions/missing\.json → 404", rec)
    assert "+ Error 404" in rec
    rec = await drv.call("browser_hover", target="text=Menu")
    assert "+ Tip: shortcuts live here" in rec
    rec = await drv.call("browser_click", target="#ok")
    assert "- We use cookies" in rec
    rec = await drv.call("browser_click", target="#covered")
    assert rec == 'Clicked button "Under the banner" [' + rec.split("[", 1)[1].split("]")[0] + "]. No visible change."
    assert await drv.call("browser_verify", target="#status", text="Error 404") == "PASS"


async def test_wait_for_and_verify_checks(drv: Driver) -> None:
    await drv.open("abc.html?delay=200")
    await drv.call("browser_click", target="text=Alpha")
    rec = await drv.call("browser_wait_for", target="text=Zero", state="visible")
    assert "text=Zero is visible" in rec
    assert await drv.call("browser_verify", target="#buttons button", count=4) == "PASS"
    out = await drv.call("browser_verify", target="#buttons button", count=3, timeout=200)
    assert out == "FAIL: expected #buttons button to match 3 elements, got 4"
    assert await drv.call("browser_verify", url="/actions/abc.html", title="Alpha") == "PASS"
    out = await drv.call("browser_verify", title="Omega", timeout=200)
    assert out == 'FAIL: expected title to contain "Omega", got "Alpha Beta Gamma"'
    out = await drv.call("browser_verify", text="Clicked: Gamma", timeout=200)
    assert out == 'FAIL: expected visible text "Clicked: Gamma" on the page, got no such visible text; closest: ' \
                  '"Clicked: Alpha"'
    assert await drv.call("browser_verify", target="text=Beta", enabled=True, visible=True) == "PASS"
    out = await drv.call("browser_verify", target="text=Beta", enabled=False, timeout=200)
    assert out == "FAIL: expected text=Beta to be disabled, got enabled"
    err = await drv.call("browser_verify", ok=False, target="#buttons button", text="Beta")
    assert "matches 4 elements" in err
    rec = await drv.call("browser_wait_for", time=0.3)
    assert rec.startswith("Waited 0.3 s")
    await drv.call("browser_click", target="text=Gamma")
    rec = await drv.call("browser_wait_for", textGone="Clicked: Alpha", time=2)
    assert "is gone" in rec


async def test_small_cap_and_close(drv: Driver) -> None:
    await drv.open("todo.html")
    for i in range(12):
        await drv.call("browser_type", target="#title", text=f"Task number {i} with a fairly long title", submit=True)
    rec = await drv.call("browser_click", target="text=Completed", maxTokens=200)
    assert rec.startswith('Clicked button "Completed"')
    closed = await drv.call("browser_close")
    assert "Browser closed" in closed
    card = await drv.open("todo.html")
    assert "Todos" in card
