"""Vision: ``browser_take_screenshot``, an image of the viewport, the full page or one element, fitted to an
image-token budget (``ToolCall.budget.image_tokens``).

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``target``, ``type``, ``filename``, ``fullPage``,
``scale``). Its ``element`` (a human-readable description for permission prompts) is not in the schema, so a
call that passes it is rejected as an unknown parameter, like any other.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any, Literal

from PIL import Image
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from ... import files
from ..._errors import ActionTimeout, InvalidArgument, SelectorError, translate
from ...browser.worlds import in_frame
from ...core import images
from ...settings import Settings
from ..registry import Rendered, ToolCall, ToolSpec
from .element import one_element

__all__ = ["TOOLS", "take_screenshot", "READABLE_SCALE", "MAX_CAPTURE_HEIGHT"]

#: Below this scale (image px per CSS px) text in a screenshot is usually unreadable; the result says so.
READABLE_SCALE = 0.5
#: Full-page shots capture at most this many CSS px of the page's height (the rest is said to be left out).
MAX_CAPTURE_HEIGHT = 30_000
#: Seconds a capture may overrun its Playwright timeout before it is abandoned here.
CAPTURE_GRACE_S = 5
#: Image-token budget and byte limit of a screenshot saved with ``filename``: no limit, full size.
UNLIMITED = 10**12
#: JPEG/WebP quality of a screenshot saved with ``filename``.
SAVED_QUALITY = 90

_METRICS_JS = """() => {
  const d = document.documentElement, b = document.body;
  return {
    dpr: window.devicePixelRatio || 1,
    sx: window.scrollX, sy: window.scrollY,
    vw: window.innerWidth, vh: window.innerHeight,
    dw: Math.max(d ? d.scrollWidth : 0, b ? b.scrollWidth : 0, window.innerWidth),
    dh: Math.max(d ? d.scrollHeight : 0, b ? b.scrollHeight : 0, window.innerHeight),
  };
}"""

#: Image format by ``filename`` extension, when ``type`` is not given.
_FORMATS = {".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp", ".png": "png"}


async def _grab(page: Page, locator: Locator | None, *, full: bool, device: bool, clip: dict[str, float] | None,
                timeout_ms: float) -> bytes:
    """Capture PNG bytes with Playwright (which keeps the page's emulation intact, HiDPI included)."""
    scale: Literal["css", "device"] = "device" if device else "css"
    if locator is not None:
        return await locator.screenshot(type="png", scale=scale, timeout=timeout_ms)
    opts: dict[str, Any] = {"type": "png", "scale": scale, "timeout": timeout_ms, "full_page": full}
    if clip is not None:
        opts["clip"] = clip
    return await page.screenshot(**opts)


async def take_screenshot(call: ToolCall) -> Rendered:
    """Screenshot the viewport, the full page or one element, sized to an image-token budget.

    Args (from ``call.args``): ``target`` (one element), ``fullPage`` (bool), ``type``
    (``png`` default, ``jpeg``, ``webp``; inferred from ``filename``'s extension when unset),
    ``scale`` (``css`` default: at most one image px per CSS px; ``device``: up to the device scale
    factor), ``filename`` (save the full-resolution image instead of returning it). The image-token
    budget is ``call.budget.image_tokens`` (the caller's ``maxTokens``, default
    ``CapSettings.image_default_tokens``, at most ``image_ceiling_tokens``, at least 50).

    The page is captured by Playwright (device pixels only when ``scale: device`` and the budget
    leaves room for more than one px per CSS px), then fitted with
    :func:`browser_ctx.core.images.fit_image`. Full-page shots capture at most the top
    :data:`MAX_CAPTURE_HEIGHT` CSS px.

    Returns:
        Without ``filename``: a :class:`Rendered` with one image (``images``) whose larger token
        estimate (:func:`browser_ctx.core.images.estimate_tokens`) is within the budget, and a text
        line giving ``estimatedImageTokens``, pixel size, scale and format (also in ``meta``).
        With ``filename``: the saved path (:func:`browser_ctx.files.output_path`), pixel size and bytes;
        no image. No image exceeds 8,000 px on a side.

    Raises:
        InvalidArgument: ``target`` with ``fullPage``, a filename outside the output dir.
        SelectorError: ``target`` matches no element, several, or one that is not visible.
        ActionTimeout, PageError.
    """
    args = call.args
    caps = call.settings.caps
    tab = await call.session.current_tab()
    page = tab.page
    target, full = args.get("target"), bool(args.get("fullPage", False))
    filename = args.get("filename")
    fmt = args.get("type")
    if not fmt and filename:
        fmt = _FORMATS.get(Path(filename).suffix.lower())
    fmt = fmt or "png"
    if target and full:
        raise InvalidArgument("fullPage cannot be combined with target; pass one of them.")
    budget = call.budget.image_tokens
    read_s = call.settings.timeouts.read_ms / 1000
    try:
        m = await asyncio.wait_for(in_frame(tab.worlds, page.main_frame, _METRICS_JS), read_s)
    except TimeoutError as exc:
        raise ActionTimeout("Timed out measuring the page for a screenshot; the page may be busy.") from exc
    except PlaywrightError as exc:
        raise translate(exc, action="take a screenshot") from exc
    dpr = float(m["dpr"] or 1)
    locator: Locator | None = None
    clip: dict[str, float] | None = None
    notes: list[str] = []
    if target:
        locator = await one_element(tab, target, call.settings)
        try:
            box = await locator.bounding_box(timeout=call.settings.timeouts.action_ms)
        except PlaywrightError as exc:
            raise translate(exc, action="screenshot", target=target) from exc
        if not box or box["width"] < 1 or box["height"] < 1:
            raise SelectorError(f"{target!r} is not visible (no size on screen), so it cannot be captured.")
        what, css_w, css_h = repr(target), box["width"], box["height"]
    elif full:
        what, css_w, css_h = "the full page", float(m["dw"]), float(m["dh"])
        if css_h > MAX_CAPTURE_HEIGHT:
            clip = {"x": 0, "y": 0, "width": css_w, "height": float(MAX_CAPTURE_HEIGHT)}
            notes.append(f"the page is {css_h:,.0f} CSS px tall; only the top {MAX_CAPTURE_HEIGHT:,} are shown")
            css_h = float(MAX_CAPTURE_HEIGHT)
    else:
        what, css_w, css_h = "the viewport", float(m["vw"]), float(m["vh"])
    max_scale = dpr if args.get("scale") == "device" else 1.0
    css = f"{css_w:.0f}×{css_h:.0f} CSS px"
    if filename:
        path = files.output_path(call.settings, filename)
        big = images.plan_size(css_w, css_h, UNLIMITED, max_scale=max_scale)
        png = await _shot(page, locator, full=full, device=big.scale > 1, clip=clip, settings=call.settings)
        fitted, _ = images.fit_image(png, UNLIMITED, fmt=fmt, quality=SAVED_QUALITY,
                                     source_scale=_source_scale(png, css_w), max_scale=max_scale,
                                     max_bytes=UNLIMITED)
        files.save(path, fitted.data)
        text = (f"Saved a screenshot of {what} ({css}) to {path}: {fitted.width}×{fitted.height} px {fmt}, "
                f"{len(fitted.data):,} bytes.")
        return Rendered(text, meta={"path": str(path), "width": fitted.width, "height": fitted.height,
                                    "format": fitted.format, "bytes": len(fitted.data)}, capture=False, tab=tab.id)

    plan = images.plan_size(css_w, css_h, budget, max_scale=max_scale)
    png = await _shot(page, locator, full=full, device=plan.scale > 1, clip=clip, settings=call.settings)
    fitted, _ = images.fit_image(png, budget, fmt=fmt, source_scale=_source_scale(png, css_w), max_scale=max_scale)
    scale = fitted.width / css_w
    notes.extend(fitted.notes)
    if scale < READABLE_SCALE:
        ceiling = caps.image_ceiling_tokens
        notes.append(f"at scale {scale:.2f} small text is unreadable; "
                     + ("pass target for one part" if budget >= ceiling else
                        f"raise maxTokens (up to {ceiling}) or pass target"))
    text = (f"Screenshot of {what} ({css}): {fitted.width}×{fitted.height} px {fitted.format}, scale {scale:.2f}, "
            f"estimatedImageTokens {fitted.estimated_tokens} (budget {budget})"
            + (f"; device scale factor {dpr:g}" if dpr != 1 else "") + "."
            + "".join(f" Note: {n}." for n in notes))
    meta = {"estimatedImageTokens": fitted.estimated_tokens, "imageTokenBudget": budget, "width": fitted.width,
            "height": fitted.height, "scale": round(scale, 4), "format": fitted.format, "deviceScaleFactor": dpr}
    return Rendered(text, meta=meta, capture=False, tab=tab.id, images=[(fitted.mime_type, fitted.data)])


def _source_scale(png: bytes, css_width: float) -> float:
    """Image px per CSS px of a capture ``css_width`` CSS px wide."""
    with Image.open(io.BytesIO(png)) as img:
        return float(img.width / css_width)


async def _shot(page: Page, locator: Locator | None, *, full: bool, device: bool, clip: dict[str, float] | None,
                settings: Settings) -> bytes:
    timeout_ms = settings.timeouts.navigation_ms if full else settings.timeouts.read_ms
    try:
        return await asyncio.wait_for(_grab(page, locator, full=full, device=device, clip=clip,
                                            timeout_ms=timeout_ms), timeout_ms / 1000 + CAPTURE_GRACE_S)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms capturing the screenshot; try a smaller "
                            "region (target) or without fullPage.") from exc
    except PlaywrightError as exc:
        raise translate(exc, action="take a screenshot", timeout_ms=timeout_ms) from exc


# Kept short: tools/list is paid on every turn. ``target`` and ``maxTokens`` are explained once, in the server
# instructions.
_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(
        name="browser_take_screenshot",
        description="Image of the viewport, fullPage or target, fit to maxTokens image tokens (default 1000). "
                    "filename: save full size instead.",
        properties={
            "target": _STR,
            "fullPage": {"type": "boolean"},
            "type": {"enum": ["png", "jpeg", "webp"]},
            "scale": {"enum": ["css", "device"]},
            "filename": _STR,
        },
        handler=take_screenshot,
        pageable=False,
        caps="vision",
    ),
]
