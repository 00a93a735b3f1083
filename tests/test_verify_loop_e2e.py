"""The verify loop end to end (issue 13) through the real MCP stdio client and a real Chromium: a read is
"Unchanged" only when the page within its target is, ``since`` answers only what changed, records name
the element that went, and transient UI (toasts, status messages, dialogs) is reported once it is gone."""

from __future__ import annotations

import re

import anyio
import pytest

from tests.support.client import mcp_session, result_text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def _set(s, selector: str, code: str) -> None:
    """Change the page in place, as a hot reload would (``el`` is the element ``selector`` finds)."""
    result = await s.call_tool("browser_evaluate", {"function": f"() => {{ const el = document.querySelector("
                                                                f"{selector!r}); {code}; return true; }}"})
    assert not result.is_error, result_text(result)


async def _changed(s, args: dict, fp: str) -> str:
    result = await s.call_tool("browser_snapshot", args)
    assert not result.is_error, result_text(result)
    assert not result.structured_content.get("unchanged"), result_text(result)
    assert result.structured_content["fingerprint"] != fp
    return result.structured_content["fingerprint"]


async def test_unchanged_only_when_the_page_is(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/verify/page.html"})
        args = {"maxTokens": 300}
        first = await s.call_tool("browser_snapshot", args)
        text = result_text(first)
        assert "Item 40 " not in text and "Tail text" not in text  # folded and cut away
        read = await s.call_tool("browser_text", {"maxTokens": 200})
        assert read.structured_content["truncated"] is True and "Tail text" not in result_text(read)
        fp = first.structured_content["fingerprint"]
        again = await s.call_tool("browser_snapshot", args)
        assert again.structured_content["unchanged"] is True and again.structured_content["fingerprint"] == fp

        await _set(s, "#items li:nth-child(40)", "el.textContent = 'Item 40 renamed by a reload'")
        fp = await _changed(s, args, fp)  # an item inside the folded run
        await _set(s, "#tail", "el.textContent = 'Tail text version two'")
        fp = await _changed(s, args, fp)  # text beyond the cap
        reread = await s.call_tool("browser_text", {"maxTokens": 200})
        assert not reread.structured_content.get("unchanged")  # beyond the token cap of browser_text
        assert reread.structured_content["fingerprint"] != read.structured_content["fingerprint"]
        await _set(s, "#dlg-text", "el.textContent = 'Dialog text version two'")
        fp = await _changed(s, args, fp)  # text inside the open dialog
        await _set(s, "#notes", "el.value = el.value + 'x'")
        fp = await _changed(s, args, fp)  # a form value past what the walker keeps
        same = await s.call_tool("browser_snapshot", args)
        assert same.structured_content["unchanged"] is True and same.structured_content["fingerprint"] == fp

        # A page larger than a bounded read collects: a change in the part never walked still counts.
        await _set(s, "main", "for (let i = 0; i < 8000; i++) { const p = document.createElement('p'); "
                              "p.id = 'p' + i; p.textContent = 'Paragraph ' + i + ' of a very long page, with words'; "
                              "el.appendChild(p); }")
        big = await s.call_tool("browser_snapshot", args)
        assert big.structured_content.get("partial"), big.structured_content  # the walk stopped early
        fp = big.structured_content["fingerprint"]
        await _set(s, "#p7990", "el.textContent = 'Paragraph changed at the very end'")
        fp = await _changed(s, args, fp)


async def test_since_returns_only_what_changed(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/verify/rows.html"})
        first = await s.call_tool("browser_snapshot", {})
        fp = first.structured_content["fingerprint"]
        refs = re.findall(r'button "Delete" \[(e\d+)\]', result_text(first))
        assert len(refs) == 3, result_text(first)

        await _set(s, "tbody tr:nth-child(2)", "el.remove()")
        await _set(s, "h1", "el.textContent = 'Rows (2)'")
        diff = await s.call_tool("browser_snapshot", {"since": fp})
        text = result_text(diff)
        assert not diff.is_error, text
        assert text.startswith(f"Changes since {fp}"), text
        gone = [line for line in text.splitlines() if line.startswith("- ") and f"[{refs[1]}]" in line]
        assert gone and "1002" in gone[0], text
        assert f"[{refs[0]}]" not in text and f"[{refs[2]}]" not in text
        assert "Rows (2)" in text and "1002" in text and "1001" not in text
        now = diff.structured_content["fingerprint"]
        assert now != fp and diff.structured_content["since"] == fp
        assert len(text) < len(result_text(first))

        same = await s.call_tool("browser_snapshot", {"since": now})
        assert same.structured_content["unchanged"] is True
        assert result_text(same).startswith(f"Unchanged since {now}")

        unknown = await s.call_tool("browser_snapshot", {"since": "0123456789ab"})
        assert unknown.is_error and "\n" not in result_text(unknown)
        assert "take a full read" in result_text(unknown)
        other_target = await s.call_tool("browser_snapshot", {"since": now, "target": "table"})
        assert other_target.is_error and "take a full read" in result_text(other_target)

        t1 = await s.call_tool("browser_text", {"target": "table"})
        await _set(s, "tbody tr:first-child td:nth-child(2)", "el.textContent = 'Ada Lovelace'")
        t2 = await s.call_tool("browser_text", {"target": "table", "since": t1.structured_content["fingerprint"]})
        text = result_text(t2)
        assert "Ada Lovelace" in text and "Cy" not in text, text


async def test_records_name_the_row_whose_button_went(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/verify/rows.html"})
        refs = re.findall(r'button "Delete" \[(e\d+)\]', result_text(await s.call_tool("browser_snapshot", {})))
        record = result_text(await s.call_tool("browser_click", {"target": refs[1]}))
        gone = [line for line in record.splitlines() if line.startswith("- ")]
        assert gone and all(f"[{refs[1]}]" in line or "1002" in line or "rows" in line for line in gone), record
        assert f"[{refs[0]}]" not in record and f"[{refs[2]}]" not in record, record


async def test_transient_ui_is_reported_once(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/verify/transient.html"})
        # A toast 300 ms after the click, gone 400 ms later: in the record, or (the record came first) in the
        # next call, once.
        record = result_text(await s.call_tool("browser_click", {"target": "#save"}))
        await anyio.sleep(1.0)
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        told = [t for t in (record, snap) if 'Shown and gone: toast "Saved after retry" (' in t]
        assert len(told) == 1, (record, snap)
        assert "hidden detail" not in record + snap  # hidden text never reaches the model, in the journal either
        assert "Shown and gone" not in result_text(await s.call_tool("browser_snapshot", {"force": True}))

        # Between calls: a modal dialog opened and closed, an alert shown and cleared; the next read says so.
        await s.call_tool("browser_evaluate", {"function": "() => { document.getElementById('flash').click(); "
                                                           "document.getElementById('alert').click(); }"})
        await anyio.sleep(1.0)
        read = await s.call_tool("browser_text", {})
        text = result_text(read)
        assert re.search(r'dialog "Session expiring" \((0\.\d|1\.0) s\)', text), text  # shown 0.5 s
        assert re.search(r'alert "Card declined" \((0\.\d|1\.0) s\)', text), text  # shown 0.3 s
        notes = [c.text for c in read.content if c.type == "text"][0]  # notes travel in a text block first
        assert "Shown and gone" in notes and "notes" not in (read.structured_content or {}), read
        again = await s.call_tool("browser_text", {"force": True})
        assert "Shown and gone" not in result_text(again)

        # Every frame, and every new document (the journal is an init script of the context).
        await s.call_tool("browser_navigate", {"url": f"{site}/verify/framed.html"})
        await s.call_tool("browser_evaluate", {"function": "() => { document.querySelector('iframe')"
                                                           ".contentDocument.getElementById('save').click(); }"})
        await anyio.sleep(1.2)
        framed = result_text(await s.call_tool("browser_snapshot", {}))
        assert re.search(r'Shown and gone: toast "Saved after retry" in frame f\d+ \(', framed), framed


SHOP = "apps/shop/dist/index.html"


async def test_shop_toast_status_and_modal(site: str) -> None:
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/{SHOP}"})
        # The sonner toast comes ~900 ms after a valid submit and lives ~1.5 s.
        await s.call_tool("browser_fill_form", {"fields": [
            {"target": 'role=textbox[name="Full name"]', "name": "Full name", "type": "textbox", "value": "Ada"},
            {"target": 'role=textbox[name="Email"]', "name": "Email", "type": "textbox", "value": "ada@example.com"}]})
        await s.call_tool("browser_click", {"target": 'role=button[name="Place order"]'})
        waited = result_text(await s.call_tool("browser_wait_for", {"time": 3}))  # the next call reports it
        assert "Shown and gone:" in waited and '"Order placed"' in waited, waited

        # The Help tab's status message, cleared after 1.5 s: reported by the next read once gone.
        await s.call_tool("browser_click", {"target": 'role=tab[name="Help"]'})
        record = result_text(await s.call_tool("browser_click", {"target": 'role=button[name="Check status"]'}))
        assert "Saved after retry" in record, record
        await anyio.sleep(1.6)
        snap = result_text(await s.call_tool("browser_snapshot", {}))
        assert re.search(r'Shown and gone: status "Saved after retry" \(1\.\d s\)', snap), snap

        # The Radix modal hides the page behind it: one line, not the whole page removed and re-added.
        await s.call_tool("browser_click", {"target": 'role=tab[name="Order"]'})
        opened = result_text(await s.call_tool("browser_click", {"target": 'role=button[name="Read terms"]'}))
        assert 'dialog "Terms of service" opened; page behind it hidden from assistive technology' in opened, opened
        assert "\n- " not in opened, opened
        closed = result_text(await s.call_tool("browser_click", {"target": 'role=button[name="Close"]'}))
        assert 'dialog "Terms of service" closed; page behind it shown again' in closed, closed
        assert "\n+ " not in closed, closed

        # A select's own option list opens and goes with it: not a toast.
        form = result_text(await s.call_tool("browser_snapshot", {}))
        country = re.search(r'combobox(?: "Country")? [^\n]*?\[(e\d+)\]', form)
        assert country, form
        chosen = result_text(await s.call_tool("browser_select_option", {
            "target": country.group(1), "values": ["Spain"]}))
        after = chosen + result_text(await s.call_tool("browser_snapshot", {}))
        assert "Spain" in chosen, chosen
        assert "Shown and gone" not in after or "Germany" not in after.split("Shown and gone", 1)[1], after
