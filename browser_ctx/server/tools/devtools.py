"""DevTools (``--caps devtools``): ``browser_start_tracing`` / ``browser_stop_tracing``, a Playwright trace of the
browser context (screenshots, DOM snapshots, sources, network) saved under ``--output-dir``.

Names follow ``@playwright/mcp`` 0.0.83; ``browser_stop_tracing`` also takes ``filename`` (default
``trace-<time>.zip``). Open the file with ``npx playwright show-trace FILE`` (or ``python -m playwright
show-trace FILE``). No video tools: Playwright encodes video with its own ffmpeg build, a separate download
(``playwright install ffmpeg``) that Debian does not package; the trace's screencast frames show the same.
"""

from __future__ import annotations

import zipfile
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ... import files
from ..._errors import InvalidArgument, error_kind, translate
from ..registry import Rendered, ToolCall, ToolSpec
from .pdf import stamp

__all__ = ["TOOLS", "start_tracing", "stop_tracing"]


async def start_tracing(call: ToolCall) -> Rendered:
    """Start a trace of the browser context: screenshots, DOM snapshots and sources, until
    ``browser_stop_tracing`` (a browser relaunch ends it unsaved).

    Raises:
        InvalidArgument: a trace is already being recorded.
    """
    tab = await call.session.current_tab()
    try:
        await tab.page.context.tracing.start(screenshots=True, snapshots=True, sources=True,
                                             title=f"browser-ctx {stamp()}")
    except PlaywrightError as exc:
        if error_kind(exc) == "tracing-on":
            raise InvalidArgument("A trace is already being recorded; call browser_stop_tracing first.") from exc
        raise translate(exc, action="start tracing") from exc
    return Rendered("Tracing started (screenshots, DOM snapshots, sources, network); browser_stop_tracing saves it.",
                    capture=False, tab=tab.id)


async def stop_tracing(call: ToolCall) -> Rendered:
    """Stop the trace and save it at ``filename`` (:func:`browser_ctx.files.output_path`; default
    ``trace-<time>.zip``).

    Returns the path, size in bytes, what it holds (actions, screenshots, resources) and how to open it; the same
    as ``path``, ``bytes``, ``entries`` in ``meta``.

    Raises:
        InvalidArgument: no trace is being recorded (never started, already stopped, or lost with a relaunch);
            a filename outside the output folder.
    """
    path = files.output_path(call.settings, call.args.get("filename") or f"trace-{stamp()}.zip")
    tab = await call.session.current_tab()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        await tab.page.context.tracing.stop(path=path)
    except OSError as exc:
        raise InvalidArgument(f"Could not save {path}: {exc.strerror or exc}. Pick another filename.") from exc
    except PlaywrightError as exc:
        if error_kind(exc) == "tracing-off":
            raise InvalidArgument("No trace is being recorded (browser_start_tracing starts one; a browser "
                                  "relaunch ends it).") from exc
        raise translate(exc, action="stop tracing") from exc
    size = path.stat().st_size
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    shots = sum(1 for n in names if n.startswith("screencast/") or n.endswith((".jpeg", ".jpg")))
    resources = sum(1 for n in names if n.startswith("resources/"))
    text = (f"Saved the trace to {path}: {size:,} bytes, {shots} screenshots, {resources} resources. Open it with: "
            f"npx playwright show-trace {path}  (or: python -m playwright show-trace {path})")
    return Rendered(text, meta={"path": str(path), "bytes": size, "entries": len(names)}, capture=False, tab=tab.id)


_STR: dict[str, Any] = {"type": "string"}

TOOLS = [
    ToolSpec(name="browser_start_tracing", description="Start a Playwright trace (screenshots, snapshots).",
             properties={}, handler=start_tracing, pageable=False, caps="devtools"),
    ToolSpec(name="browser_stop_tracing", description="Stop the trace; save it (filename) for playwright show-trace.",
             properties={"filename": _STR}, handler=stop_tracing, pageable=False, caps="devtools"),
]
