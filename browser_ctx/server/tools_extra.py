"""The rest of the tool surface: ``browser_take_screenshot``, ``browser_evaluate``, ``browser_file_upload``,
``browser_resize`` and ``browser_ctx_stats``; plus :func:`measure_baseline`, which the pipeline calls to
price reads for the session ledger.

Names and parameters follow ``@playwright/mcp`` 0.0.83 (``target``, ``element``, ``type``, ``filename``,
``fullPage``, ``scale``, ``function``, ``paths``, ``width``, ``height``); ``element`` (a human-readable
description used by ``@playwright/mcp`` for permission prompts) is accepted and ignored.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import weakref
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
from .registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "measure_baseline", "settle_baselines", "tools_list_tokens", "allowed_roots", "output_path"]

#: Below this scale (image px per CSS px) text in a screenshot is usually unreadable; the result says so.
READABLE_SCALE = 0.5

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


#: Full-page shots capture at most this many CSS px of the page's height (the rest is said to be left out).
MAX_CAPTURE_HEIGHT = 30_000


async def _grab(page, locator, *, full: bool, device: bool, clip: dict[str, float] | None,
                timeout_ms: float) -> bytes:
    """Capture PNG bytes with Playwright (which keeps the page's emulation intact, HiDPI included)."""
    scale = "device" if device else "css"
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
    factor), ``filename`` (save the full-resolution image instead of returning it). ``maxTokens``
    is the image-token budget (default ``CapSettings.image_default_tokens``, at most
    ``image_ceiling_tokens``, at least 50).

    The page is captured by Playwright (device pixels only when ``scale: device`` and the budget
    leaves room for more than one px per CSS px), then fitted with
    :func:`browser_ctx.core.images.fit_image`. Full-page shots capture at most the top 30,000 CSS px.

    Returns:
        Without ``filename``: a :class:`Rendered` with one image (``images``) whose larger token
        estimate (:func:`browser_ctx.core.images.estimate_tokens`) is within the budget, and a text
        line giving ``estimatedImageTokens``, pixel size, scale and format (also in ``meta``).
        With ``filename``: the saved path, pixel size and bytes; no image. No image exceeds
        8,000 px on a side.

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
        fmt = {".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp", ".png": "png"}.get(Path(filename).suffix.lower())
    fmt = fmt or "png"
    if target and full:
        raise InvalidArgument("fullPage cannot be combined with target; pass one of them.")
    budget = call.budget.image_tokens
    read_s = call.settings.timeouts.read_ms / 1000
    try:
        m = await asyncio.wait_for(page.evaluate(_METRICS_JS), read_s)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout("Timed out measuring the page for a screenshot; the page may be busy.") from exc
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="take a screenshot") from exc
    dpr = float(m["dpr"] or 1)
    locator, clip, notes = None, None, []
    if target:
        locator = await _one_element(tab, target, call.settings)
        try:
            box = await locator.bounding_box(timeout=call.settings.timeouts.action_ms)
        except Exception as exc:  # noqa: BLE001
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
        path = output_path(call.settings, filename)
        big = images.plan_size(css_w, css_h, 10**12, max_scale=max_scale)
        png = await _shot(page, locator, full=full, device=big.scale > 1, clip=clip, settings=call.settings)
        fitted, _ = images.fit_image(png, 10**12, fmt=fmt, quality=90, source_scale=_source_scale(png, css_w),
                                     max_scale=max_scale, max_bytes=10**12)
        _save(path, fitted.data)
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
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        return img.width / css_width


async def _shot(page, locator, *, full: bool, device: bool, clip, settings) -> bytes:
    timeout_ms = settings.timeouts.navigation_ms if full else settings.timeouts.read_ms
    try:
        return await asyncio.wait_for(_grab(page, locator, full=full, device=device, clip=clip,
                                            timeout_ms=timeout_ms), timeout_ms / 1000 + 5)
    except asyncio.TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms capturing the screenshot; try a smaller "
                            "region (target) or without fullPage.") from exc
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action="take a screenshot", timeout_ms=timeout_ms) from exc


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
        from ..browser.reading import interrupt_scripts

        stopped = await interrupt_scripts(tab)
        after = ("it was stopped and the page is usable again" if stopped else
                 "if the page is stuck, close the tab (browser_tabs close)")
        raise ActionTimeout(f"The function did not finish within {timeout_ms:.0f} ms (an endless loop, or a promise "
                            f"that never settles?); {after}.") from exc
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
    await settle_baselines(call.session)
    ledger = call.session.ledger
    return Rendered(ledger.render(), meta=ledger.summary(), capture=False)


