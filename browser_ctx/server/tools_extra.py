"""The rest of the tool surface: ``browser_take_screenshot``, ``browser_evaluate``, ``browser_file_upload``,
``browser_resize`` and ``browser_ctx_stats``; plus :func:`measure_baseline`, which the pipeline calls to
price reads for the session ledger.

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``target``, ``element``, ``type``, ``filename``,
``fullPage``, ``scale``, ``function``, ``paths``, ``width``, ``height``); ``element`` (a human-readable
description used by ``@playwright/mcp`` for permission prompts) is accepted and ignored.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

from .._errors import (
    ActionTimeout,
    BrowserCtxError,
    InvalidArgument,
    PageError,
    SelectorError,
    one_line,
    translate,
)
from ..core import images
from ..core.jsonsafe import SERIALISER_JS, Limits, parse_result, render_result
from ..core.tokens import count_tokens
from .registry import TARGET, Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "measure_baseline", "tools_list_tokens", "allowed_roots", "output_path"]

#: Below this scale (image px per CSS px) text in a screenshot is usually unreadable; the result says so.
READABLE_SCALE = 0.5
#: The least image-token budget a screenshot accepts (smaller ``maxTokens`` are raised to it).
MIN_IMAGE_TOKENS = 50

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


# -- files ---------------------------------------------------------------------------------------


def allowed_roots(settings) -> list[Path]:
    """Return the resolved folders uploads may read from (``settings.allowed_roots``, default the working dir)."""
    roots = settings.allowed_roots or (os.getcwd(),)
    return [Path(r).expanduser().resolve() for r in roots]


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def output_path(settings, filename: str) -> Path:
    """Resolve ``filename`` for saving: relative names go in ``settings.output_dir`` (default the working dir).

    Raises:
        InvalidArgument: the path resolves outside the output dir and the allowed roots.
    """
    base = Path(settings.output_dir or os.getcwd()).expanduser().resolve()
    path = Path(filename).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    if not _inside(path, [base, *allowed_roots(settings)]):
        raise InvalidArgument(f"filename {filename!r} resolves outside the output folder {base}; use a relative "
                              "name, or start the server with --output-dir / --allowed-roots.")
    return path


def _save(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise InvalidArgument(f"Could not save {path}: {exc.strerror or exc}. Pick another filename.") from exc


# -- targets -------------------------------------------------------------------------------------


async def _one_element(tab, target: str, settings):
    """Resolve ``target`` to a locator matching exactly one element."""
    from ..browser.reading import resolve_target

    locator = resolve_target(tab, target)
    try:
        n = await asyncio.wait_for(locator.count(), settings.timeouts.read_ms / 1000)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout(f"Timed out resolving {target!r}; the page may be busy. Try again.") from exc
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="find", target=target) from exc
    if n == 0:
        raise SelectorError(f"No element matches {target!r}. Check the selector, or take a browser_snapshot "
                            "to find a ref.")
    if n > 1:
        raise SelectorError(f"{target!r} matches {n} elements; make it match one (a ref from browser_snapshot, "
                            "or a narrower selector).")
    return locator


# -- browser_take_screenshot -----------------------------------------------------------------------


async def _capture(page, clip: dict[str, float], scale: float, beyond: bool, timeout_s: float) -> bytes:
    """Capture ``clip`` (document CSS px) at ``scale`` image px per CSS px as PNG, through CDP.

    Chromium renders the region at the requested scale, so a huge page is never rasterised at
    full size first (a 20,000-px page at scale 0.2 takes well under a second).
    """
    cdp = await page.context.new_cdp_session(page)
    try:
        params = {"format": "png", "captureBeyondViewport": beyond, "fromSurface": True,
                  "clip": {**clip, "scale": scale}}
        reply = await asyncio.wait_for(cdp.send("Page.captureScreenshot", params), timeout_s)
    finally:
        try:
            await cdp.detach()
        except Exception:  # noqa: BLE001 - page gone
            pass
    return base64.b64decode(reply["data"])


async def take_screenshot(call: ToolCall) -> Rendered:
    """Screenshot the viewport, the full page or one element, sized to an image-token budget.

    Args (from ``call.args``): ``target`` (one element), ``fullPage`` (bool), ``type``
    (``png`` default, ``jpeg``, ``webp``; inferred from ``filename``'s extension when unset),
    ``scale`` (``css`` default: at most one image px per CSS px; ``device``: up to the device scale
    factor), ``filename`` (save the full-resolution image instead of returning it). ``maxTokens``
    is the image-token budget (default ``CapSettings.image_default_tokens``, at most
    ``image_ceiling_tokens``, at least 50).

    Returns:
        Without ``filename``: a :class:`Rendered` with one image (``images``) whose larger token
        estimate (:func:`browser_ctx.core.images.estimate_tokens`) is within the budget, and a text
        line giving ``estimatedImageTokens``, pixel size, scale and format (also in ``meta``).
        With ``filename``: the saved path, pixel size and bytes; no image. No image exceeds
        8,000 px on a side.

    Raises:
        InvalidArgument: ``target`` with ``fullPage``, an unknown type, a filename outside the output dir.
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
        fmt = {".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp", ".png": "png"}.get(Path(filename).suffix.lower())
    fmt = fmt or "png"
    if target and full:
        raise InvalidArgument("fullPage cannot be combined with target; pass one of them.")
    budget = call.max_tokens or caps.image_default_tokens
    budget = max(MIN_IMAGE_TOKENS, min(int(budget), caps.image_ceiling_tokens))
    timeout_s = call.settings.timeouts.read_ms / 1000
    try:
        m = await asyncio.wait_for(page.evaluate(_METRICS_JS), timeout_s)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout("Timed out measuring the page for a screenshot; the page may be busy.") from exc
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="take a screenshot") from exc
    dpr = float(m["dpr"] or 1)
    if target:
        locator = await _one_element(tab, target, call.settings)
        try:
            await locator.scroll_into_view_if_needed(timeout=call.settings.timeouts.action_ms)
            box = await locator.bounding_box(timeout=call.settings.timeouts.action_ms)
            m = await page.evaluate(_METRICS_JS)
        except Exception as exc:  # noqa: BLE001
            raise translate(exc, action="screenshot", target=target) from exc
        if not box or box["width"] < 1 or box["height"] < 1:
            raise SelectorError(f"{target!r} is not visible (no size on screen), so it cannot be captured.")
        clip = {"x": box["x"] + m["sx"], "y": box["y"] + m["sy"], "width": box["width"], "height": box["height"]}
        what, beyond = repr(target), True
    elif full:
        clip = {"x": 0, "y": 0, "width": float(m["dw"]), "height": float(m["dh"])}
        what, beyond = "the full page", True
    else:
        clip = {"x": float(m["sx"]), "y": float(m["sy"]), "width": float(m["vw"]), "height": float(m["vh"])}
        what, beyond = "the viewport", False
    max_scale = dpr if args.get("scale") == "device" else 1.0
    css = f"{clip['width']:.0f}×{clip['height']:.0f} CSS px"

    if filename:
        # Full resolution, within 8,000 px a side.
        path = output_path(call.settings, filename)
        scale = min(max_scale, images.MAX_SIDE / clip["width"], images.MAX_SIDE / clip["height"])
        png = await _shot(page, clip, scale, beyond, timeout_s)
        from PIL import Image
        import io

        img = Image.open(io.BytesIO(png))
        data = png if fmt == "png" else images.encode_image(img, fmt, 90)
        _save(path, data)
        text = (f"Saved a screenshot of {what} ({css}) to {path}: {img.width}×{img.height} px {fmt}, "
                f"{len(data):,} bytes.")
        return Rendered(text, meta={"path": str(path), "width": img.width, "height": img.height, "format": fmt,
                                    "bytes": len(data)}, capture=False, tab=tab.id)

    plan = images.plan_size(clip["width"], clip["height"], budget, max_scale=max_scale)
    png = await _shot(page, clip, plan.scale, beyond, timeout_s)
    fitted, _ = images.fit_image(png, budget, fmt=fmt, source_scale=_source_scale(png, clip), max_scale=plan.scale)
    scale = fitted.width / clip["width"]
    notes = list(fitted.notes)
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


