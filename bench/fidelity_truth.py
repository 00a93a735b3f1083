"""Ground truth for the fidelity measure: what Chromium's accessibility tree holds that a person can see.

In a page loaded in our own Playwright Chromium (the servers' pages are not reachable from outside), the
whole accessibility tree of the main frame is read with CDP ``Accessibility.getFullAXTree`` (fine on the
small pages measured; never use it on a large page). Kept:

- **interactive nodes**: not ignored, a role in :data:`bench.fidelity_match.INTERACTIVE_ROLES` (after
  :func:`bench.fidelity_match.canonical_role`; a ``row`` only inside a ``grid``/``treegrid``), a non-empty name
  (whitespace collapsed), and a visible DOM node;
- **static text**: ``StaticText`` nodes, not ignored, non-empty after whitespace collapsing, visible, and not
  inside an editable field (a field's value is not static text: an input's text, a password's dots).

Visible (:data:`_VISIBLE_JS`, run on the node's DOM node, or on the nearest accessibility ancestor that has
one the check can judge, e.g. for CSS generated content; canvas fallback content is judged by its canvas):
it has a box of non-zero size, ``checkVisibility`` (display, ``visibility``, opacity 0, ``content-visibility``)
passes, it is not wholly left of or above the document (off-screen), its text is not ``font-size: 0``, and no
ancestor (through shadow hosts) has ``aria-hidden="true"``, ``inert``, a ``clip`` of at most 1×1 px,
``clip-path: inset(50%)``/``inset(100%)``, or hides overflow in a box of at most 1×1 px (the visually-hidden
pattern) or in a box the node lies wholly outside of (a ``position: fixed`` node: wholly outside the viewport
instead). Colour tricks (text in the background colour, near-zero opacity) are not judged: the pages measured
do not use them. Ignored accessibility nodes (``aria-hidden`` subtrees, the page behind a modal dialog) are left
out by Chromium itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession, Page

from .fidelity_match import INTERACTIVE_ROLES, canonical_role, collapse

__all__ = ["Truth", "ground_truth"]

_VISIBLE_JS = r"""function () {
  let node = this;
  if (!(node instanceof Node) || (node.nodeType !== 1 && node.nodeType !== 3)) return null;
  const canvas = (node.nodeType === 1 ? node : node.parentElement)?.closest('canvas');
  if (canvas) node = canvas;  // fallback content has no box of its own: it is shown as far as its canvas is
  const el = node.nodeType === 1 ? node : node.parentElement;
  if (!el || !el.isConnected) return false;
  let rects;
  if (node.nodeType === 3) {
    const range = document.createRange();
    range.selectNodeContents(node);
    rects = Array.from(range.getClientRects());
  } else {
    rects = Array.from(node.getClientRects());
  }
  const boxes = rects.filter((r) => r.width > 0 && r.height > 0);
  if (!boxes.length) return false;
  if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true, contentVisibilityAuto: true })) return false;
  if (boxes.every((r) => r.right + window.scrollX <= 0 || r.bottom + window.scrollY <= 0)) return false;
  if (node.nodeType === 3 && parseFloat(getComputedStyle(el).fontSize) === 0) return false;
  const fixed = getComputedStyle(el).position === 'fixed';
  if (fixed && boxes.every((r) => r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight)) {
    return false;  // fixed outside the viewport: no scrolling brings it in
  }
  for (let a = el; a; a = a.parentElement || (a.getRootNode() && a.getRootNode().host) || null) {
    if (a.getAttribute('aria-hidden') === 'true' || a.inert) return false;
    const cs = getComputedStyle(a);
    if (/inset\(\s*(50|100)%/.test(cs.clipPath)) return false;
    const box = a.getBoundingClientRect();
    if (cs.clip && cs.clip !== 'auto') {
      const n = (cs.clip.match(/-?[\d.]+/g) || []).map(Number);
      if (n.length === 4 && (n[1] - n[3] <= 1 || n[2] - n[0] <= 1)) return false;
    }
    if (cs.overflow !== 'visible' && box.width <= 1 && box.height <= 1) return false;
    const clipX = a !== node && /hidden|clip/.test(cs.overflowX);
    const clipY = a !== node && /hidden|clip/.test(cs.overflowY);
    if ((clipX || clipY) && !fixed && !boxes.some((r) => (!clipX || (r.right > box.left && r.left < box.right))
        && (!clipY || (r.bottom > box.top && r.top < box.bottom)))) return false;  // wholly outside a clipping box
  }
  return true;
}"""


@dataclass
class Truth:
    """What a person can see in one page state, as Chromium's accessibility tree names it.

    Attributes:
        interactive: ``(role, name)`` of every visible named interactive node, in tree order (duplicates kept:
            25 "Delete" buttons are 25 nodes). Roles canonical, names whitespace-collapsed.
        text: every visible static text, whitespace-collapsed, in tree order (duplicates kept).
        ax_nodes: how many nodes the tree had; ``hidden``: named interactive or text nodes dropped as not visible.
    """

    interactive: list[tuple[str, str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    ax_nodes: int = 0
    hidden: list[tuple[str, str]] = field(default_factory=list)


async def _visible(cdp: CDPSession, backend_id: int, cache: dict[int, bool | None]) -> bool | None:
    """Whether the DOM node is visible; ``None`` when it cannot be resolved (e.g. a pseudo-element)."""
    if backend_id in cache:
        return cache[backend_id]
    try:
        resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})
        object_id = resolved["object"]["objectId"]
        res = await cdp.send("Runtime.callFunctionOn", {
            "objectId": object_id, "functionDeclaration": _VISIBLE_JS, "returnByValue": True})
        await cdp.send("Runtime.releaseObject", {"objectId": object_id})
    except Exception:  # noqa: BLE001 - nodes CDP cannot resolve are judged by their ancestor
        cache[backend_id] = None
        return None
    value = res.get("result", {}).get("value")
    if "exceptionDetails" in res or not isinstance(value, bool):
        value = None  # a pseudo-element or another node the check cannot judge: its ancestor decides
    cache[backend_id] = value
    return value


def _prop(node: dict[str, Any], key: str) -> str:
    value = (node.get(key) or {}).get("value")
    return value if isinstance(value, str) else ""


def _in_field(node: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> bool:
    """Whether a text node is inside an editable field (its value: an input's text, a password's dots)."""
    parent = by_id.get(node.get("parentId"))  # type: ignore[arg-type]
    for _ in range(8):
        if parent is None:
            return False
        if any(p.get("name") == "editable" for p in parent.get("properties") or []):
            return True
        parent = by_id.get(parent.get("parentId"))  # type: ignore[arg-type]
    return False


def _in_grid(node: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> bool:
    """Whether a row belongs to a ``grid``/``treegrid`` (rows of a plain data ``table`` are not interactive)."""
    parent = by_id.get(node.get("parentId"))  # type: ignore[arg-type]
    for _ in range(20):
        if parent is None:
            return False
        role = _prop(parent, "role").lower()
        if role in ("grid", "treegrid"):
            return True
        if role in ("table", "list", "listbox", "tree"):
            return False
        parent = by_id.get(parent.get("parentId"))  # type: ignore[arg-type]
    return False


async def ground_truth(page: Page) -> Truth:
    """Read ``page``'s accessibility tree (main frame) over CDP and keep what is visible (see the module doc)."""
    cdp = await page.context.new_cdp_session(page)
    try:
        await cdp.send("DOM.enable")
        await cdp.send("Accessibility.enable")
        nodes = (await cdp.send("Accessibility.getFullAXTree"))["nodes"]
        by_id = {n["nodeId"]: n for n in nodes}
        cache: dict[int, bool | None] = {}
        truth = Truth(ax_nodes=len(nodes))

        async def visible(node: dict[str, Any]) -> bool:
            seen = 0
            while node is not None and seen < 200:
                backend = node.get("backendDOMNodeId")
                if backend:
                    v = await _visible(cdp, backend, cache)
                    if v is not None:
                        return v
                node = by_id.get(node.get("parentId"))  # type: ignore[assignment]
                seen += 1
            return False

        for node in nodes:
            if node.get("ignored"):
                continue
            raw_role = _prop(node, "role")
            name = collapse(_prop(node, "name"))
            if not name:
                continue
            if raw_role == "StaticText":
                if _in_field(node, by_id):
                    continue  # a form field's value: not static text (values, masked or not, are not scored)
                if await visible(node):
                    truth.text.append(name)
                else:
                    truth.hidden.append(("text", name))
                continue
            role = canonical_role(raw_role)
            if role not in INTERACTIVE_ROLES or (role == "row" and not _in_grid(node, by_id)):
                continue
            if await visible(node):
                truth.interactive.append((role, name))
            else:
                truth.hidden.append((role, name))
        return truth
    finally:
        await cdp.detach()
