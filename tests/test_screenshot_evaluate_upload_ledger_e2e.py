"""End-to-end tests of the screenshot, evaluate, upload, resize and ledger tools through the real
MCP stdio client and a real Chromium: screenshots sized to an image-token budget (HiDPI, 20,000-px
pages), bounded evaluate (cycles, DOM nodes, 10 MB strings, thrown errors, a CSP page), uploads
restricted to allowed roots, resize, and the session ledger adding up with the calls made."""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

import pytest
from PIL import Image

from browser_ctx.core.images import MAX_SIDE, estimate_tokens
from browser_ctx.server.tools.ledger import BASELINE_IDLE_S
from tests.support.client import mcp_session, result_text, result_tokens
from tests.support.site import FIXTURES, ROUTES

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

RED = (220, 38, 38)  # #card in fixtures/extra/shot.html
BLUE_BAND = (29, 78, 216)  # odd bands of fixtures/extra/tall.html
RED_BAND = (185, 28, 28)  # even bands


def _csp_page(handler) -> None:
    """fixtures/extra/csp.html served with ``Content-Security-Policy: script-src 'self'``."""
    body = (FIXTURES / "extra" / "csp.html").read_bytes()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Security-Policy", "script-src 'self'")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


ROUTES["/extra/csp"] = _csp_page


def the_image(result) -> Image.Image:
    """Decode the one ImageContent block of a result with Pillow."""
    blocks = [c for c in result.content if c.type == "image"]
    assert len(blocks) == 1, result_text(result)
    image = Image.open(io.BytesIO(base64.b64decode(blocks[0].data)))
    image.load()
    assert image.format is not None and blocks[0].mime_type == f"image/{image.format.lower()}"
    return image


def near(pixel, colour, tolerance=12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=False))


def check_budget(result, budget: int) -> Image.Image:
    """The image decodes, its size is the one reported, and both estimates are within ``budget``."""
    assert not result.is_error, result_text(result)
    meta = result.structured_content
    image = the_image(result)
    assert (image.width, image.height) == (meta["width"], meta["height"])
    assert meta["estimatedImageTokens"] == estimate_tokens(image.width, image.height) <= budget
    assert meta["imageTokenBudget"] == budget
    assert max(image.size) <= MAX_SIDE
    text = result_text(result)
    assert f"estimatedImageTokens {meta['estimatedImageTokens']}" in text and f"{image.width}×{image.height} px" in text
    return image


