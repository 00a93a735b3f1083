"""Page set-up: ``browser_file_upload`` (files on a file input) and ``browser_resize`` (the viewport).

Neither returns an action record: they change what the page is given, not what it shows. Names and
parameters follow ``@playwright/mcp`` 0.0.83 (``paths``, ``target``, ``width``, ``height``).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import InvalidArgument, SelectorError, translate
from ..registry import Rendered, ToolCall, ToolSpec
from .element import one_element

__all__ = ["TOOLS", "file_upload", "resize", "MIN_VIEWPORT", "MAX_VIEWPORT"]

#: Smallest and largest viewport side ``browser_resize`` accepts, CSS px.
MIN_VIEWPORT, MAX_VIEWPORT = 100, 10_000

#: What the chosen file input now holds: its tag (with id/name) and ``[name, size in bytes]`` per file.
_INPUT_FILES_JS = ("el => ({tag: el.localName + (el.id ? '#' + el.id : '') + (el.name ? '[name=' + el.name + ']' : ''),"
                   " files: el.files ? [...el.files].map(f => [f.name, f.size]) : []})")


async def file_upload(call: ToolCall) -> Rendered:
    """Set the files of a file input: ``target``'s, or the page's only ``input[type=file]``.

    Args (from ``call.args``): ``paths`` (list of file paths; relative ones resolve against the
    working directory; an empty list clears the input), ``target`` (optional).

    Raises:
        InvalidArgument: a path outside the upload roots (:func:`browser_ctx.files.upload_roots`:
            ``--allowed-roots``, default the working directory) or not a file. Paths are checked before
            anything is touched.
        SelectorError: no file input, several without ``target``, or ``target`` not one element.
    """
    args = call.args
    chosen_files = [files.upload_path(call.settings, raw) for raw in list(args.get("paths") or [])]
    tab = await call.session.current_tab()
    target = args.get("target")
    if target:
        locator = await one_element(tab, target, call.settings)
    else:
        locator = tab.page.locator("input[type=file]")
        try:
            n = await locator.count()
        except PlaywrightError as exc:
            raise translate(exc, action="find", target="input[type=file]") from exc
        if n == 0:
            raise SelectorError("No file input on the page; pass target (a ref or selector of an input type=file).")
        if n > 1:
            raise SelectorError(f"The page has {n} file inputs; pass target to choose one.")
    try:
        await locator.set_input_files([str(f) for f in chosen_files], timeout=call.settings.timeouts.action_ms)
        info = await locator.evaluate(_INPUT_FILES_JS)
    except PlaywrightError as exc:
        raise translate(exc, action="set files on", target=target or "input[type=file]") from exc
    chosen = ", ".join(f"{name} ({size:,} bytes)" for name, size in info["files"])
    text = (f"Set {len(info['files'])} file(s) on {info['tag']}: {chosen}." if info["files"]
            else f"Cleared the files of {info['tag']}.")
    return Rendered(text, meta={"files": len(info["files"])}, capture=False, tab=tab.id)


async def resize(call: ToolCall) -> Rendered:
    """Set the viewport to ``width`` × ``height`` CSS px (each :data:`MIN_VIEWPORT`-:data:`MAX_VIEWPORT`;
    fractions are rounded).

    Raises:
        InvalidArgument: a size out of range.
    """
    width, height = round(call.args["width"]), round(call.args["height"])
    if not (MIN_VIEWPORT <= width <= MAX_VIEWPORT and MIN_VIEWPORT <= height <= MAX_VIEWPORT):
        raise InvalidArgument(f"width and height must be {MIN_VIEWPORT}-{MAX_VIEWPORT} CSS px "
                              f"(got {width}x{height}).")
    tab = await call.session.current_tab()
    try:
        await tab.page.set_viewport_size({"width": width, "height": height})
        m = await tab.page.evaluate("() => [innerWidth, innerHeight, devicePixelRatio]")
    except PlaywrightError as exc:
        raise translate(exc, action="resize the viewport") from exc
    text = f"Viewport is now {m[0]}×{m[1]} CSS px" + (f" (device scale factor {m[2]:g})" if m[2] != 1 else "") + "."
    return Rendered(text, meta={"width": m[0], "height": m[1]}, capture=False, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
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
]
