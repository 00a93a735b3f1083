"""Image-token estimates and fitting a screenshot to an image-token budget (pure: bytes in, bytes out).

Units, always:

- *tokens* are image tokens as a vision model bills them, estimated two ways
  (:func:`anthropic_tokens`, :func:`patch_tokens`); a budget is met when the *larger*
  estimate (:func:`estimate_tokens`) is within it;
- *CSS px* are the page's CSS pixels; *px* are pixels of an image;
- a *scale* is image px per CSS px (``1.0`` = one image pixel per CSS pixel; on a
  HiDPI screen with device scale factor 2, ``2.0`` = every device pixel).

The two estimates:

- Anthropic's published rule: the model first downscales an image (keeping its aspect
  ratio) until its long edge is at most 1,568 px and it has at most 1.15 megapixels;
  then tokens ≈ width × height / 750.
- The 28×28-patch rule of newer vision encoders: ``ceil(w/28) × ceil(h/28)``, with no
  model-side downscale (so it keeps growing with the image; it is the one that binds
  for large budgets).

No image we produce is larger than :data:`MAX_SIDE` (8,000 px) on a side: larger images
are refused by the Anthropic API.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image

__all__ = [
    "ANTHROPIC_MAX_EDGE",
    "ANTHROPIC_MAX_PIXELS",
    "ANTHROPIC_PIXELS_PER_TOKEN",
    "PATCH",
    "MAX_SIDE",
    "DEFAULT_MAX_BYTES",
    "anthropic_tokens",
    "patch_tokens",
    "estimate_tokens",
    "SizePlan",
    "plan_size",
    "FittedImage",
    "fit_image",
    "encode_image",
    "MIME_TYPES",
]

#: Long edge (px) past which Anthropic's models downscale an image.
ANTHROPIC_MAX_EDGE = 1568
#: Pixels (1.15 megapixels) past which Anthropic's models downscale an image.
ANTHROPIC_MAX_PIXELS = 1_150_000
#: Pixels per image token in Anthropic's rule.
ANTHROPIC_PIXELS_PER_TOKEN = 750
#: Side of one vision patch (px) in the patch rule.
PATCH = 28
#: Largest side (px) of any image we return or save (the API rejects larger ones).
MAX_SIDE = 8000
#: Largest encoded image (bytes) returned inline; past it quality, then size, is lowered (1 MB).
DEFAULT_MAX_BYTES = 1_000_000

#: MIME type of each output format.
MIME_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}


def _model_downscale(width: int, height: int) -> tuple[int, int]:
    """Return the size Anthropic's model sees after its own downscale (px)."""
    factor = min(1.0, ANTHROPIC_MAX_EDGE / max(width, height), math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)))
    if factor >= 1.0:
        return width, height
    return max(1, int(width * factor)), max(1, int(height * factor))


def anthropic_tokens(width: int, height: int) -> int:
    """Image tokens by Anthropic's rule: ``ceil(w × h / 750)`` after the model-side downscale.

    Args:
        width, height: image size in px (each ≥ 1).

    Raises:
        ValueError: a side smaller than 1.
    """
    if width < 1 or height < 1:
        raise ValueError(f"image sides must be >= 1 px, got {width}x{height}")
    w, h = _model_downscale(width, height)
    return math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN)


def patch_tokens(width: int, height: int) -> int:
    """Image tokens by the 28×28-patch rule: ``ceil(w/28) × ceil(h/28)`` (no model-side downscale).

    Raises:
        ValueError: a side smaller than 1.
    """
    if width < 1 or height < 1:
        raise ValueError(f"image sides must be >= 1 px, got {width}x{height}")
    return math.ceil(width / PATCH) * math.ceil(height / PATCH)


def estimate_tokens(width: int, height: int) -> int:
    """The larger of :func:`anthropic_tokens` and :func:`patch_tokens` for a ``width``×``height`` px image."""
    return max(anthropic_tokens(width, height), patch_tokens(width, height))


@dataclass(frozen=True)
class SizePlan:
    """How to turn a region of the page into an image within budget.

    Attributes:
        width, height: the output image size in px.
        scale: output px per CSS px.
        region_height: CSS px of the region's height that the image shows (less than the
            region's height only when ``cropped``; the top part is kept).
        cropped: whether the bottom of the region was left out to stay readable.
        estimated_tokens: :func:`estimate_tokens` of the output size.
    """

    width: int
    height: int
    scale: float
    region_height: float
    cropped: bool
    estimated_tokens: int


