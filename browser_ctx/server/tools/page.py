"""Page set-up: ``browser_file_upload`` (files on a file input) and ``browser_resize`` (the viewport).

Neither returns an action record: they change what the page is given, not what it shows. Names and
parameters follow ``@playwright/mcp`` 0.0.83 (``paths``, ``target``, ``width``, ``height``).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import InvalidArgument, translate
from ...browser import refs
from ...browser.files_input import upload
from ...browser.targets import describe_element
from ..registry import Rendered, ToolCall, ToolSpec
from .element import one_element

__all__ = ["TOOLS", "file_upload", "resize", "MIN_VIEWPORT", "MAX_VIEWPORT"]

#: Smallest and largest viewport side ``browser_resize`` accepts, CSS px.
MIN_VIEWPORT, MAX_VIEWPORT = 100, 10_000

async def file_upload(call: ToolCall) -> Rendered:
    """Give files to a file input: ``target`` (a file input, a label of one, or an element whose click opens a
    file chooser), else the file chooser the last action opened, else the page's only file input
    (see :func:`browser_ctx.browser.files_input.upload`).

    Args (from ``call.args``): ``paths`` (list of file paths; relative ones resolve against the
    working directory; an empty list clears the input), ``target`` (optional).

    Returns the line naming the input and the files it now holds (names and sizes in bytes, never
    contents); ``files`` in the structured content.

    Raises:
        InvalidArgument: a path outside the upload roots (:func:`browser_ctx.files.upload_roots`:
            ``--allowed-roots``, default the working directory) or not a file; several files for an input
            that takes one. Paths are checked before anything is touched.
        SelectorError: no target, no pending chooser and not exactly one file input; ``target`` not one
            element, or not a file input, label of one, or opener of a file chooser.
    """
    args = call.args
    chosen_files = [files.upload_path(call.settings, raw) for raw in list(args.get("paths") or [])]
    tab = await call.session.current_tab()
    target = args.get("target")
    locator = await one_element(tab, target, call.settings) if target else None
    what = await describe_element(locator, tab, ref=target if refs.is_ref(target) else None) \
        if locator is not None and target else "the file input"
    done = await upload(tab, locator, chosen_files, what=what, timeout_ms=call.settings.timeouts.action_ms)
    return Rendered(done.text, meta={"files": done.files}, capture=False, tab=tab.id)


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
        m = await tab.worlds.evaluate(tab.page.main_frame, "() => [innerWidth, innerHeight, devicePixelRatio]")
    except PlaywrightError as exc:
        raise translate(exc, action="resize the viewport") from exc
    text = f"Viewport is now {m[0]}×{m[1]} CSS px" + (f" (device scale factor {m[2]:g})" if m[2] != 1 else "") + "."
    return Rendered(text, meta={"width": m[0], "height": m[1]}, capture=False, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(
        name="browser_file_upload",
        description="Set files (within allowed roots) on target, the open chooser, or the only file input.",
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