def _source_scale(png: bytes, clip: dict[str, float]) -> float:
    from PIL import Image
    import io

    with Image.open(io.BytesIO(png)) as img:
        return img.width / clip["width"]


async def _shot(page, clip: dict[str, float], scale: float, beyond: bool, timeout_s: float) -> bytes:
    try:
        return await _capture(page, clip, scale, beyond, timeout_s)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_s:.0f} s capturing the screenshot; try a smaller region "
                            "(target) or without fullPage.") from exc
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="take a screenshot") from exc


# -- browser_evaluate ------------------------------------------------------------------------------

_CSP_HINTS = ("content security policy", "unsafe-eval", "trustedhtml", "trustedscript", "trusted type")


def _wrapper(function: str, limits: Limits) -> str:
    """The page-side function: run the caller's code, note any CSP violation it caused, then serialise
    its result safely.

    DevTools evaluation may itself use ``eval`` even where the page's CSP forbids it, but what the
    code *does* (inject a script, set a string timer, assign HTML under Trusted Types) is still
    blocked; such blocks fire ``securitypolicyviolation`` events, collected here for one task.
    """
    return (
        "async (__bcElement) => {\n"
        f"  const __bcSerialise = {SERIALISER_JS};\n"
        "  const __bcCsp = [];\n"
        "  const __bcOnCsp = (e) => __bcCsp.push(String(e.effectiveDirective || e.violatedDirective || 'unknown')"
        " + (e.blockedURI ? ' (' + String(e.blockedURI).slice(0, 80) + ')' : ''));\n"
        "  document.addEventListener('securitypolicyviolation', __bcOnCsp, true);\n"
        "  let __bcValue, __bcThrown = null;\n"
        "  try {\n"
        f"    const __bcFn = ({function}\n    );\n"
        "    __bcValue = typeof __bcFn === 'function' ? await __bcFn(__bcElement) : await __bcFn;\n"
        "  } catch (e) {\n"
        "    const name = (e && e.name) ? String(e.name) : 'Error';\n"
        "    const message = (e && e.message !== undefined) ? String(e.message) : String(e);\n"
        "    __bcThrown = { name, message: message.slice(0, 500) };\n"
        "  }\n"
        "  await new Promise((r) => setTimeout(r, 0));\n"
        "  document.removeEventListener('securitypolicyviolation', __bcOnCsp, true);\n"
        "  if (__bcCsp.length) return JSON.stringify({ $csp: { blocked: [...new Set(__bcCsp)], thrown: __bcThrown } });\n"
        "  if (__bcThrown) return JSON.stringify({ $thrown: __bcThrown });\n"
        f"  return __bcSerialise(__bcValue, {json.dumps(limits.as_js())});\n"
        "}"
    )