def _height_for(width: int, css_width: float, css_height: float) -> int:
    return max(1, round(width * css_height / css_width))


def plan_size(css_width: float, css_height: float, budget: int, *, max_scale: float = 1.0,
              min_scale: float = 0.0, max_side: int = MAX_SIDE) -> SizePlan:
    """Choose the output size for a ``css_width``×``css_height`` CSS px region under ``budget`` tokens.

    The largest scale ``≤ max_scale`` whose image has both sides ``≤ max_side`` px and an
    :func:`estimate_tokens` ``≤ budget`` is chosen. If that scale is below ``min_scale``
    (text would be unreadable), the image is kept at ``min_scale`` (or ``max_scale``
    if smaller) and cropped from the bottom instead, so the top of the region is shown legibly.
    ``min_scale=0`` (the default) never crops.

    Args:
        css_width, css_height: the region in CSS px (> 0).
        budget: image tokens allowed (≥ 1). A budget too small for even a 1-px-high strip
            gives the smallest image the aspect ratio allows (it may then exceed the budget).
        max_scale: the most output px per CSS px (1.0 = CSS pixels; the device scale factor
            for device pixels).
        min_scale: the least output px per CSS px before cropping instead of shrinking.
        max_side: the largest side in px (default :data:`MAX_SIDE`).

    Raises:
        ValueError: a non-positive region, budget or max_scale.
    """
    if css_width <= 0 or css_height <= 0:
        raise ValueError(f"region must be positive, got {css_width}x{css_height} CSS px")
    if budget < 1 or max_scale <= 0:
        raise ValueError("budget and max_scale must be positive")
    full_w = max(1, math.floor(css_width * max_scale + 1e-6))

    def fits(w: int, h: int) -> bool:
        return w <= max_side and h <= max_side and estimate_tokens(w, h) <= budget

    # Largest width (hence scale) that fits, keeping the aspect ratio: estimate grows with width.
    lo, hi = 1, full_w
    if not fits(1, _height_for(1, css_width, css_height)):
        best = 0
    else:
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid, _height_for(mid, css_width, css_height)):
                lo = mid
            else:
                hi = mid - 1
        best = lo
    scale = best / css_width if best else 0.0
    if best and (best == full_w or scale >= min(min_scale, max_scale) * 0.999):
        h = _height_for(best, css_width, css_height)
        return SizePlan(best, h, best / css_width, css_height, False, estimate_tokens(best, h))

    # Too small to read (or nothing fits at all): keep a readable scale and crop the bottom.
    crop_scale = min(max_scale, min_scale) if min_scale > 0 else 0.0
    w = max(1, min(full_w, math.ceil(css_width * crop_scale))) if crop_scale else 0
    if w and fits(w, 1):
        lo, hi = 1, min(max_side, _height_for(w, css_width, css_height))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(w, mid):
                lo = mid
            else:
                hi = mid - 1
        s = w / css_width
        return SizePlan(w, lo, s, min(css_height, lo / s), lo / s < css_height * 0.999, estimate_tokens(w, lo))
    if best:
        h = _height_for(best, css_width, css_height)
        return SizePlan(best, h, best / css_width, css_height, False, estimate_tokens(best, h))
    # Not even one pixel column fits: the smallest image with the right aspect ratio.
    w = 1
    natural = _height_for(1, css_width, css_height)
    h = min(max_side, natural)
    cropped = natural > max_side
    return SizePlan(w, h, w / css_width, h * css_width if cropped else css_height, cropped, estimate_tokens(w, h))


@dataclass(frozen=True)
class FittedImage:
    """An encoded image and what it cost.

    Attributes:
        data: the encoded bytes.
        format: ``png``, ``jpeg`` or ``webp``.
        mime_type: its MIME type.
        width, height: size in px.
        estimated_tokens: :func:`estimate_tokens` of the size.
        quality: JPEG/WebP quality used (``None`` for PNG).
        notes: what was changed to meet the limits (e.g. PNG too large, sent as JPEG).
    """

    data: bytes
    format: str
    mime_type: str
    width: int
    height: int
    estimated_tokens: int
    quality: int | None = None
    notes: tuple[str, ...] = ()


