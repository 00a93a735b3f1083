"""Fingerprints of what a read saw, and the bounded history of recent reads that ``since`` diffs against.

Pure. A read's fingerprint is a hash of the page state it walked, not of the condensed output alone:
the walker's JSON of everything it visited (the parts the condensed output folds or the cap
cuts included, form values included: a value longer than the walker keeps carries a hash of the whole
value) together with the rendered text (title and URL included). "Unchanged since <fingerprint>" is
therefore a statement about the page within the target.

:class:`ReadHistory` keeps, per tool-and-arguments key, the rendered texts of the last few reads by
fingerprint, bounded in keys, reads per key and characters; a tab holds one.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable

__all__ = ["FINGERPRINT_HEX", "PAGE_META_KEY", "page_fingerprint", "result_fingerprint", "ReadHistory", "HISTORY_KEYS",
           "HISTORY_PER_KEY", "HISTORY_CHARS"]

#: Hex digits of a fingerprint (48 bits: collisions between a tab's few kept reads are negligible).
FINGERPRINT_HEX = 12
#: Key of :class:`~browser_ctx.server.registry.Rendered` ``meta`` under which a read hands the pipeline its
#: :func:`page_fingerprint` (the pipeline takes it out; the client never sees it).
PAGE_META_KEY = "pageFingerprint"
#: Tool-and-arguments keys (targets) a tab keeps reads for.
HISTORY_KEYS = 8
#: Reads kept per key.
HISTORY_PER_KEY = 4
#: Characters of rendered text a tab's history holds in all (the oldest reads go first).
HISTORY_CHARS = 4_000_000


def _hash(parts: Iterable[str]) -> str:
    h = hashlib.sha1()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:FINGERPRINT_HEX]


_REF_ATTR = re.compile(r' data-ref="[^"]*"|"data-ref":"[^"]*",?')


def page_fingerprint(walked: Iterable[str]) -> str:
    """Hash of what a read walked: the walker's JSON of each part (the whole page and its frames, or each match
    of a target, in order; visible HTML is hashed the same way).

    Refs (``data-ref``) are left out: a reloaded page with the same content walks the same; refs that a
    result shows are in its rendered text, which :func:`result_fingerprint` hashes too."""
    return _hash(_REF_ATTR.sub("", part) for part in walked)


def result_fingerprint(text: str, page: str | None = None) -> str:
    """The fingerprint a read returns: ``page`` (:func:`page_fingerprint`, when the tool walked a page)
    combined with the rendered ``text``; a hash of ``text`` alone when ``page`` is ``None``."""
    return _hash([text] if page is None else [page, text])


class ReadHistory:
    """The last few reads of a tab: ``key`` (tool and arguments) → fingerprint → rendered text.

    Bounded by :data:`HISTORY_KEYS` keys (least recently read dropped first), :data:`HISTORY_PER_KEY`
    reads per key and :data:`HISTORY_CHARS` characters in all (oldest reads dropped first).
    """

    def __init__(self, keys: int = HISTORY_KEYS, per_key: int = HISTORY_PER_KEY, chars: int = HISTORY_CHARS) -> None:
        self._keys, self._per_key, self._chars = keys, per_key, chars
        self._reads: OrderedDict[str, OrderedDict[str, str]] = OrderedDict()
        self._order: list[tuple[str, str]] = []  # (key, fingerprint), oldest first
        self._size = 0

    def remember(self, key: str, fingerprint: str, text: str) -> None:
        """Keep ``text`` as the read ``fingerprint`` of ``key`` (a repeat moves it to the newest place)."""
        reads = self._reads.setdefault(key, OrderedDict())
        self._reads.move_to_end(key)
        if fingerprint in reads:
            self._drop(key, fingerprint)
            reads = self._reads.setdefault(key, OrderedDict())
        reads[fingerprint] = text
        self._order.append((key, fingerprint))
        self._size += len(text)
        while len(reads) > self._per_key:
            self._drop(key, next(iter(reads)))
        while len(self._reads) > self._keys:
            old_key = next(iter(self._reads))
            for fp in list(self._reads[old_key]):
                self._drop(old_key, fp)
        while self._size > self._chars and len(self._order) > 1:
            self._drop(*self._order[0])

    def get(self, key: str, fingerprint: str) -> str | None:
        """The rendered text of read ``fingerprint`` of ``key``, or ``None`` when unknown or evicted."""
        reads = self._reads.get(key)
        return reads.get(fingerprint) if reads is not None else None

    def __len__(self) -> int:
        return len(self._order)

    def _drop(self, key: str, fingerprint: str) -> None:
        reads = self._reads.get(key)
        if reads is None or fingerprint not in reads:
            return
        self._size -= len(reads.pop(fingerprint))
        self._order.remove((key, fingerprint))
        if not reads:
            del self._reads[key]
