"""Unit tests of the vision and debug pure core, no browser: image-token estimates and fitting (Pillow), the
evaluate-result renderer, and the token ledger."""

from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from browser_ctx.core import images
from browser_ctx.core.jsonsafe import Limits, parse_result, render_result
from browser_ctx.core.ledger import Ledger

# -- image tokens --------------------------------------------------------------------------------


def test_published_estimates():
    # Anthropic: w*h/750 when within 1,568 px and 1.15 MP; above, after the model's own downscale.
    assert images.anthropic_tokens(1000, 1000) == 1334
    assert images.anthropic_tokens(200, 200) == 54
    assert images.anthropic_tokens(1092, 1092) == 1533  # 1.19 MP: downscaled to 1072x1072 (<= 1.15 MP) first
    assert images.anthropic_tokens(4000, 4000) == images.anthropic_tokens(1072, 1072)  # same size after downscale
    assert images.anthropic_tokens(10_000, 100) <= 1568 * 16 // 750 + 1  # long edge to 1,568 px
    # 28x28 patches, no downscale.
    assert images.patch_tokens(28, 28) == 1
    assert images.patch_tokens(29, 28) == 2
    assert images.patch_tokens(1000, 1000) == 36 * 36
    assert images.estimate_tokens(1000, 1000) == 1334
    assert images.estimate_tokens(4000, 4000) == images.patch_tokens(4000, 4000)
    with pytest.raises(ValueError):
        images.patch_tokens(0, 10)


