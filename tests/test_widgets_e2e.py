"""Acting on real widgets, end to end through the real MCP stdio client and a real Chromium.

The component-library app (``fixtures/apps/shop``: Radix Select, MUI Select, react-select multi,
react-datepicker, sonner) and small pages under ``fixtures/widgets/`` reproduce the failures of
issue 14: custom selects and comboboxes, date-picker day cells without refs, date inputs erased by a
locale form, file inputs hidden behind a label or a styled button, verify on custom widgets, readonly
and disabled fields, and names changed by CSS ``text-transform``. Every ref comes from a
``browser_snapshot`` or an action record; no test uses ``browser_evaluate``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.client import mcp_session, result_text, result_tokens

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: maxTokens every call here is checked against (the server default).
DEFAULT_CAP = 2000
APP = "apps/shop/dist/index.html"
#: A snapshot line's ref: ``[e12]`` (ours).
_REF = r"\[((?:f\d+)?e\d+)\]"


class Driver:
    """Calls tools, checks each result against its cap and error flag, and finds refs in what came back."""

    def __init__(self, session: Any, site: str) -> None:
        self.session = session
        self.site = site
        self.calls: list[tuple[str, int]] = []
        self.last = ""

    async def call(self, name: str, ok: bool = True, **args: Any) -> str:
        assert name != "browser_evaluate", "widgets must work without browser_evaluate"
        result = await self.session.call_tool(name, args)
        text = result_text(result)
        tokens = result_tokens(result)
        self.calls.append((name, tokens))
        assert tokens <= args.get("maxTokens", DEFAULT_CAP), f"{name}: {tokens} tokens"
        assert bool(result.is_error) is (not ok), f"{name} {args}: {text}"
        self.last = text
        return text

    async def ref(self, pattern: str, *, snapshot: bool = True) -> str:
        """The ref on the first line matching ``pattern`` (a regex on the line before its ref), in the last
        result, else in a fresh ``browser_snapshot``."""
        texts = [self.last]
        if snapshot:
            texts.append("")
        for i, text in enumerate(texts):
            if i == 1:
                text = await self.call("browser_snapshot", force=True)
            m = re.search(pattern + r"[^\n]*?" + _REF, text)
            if m:
                return m.group(m.lastindex or 1)
        raise AssertionError(f"no ref for {pattern!r} in:\n{self.last}")


@pytest.fixture
async def drv(site: str):
    async with mcp_session() as session:
        yield Driver(session, site)


async def test_shop_order_with_refs_only(drv: Driver) -> None:
    """The "done when" order: fill the form, choose a country, two tags and a date, submit, verify the toast,
    with refs from browser_snapshot and records only."""
    card = await drv.call("browser_navigate", url=f"{drv.site}/{APP}")
    # The card counts native selects apart from comboboxes (the app has none of the former).
    assert "selects" not in card or "0 selects" in card, card
    await drv.call("browser_snapshot")
    name, email = await drv.ref(r'textbox "Full name"'), await drv.ref(r'textbox "Email"')
    country = await drv.ref(r'combobox(?: "Country")? ', snapshot=False)
    tags, submit = await drv.ref(r'combobox "Tags"', snapshot=False), await drv.ref(r'(?i)button "Place order"')
    date = await drv.ref(r'textbox "Delivery date"')
    rec = await drv.call("browser_fill_form", fields=[
        {"target": name, "name": "Full name", "type": "textbox", "value": "Ada Lovelace"},
        {"target": email, "name": "Email", "type": "textbox", "value": "ada@example.com"},
        {"target": country, "name": "Country", "type": "combobox", "value": "Spain"},
    ])
    assert rec.startswith("Filled 3 fields: Full name, Email, Country") and 'Country: now shows: "Spain"' in rec, rec
    rec = await drv.call("browser_select_option", target=tags, values=["Gift", "express"])
    assert 'Now shows: "Gift, Express"' in rec, rec
    await drv.call("browser_click", target=date)
    day = await drv.ref(r'gridcell "Choose Tuesday, December 15th, 2026"')
    await drv.call("browser_click", target=day)
    assert await drv.call("browser_verify", target=date, value="2026-12-15") == "PASS"
    assert await drv.call("browser_verify", target=country, value="Spain") == "PASS"
    assert await drv.call("browser_verify", target=tags, value="Express, Gift") == "PASS"  # any order
    rec = await drv.call("browser_click", target=submit)
    # The name is the accessible one, not the upper-case text CSS shows.
    assert rec.startswith(f'Clicked button "Place order" [{submit}]'), rec
    assert await drv.call("browser_verify", text="Order placed") == "PASS"
    assert await drv.call("browser_verify", text="Last order: Ada Lovelace, Spain, Gift + Express, 2026-12-15") \
        == "PASS"
    assert await drv.call("browser_verify", text="Order placed", hidden=True) == "PASS"  # the toast goes
    assert len(drv.calls) <= 16 and sum(t for _, t in drv.calls) < 4000, drv.calls


async def test_shop_selects_report_and_refuse(drv: Driver) -> None:
    """MUI Select by accessible name (case-insensitive); a missing option lists the real ones and changes
    nothing; a form failing halfway names what was filled and what was skipped."""
    await drv.call("browser_navigate", url=f"{drv.site}/{APP}")
    size = await drv.ref(r'combobox "Size"')
    country = await drv.ref(r'combobox(?: "Country")? ', snapshot=False)
    name = await drv.ref(r'textbox "Full name"', snapshot=False)
    rec = await drv.call("browser_select_option", target=size, values=["large"])
    assert 'Now shows: "Large"' in rec, rec
    assert await drv.call("browser_verify", target=size, value="Large") == "PASS"
    got = await drv.call("browser_verify", target=size, value="Small", timeout=300)
    assert got == 'FAIL: expected ' + size + ' value to be "Small", got "Large"', got
    err = await drv.call("browser_select_option", ok=False, target=country, values=["Narnia"])
    assert err == (f'No option "Narnia" in combobox "Country" [{country}]; its options: "France", "Germany", '
                   '"Italy", "Portugal", "Spain", "Sweden". Nothing was chosen.'), err
    assert await drv.call("browser_verify", target=country, value="") == "PASS"  # still the placeholder
    err = await drv.call("browser_fill_form", ok=False, fields=[
        {"target": name, "name": "Full name", "type": "textbox", "value": "Ada"},
        {"target": country, "name": "Country", "type": "combobox", "value": "Atlantis"},
        {"target": size, "name": "Size", "type": "combobox", "value": "Small"},
    ])
    assert err.startswith("Filled 'Full name'; failed 'Country': No option \"Atlantis\""), err
    assert err.endswith("skipped (not tried): 'Size'. Fix that field and send it and the skipped ones."), err
    assert await drv.call("browser_verify", target=size, value="Large") == "PASS"  # the skipped field untouched


async def test_comboboxes_and_listbox(drv: Driver) -> None:
    """``<input role=combobox>`` with suggestions, ``div[role=combobox]`` with a portal listbox, a listbox
    alone and a native select: one way to choose, through fill_form and select_option alike."""
    await drv.call("browser_navigate", url=f"{drv.site}/widgets/choose.html")
    city, fruit = await drv.ref(r'combobox "City"'), await drv.ref(r'combobox "Fruit"', snapshot=False)
    pet = await drv.ref(r'select "Pet"', snapshot=False)
    rec = await drv.call("browser_fill_form", fields=[
        {"target": city, "name": "City", "type": "combobox", "value": "paris"},
        {"target": fruit, "name": "Fruit", "type": "combobox", "value": "Mango"},
        {"target": pet, "name": "Pet", "type": "combobox", "value": "Dog"},
    ])
    assert 'City: now shows: "Paris"; Fruit: now shows: "Mango"; Pet: now shows: "Dog"' in rec, rec
    rec = await drv.call("browser_select_option", target="#colour", values=["Blue"])
    assert 'Now shows: "Blue"' in rec, rec
    for target, value in ((city, "Paris"), (fruit, "Mango"), (pet, "Dog"), ("#colour", "Blue")):
        assert await drv.call("browser_verify", target=target, value=value) == "PASS", target
    err = await drv.call("browser_select_option", ok=False, target=city, values=["Narnia"])
    assert 'its options: "Amsterdam", "Athens", "Berlin", "Bern", "Lisbon", "London", "Madrid", "Paris", "Rome", ' \
        '"Vienna". Nothing was chosen.' in err, err
    err = await drv.call("browser_select_option", ok=False, target=fruit, values=["Kiwi"])
    assert err.endswith('its options: "Apple", "Banana", "Cherry", "Mango". Nothing was chosen.'), err
    assert await drv.call("browser_verify", target=city, value="Paris") == "PASS"  # the typed filter put back
    assert await drv.call("browser_verify", target=fruit, value="Mango") == "PASS"
    assert await drv.call("browser_text", target="#out") == "Colour: Blue"


async def test_dates_and_field_states(drv: Driver) -> None:
    """Date inputs take ISO and unambiguous locale forms and refuse the rest without erasing; readonly,
    disabled and covered fields are distinct errors naming the element; contenteditable verify."""
    await drv.call("browser_navigate", url=f"{drv.site}/widgets/dates.html")
    start = await drv.ref(r'"Start date"')
    rec = await drv.call("browser_type", target=start, text="03/15/2025")
    assert "Entered as 2025-03-15 (the date input's ISO form)." in rec and "Warning" not in rec, rec
    err = await drv.call("browser_type", ok=False, target=start, text="03/04/2025")
    assert err == "'03/04/2025' is ambiguous (day and month could be swapped); give the date as YYYY-MM-DD.", err
    assert await drv.call("browser_verify", target=start, value="2025-03-15") == "PASS"  # not erased
    await drv.call("browser_fill_form", fields=[
        {"target": "#t", "name": "Start time", "type": "textbox", "value": "2:30 PM"},
        {"target": "#dt", "name": "Meeting", "type": "textbox", "value": "15.03.2025 14:30"},
        {"target": "#m", "name": "Month", "type": "textbox", "value": "March 2025"},
        {"target": "#w", "name": "Week", "type": "textbox", "value": "2025-W11"},
    ])
    for target, value in (("#t", "14:30"), ("#dt", "2025-03-15T14:30"), ("#m", "2025-03"), ("#w", "2025-W11")):
        assert await drv.call("browser_verify", target=target, value=value) == "PASS", target

    await drv.call("browser_navigate", url=f"{drv.site}/widgets/states.html")
    coupon, reference = await drv.ref(r'textbox "Coupon"'), await drv.ref(r'textbox "Reference"', snapshot=False)
    err = await drv.call("browser_type", ok=False, target=coupon, text="FREE")
    assert err == f'Could not type into textbox "Coupon" [{coupon}]: it is readonly; its value is set by the page, ' \
        "not typed.", err
    err = await drv.call("browser_type", ok=False, target=reference, text="R-2")
    assert err.startswith(f'Could not type into textbox "Reference" [{reference}]: it is disabled.'), err
    rec = await drv.call("browser_type", target="#editor", text="Bonjour")
    assert 'It now shows: "Bonjour"' in rec and "Not a form field" not in rec, rec
    assert await drv.call("browser_verify", target="#editor", value="Bonjour") == "PASS"
    assert await drv.call("browser_verify", target="#editor", value="Hello", timeout=300) \
        == 'FAIL: expected #editor value to be "Hello", got "Bonjour"'
    assert await drv.call("browser_verify", text="Nothing like this", hidden=True) == "PASS"
    assert await drv.call("browser_verify", text="Field states", hidden=True, timeout=300) \
        == 'FAIL: expected no visible text "Field states" on the page, got "Field states" still shown'
    await drv.call("browser_click", target="#cover-it")
    go = await drv.ref(r'button "Go"')
    err = await drv.call("browser_click", ok=False, target=go)
    assert err.startswith(f'Could not click button "Go" [{go}]: it is covered by <div id="cover"'), err


async def test_file_inputs_wherever_they_hide(site: str, tmp_path: Path) -> None:
    """A file input behind a label (display:none, hidden) is in the snapshot and takes files through its
    ref or its label; a styled button's file chooser is answered, also untargeted after a click."""
    cv, photo = tmp_path / "cv.txt", tmp_path / "photo.png"
    cv.write_bytes(b"curriculum")
    photo.write_bytes(b"\x89PNG....")
    async with mcp_session("--allowed-roots", str(tmp_path)) as session:
        drv = Driver(session, site)
        await drv.call("browser_navigate", url=f"{site}/widgets/files.html")
        snap = await drv.call("browser_snapshot")
        assert re.search(r'file input "Upload CV" \(via label\) \[e\d+\]', snap), snap
        assert re.search(r'file input "Add photos" \(via label\) \[e\d+\]', snap), snap
        ref = await drv.ref(r'file input "Upload CV"', snapshot=False)
        err = await drv.call("browser_file_upload", ok=False, paths=[str(cv)])
        assert err == ("The page has 2 file inputs; pass target: a file input, its label, or the button that "
                       "opens the file chooser."), err
        got = await drv.call("browser_file_upload", paths=[str(cv)], target=ref)
        assert got == 'Set 1 file on file input "Upload CV" (#cv): cv.txt (10 bytes).', got
        got = await drv.call("browser_file_upload", paths=[str(cv), str(photo)], target="text=Add photos")
        assert got == ('Set 2 files on file input "Add photos" (#photos) (via label): cv.txt (10 bytes), '
                       'photo.png (8 bytes).'), got
        err = await drv.call("browser_file_upload", ok=False, paths=[str(cv), str(photo)], target=ref)
        assert "takes one file" in err, err
        attach = await drv.ref(r'button "Attach a file"')
        got = await drv.call("browser_file_upload", paths=[str(photo)], target=attach)
        assert got == "Set 1 file on file input (via file chooser): photo.png (8 bytes).", got
        err = await drv.call("browser_file_upload", ok=False, paths=[str(cv)], target="#nothing")
        assert "clicking it opened no file chooser" in err and "Error:" not in err, err
        rec = await drv.call("browser_click", target=attach)
        assert "A file chooser opened (for a file); answer it with browser_file_upload" in rec, rec
        got = await drv.call("browser_file_upload", paths=[str(cv)])
        assert got == "Set 1 file on file input (via file chooser): cv.txt (10 bytes).", got
        text = await drv.call("browser_text", target="#got")
        assert text.splitlines() == ["- CV: cv.txt (10 bytes)", "- Photos: cv.txt (10 bytes)",
                                     "- Photos: photo.png (8 bytes)", "- Attachment: photo.png (8 bytes)",
                                     "- Attachment: cv.txt (10 bytes)"], text


async def test_a_selector_target_is_resolved_once_and_kept_while_the_action_runs(drv: Driver) -> None:
    """Radix Select marks everything outside its open listbox aria-hidden, so role=combobox[name="Country"] stops
    matching its own trigger once the listbox opens (issue 26 item 2): the selector is resolved to one element
    before acting and that element is used throughout."""
    await drv.call("browser_navigate", url=f"{drv.site}/{APP}")
    target = 'role=combobox[name="Country"]'
    rec = await drv.call("browser_select_option", target=target, values=["Spain"])
    assert 'Now shows: "Spain"' in rec, rec
    assert await drv.call("browser_verify", target=target, value="Spain") == "PASS"
    missing = await drv.session.call_tool("browser_select_option", {"target": target, "values": ["Atlantis"]})
    assert missing.is_error and "Atlantis" in result_text(missing) and "Spain" in result_text(missing), \
        result_text(missing)
    assert await drv.call("browser_verify", target=target, value="Spain") == "PASS"  # nothing else changed
