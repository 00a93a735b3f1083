"""Every tool the server can offer, one module per family, registered explicitly.

Each family module exports ``TOOLS: list[ToolSpec]`` (see :mod:`browser_ctx.server.registry`).
A new family is one module here plus one line in the import below and one entry in
:data:`FAMILIES`. The order of :data:`FAMILIES` is the order of ``tools/list``.

Families: :mod:`.read` (navigate, snapshot, text), :mod:`.console` (console messages),
:mod:`.network` (requests, one request), :mod:`.actions` (click … verify), :mod:`.vision`
(screenshots), :mod:`.evaluate` (run JavaScript), :mod:`.page` (upload, resize), :mod:`.ledger`
(``browser_ctx_stats``), :mod:`.pdf` (``browser_pdf_save``), :mod:`.devtools` (tracing), :mod:`.testing`
(``browser_generate_test``), :mod:`.perf` (``browser_performance``, ``browser_memory``), :mod:`.emulation`
(``browser_emulate``), :mod:`.extra` (drag, forward, reload), :mod:`.mouse` (coordinates), :mod:`.storage`
(cookies, web storage, storage state), :mod:`.routes` (mocks, offline, extra headers).
"""

from __future__ import annotations

from types import ModuleType

from ..registry import ToolSpec
from . import (
    actions,
    console,
    devtools,
    emulation,
    evaluate,
    extra,
    ledger,
    mouse,
    network,
    page,
    pdf,
    perf,
    read,
    routes,
    storage,
    testing,
    vision,
)

__all__ = ["FAMILIES", "all_tools"]

#: Tool family modules, in ``tools/list`` order.
FAMILIES: tuple[ModuleType, ...] = (read, console, network, actions, extra, vision, mouse, evaluate, page, storage,
                                    routes, pdf, devtools, testing, perf, emulation, ledger)


def all_tools() -> list[ToolSpec]:
    """Return every tool spec of every family, in :data:`FAMILIES` order."""
    return [spec for family in FAMILIES for spec in family.TOOLS]
