"""What the tab's last walk says of one ref: the words a record names it by, and a typed value kept current.

- :func:`walked_label`: the agent picked the ref from a read, so the record names the element as that read did:
  its role and accessible name as the snapshot line shows them (``button "Save" [e5]``, ``select "Theme" [e9]``,
  ``clickable .like [e21]``),
  with no page call. A ref the last walk does not hold, an element it reached only through its label (hidden),
  or one with no name there, is described by the page instead (:func:`.targets.describe_element`: one element
  hand-off and one script).
- :func:`keep_typed_value`: typing changes a field's value but not the DOM, so the page version (and the next
  action's reuse of the last walk as its "before") does not see it; a record taken without an after walk sets the
  value in the last walk, or drops that walk when it cannot say the value as a walk would.
"""

from __future__ import annotations

from ..core.dom import Node, accessible_name, role_of
from ..core.roles import name_token
from .session import Tab
from .walk import MAX_VALUE_CHARS

__all__ = ["walked_label", "keep_typed_value", "LABEL_NAME_CHARS"]

#: Characters of the name in a label (as :func:`.targets.describe_element`).
LABEL_NAME_CHARS = 50


def _node_of(root: Node, ref: str) -> Node | None:
    return next((n for n in root.iter() if n.attrs.get("data-ref") == ref and not n.is_text), None)


def walked_label(tab: Tab, ref: str) -> str | None:
    """``role "name" [ref]`` (``role .token [ref]``: :func:`~browser_ctx.core.roles.name_token`) for ``ref``
    from ``tab``'s last walk, or ``None`` when it cannot say (no walk, the ref is not in it, the element was
    reached through its label, or it has no name there)."""
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
    shown = name_token(node) or f'"{name}"'  # as the snapshot line shows it: .ql-bold, [data-value="#e60000"]
    return f'{"file input" if role == "file" else role} {shown} [{ref}]'


#: Input types whose value a walk shows as it is held (``data-value``); others (password, date …) are not kept.
_PLAIN_INPUTS = frozenset(("", "text", "search", "email", "url", "tel"))


def keep_typed_value(tab: Tab, ref: str | None, value: object) -> None:
    """Make ``tab``'s last walk show ``value`` (what the field ``ref`` now holds, read back) as a new walk would: a
    text input or textarea holding at most :data:`~.walk.MAX_VALUE_CHARS` characters and shown as it holds it (a
    read-back of ``(filled)``/``(empty)``, a value shown only so, is not); else the walk is dropped (the next
    action walks the page before it)."""
    last = tab.last_walk
    if last is None:
        return
    node = _node_of(last[1].doc.root, ref) if ref else None
    plain = node is not None and (node.tag == "textarea" or (
        node.tag == "input" and (node.attrs.get("type") or "").strip().lower() in _PLAIN_INPUTS))
    if node is None or not plain or not isinstance(value, str) or len(value) > MAX_VALUE_CHARS \
            or value in ("(filled)", "(empty)") \
            or any(k in node.attrs for k in ("data-value-hash", "data-filled", "role")):
        tab.last_walk = None
        return
    if value:
        node.attrs["data-value"] = value
    else:
        node.attrs.pop("data-value", None)
