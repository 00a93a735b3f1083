"""The content of closed shadow roots, walked like the rest of the page (stage 1 of the reading pipeline).

Page JavaScript, ours included, cannot reach a closed shadow root (``element.shadowRoot`` is ``null``), yet a
person sees its text and uses its controls. CDP can: ``DOM.describeNode {pierce: true}`` lists a host's shadow
roots, closed ones too, and ``DOM.resolveNode`` hands one to a script in a chosen world. So:

1. the walker marks each custom element that may host a closed root (no open root, a box, no light content
   shown) with ``<bc-shadow data-host="i">`` and leaves the list on its registry under the walk's token
   (``js/closed_hosts.js`` reads it, once);
2. :func:`fill` asks Chromium for each host's closed root and runs the walker on it, in the world and
   registry of the first walk, so its controls get refs of the same frame that ``browser_click`` resolves;
   :mod:`.walk` grafts each walked root in place of its marker (by the marker's node). A host without a
   closed root loses its marker.

At most 20 hosts per frame (the walker's limit); one ``DOM.describeNode`` per host, and for a closed root one
``DOM.resolveNode`` and one ``Runtime.callFunctionOn``. Without CDP (no world context) markers are removed.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from .ax_nodes import OBJECT_GROUP, object_ids
from .scripts import bundle, invocation

__all__ = ["fill", "target_closed"]

#: Runs the walker (``js/walk.js``, bundled) with ``this`` (a closed shadow root) as its root.
_WALK_ROOT = "function (opts) {{ return ({source})(Object.assign({{}}, opts, {{ root: this }})); }}"


def target_closed(exc: PlaywrightError) -> bool:
    """Whether ``exc`` says the CDP target (page or browser) closed, not just one node or context going away."""
    low = str(exc).lower()
    return "closed" in low and "target" in low


async def _walk_root(cdp: CDPSession, host_id: str, context_id: int, opts: dict[str, Any]) -> tuple[str, int]:
    """Return the walker's JSON of ``host_id``'s closed shadow root and the last ref number, or ``("", 0)``."""
    described = await cdp.send("DOM.describeNode", {"objectId": host_id, "depth": 1, "pierce": True})
    roots = [r for r in (described.get("node") or {}).get("shadowRoots") or ()
             if r.get("shadowRootType") == "closed" and r.get("backendNodeId")]
    if not roots:
        return "", 0
    resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": roots[0]["backendNodeId"],
                                                  "executionContextId": context_id, "objectGroup": OBJECT_GROUP})
    root_id = (resolved.get("object") or {}).get("objectId")
    if not root_id:
        return "", 0
    got = await cdp.send("Runtime.callFunctionOn", {
        "functionDeclaration": _WALK_ROOT.format(source=bundle("walk")), "objectId": root_id,
        "arguments": [{"value": {**opts, "withCounter": True}}], "returnByValue": True})
    value = (got.get("result") or {}).get("value")
    if not isinstance(value, list) or len(value) < 2 or not isinstance(value[0], str):
        return "", 0
    return value[0], int(value[1]) if isinstance(value[1], (int, float)) else 0


async def fill(cdp: CDPSession | None, context_id: int | None, token: str,
               opts: dict[str, Any]) -> tuple[dict[int, str], int]:
    """Walk the closed shadow root of each host one frame's walk marked (``bc-shadow``), in the world and
    registry that walk used. ``cdp``/``context_id``: the session and world the walk ran in; ``opts``: the walk's
    options (frame prefix, name and value limits, ref base). Returns ``{host index: the walker's JSON of its
    root}`` (hosts without a closed root, or gone, are left out) and the last ref number used (0 when none was).

    Raises:
        PlaywrightError: only when the session itself closed (the page or browser closed).
    """
    walked: dict[int, str] = {}
    last = 0
    if cdp is None or context_id is None:
        return walked, last
    try:
        answer = await cdp.send("Runtime.evaluate", {"expression": invocation("closed_hosts", token),
                                                     "contextId": context_id, "objectGroup": OBJECT_GROUP})
        array_id = (answer.get("result") or {}).get("objectId")
        hosts = await object_ids(cdp, array_id) if array_id else []
        for index, host_id in enumerate(hosts):
            if not host_id:
                continue
            try:
                part, counter = await _walk_root(cdp, host_id, context_id,
                                                 {**opts, "refBase": max(last, int(opts.get("refBase") or 0))})
            except PlaywrightError as exc:
                if target_closed(exc):
                    raise
                continue  # the host went away or its document changed: no content for it
            if part:
                walked[index] = part
            last = max(last, counter)
    except PlaywrightError as exc:
        if target_closed(exc):
            raise
    return walked, last