def tools_list_tokens(tools: list[Any]) -> int:
    """o200k tokens of a ``tools/list`` result holding ``tools`` (MCP ``Tool`` objects), serialised as sent.

    The server can store this in ``session.ledger.definition_tokens`` so ``browser_ctx_stats`` reports it.
    """
    body = {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]}
    return count_tokens(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


# -- ledger baselines ---------------------------------------------------------------------------------


#: Pages with more elements than this get no measured baseline: a full ``aria_snapshot`` there costs
#: seconds of renderer time (a 15,000-element listing: ~40 s), which would delay the next call.
BASELINE_MAX_ELEMENTS = 3000

_pending: weakref.WeakKeyDictionary[Any, set[asyncio.Future]] = weakref.WeakKeyDictionary()


async def measure_baseline(session, tool: str, args: dict[str, Any],
                           version: str | None) -> int | None | asyncio.Future[int | None]:
    """Price a read for the ledger: the tokens of a full ``aria_snapshot(mode="ai")`` of the current page
    (what ``@playwright/mcp`` returns for a snapshot or a navigation).

    For ``browser_snapshot`` with a ``target``, the target's snapshot (its first match) is measured.
    Cost, kept off the call's path: one element count (a few ms); then, unless the page has more than
    :data:`BASELINE_MAX_ELEMENTS` elements, one ``aria_snapshot`` in a background task (typically
    0.1-1 s of renderer time on an ordinary page; the very first in a browser takes a few seconds
    more) whose token count settles the ledger when done. Results are cached by tab, URL, page version
    and target, so re-reading an unchanged page measures nothing. ``browser_ctx_stats`` waits for
    pending measurements (:func:`settle_baselines`).

    Returns:
        The cached token count; a task that yields it (``None`` on failure); or ``None`` when the page
        is too large or gone (the ledger then assumes no saving).
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
        elements = await asyncio.wait_for(page.evaluate("() => document.getElementsByTagName('*').length"), 2)
    except Exception:  # noqa: BLE001 - busy or navigating
        return None
    if elements > BASELINE_MAX_ELEMENTS:
        return None

    async def measure() -> int | None:
        try:
            if target:
                from ..browser.reading import resolve_target

                snap = await resolve_target(tab, target).first.aria_snapshot(mode="ai", timeout=20_000)
            else:
                snap = await page.aria_snapshot(mode="ai", timeout=20_000)
        except Exception:  # noqa: BLE001 - a baseline is best-effort
            return None
        tokens = count_tokens(snap)
        if key is not None:
            session.ledger.remember_baseline(key, tokens)
        return tokens

    task = asyncio.ensure_future(measure())
    pending = _pending.setdefault(session, set())
    pending.add(task)
    task.add_done_callback(pending.discard)
    return task


async def settle_baselines(session, timeout: float = 30.0) -> None:
    """Wait (at most ``timeout`` seconds) for the session's background baseline measurements."""
    pending = list(_pending.get(session, ()))
    if pending:
        await asyncio.wait(pending, timeout=timeout)
    await asyncio.sleep(0)  # let the ledger's done-callbacks run


# -- specs -----------------------------------------------------------------------------------------
# Kept short: tools/list is paid on every turn. ``target``, ``maxTokens`` and ``offset`` are explained once,
# in the server instructions. ``@playwright/mcp``'s ``element`` (a human-readable description for permission
# prompts) is left out: it does nothing here.

_STR = {"type": "string"}

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
    ToolSpec(
        name="browser_evaluate",
        description="Run JS () => … in the page, or (element) => … on target; result serialised safely. "
                    "filename: save instead.",
        properties={"function": _STR, "target": _STR, "filename": _STR},
        required=("function",),
        handler=evaluate,
        caps="debug",
        read_only=False,
    ),
    ToolSpec(
        name="browser_file_upload",
        description="Set files (within allowed roots) on target, or on the page's only file input.",
        properties={"paths": {"type": "array", "items": _STR}, "target": _STR},
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
        description="Token ledger: per tool, tokens returned vs full snapshots.",
        properties={},
        handler=stats,
        pageable=False,
    ),
]
