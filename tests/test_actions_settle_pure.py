"""Settling's pure parts (``browser/settle.py``): the next look is never sooner than an end could be reached,
a stream is named once per document, and a frame an action sends on an open socket is told from a heartbeat's."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from types import SimpleNamespace
from typing import cast

import pytest

from browser_ctx.browser import settle as settle_mod
from browser_ctx.browser.session import Tab
from browser_ctx.browser.settle import (
    SETTLE_POLL_MS,
    Look,
    Settling,
    next_look_ms,
    sent_counts,
    sent_new,
    streams,
    untold,
)
from browser_ctx.browser.traffic import Traffic
from browser_ctx.core.network import RequestRecord, SocketInfo
from browser_ctx.settings import ActionSettings

LIMITS = ActionSettings(quiet_ms=150, max_ms=5000, stream_ms=1000)


def test_a_quiet_page_is_looked_at_again_when_the_window_ends():
    # No fixed minimum: a page quiet for long is looked at again one window after the action.
    assert next_look_ms(LIMITS, elapsed=0, dom_quiet=2000, net_quiet=0, inflight=False, streaming=False) == 150


def test_a_recent_mutation_request_or_animation_sets_the_next_look():
    assert next_look_ms(LIMITS, elapsed=200, dom_quiet=40, net_quiet=400, inflight=False, streaming=False) == 110
    assert next_look_ms(LIMITS, elapsed=200, dom_quiet=400, net_quiet=20, inflight=False, streaming=False) == 130
    # a request in flight: quiet can come no sooner than a window after it ends
    assert next_look_ms(LIMITS, elapsed=200, dom_quiet=400, net_quiet=0, inflight=True, streaming=False) == 150
    # an animation that ends in 300 ms
    assert next_look_ms(LIMITS, elapsed=200, dom_quiet=400, net_quiet=400, inflight=False, streaming=False,
                        layout_quiet=-300) == 450


def test_a_new_document_is_looked_at_while_it_loads_then_when_its_dom_is_quiet():
    assert next_look_ms(LIMITS, elapsed=100, dom_quiet=0, net_quiet=0, inflight=True, streaming=False,
                        navigated=True) == SETTLE_POLL_MS
    assert next_look_ms(LIMITS, elapsed=100, dom_quiet=70, net_quiet=0, inflight=True, streaming=False,
                        navigated=True, loaded=True) == 80


def test_the_time_limit_and_a_stream_bring_the_next_look_forward():
    assert next_look_ms(LIMITS, elapsed=4900, dom_quiet=0, net_quiet=0, inflight=True, streaming=False) == 100
    assert next_look_ms(LIMITS, elapsed=900, dom_quiet=0, net_quiet=600, inflight=False, streaming=True) == 100


def test_never_sooner_than_the_poll_interval():
    assert next_look_ms(LIMITS, elapsed=990, dom_quiet=140, net_quiet=140, inflight=False,
                        streaming=False) == SETTLE_POLL_MS


def test_a_stream_is_named_once_per_document():
    traffic = Traffic(poll_counts={"http://a/poll": 4})
    seen = streams(traffic, {"r1": ("WebSocket ws://a/live", 50)}, {"r1": 7})
    assert seen == {"WebSocket ws://a/live": "WebSocket ws://a/live (43 messages while settling)",
                    "polling http://a/poll": "polling http://a/poll (4 requests)"}
    tab = cast(Tab, SimpleNamespace(streams_told=set(), streams_document=None))  # what a Tab keeps of it
    assert untold(tab, 1.0, seen) == list(seen.values())
    assert untold(tab, 1.0, seen) == []  # the next record of the same document says nothing
    later = {**seen, "EventSource http://a/events": "EventSource http://a/events"}
    assert untold(tab, 1.0, later) == ["EventSource http://a/events"]  # a new stream is named
    assert untold(tab, 2.0, seen) == list(seen.values())  # a new document: named again
    other = cast(Tab, SimpleNamespace(streams_told=set(), streams_document=None))
    assert untold(other, 1.0, seen) == list(seen.values())  # another tab


def _socket(*frames: tuple[str, str]) -> RequestRecord:
    rec = RequestRecord(index=1, request_id="ws1", url="ws://h/ws", resource_type="websocket", socket=SocketInfo())
    for direction, text in frames:
        assert rec.socket is not None
        rec.socket.add(direction, text)
    return rec


def test_a_frame_the_action_sent_keeps_it_waiting_but_a_heartbeat_does_not():
    rec = _socket(("↑", "ping beat 40"), ("↓", "echo beat 40"))
    before = sent_counts([rec])
    assert not sent_new([rec], before)  # nothing sent since
    assert rec.socket is not None
    rec.socket.add("↑", "ping beat 41")
    assert not sent_new([rec], before)  # one more of a kind sent before: the page's own timer
    rec.socket.add("↑", "ping joined Random")
    assert sent_new([rec], before)  # a new kind: the action's, whose answer is still to come
    opened = _socket()  # a socket that had sent nothing before the action
    assert sent_new([_socket(("↑", "hello"))], sent_counts([opened]))


class _Quick(Settling):
    """A quick settle's first look saw a DOM change; ``later`` is what the look after the frame sees. Its early
    reads take ``read_s`` seconds: the settle does not wait for them (the record does)."""

    def __init__(self, later: Look, read_s: float = 0.0) -> None:
        self.tab = cast(Tab, SimpleNamespace())
        self._doc_changed, self._popups, self._windows_asked = False, [], 0
        self._origin, self._last0, self._walked_early = 1.0, 5.0, None
        self.later, self.walks, self.read_s = later, 0, read_s
        self.order: list[str] = []

    async def _no_requests(self) -> bool:
        return True

    def _walk_after_early(self):
        self.walks += 1

        async def read():
            await asyncio.sleep(self.read_s)
            self.order.append("read")
            return "drained", ["after"]

        self.walk = asyncio.ensure_future(read())
        return self.walk


@pytest.mark.anyio
async def test_a_quick_settle_keeps_the_walk_it_began_only_when_nothing_changed_while_it_ran(monkeypatch):
    first = Look(origin=1.0, dom_quiet=2.0, layout_quiet=100.0, loaded=True, last=9.0)

    async def later_look(tab, *, frame_ms=0.0):
        settling.order.append(f"look after a frame, {frame_ms:.0f} ms at most")
        return settling.later

    monkeypatch.setattr(settle_mod, "look", later_look)
    settling = _Quick(first, read_s=0.05)  # the same last mutation; the reads outlast the look
    assert await settling._quick_end(first)
    assert settling._walked_early is settling.walk and settling._early_kept
    # the look waits for the page's next frame (at most FRAME_MS); the reads it decides on go on, for the record
    assert settling.order == [f"look after a frame, {settle_mod.FRAME_MS} ms at most"]
    assert not settling.walk.done()
    assert await settling.walk == ("drained", ["after"])

    settling = _Quick(replace(first, last=15.0, dom_quiet=1.0))  # it changed again meanwhile
    assert not await settling._quick_end(first)
    assert settling.walks == 1 and not settling._early_kept
    assert settling._walked_early is settling.walk  # its drain is kept for the record; its walk is not
