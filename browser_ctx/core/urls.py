"""URL clean-up for renderings, and the one place texts are cut for display.

- :func:`strip_tracking`, :func:`shorten_url`: drop tracking parameters, make URLs short;
- :func:`clip_middle`: cut a long string (a URL, a ``url:line``) in the middle, saying how much;
- :func:`clip_end`: cut a long text (a message, a body) at its end, saying how long it was;
- :func:`clip_around`: cut a long text keeping its start and a window around a match.

All are pure and never raise on odd input: a string that is not a URL is returned cut to
length, never rejected. Lengths are characters (Unicode code points).
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["strip_tracking", "shorten_url", "clip_middle", "clip_end", "clip_around", "TRACKING_PARAMS",
           "TRACKING_PREFIXES"]

#: Query parameter names (compared lower-case) removed by :func:`strip_tracking`.
TRACKING_PARAMS = frozenset(
    """fbclid gclid gclsrc dclid msclkid mc_cid mc_eid _ga _gl igshid ig_rid ref_src ref_url spm yclid ysclid
    gbraid wbraid _hsenc _hsmi __hssc __hstc __hsfp hsctatracking mkt_tok oly_anon_id oly_enc_id vero_id
    vero_conv wickedid twclid ttclid li_fat_id s_cid _openstat ncid cmpid sc_cid ocid srsltid trk trkcampaign
    ef_id epik rb_clickid irclickid _branch_match_id at_medium at_campaign pk_campaign pk_kwd pk_source
    pk_medium piwik_campaign piwik_kwd mtm_campaign mtm_source mtm_medium mtm_keyword ga_source ga_medium
    ga_campaign ga_content ga_term __twitter_impression feature_flags_tracking""".split()
)
#: Query parameter name prefixes (lower-case) removed by :func:`strip_tracking`.
TRACKING_PREFIXES = ("utm_", "hsa_", "mtm_", "pk_", "__hs", "_hs", "stm_")


def _is_tracking(name: str) -> bool:
    low = name.lower()
    return low in TRACKING_PARAMS or low.startswith(TRACKING_PREFIXES)


def strip_tracking(url: str) -> str:
    """Return ``url`` without tracking query parameters.

    Removed: every parameter whose name (case-insensitive) is in :data:`TRACKING_PARAMS`
    (``fbclid``, ``gclid``, ``dclid``, ``msclkid``, ``mc_cid``, ``mc_eid``, ``_ga``, ``_gl``,
    ``igshid``, ``ref_src``, ``spm``, ``yclid`` …) or starts with one of
    :data:`TRACKING_PREFIXES` (``utm_`` …). Kept parameters keep their order and their exact
    original encoding; the fragment is untouched. A ``?`` left with nothing after it is removed.
    Anything without a query string is returned unchanged.
    """
    q = url.find("?")
    if q < 0:
        return url
    h = url.find("#", q)
    query = url[q + 1 : h] if h >= 0 else url[q + 1 :]
    frag = url[h:] if h >= 0 else ""
    if not query:
        return url
    kept = [p for p in query.split("&") if p and not _is_tracking(p.split("=", 1)[0])]
    base = url[:q]
    return base + ("?" + "&".join(kept) if kept else "") + frag


def _origin(url: str) -> tuple[str, str] | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    return parts.scheme.lower(), parts.netloc.lower()


def shorten_url(url: str, *, base: str | None = None, limit: int = 80) -> str:
    """Return a short form of ``url`` for display, at most ``limit`` characters.

    Steps:

    1. ``javascript:…`` → ``"javascript:"``; ``data:…`` → ``"data:…"`` (payloads never shown);
    2. tracking parameters are removed (:func:`strip_tracking`);
    3. when ``base`` (the page URL) has the same scheme and host, the URL is made relative:
       ``/path?query#frag``, or just ``#frag`` when only the fragment differs from ``base``;
    4. a result longer than ``limit`` is cut in the middle with ``…``: first a long query or
       fragment is shortened to ``?…``, then the middle of the path, keeping the scheme and
       host at the start and the end of the path (the last segment) at the end.

    ``limit`` values below 12 are treated as 12. Never raises.
    """
    limit = max(12, limit)
    url = url.strip()
    low = url[:11].lower()
    if low.startswith("javascript:"):
        return "javascript:"
    if low.startswith("data:"):
        return "data:…"
    url = strip_tracking(url)
    head = ""
    rest = url
    origin = _origin(url)
    if origin is not None:
        parts = urlsplit(url)
        head = f"{parts.scheme}://{parts.netloc}"
        if url.lower().startswith(head.lower()):
            rest = url[len(head):]
        else:
            rest = url[url.find(parts.netloc) + len(parts.netloc):]
        if base:
            b_origin = _origin(base)
            if b_origin == origin:
                head = ""
                b_rest = strip_tracking(base)
                b_rest = b_rest[b_rest.lower().find(origin[1]) + len(origin[1]):]
                b_nofrag = b_rest.split("#", 1)[0]
                if "#" in rest and rest.split("#", 1)[0] == b_nofrag:
                    rest = "#" + rest.split("#", 1)[1]
                elif not rest:
                    rest = "/"
    if len(head) + len(rest) <= limit:
        return head + rest
    return _cut_middle(head, rest, limit)


def clip_middle(text: str, limit: int) -> str:
    """``text`` (typically a URL) cut in the middle to at most ``limit`` characters, saying how many
    were left out (``…[59,862 chars]…``), so its start (scheme, host, path) and end (a ``:line``
    suffix, the last path segment) stay readable. Unlike :func:`shorten_url` nothing is dropped
    silently. ``limit`` values below 60 are treated as 60."""
    limit = max(60, limit)
    if len(text) <= limit:
        return text
    tail = min(60, limit // 3)
    head = limit - tail - 20
    return f"{text[:head]}…[{len(text) - head - tail:,} chars]…{text[-tail:]}"


def clip_end(text: str, limit: int, *, total: int | None = None, hint: str = "") -> str:
    """``text`` cut to its first ``limit`` characters followed by ``… [N chars in all]`` (``; hint``
    inside the brackets when given, e.g. how to read the rest), or ``text`` unchanged when it fits.

    ``total`` is the length of the whole text when ``text`` is already only a part of it (a message
    kept in part): the marker is then added even when ``text`` itself fits. ``limit`` below 0 is 0.
    """
    limit = max(0, limit)
    whole = max(len(text), total or 0)
    if len(text) <= limit and whole == len(text):
        return text
    return f"{text[:limit]}… [{whole:,} chars in all{'; ' + hint if hint else ''}]"


def clip_around(text: str, start: int, end: int, limit: int, *, total: int | None = None) -> str:
    """``text`` cut to about ``limit`` characters keeping its first quarter and a window around
    ``text[start:end]`` (a match), marked ``… [chars A–B of N around the match] …``; as :func:`clip_end`
    when the match ends within ``limit``. ``total`` as in :func:`clip_end`."""
    whole = max(len(text), total or 0)
    if end <= limit or len(text) <= limit:
        return clip_end(text, limit, total=total)
    head = max(1, limit // 4)
    room = limit - head
    a = max(head, start - max(0, (room - (end - start)) // 2))
    b = min(len(text), a + room)
    a = max(head, min(a, b - room))
    tail = "…" if b < whole else ""
    return f"{text[:head]}… [chars {a:,}–{b:,} of {whole:,} around the match] {text[a:b]}{tail}"


def _cut_middle(head: str, rest: str, limit: int) -> str:
    ell = "…"
    # Host alone too long: keep its end (the registrable domain is at the end).
    if len(head) > limit // 2:
        scheme_end = head.find("://") + 3 if "://" in head else 0
        keep = limit // 2 - scheme_end - 1
        head = head[:scheme_end] + ell + head[len(head) - max(1, keep):]
    budget = limit - len(head)
    # Split off query/fragment and shorten them first.
    cut_at = len(rest)
    for sep in ("?", "#"):
        i = rest.find(sep)
        if 0 <= i < cut_at:
            cut_at = i
    path, tail = rest[:cut_at], rest[cut_at:]
    if tail and len(path) + len(tail) > budget:
        tail = tail[0] + ell if len(path) + 2 <= budget else ""
    if len(path) + len(tail) <= budget:
        return head + path + tail
    room = budget - len(tail) - 1  # characters of path we can keep around the ellipsis
    if room <= 2:
        return (head + path)[: limit - 1] + ell
    # Keep the last path segment (or as much of its end as fits) and the start of the path.
    last = path.rstrip("/").rsplit("/", 1)[-1]
    end_len = min(len(last) + 1, int(room * 0.7)) if last else room // 2
    end_len = max(1, min(end_len, room - 1))
    start_len = room - end_len
    return head + path[:start_len] + ell + path[len(path) - end_len:] + tail