@settings(max_examples=300, deadline=None)
@given(w=st.integers(1, 30_000), h=st.integers(1, 60_000), budget=st.integers(1, 20_000),
       max_scale=st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_plan_fits_budget_and_side_limit(w, h, budget, max_scale):
    plan = images.plan_size(w, h, budget, max_scale=max_scale)
    assert max(plan.width, plan.height) <= images.MAX_SIDE
    assert plan.scale <= max_scale + 1e-9 or plan.width == 1  # never below one pixel
    assert plan.estimated_tokens == images.estimate_tokens(plan.width, plan.height)
    smallest = images.estimate_tokens(1, max(1, round(h / w)))
    if smallest <= budget and round(h / w) <= images.MAX_SIDE:
        assert plan.estimated_tokens <= budget
        # The largest such width: one more pixel would break the budget, a side or the scale limit.
        wider, taller = plan.width + 1, max(1, round((plan.width + 1) * h / w))
        assert (wider > max(1, math.floor(w * max_scale + 1e-6)) or max(wider, taller) > images.MAX_SIDE
                or images.estimate_tokens(wider, taller) > budget)
    assert not plan.cropped or round(h / w) > images.MAX_SIDE  # only a 1-px-wide sliver taller than 8,000 px


def test_plan_crops_only_when_asked():
    plan = images.plan_size(1280, 20_000, 1000, min_scale=0.25)
    assert plan.cropped and plan.scale == 0.25 and plan.estimated_tokens <= 1000
    assert plan.region_height < 20_000 and plan.width == 320
    assert not images.plan_size(1280, 20_000, 1000).cropped


def _picture(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    for y in range(0, height, 40):
        draw.text((10, y), "The quick brown fox jumps over the lazy dog " * 3, fill=(20, 20, 20))
    draw.rectangle((0, 0, width // 4, height // 4), fill=(220, 38, 38))
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["png", "jpeg", "webp"])
def test_fit_image_meets_budget_and_format(fmt):
    data = _picture(2560, 1600)  # a HiDPI (DSF 2) capture of a 1280x800 viewport
    fitted, plan = images.fit_image(data, 1000, fmt=fmt, source_scale=2.0)
    decoded = Image.open(io.BytesIO(fitted.data))
    assert decoded.format == {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}[fmt]
    assert decoded.size == (fitted.width, fitted.height) == (plan.width, plan.height)
    assert fitted.estimated_tokens == images.estimate_tokens(*decoded.size) <= 1000
    assert abs(decoded.width / decoded.height - 1.6) < 0.01
    assert fitted.mime_type == f"image/{fmt}"
    pixel = decoded.convert("RGB").getpixel((5, 5))
    assert isinstance(pixel, tuple)
    r, g, b = pixel[:3]
    assert r > 180 and g < 90 and b < 90  # the red corner survived the downscale
    # max_scale 1 (CSS pixels) and 2 (device pixels) with a big budget.
    css, _ = images.fit_image(data, 100_000, fmt=fmt, source_scale=2.0, max_scale=1.0)
    device, _ = images.fit_image(data, 100_000, fmt=fmt, source_scale=2.0)
    assert (css.width, device.width) == (1280, 2560)


def test_fit_image_byte_limit():
    data = _picture(1600, 1000)
    fitted, _ = images.fit_image(data, 5000, fmt="png", max_bytes=60_000)
    assert len(fitted.data) <= 60_000 and fitted.format == "jpeg" and "sent as JPEG" in fitted.notes[0]
    lossy, _ = images.fit_image(data, 5000, fmt="webp", max_bytes=20_000)
    assert len(lossy.data) <= 20_000 and lossy.format == "webp"


# -- evaluate results -------------------------------------------------------------------------------


def test_render_markers():
    tree = {"$class": "Thing", "name": "a", "self": {"$ref": "$"}, "node": {"$node": {"tag": "div#x.y", "text": "hi"}},
            "big": {"$bigint": "123"}, "f": {"$function": {"name": "go", "source": "function go() {}"}},
            "$$dollar": 1, "list": [1, 2, {"$more": 998}], "nan": {"$number": "NaN"}, "u": {"$undefined": True},
            "err": {"$error": {"name": "TypeError", "message": "bad"}}, "deep": {"$depth": "Object"}}
    out = render_result(parse_result(json.dumps(tree)))
    assert out.result_type == "object"
    text = out.text
    for piece in ('Thing {', '"name": "a"', "[Circular $]", '<div#x.y> "hi"', "123n", "[Function go]",
                  '"$dollar": 1', "[1, 2, … 998 more]", "NaN", "undefined", "[TypeError: bad]", "[Object]"):
        assert piece in text, piece
    summary = text.splitlines()[0]
    assert "circular" in summary and "DOM node" in summary and "function" in summary and "NaN" not in summary


def test_render_strings_and_long_containers():
    assert render_result("plain text").text == "plain text"
    cut = render_result({"$string": {"head": "ab" * 10, "length": 10_000_000}})
    assert cut.text.startswith("abab") and "10,000,000 chars" in cut.text and cut.result_type == "string"
    long = render_result([{"key": i, "value": "x" * 30} for i in range(50)])
    assert long.text.count("\n") >= 50  # one item a line: the capper can cut between items
    numbers = render_result(list(range(1000)))
    assert numbers.text.count("\n") < 100  # short items packed several to a line
    assert render_result(None).text == "null" and render_result(None).result_type == "null"
    assert Limits().as_js()["stringChars"] == 100_000


# -- ledger ----------------------------------------------------------------------------------------


def test_ledger_adds_up():
    ledger = Ledger()
    ledger.record("browser_snapshot", 400, baseline=9000)
    ledger.record("browser_snapshot", 300, pending=True)
    ledger.record("browser_take_screenshot", 40, image_tokens=1000)
    ledger.record("browser_click", 60, error=True)
    assert ledger.session_tokens == 400 + 300 + 40 + 1000 + 60
    assert ledger.totals().baseline == 9000 + 300 + 1040 + 60
    ledger.settle("browser_snapshot", 300, 5000)
    snap = ledger.tools["browser_snapshot"]
    assert (snap.calls, snap.tokens, snap.baseline, snap.saving, snap.measured, snap.pending) == (
        2, 700, 14_000, 13_300, 2, 0)
    summary = ledger.summary()
    assert summary == {"calls": 4, "sessionTokens": 1800, "imageTokens": 1000, "baselineTokens": 15_100,
                       "savedTokens": 13_300}
    text = ledger.render()
    assert "browser_snapshot | 2 | 700 | 14,000 | 13,300 (95%)" in text
    assert "browser_take_screenshot | 1 | 40 +1,000 img | 1,040 | 0 (0%)" in text
    assert "browser_click | 1 (1 err) | 60 | 60 | 0" in text
    ledger.definition_tokens = 1234
    assert "1,234 tokens" in ledger.render() and ledger.summary()["definitionTokens"] == 1234
    with pytest.raises(ValueError):
        ledger.record("x", -1)


def test_ledger_baseline_cache_is_bounded():
    ledger = Ledger()
    for i in range(Ledger.CACHE_SIZE + 5):
        ledger.remember_baseline(("tab", i), i)
    assert ledger.cached_baseline(("tab", 0)) is None
    assert ledger.cached_baseline(("tab", Ledger.CACHE_SIZE + 4)) == Ledger.CACHE_SIZE + 4
