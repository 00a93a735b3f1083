"""Emulation (``--caps emulation``): ``browser_emulate``, CPU and network throttling, geolocation, timezone,
locale, colour scheme, reduced motion and user agent for the current tab (CDP ``Emulation`` and
``Network.emulateNetworkConditions``: :mod:`browser_ctx.browser.emulation`).

Drop-in for chrome-devtools-mcp's ``emulate``. Every result says what is now in force; a call with no
arguments only reports it. The navigate card and the performance report name the throttling in force.
"""

from __future__ import annotations

from typing import Any

from ...browser import emulation
from ...core import emulation as rules
from ..registry import Rendered, ToolCall, ToolSpec

__all__ = ["TOOLS", "emulate"]


async def emulate(call: ToolCall) -> Rendered:
    """Apply the settings given (see :mod:`browser_ctx.core.emulation`; ``null`` clears one) and say what is in
    force on the tab.

    Raises:
        InvalidArgument: a value out of range, or one the browser refused (timezone, locale).
        PageError: not a Chromium page.
    """
    changes = rules.check(call.args)
    tab = await call.session.current_tab()
    state = await emulation.apply(tab, changes) if changes else dict(emulation.in_force(tab))
    described = rules.describe(state)
    head = "Emulation in force" if changes else "Emulation in force now"
    text = f"{head} on this tab: {described}." if described else \
        ("Emulation cleared: nothing is emulated on this tab." if changes else "Nothing is emulated on this tab.")
    return Rendered(text, meta={"emulation": state}, capture=False, tab=tab.id)


# Each setting also takes null (clear it).
_ANY: dict[str, Any] = {}
_NUM: dict[str, Any] = {"type": ["number", "null"]}
_STR: dict[str, Any] = {"type": ["string", "null"]}
_OBJ: dict[str, Any] = {"type": ["object", "null"]}

TOOLS = [
    ToolSpec(
        name="browser_emulate",
        description="Emulate on this tab: cpuThrottling (N× slower), network (offline, slow-3g, fast-3g, fast-4g, "
                    "none, or {download, upload: kbit/s, latency: ms}), geolocation {latitude, longitude}, timezone, "
                    "locale, colorScheme (light, dark), reducedMotion (reduce), userAgent; null clears one. No "
                    "arguments: what is in force.",
        properties={"cpuThrottling": _NUM, "network": _ANY, "geolocation": _OBJ, "timezone": _STR, "locale": _STR,
                    "colorScheme": _STR, "reducedMotion": _STR, "userAgent": _STR},
        handler=emulate,
        pageable=False,
        caps="emulation",
        read_only=False,
    ),
]
