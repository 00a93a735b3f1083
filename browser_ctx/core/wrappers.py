"""Operable wrappers that only repeat the ARIA controls inside them (issue 24).

A jQuery UI menu item is an ``li`` the page listens to (the walker's ``clickable``) around the ``div`` that has
``role=menuitem``; its spinner is a listened-to ``span`` around the ``spinbutton`` and its two buttons. Both
would show every control twice. :func:`unwrap` takes the wrapper's ref off, so only the controls inside are
shown (a click on one reaches the wrapper's handler as the wrapper's would).
"""

from __future__ import annotations

from .roles import is_interactive
from .tree import Node

__all__ = ["unwrap"]

#: Attributes that make the walker's node an operable control; taken off a wrapper that only repeats.
_OPERABLE_ATTRS = ("data-ref", "data-op", "data-name", "data-name-from", "data-name-token", "data-class-states",
                   "data-hint", "data-hint-from", "data-hint-token")
#: States a wrapper hands to its one control when that control has none of its own.
_STATES = ("aria-disabled", "aria-expanded", "aria-selected", "aria-pressed", "aria-checked", "data-class-states")
#: Roles a wrapper may have and still be one (the walker's operable elements have no other).
_NO_ROLE = ("", "presentation", "none", "generic")


def _inner(node: Node) -> list[Node] | None:
    """The controls directly inside ``node`` (not inside one another) when all of them have ARIA (none is the
    walker's operable) and no text lies outside them; else ``None``."""
    found: list[Node] = []
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.is_text:
            if n.text.strip():
                return None
            continue
        if is_interactive(n):
            if "data-op" in n.attrs or "data-role" in n.attrs:
                return None
            found.append(n)
            continue
        stack.extend(n.children)
    return found


def unwrap(nodes: list[Node]) -> None:
    """Take the ref off each operable ``node`` (no ARIA role of its own) whose content is only ARIA controls,
    at least one of them named; a lone control gets the wrapper's states it does not have itself."""
    for node in nodes:
        attrs = node.attrs
        if "data-op" not in attrs or "data-role" in attrs or (attrs.get("role") or "").split(" ")[0] not in _NO_ROLE:
            continue
        inner = _inner(node)
        if not inner or not any(c.attrs.get("data-name") for c in inner):
            continue
        if len(inner) == 1:
            own = inner[0].attrs
            for key in _STATES:
                if key in attrs and key not in own:
                    own[key] = attrs[key]
        for key in _OPERABLE_ATTRS:
            attrs.pop(key, None)
