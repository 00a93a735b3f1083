"""The listener pass's memo (:class:`browser_ctx.browser.listeners.Kept`): what it keeps and when it lets go."""

from __future__ import annotations

from typing import Any, cast

from browser_ctx.browser import listeners
from browser_ctx.browser.listeners import Kept
from browser_ctx.browser.world_sessions import _Session


class _Emitter:
    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def on(self, event: str, fn: Any) -> None:
        self.handlers[event] = fn


def test_a_new_main_world_drops_the_sessions_remembered_document_only() -> None:
    page, other = _Emitter(), _Emitter()
    kept = Kept()
    kept.documents[cast(Any, page)] = "doc-a"
    kept.documents[cast(Any, other)] = "doc-b"
    _Session(cast(Any, page), cast(Any, None), "utility", kept)
    created = page.handlers["Runtime.executionContextCreated"]
    created({"context": {"id": 7, "name": "utility", "auxData": {"frameId": "F", "isDefault": False}}})
    assert kept.documents[cast(Any, page)] == "doc-a", "an isolated world is not a new document"
    created({"context": {"id": 8, "name": "", "auxData": {"frameId": "F", "isDefault": True}}})
    assert cast(Any, page) not in kept.documents, "a document shown (even from the back/forward cache)"
    assert kept.documents[cast(Any, other)] == "doc-b"


def test_the_memo_keeps_the_most_recent_sets() -> None:
    kept = Kept()
    for context_id in range(listeners.KEPT_CONTEXTS + 3):
        kept.keep(cast(Any, "cdp"), context_id, (context_id,), f"t{context_id}")
    assert len(kept.sets) == listeners.KEPT_CONTEXTS
    assert (cast(Any, "cdp"), 0) not in kept.sets
    last = listeners.KEPT_CONTEXTS + 2
    assert kept.sets[(cast(Any, "cdp"), last)] == ((last,), f"t{last}")