def _csp_error(message: str) -> PageError:
    return PageError(f"The page's Content-Security-Policy (CSP) blocked what the function did: "
                     f"{one_line(message, 220)} Inline or injected scripts, eval()/new Function()/string timers "
                     "run later, and HTML assigned without Trusted Types cannot run on this page; do the work "
                     "directly in the function instead.")


async def evaluate(call: ToolCall) -> Rendered:
    """Run ``function`` in the page (or on the element ``target`` names) and return its result, safely serialised.

    ``function`` is ``() => …`` or ``(element) => …`` (async allowed; a bare expression works too).
    The result is serialised in the page by :data:`browser_ctx.core.jsonsafe.SERIALISER_JS`
    (cycles, DOM nodes, functions, BigInt, huge strings and arrays become markers) and rendered by
    :func:`browser_ctx.core.jsonsafe.render_result`; the pipeline caps it (``offset`` reads on).
    ``filename`` saves the whole rendering instead and returns its path and size.

    Raises:
        InvalidArgument: the function is not valid JavaScript.
        PageError: it threw (name and message given), or the page's CSP blocked what it does (named).
        ActionTimeout: it ran longer than the read timeout (15 s by default).
        SelectorError: ``target`` matches no element or several.
    """
    args = call.args
    tab = await call.session.current_tab()
    source = args["function"].strip()
    if not source:
        raise InvalidArgument("function is empty; pass e.g. () => document.title.")
    wrapper = _wrapper(source, Limits())
    target = args.get("target")
    timeout_ms = call.settings.timeouts.read_ms
    try:
        if target:
            locator = await _one_element(tab, target, call.settings)
            raw = await asyncio.wait_for(locator.evaluate(wrapper, timeout=timeout_ms), timeout_ms / 1000)
        else:
            raw = await asyncio.wait_for(tab.page.evaluate(wrapper), timeout_ms / 1000)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout(f"The function did not finish within {timeout_ms:.0f} ms (an endless loop, or a promise "
                            "that never settles?). If the page is stuck, navigate again.") from exc
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        msg = str(exc)
        low = msg.lower()
        if any(h in low for h in _CSP_HINTS):
            raise _csp_error(msg) from exc
        if "syntaxerror" in low:
            detail = one_line(msg.split("SyntaxError:", 1)[-1].split(" at ", 1)[0].split("\n", 1)[0], 160)
            raise InvalidArgument(f"function is not valid JavaScript (SyntaxError: {detail}); pass e.g. "
                                  "() => document.title or (element) => element.value.") from exc
        raise translate(exc, action="evaluate", target=target) from exc
    try:
        value = parse_result(raw if isinstance(raw, str) else "")
    except ValueError as exc:
        raise PageError("The page returned a result that could not be read; try again.") from exc
    if isinstance(value, dict) and len(value) == 1 and "$csp" in value:
        blocked = ", ".join(value["$csp"].get("blocked") or [])
        thrown = value["$csp"].get("thrown")
        raise _csp_error(f"{blocked}" + (f"; the function threw {thrown.get('name')}: {thrown.get('message')}"
                                         if thrown else "") + ".")
    if isinstance(value, dict) and len(value) == 1 and "$thrown" in value:
        thrown = value["$thrown"]
        name, message = str(thrown.get("name", "Error")), str(thrown.get("message", ""))
        if any(h in f"{name} {message}".lower() for h in _CSP_HINTS):
            raise _csp_error(f"{name}: {message}")
        raise PageError(f"The function threw {name}: {one_line(message, 300)}")
    rendered = render_result(value)
    meta: dict[str, Any] = {"resultType": rendered.result_type}
    if args.get("filename"):
        path = output_path(call.settings, args["filename"])
        data = rendered.text.encode("utf-8")
        _save(path, data)
        return Rendered(f"Saved the {rendered.result_type} result to {path} ({len(rendered.text):,} characters, "
                        f"{len(data):,} bytes).", meta={**meta, "path": str(path), "bytes": len(data)},
                        capture=False, tab=tab.id)
    return Rendered(rendered.text, meta=meta, tab=tab.id)


