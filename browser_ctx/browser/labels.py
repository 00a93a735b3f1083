"""How an action's record names its target, from the tab's last walk when it holds the ref (no page call).

The agent picked the ref from a read, so the record names the element as that read did: its role and accessible
name as the snapshot line shows them (``button "Save" [e5]``, ``select "Theme" [e9]``). A ref the last walk does
not hold, an element it reached only through its label (hidden), or one with no name there, is described by the
page instead (:func:`.targets.describe_element`: one element hand-off and one script).
"""

from __future__ import annotations

from ..core.dom import Node, accessible_name, role_of
from .session import Tab

__all__ = ["walked_label", "LABEL_NAME_CHARS"]

#: Characters of the name in a label (as :func:`.targets.describe_element`).
LABEL_NAME_CHARS = 50


def _node_of(root: Node, ref: str) -> Node | None:
    return next((n for n in root.iter() if n.attrs.get("data-ref") == ref and not n.is_text), None)


def walked_label(tab: Tab, ref: str) -> str | None:
    """``role "name" [ref]`` for ``ref`` from ``tab``'s last walk, or ``None`` when it cannot say (no walk, the
    ref is not in it, the element was reached through its label, or it has no name there)."""
    if tab.last_walk is None:
        return None
    doc = tab.last_walk[1].doc
    node = _node_of(doc.root, ref)
    if node is None or node.attrs.get("data-via") == "label":
        return None
    name = accessible_name(node, doc, LABEL_NAME_CHARS)
    if not name:
        return None
    role = role_of(node) or "clickable"
    return f'{"file input" if role == "file" else role} "{name}" [{ref}]'