def encode_image(image: Image.Image, fmt: str, quality: int | None = None) -> bytes:
    """Encode a Pillow image as ``png``, ``jpeg`` or ``webp`` (quality 1-100 for the lossy two; default 80).

    Raises:
        ValueError: an unknown format.
    """
    if fmt not in MIME_TYPES:
        raise ValueError(f"unknown image format {fmt!r}; use png, jpeg or webp")
    buf = io.BytesIO()
    if fmt == "png":
        image.save(buf, "PNG", compress_level=6)
    elif fmt == "jpeg":
        rgb = image.convert("RGB") if image.mode != "RGB" else image
        rgb.save(buf, "JPEG", quality=quality or 80, optimize=True)
    else:
        image.save(buf, "WEBP", quality=quality or 80, method=4)
    return buf.getvalue()


def fit_image(data: bytes, budget: int, *, fmt: str = "png", quality: int | None = None,
              source_scale: float = 1.0, max_scale: float | None = None, min_scale: float = 0.0,
              max_side: int = MAX_SIDE, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[FittedImage, SizePlan]:
    """Fit an encoded image (PNG/JPEG/WebP bytes) to ``budget`` image tokens and ``max_bytes`` bytes.

    Steps: plan the size with :func:`plan_size` (crop from the bottom only when ``min_scale``
    asks for it), crop and downscale with Pillow (Lanczos), then encode in ``fmt``. If the
    encoding is over ``max_bytes``: lossy formats lower their quality (down to 40) and then
    the size (by 15% a step); a PNG over ``max_bytes`` is sent as JPEG instead (said in ``notes``).

    Args:
        data: the source image bytes.
        budget: image tokens allowed (≥ 1).
        fmt: output format, ``png`` (default), ``jpeg`` or ``webp``.
        quality: JPEG/WebP quality (default 80).
        source_scale: source px per CSS px (the device scale factor for a device-pixel
            capture, 1.0 for a CSS-pixel one).
        max_scale: the most output px per CSS px (default ``source_scale``: never upscale).
        min_scale: see :func:`plan_size` (0 = never crop).
        max_side: largest side in px (default 8,000).
        max_bytes: largest encoded size in bytes (default 1 MB).

    Returns:
        ``(FittedImage, SizePlan)``; the plan's sizes are in CSS px of the source region.

    Raises:
        ValueError: unknown format, non-positive budget, or undecodable data (Pillow's error).
    """
    if fmt not in MIME_TYPES:
        raise ValueError(f"unknown image format {fmt!r}; use png, jpeg or webp")
    image: Image.Image = Image.open(io.BytesIO(data))
    image.load()
    src_w, src_h = image.size
    css_w, css_h = src_w / source_scale, src_h / source_scale
    plan = plan_size(css_w, css_h, budget, max_scale=min(max_scale or source_scale, source_scale),
                     min_scale=min_scale, max_side=max_side)
    if plan.cropped:
        keep = max(1, min(src_h, round(plan.region_height * source_scale)))
        image = image.crop((0, 0, src_w, keep))
    notes: list[str] = []
    width, height = plan.width, plan.height
    out_fmt = fmt
    q = (quality or 80) if fmt != "png" else None
    while True:
        resized = image if image.size == (width, height) else image.resize(
            (width, height), Image.Resampling.LANCZOS, reducing_gap=3.0)
        encoded = encode_image(resized, out_fmt, q)
        if len(encoded) <= max_bytes:
            break
        if out_fmt == "png":
            notes.append(f"PNG was {len(encoded):,} bytes (limit {max_bytes:,}); sent as JPEG")
            out_fmt, q = "jpeg", 80
            continue
        if q is not None and q > 40:
            q = max(40, q - 15)
            continue
        if width <= 16 or height <= 16:
            break
        width, height = max(1, int(width * 0.85)), max(1, int(height * 0.85))
    if (width, height) != (plan.width, plan.height):
        notes.append(f"shrunk to {width}x{height} px to stay under {max_bytes:,} bytes")
    fitted = FittedImage(encoded, out_fmt, MIME_TYPES[out_fmt], width, height, estimate_tokens(width, height),
                         q if out_fmt != "png" else None, tuple(notes))
    return fitted, plan