# -- browser_file_upload ---------------------------------------------------------------------------


def _checked_paths(paths: list[str], settings) -> list[Path]:
    roots = allowed_roots(settings)
    out: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else Path(os.getcwd()) / path).resolve()
        if not _inside(path, roots):
            raise InvalidArgument(f"{raw} is outside the allowed roots ({', '.join(str(r) for r in roots)}); "
                                  "start the server with --allowed-roots to allow its folder.")
        if not path.is_file():
            raise InvalidArgument(f"{raw} is not a file (resolved to {path}).")
        out.append(path)
    return out


async def file_upload(call: ToolCall) -> Rendered:
    """Set the files of a file input: ``target``'s, or the page's only ``input[type=file]``.

    Args (from ``call.args``): ``paths`` (list of file paths; relative ones resolve against the
    working directory; an empty list clears the input), ``target`` (optional).

    Raises:
        InvalidArgument: a path outside the allowed roots (``--allowed-roots``; default the
            working directory) or not a file. Paths are checked before anything is touched.
        SelectorError: no file input, several without ``target``, or ``target`` not one element.
    """
    args = call.args
    files = _checked_paths(list(args.get("paths") or []), call.settings)
    tab = await call.session.current_tab()
    target = args.get("target")
    if target:
        locator = await _one_element(tab, target, call.settings)
    else:
        locator = tab.page.locator("input[type=file]")
        n = await locator.count()
        if n == 0:
            raise SelectorError("No file input on the page; pass target (a ref or selector of an input type=file).")
        if n > 1:
            raise SelectorError(f"The page has {n} file inputs; pass target to choose one.")
    try:
        await locator.set_input_files([str(f) for f in files], timeout=call.settings.timeouts.action_ms)
        info = await locator.evaluate(
            "el => ({tag: el.localName + (el.id ? '#' + el.id : '') + (el.name ? '[name=' + el.name + ']' : ''),"
            " files: el.files ? [...el.files].map(f => [f.name, f.size]) : []})")
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="set files on", target=target or "input[type=file]") from exc
    chosen = ", ".join(f"{name} ({size:,} bytes)" for name, size in info["files"])
    text = (f"Set {len(info['files'])} file(s) on {info['tag']}: {chosen}." if info["files"]
            else f"Cleared the files of {info['tag']}.")
    return Rendered(text, meta={"files": len(info["files"])}, capture=False, tab=tab.id)