async def test_screenshots_of_page_and_element_fit_the_budget(site):
    async with mcp_session("--caps", "all") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})

        viewport = check_budget(await s.call_tool("browser_take_screenshot", {}), 1000)
        assert viewport.format == "PNG"
        assert abs(viewport.width / viewport.height - 1280 / 800) < 0.01  # the whole viewport, downscaled
        assert viewport.width < 1280

        small = await s.call_tool("browser_take_screenshot", {"maxTokens": 200, "type": "jpeg"})
        image = check_budget(small, 200)
        assert image.format == "JPEG" and image.width < viewport.width
        assert result_tokens(small) < 150  # the text line and metadata stay small

        card = await s.call_tool("browser_take_screenshot", {"target": "#card"})
        image = check_budget(card, 1000)
        assert image.width == 300 and abs(image.height - 200) <= 1 and card.structured_content["scale"] == 1.0
        assert near(image.getpixel((150, 100)), RED) and near(image.getpixel((3, 3)), RED)

        webp = check_budget(await s.call_tool("browser_take_screenshot", {"target": "#card", "type": "webp",
                                                                           "maxTokens": 60}), 60)
        assert webp.format == "WEBP" and webp.width < 300 and near(webp.getpixel((webp.width // 2, 5)), RED, 20)

        for args, words in (({"target": "#nope"}, "No element"), ({"target": "p"}, "matches 2"),
                            ({"target": "#card", "fullPage": True}, "fullPage")):
            err = await s.call_tool("browser_take_screenshot", args)
            assert err.is_error and words in result_text(err) and "\n" not in result_text(err)


async def test_hidpi_screenshots_use_device_pixels_only_when_asked(site):
    async with mcp_session("--caps", "all", "--device", "Desktop Chrome HiDPI") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        css = await s.call_tool("browser_take_screenshot", {"target": "#card"})
        image = check_budget(css, 1000)
        assert css.structured_content["deviceScaleFactor"] == 2
        assert image.width == 300 and abs(image.height - 200) <= 1  # css scale: one image px per CSS px

        device = await s.call_tool("browser_take_screenshot", {"target": "#card", "scale": "device"})
        image = check_budget(device, 1000)
        assert image.width == 600 and abs(image.height - 400) <= 2  # every device pixel
        assert near(image.getpixel((300, 200)), RED)

        big = await s.call_tool("browser_take_screenshot", {"scale": "device", "maxTokens": 4000})
        image = check_budget(big, 4000)
        assert image.width > 1280  # more than CSS pixels: the device's
        assert abs(image.width / image.height - 1280 / 720) < 0.01  # the device's 1280x720 viewport
        small = check_budget(await s.call_tool("browser_take_screenshot", {"scale": "device"}), 1000)
        assert small.width < 1280  # downscaled from 2560 to the budget


async def test_full_page_of_a_20000px_page_stays_within_8000px(site):
    async with mcp_session("--caps", "vision", "--caps", "core", "--device", "Desktop Chrome HiDPI",
                           "--max-image-tokens", "1000000") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/tall.html"})
        assert (await s.call_tool("browser_take_screenshot", {"maxTokens": 999_999})).structured_content[
            "height"] == 720  # the viewport alone is small

        # A budget too big to bind: the 8,000-px side limit does, on a 40,000-device-px page.
        full = await s.call_tool("browser_take_screenshot", {"fullPage": True, "scale": "device",
                                                             "maxTokens": 999_999})
        image = check_budget(full, 999_999)
        assert image.height == MAX_SIDE and abs(image.width - 1280 * MAX_SIDE / 20000) <= 1
        assert "1280×20000 CSS px" in result_text(full)
        for band in range(20):  # every band is there, in order: downscaled, not cut or tiled
            y = int(image.height * (band + 0.5) / 20)
            assert near(image.getpixel((3, y)), BLUE_BAND if band % 2 == 0 else RED_BAND)  # left of the label

        # The default budget: the whole page, downscaled further, with a note that text is unreadable.
        small = await s.call_tool("browser_take_screenshot", {"fullPage": True})
        image = check_budget(small, 1000)
        assert abs(image.height / image.width - 20000 / 1280) < 0.1
        assert "unreadable" in result_text(small)


async def test_screenshot_filename_saves_full_size_in_the_output_dir(site, tmp_path):
    async with mcp_session("--caps", "all", "--output-dir", str(tmp_path)) as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        saved = await s.call_tool("browser_take_screenshot", {"filename": "shots/page.jpg"})
        assert not saved.is_error, result_text(saved)
        assert not [c for c in saved.content if c.type == "image"]
        path = tmp_path / "shots" / "page.jpg"
        assert saved.structured_content["path"] == str(path)
        with Image.open(path) as image:
            assert image.format == "JPEG" and image.size == (1280, 800)  # full size, not the budget's
        assert saved.structured_content["bytes"] == path.stat().st_size
        err = await s.call_tool("browser_take_screenshot", {"filename": "../escape.png"})
        assert err.is_error and "outside" in result_text(err)
        assert not (tmp_path.parent / "escape.png").exists()


async def test_evaluate_summarises_what_json_cannot_hold(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/tall.html"})

        res = await s.call_tool("browser_evaluate", {"function": "() => { const a = {name: 'a', list: [1, 2]};"
                                                                  " a.self = a; a.list.push(a); return a; }"})
        text = result_text(res)
        assert not res.is_error and res.structured_content["resultType"] == "object"
        assert '"name": "a"' in text and "[Circular $]" in text and "circular" in text.splitlines()[0]

        res = await s.call_tool("browser_evaluate", {"function": "() => document.querySelectorAll('.band')"})
        text = result_text(res)
        assert '<div#band-1.band> "Band 1 of 20"' in text and "<div#band-20.band>" in text
        assert "20 DOM nodes" in text and "<html" not in text

        res = await s.call_tool("browser_evaluate", {"function": "() => [10n ** 30n, NaN, -0, undefined, "
                                                                  "Symbol('s'), function named() {}, new Map([[1, 2]]),"
                                                                  " new Array(100000).fill(7)]"})
        text = result_text(res)
        for piece in ("1000000000000000000000000000000n", "NaN", "-0", "undefined", "Symbol(s)",
                      "[Function named]", "Map{1 => 2}", "… 99,900 more"):
            assert piece in text, piece

        # 10 MB: only a bounded head crosses from the page, cut to the cap, readable on with offset.
        res = await s.call_tool("browser_evaluate", {"function": "() => 'ab'.repeat(5_000_000)",
                                                     "maxTokens": 1000})
        meta = res.structured_content
        assert not res.is_error and result_tokens(res) <= 1000
        assert meta["truncated"] is True and 100_000 <= meta["fullLength"] < 101_000
        assert result_text(res).startswith("abab")
        on = await s.call_tool("browser_evaluate", {"function": "() => 'ab'.repeat(5_000_000)", "maxTokens": 1000,
                                                    "offset": meta["nextOffset"]})
        assert not on.is_error and on.structured_content["offset"] == meta["nextOffset"]
        last = await s.call_tool("browser_evaluate", {"function": "() => 'ab'.repeat(5_000_000)",
                                                      "offset": meta["fullLength"] - 200})
        assert "string of 10,000,000 chars" in result_text(last)

        res = await s.call_tool("browser_evaluate", {"function": "(el) => el.textContent", "target": "#band-3"})
        assert result_text(res) == "Band 3 of 20"
        res = await s.call_tool("browser_evaluate", {"function": "async () => { await new Promise(r => "
                                                                  "setTimeout(r, 10)); return document.title }"})
        assert result_text(res) == "Tall page (20,000 px)"

        for function, words in (("() => { throw new TypeError('boom at line') }", "threw TypeError: boom at line"),
                                ("() => {", "not valid JavaScript"),
                                ("() => Promise.reject(new RangeError('nope'))", "threw RangeError: nope")):
            err = await s.call_tool("browser_evaluate", {"function": function})
            text = result_text(err)
            assert err.is_error and words in text, text
            assert "\n" not in text and "UtilityScript" not in text and "    at " not in text
        # The page survived all that.
        res = await s.call_tool("browser_evaluate", {"function": "() => document.querySelectorAll('.band').length"})
        assert result_text(res) == "20"


async def test_evaluate_on_a_csp_page_names_csp(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/csp"})
        res = await s.call_tool("browser_evaluate", {"function": "() => document.title"})
        assert result_text(res) == "CSP page"  # the CSP is in force: the page's inline script was blocked
        res = await s.call_tool("browser_evaluate", {"function": "() => document.querySelector('#p').id"})
        assert not res.is_error and result_text(res) == "p"  # evaluate itself is not blocked
        err = await s.call_tool("browser_evaluate", {"function": "() => { const s = document.createElement('script');"
                                                                  " s.textContent = 'window.ran = 1';"
                                                                  " document.head.append(s); return window.ran; }"})
        text = result_text(err)
        assert err.is_error and "Content-Security-Policy" in text and "script-src" in text and "\n" not in text
        res = await s.call_tool("browser_evaluate", {"function": "() => typeof window.ran"})
        assert result_text(res) == "undefined"


async def test_no_evaluate_removes_the_tool():
    async with mcp_session("--no-evaluate") as s:
        names = {t.name for t in (await s.list_tools()).tools}
        assert "browser_evaluate" not in names and "browser_file_upload" in names


async def test_upload_only_from_allowed_roots(site, tmp_path):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "a.txt").write_text("hello")
    (allowed / "b.bin").write_bytes(bytes(3072))
    secret = tmp_path / "secret.txt"
    secret.write_text("do not upload")
    (allowed / "link.txt").symlink_to(secret)
    async with mcp_session("--allowed-roots", str(allowed)) as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/upload.html"})
        for paths in ([str(secret)], [str(allowed / "link.txt")], [str(allowed / ".." / "secret.txt")],
                      [str(allowed / "a.txt"), "/etc/passwd"]):
            err = await s.call_tool("browser_file_upload", {"paths": paths})
            assert err.is_error and "outside the allowed roots" in result_text(err), paths
        chosen = await s.call_tool("browser_evaluate", {"function": "() => document.querySelector('#chosen')"
                                                                    ".textContent"})
        assert result_text(chosen) == "No files chosen"  # nothing was set by the refused calls

        res = await s.call_tool("browser_file_upload", {"paths": [str(allowed / "a.txt"), str(allowed / "b.bin")]})
        assert not res.is_error, result_text(res)
        assert "a.txt (5 bytes)" in result_text(res) and "b.bin (3,072 bytes)" in result_text(res)
        chosen = await s.call_tool("browser_evaluate", {"function": "() => document.querySelector('#chosen')"
                                                                    ".textContent"})
        assert result_text(chosen) == "Chosen: a.txt (5 bytes), b.bin (3072 bytes)"
        res = await s.call_tool("browser_file_upload", {"paths": [str(allowed / "a.txt")], "target": "#files"})
        assert not res.is_error and res.structured_content["files"] == 1
        err = await s.call_tool("browser_file_upload", {"paths": [str(allowed / "missing.txt")]})
        assert err.is_error and "not a file" in result_text(err)

        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        err = await s.call_tool("browser_file_upload", {"paths": [str(allowed / "a.txt")]})
        assert err.is_error and "No file input" in result_text(err)


async def test_upload_default_root_is_the_working_directory(site, tmp_path, monkeypatch):
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "inside.txt").write_text("in")
    (tmp_path / "elsewhere.txt").write_text("out")
    monkeypatch.chdir(workdir)  # the server subprocess starts here
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/upload.html"})
        err = await s.call_tool("browser_file_upload", {"paths": [str(tmp_path / "elsewhere.txt")]})
        assert err.is_error and "outside the allowed roots" in result_text(err) and str(workdir) in result_text(err)
        err = await s.call_tool("browser_file_upload", {"paths": ["../elsewhere.txt"]})
        assert err.is_error and "outside the allowed roots" in result_text(err)
        res = await s.call_tool("browser_file_upload", {"paths": ["inside.txt"]})
        assert not res.is_error and "inside.txt (2 bytes)" in result_text(res)


async def test_resize(site):
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        res = await s.call_tool("browser_resize", {"width": 800, "height": 600})
        assert not res.is_error and "800×600" in result_text(res)
        size = await s.call_tool("browser_evaluate", {"function": "() => [innerWidth, innerHeight]"})
        assert result_text(size) == "[800, 600]"
        err = await s.call_tool("browser_resize", {"width": 5, "height": 600})
        assert err.is_error and "100-10000" in result_text(err)


async def test_device_emulation(site):
    async with mcp_session("--device", "iPhone 15") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        res = await s.call_tool("browser_evaluate", {"function": "() => [innerWidth, devicePixelRatio, "
                                                                  "navigator.userAgent.includes('iPhone')]"})
        assert result_text(res) == "[393, 3, true]"
    async with mcp_session("--device", "iPhone 15", "--viewport-size", "500x700") as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        res = await s.call_tool("browser_evaluate", {"function": "() => [innerWidth, innerHeight, devicePixelRatio]"})
        assert result_text(res) == "[500, 700, 3]"


async def test_ledger_adds_up_with_the_calls_made(site):
    calls: list[tuple[str, dict[str, Any]]] = [
        ("browser_navigate", {"url": f"{site}/article.html"}),
        ("browser_snapshot", {"maxTokens": 1500}),
        ("browser_snapshot", {"maxTokens": 1500}),  # unchanged page: the baseline comes from the cache
        ("browser_text", {"target": "#nope"}),  # an error costs tokens too
        ("idle", {}),  # an agent thinking: the snapshot's baseline is measured now (a call that changes the page
        # next gives up baselines not yet started)
        ("browser_evaluate", {"function": "() => 1 + 1"}),
        ("browser_take_screenshot", {"maxTokens": 300}),
        ("browser_navigate", {"url": f"{site}/extra/shot.html"}),
        ("browser_text", {}),
    ]
    async with mcp_session("--caps", "all") as s:
        running = 0
        per_tool: dict[str, list[int]] = {}
        for name, args in calls:
            if name == "idle":
                await asyncio.sleep(BASELINE_IDLE_S + 1)
                continue
            res = await s.call_tool(name, args)
            cost = result_tokens(res) + (res.structured_content or {}).get("estimatedImageTokens", 0)
            running += cost
            per_tool.setdefault(name, []).append(result_tokens(res))
            # only browser_ctx_stats carries the session's total: every other result saves those tokens
            assert "sessionTokens" not in (res.structured_content or {}), (name, res.structured_content)
        stats = await s.call_tool("browser_ctx_stats", {})
        meta = stats.structured_content
        assert meta["calls"] == len(calls) - 1
        assert meta["sessionTokens"] == running + result_tokens(stats)  # the stats call counts itself
        assert meta["imageTokens"] > 0
        text = result_text(stats)
        for name, tokens in per_tool.items():
            row = next(line for line in text.splitlines() if line.startswith(name + " |"))
            cells = [c.strip() for c in row.split("|")]
            assert cells[1].split()[0] == str(len(tokens))
            assert cells[2].split()[0].replace(",", "") == str(sum(tokens)), (row, tokens)
        snap = next(line for line in text.splitlines() if line.startswith("browser_snapshot |"))
        baseline, saved = (int(c.strip().split()[0].replace(",", "")) for c in snap.split("|")[3:5])
        assert baseline > 3 * sum(per_tool["browser_snapshot"]) and saved > 0  # a long article, capped at 1,500
        total = next(line for line in text.splitlines() if line.startswith("total |"))
        assert total.split("|")[1].strip().startswith(str(len(calls) - 1)) and "(1 err)" in total
        assert meta["savedTokens"] == meta["baselineTokens"] - running  # rendered before the stats call itself


async def test_a_call_that_changes_the_page_never_waits_to_price_a_read(site):
    """Back to back, the snapshot's baseline measurement (it waits for an idle session) is given up by the
    navigation that follows, and the ledger says the read was not measured instead of claiming a saving."""
    async with mcp_session() as s:
        await s.call_tool("browser_navigate", {"url": f"{site}/article.html"})
        await s.call_tool("browser_snapshot", {"maxTokens": 1500})
        await s.call_tool("browser_navigate", {"url": f"{site}/extra/shot.html"})
        stats = await s.call_tool("browser_ctx_stats", {})
        text = result_text(stats)
        snap = next(line for line in text.splitlines() if line.startswith("browser_snapshot |"))
        tokens, baseline = (int(c.strip().split()[0].replace(",", "")) for c in snap.split("|")[2:4])
        assert baseline == tokens, snap  # unmeasured: counted at what it returned, no saving claimed
        assert "Measured baselines: 1 calls" in text, text  # the last navigation's card, measured on request