# -- browser_resize --------------------------------------------------------------------------------


async def resize(call: ToolCall) -> Rendered:
    """Set the viewport to ``width`` × ``height`` CSS px (each 100-10,000; fractions are rounded).

    Raises:
        InvalidArgument: a size out of range.
    """
    width, height = round(call.args["width"]), round(call.args["height"])
    if not (100 <= width <= 10_000 and 100 <= height <= 10_000):
        raise InvalidArgument(f"width and height must be 100-10000 CSS px (got {width}x{height}).")
    tab = await call.session.current_tab()
    try:
        await tab.page.set_viewport_size({"width": width, "height": height})
        m = await tab.page.evaluate("() => [innerWidth, innerHeight, devicePixelRatio]")
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="resize the viewport") from exc
    text = f"Viewport is now {m[0]}×{m[1]} CSS px" + (f" (device scale factor {m[2]:g})" if m[2] != 1 else "") + "."
    return Rendered(text, meta={"width": m[0], "height": m[1]}, capture=False, tab=tab.id)


# -- browser_ctx_stats ------------------------------------------------------------------------------


async def stats(call: ToolCall) -> Rendered:
    """Render the session ledger (:class:`browser_ctx.core.ledger.Ledger`): per tool, calls, tokens
    returned, baseline and saving; totals; and the tool definitions' tokens when the server set them.
    Never launches the browser."""
    ledger = call.session.ledger
    return Rendered(ledger.render(), meta=ledger.summary(), capture=False)


def tools_list_tokens(tools: list[Any]) -> int:
    """o200k tokens of a ``tools/list`` result holding ``tools`` (MCP ``Tool`` objects), serialised as sent.

    The server can store this in ``session.ledger.definition_tokens`` so ``browser_ctx_stats`` reports it.
    """
    body = {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]}
    return count_tokens(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


# -- ledger baselines ---------------------------------------------------------------------------------


async def measure_baseline(session, tool: str, args: dict[str, Any], version: str | None) -> int | None:
    """Tokens a full ``aria_snapshot(mode="ai")`` of the current page would have cost (the ledger's baseline
    for reads; what ``@playwright/mcp`` returns for a snapshot or a navigation).

    For ``browser_snapshot`` with a ``target``, the target's snapshot (its first match) is measured.
    Cost: one extra ``aria_snapshot`` round trip (typically 10-300 ms; bounded by a 5 s timeout)
    plus counting its tokens, once per page state: results are cached in the ledger by tab, URL,
    page version and target, so re-reading an unchanged page costs nothing more.

    Returns:
        The token count, or ``None`` when it could not be measured (the ledger then assumes no saving).
    """
    tab = session.peek_tab()
    if tab is None:
        return None
    page = tab.page
    target = args.get("target") if tool == "browser_snapshot" else None
    if version is None:
        try:
            from ..browser.extract import page_version

            version = await page_version(page)
        except Exception:  # noqa: BLE001 - mid-navigation
            version = None
    key = (tab.id, page.url, version, target) if version else None
    if key is not None:
        cached = session.ledger.cached_baseline(key)
        if cached is not None:
            return cached
    try:
        if target:
            from ..browser.reading import resolve_target

            snap = await resolve_target(tab, target).first.aria_snapshot(mode="ai", timeout=5000)
        else:
            snap = await page.aria_snapshot(mode="ai", timeout=5000)
    except Exception:  # noqa: BLE001 - a baseline is best-effort
        return None
    tokens = count_tokens(snap)
    if key is not None:
        session.ledger.remember_baseline(key, tokens)
    return tokens


# -- specs -----------------------------------------------------------------------------------------

_ELEMENT = {"type": "string"}  # @playwright/mcp's human-readable element description; accepted, unused
_FILENAME = {"type": "string", "description": "Save to this file instead (path and size returned)"}

TOOLS = [
    ToolSpec(
        name="browser_take_screenshot",
        description="Screenshot of the viewport, fullPage or target, scaled to fit maxTokens image tokens "
                    "(default 1000). For actions use browser_snapshot.",
        properties={
            "target": TARGET,
            "element": _ELEMENT,
            "fullPage": {"type": "boolean"},
            "type": {"type": "string", "enum": ["png", "jpeg", "webp"]},
            "scale": {"type": "string", "enum": ["css", "device"]},
            "filename": _FILENAME,
        },
        handler=take_screenshot,
        pageable=False,
        caps="vision",
    ),
    ToolSpec(
        name="browser_evaluate",
        description="Run a JS function in the page, or on target: () => … / (element) => …. "
                    "Result serialised safely (cycles, nodes, huge values summarised).",
        properties={
            "function": {"type": "string"},
            "target": TARGET,
            "element": _ELEMENT,
            "filename": _FILENAME,
        },
        required=("function",),
        handler=evaluate,
        caps="debug",
        read_only=False,
    ),
    ToolSpec(
        name="browser_file_upload",
        description="Set files on target, or on the page's only file input. Paths must be in the allowed roots.",
        properties={
            "paths": {"type": "array", "items": {"type": "string"}},
            "target": TARGET,
        },
        required=("paths",),
        handler=file_upload,
        pageable=False,
        read_only=False,
    ),
    ToolSpec(
        name="browser_resize",
        description="Resize the viewport (CSS px).",
        properties={"width": {"type": "number"}, "height": {"type": "number"}},
        required=("width", "height"),
        handler=resize,
        pageable=False,
        read_only=False,
    ),
    ToolSpec(
        name="browser_ctx_stats",
        description="Session token ledger: per tool, calls, tokens returned vs a full snapshot, saving.",
        properties={},
        handler=stats,
        pageable=False,
    ),
]
