"""Read a live page as *visible HTML* (the browser half of ``docs/visible-html.md``).

The work happens in ``js/extract.js``, run in each frame's isolated world (:mod:`.worlds`: a page's scripts cannot
patch what it reads; the frame's main world only when the browser offers no CDP). This module runs it,
extracts child frames (cross-origin ones too) and splices them into their ``<bc-frame>`` placeholders,
resolves refs (``e12``, ``f3e12``) through the ``bcref`` selector engine, and reads a page-state version.
Accessible names (and the invalid state and custom controls' values) of the elements a walk names come from
Chromium's accessibility tree (:mod:`.semantics`) for the first :data:`MAX_SEMANTIC_NODES` of each frame; the
walker's own names remain for the rest and whenever the tree cannot be asked.

Typical use::

    await register_ref_engine(playwright)          # once per Playwright instance
    ids, worlds = FrameIds(), Worlds(page)         # one each per page, kept as long as the page lives
    html = await extract_frame(page.main_frame, frame_ids=ids, worlds=worlds)
    await page.locator("bcref=e12").click()
"""

from __future__ import annotations

import asyncio
import contextlib
import html as _html
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from .._errors import ActionTimeout, InvalidArgument, PageError, translate
from . import closed_shadow, semantics
from .scripts import script
from .worlds import PIN_ENGINE_NAME, Worlds

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Frame, Locator, Page, Playwright

__all__ = [
    "REF_ENGINE_NAME",
    "MAIN_REF_ENGINE_NAME",
    "DEFAULT_TIMEOUT_MS",
    "MAX_VALUE_CHARS",
    "FrameIds",
    "extract_frame",
    "extract_page",
    "PageRead",
    "extract_locator",
    "register_ref_engine",
    "ref_frame_prefix",
    "is_ref",
    "page_version",
]


#: Milliseconds :func:`extract_frame` / :func:`extract_locator` wait in total before raising ActionTimeout.
DEFAULT_TIMEOUT_MS = 15_000
#: Characters of a field's current value kept in ``data-value``.
MAX_VALUE_CHARS = 200
#: Characters of an accessible name kept in ``data-name`` (longer ones end in ``…``).
MAX_NAME_CHARS = semantics.MAX_NAME_CHARS
#: Most nodes of one frame's read whose names, states and values are asked of Chromium's accessibility tree
#: (the first in document order); the rest keep the walker's own names. Each costs microseconds when read in the
#: page, one CDP round trip (0.3-1 ms, see ``bench/ax_cost.py``) when asked over CDP; an 8,000-token read shows
#: at most about this many named elements.
MAX_SEMANTIC_NODES = 400
#: Documents with more elements than this are read with the walker's own names: Chromium builds the
#: accessibility tree of the whole document for the first node asked about (and again on every read, the tree
#: not being kept), 0.7-1.8 s on a page of 200,000 elements against 0.05 s at 10,000. The read says so
#: (:attr:`PageRead.walker_names`).
SEMANTICS_MAX_ELEMENTS = 50_000
#: Seconds :func:`page_version` waits for a page's answer before saying it has none (a busy page).
VERSION_TIMEOUT_S = 5.0
#: Tries :func:`page_version` makes while the page is navigating, :data:`VERSION_RETRY_S` apart.
VERSION_ATTEMPTS = 3
VERSION_RETRY_S = 0.05

_MARK_FRAME = "(el, id) => { el.__browserCtxFrameId = id }"
_REF_RE = re.compile(r"(f[1-9][0-9]*)?e([1-9][0-9]*)")
_BODY_OPEN = re.compile(r"^<(body|html)\b[^>]*>")

#: Name of the selector engine that resolves refs: ``page.locator("bcref=e12")``. It runs in the isolated world
#: our walker runs in (:mod:`.worlds`), where the ref registry lives.
REF_ENGINE_NAME = "bcref"
#: The same engine in the main world, for pages whose scripts run there (no CDP: :attr:`Worlds.isolated` False).
MAIN_REF_ENGINE_NAME = "bcrefmain"


class FrameIds:
    """Stable ids for the frames of one page: the main frame is ``''``, child frames ``'f1'``, ``'f2'``, ….

    Keyed by Playwright :class:`Frame` objects, which stay the same object while the frame lives (also across
    its navigations). Keep one instance per page for the page's lifetime; ids are never reused. It also keeps,
    per frame, the highest ref number handed out, so a frame's refs keep counting up across its documents.
    """

    def __init__(self) -> None:
        self._ids: dict[Frame, str] = {}
        self._next = 1
        self._ref_high: dict[Frame, int] = {}
        self._marked: set[Frame] = set()

    def id_for(self, frame: Frame) -> str:
        """Return ``''`` for a main frame, else this frame's ``'f<N>'`` id (assigned on first sight)."""
        if frame.parent_frame is None:
            return ""
        fid = self._ids.get(frame)
        if fid is None:
            fid = f"f{self._next}"
            self._next += 1
            self._ids[frame] = fid
        return fid

    def frame_for(self, page: Page, prefix: str) -> Frame | None:
        """Return the attached frame of ``page`` whose id is ``prefix`` (``''`` = main frame), or ``None``."""
        if prefix == "":
            return page.main_frame
        for frame, fid in self._ids.items():
            if fid == prefix:
                if frame.is_detached() or frame.page is not page:
                    return None
                return frame
        return None

    def highest_ref(self, frame: Frame) -> int:
        """The highest ref number a read of ``frame`` has handed out so far (0 before any read)."""
        return self._ref_high.get(frame, 0)

    def _forget_detached(self) -> None:
        """Drop bookkeeping for frames that are gone (their ids are never handed out again)."""
        for frame in [f for f in self._ids if f.is_detached()]:
            del self._ids[frame]
            self._marked.discard(frame)
            self._ref_high.pop(frame, None)


async def _mark_child(child: Frame, frame_ids: FrameIds, worlds: Worlds | None) -> None:
    """Store the child's id on its ``<iframe>`` element (in the walker's world), once per frame; never raises."""
    if child in frame_ids._marked:
        return
    try:
        if worlds is not None:
            await worlds.mark_frame(child, frame_ids.id_for(child))
        else:
            handle = await child.frame_element()
            try:
                await handle.evaluate(_MARK_FRAME, frame_ids.id_for(child))
            finally:
                await handle.dispose()
    except PlaywrightError:  # a detached/crashed child frame just stays an empty placeholder
        return
    frame_ids._marked.add(child)


def _strip_document_wrapper(fragment: str) -> str:
    """Drop the outer ``<body …>…</body>`` (or ``<html>``) of a child frame so it nests inside its placeholder."""
    m = _BODY_OPEN.match(fragment)
    if m:
        close = f"</{m.group(1)}>"
        if fragment.endswith(close):
            return fragment[m.end():-len(close)]
    return fragment


async def _with_semantics(html: str, frame: Frame, token: str, sessions: semantics.FrameSessions,
                          worlds: Worlds | None) -> str:
    """Return one frame's walk with Chromium's names, states and values joined in by the walker's markers.

    When the kept nodes cannot be reached (the frame navigated meanwhile), the walker's own names stay.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        world = await worlds.context_of(frame) if worlds is not None else None
        answers = await semantics.kept_semantics(sessions, frame, token, limit=MAX_SEMANTIC_NODES, world=world)
    except PageError:
        raise
    except PlaywrightError:
        answers = []  # the frame went away between the walk and the question: keep the walker's names
    return semantics.join_semantics(html, answers, MAX_NAME_CHARS, MAX_VALUE_CHARS)


async def _with_closed_roots(html: str, frame: Frame, frame_ids: FrameIds, token: str,
                             sessions: semantics.FrameSessions, worlds: Worlds | None, opts: dict) -> str:
    """Put the walked content of closed shadow roots in place of the walker's markers (:mod:`.closed_shadow`),
    in the world the walk ran in; without one (no CDP) the markers are removed.

    Raises:
        PageError: the page or browser closed.
    """
    try:
        world = await worlds.context_of(frame) if worlds is not None else None
        cdp = await sessions.for_frame(frame if world and world[0] else None) if world else None
        html, last = await closed_shadow.fill(html, cdp, world[1] if world else None, token,
                                              {k: opts[k] for k in ("framePrefix", "maxValueChars", "maxNameChars",
                                                                    "refBase")})
    except PageError:
        raise
    except PlaywrightError:  # the frame went away between the walk and the question: no closed roots to add
        return closed_shadow.MARKER.sub("", html)
    if last > frame_ids._ref_high.get(frame, 0):
        frame_ids._ref_high[frame] = last
    return html


async def _extract(frame: Frame, frame_ids: FrameIds, root: ElementHandle | None, budget_s: float,
                   max_chars: int = 0, facts: dict | None = None,
                   sessions: semantics.FrameSessions | None = None, worlds: Worlds | None = None,
                   walker_names: bool = False) -> str:
    """One frame (or ``root`` in it) plus its child frames, spliced. Raises what Playwright raises.

    ``max_chars`` > 0 bounds each frame's walk (characters of visible HTML); ``facts``, when given, receives
    the frame's facts from the same evaluate (``version``, ``readyState``, ``elements``, ``walked``, ``stopped``).
    With ``sessions``, the accessible names, invalid state and custom-control values of the nodes the walk
    named come from Chromium's accessibility tree (:mod:`.semantics`), each frame's joined before splicing,
    unless ``walker_names`` or the document (with ``facts``) has over :data:`SEMANTICS_MAX_ELEMENTS` elements
    (``facts["walkerNames"]``): then the walker's own names stay.
    """
    children = [c for c in frame.child_frames if not c.is_detached()]
    if children:
        await asyncio.gather(*(_mark_child(c, frame_ids, worlds) for c in children))
    opts: dict = {"framePrefix": frame_ids.id_for(frame), "maxValueChars": MAX_VALUE_CHARS,
                  "maxNameChars": MAX_NAME_CHARS, "refBase": frame_ids._ref_high.get(frame, 0)}
    token = secrets.token_hex(8)
    if sessions is not None:
        opts["axToken"] = token
    if max_chars > 0:
        opts["maxChars"] = max_chars
    # withCounter: also the frame's ref counter, so refs keep growing across the documents of a frame
    # (a ref from an earlier page then matches nothing instead of a new page's element).
    opts = {**opts, "withCounter": True, "withFacts": facts is not None}
    if worlds is not None:
        got = await worlds.evaluate(frame, script("extract"), opts, root=root)
    else:
        got = await frame.evaluate(script("extract"), {**opts, "root": root} if root is not None else opts)
    html, counter = got[0], got[1]
    if facts is not None and len(got) > 2 and isinstance(got[2], dict):
        facts.update(got[2])
        if sessions is not None and int(facts.get("elements") or 0) > SEMANTICS_MAX_ELEMENTS:
            facts["walkerNames"] = walker_names = True
    if isinstance(counter, (int, float)) and counter > frame_ids._ref_high.get(frame, 0):
        frame_ids._ref_high[frame] = int(counter)
    if sessions is not None:
        if walker_names:  # a huge document: its frames keep the walker's names too
            html = semantics.join_semantics(html, [], MAX_NAME_CHARS, MAX_VALUE_CHARS)
        else:
            html = await _with_semantics(html, frame, token, sessions, worlds)
        if "<bc-shadow" in html:
            html = await _with_closed_roots(html, frame, frame_ids, token, sessions, worlds, opts)
    elif "<bc-shadow" in html:
        html = closed_shadow.MARKER.sub("", html)
    if "<bc-frame" not in html:
        return html
    wanted = [(frame_ids.id_for(c), c) for c in children]
    wanted = [(fid, c) for fid, c in wanted if f'<bc-frame data-frame="{fid}"' in html]
    if not wanted:
        return html
    child_budget = max(0.5, budget_s * 0.5)

    async def child_html(child: Frame) -> str:
        if not child.url or child.url.startswith("chrome-error:"):
            # Chromium's own error page, or a frame whose load was blocked (a file: iframe): no document
            # ever committed there, and Playwright would wait for one for ever.
            return ""
        try:
            return _strip_document_wrapper(await asyncio.wait_for(
                _extract(child, frame_ids, None, child_budget, max_chars, None, sessions, worlds, walker_names),
                child_budget))
        except (PlaywrightError, TimeoutError):  # never raise for a child frame: leave its placeholder empty
            return ""

    inner = await asyncio.gather(*(child_html(c) for _, c in wanted))
    for (fid, child), body in zip(wanted, inner, strict=True):
        url = _html.escape("(failed to load)" if child.url.startswith("chrome-error:") else child.url, quote=True)
        pattern = re.compile(r'<bc-frame data-frame="' + re.escape(fid) + r'"([^>]*)></bc-frame>')
        m = pattern.search(html)
        if m is not None:
            html = (f'{html[:m.start()]}<bc-frame data-frame="{fid}" data-url="{url}"{m.group(1)}>{body}</bc-frame>'
                    f"{html[m.end():]}")
    return html


async def extract_frame(frame: Frame, *, frame_ids: FrameIds, root: ElementHandle | None = None,
                        timeout_ms: float = DEFAULT_TIMEOUT_MS, worlds: Worlds | None = None) -> str:
    """Return the visible HTML of ``frame`` (or of ``root``, an element in that frame), child frames spliced in.

    The result follows ``docs/visible-html.md``: the root element itself is serialised (``<body>…</body>`` for a
    whole frame); each child frame inside it becomes ``<bc-frame data-frame="f1" data-url="URL">…</bc-frame>``
    holding that frame's own visible HTML (cross-origin frames too). A child frame that is detached, crashed or
    too slow leaves its placeholder empty; it never raises. A ``root`` that is hidden yields ``''``.

    Args:
        frame: the Playwright frame to read (``page.main_frame`` for the whole page).
        frame_ids: the page's :class:`FrameIds`; gives ref prefixes and frame ids.
        root: an element handle in ``frame`` to read instead of the whole document.
        timeout_ms: milliseconds for the whole read, child frames included (default 15,000).
        worlds: the page's :class:`~.worlds.Worlds`: the walk runs in each frame's isolated world (default
            ``None``: in the main world, where the page's scripts can patch what it reads).

    Returns:
        The visible HTML string (characters, not tokens; not capped).

    Raises:
        ActionTimeout: the read took longer than ``timeout_ms``.
        PageError: the frame navigated, closed or crashed during the read.
    """
    frame_ids._forget_detached()
    budget = max(0.001, timeout_ms / 1000)
    try:
        async with semantics.FrameSessions(frame.page) as sessions:
            return await asyncio.wait_for(_extract(frame, frame_ids, root, budget, sessions=sessions, worlds=worlds),
                                          budget)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms reading the page; it may be busy. "
                            "Try again, or read a smaller part with a selector.") from exc
    except PlaywrightError as exc:  # every Playwright error becomes one of ours
        raise translate(exc, action="read the page") from exc


@dataclass(frozen=True)
class PageRead:
    """A bounded read of a whole frame (:func:`extract_page`).

    Attributes:
        html: the visible HTML collected (characters; at most about ``max_chars`` plus the closing tags of what
            was open when the walk stopped, plus child frames).
        version: the page version at the read (as :func:`page_version`), from the same evaluate; ``None``
            when the page gave none.
        loading: the document had not reached ``load`` (``document.readyState`` was not ``complete``).
        elements: elements in the document (light DOM, hidden ones included) at the read.
        walked: elements the walk visited (each hidden subtree counts as one).
        complete: the walk reached the end of the document (``False``: it stopped at ``max_chars``).
        rest: for a read that stopped early, a hash of the text and form values of the whole document (what
            was not collected included), for the page fingerprint; ``""`` for a complete read.
        siblings_left: for a read that stopped early, the most element siblings left unread in one parent on
            the walk's way out (the rest of the list or run it stopped in); 0 for a complete read.
        title: the document's title at the read (``document.title``), from the same evaluate.
        walker_names: names come from the walker alone, not Chromium's accessibility tree, because the document
            has more than :data:`SEMANTICS_MAX_ELEMENTS` elements.
    """

    html: str
    version: str | None
    loading: bool
    elements: int
    walked: int
    complete: bool
    rest: str = ""
    siblings_left: int = 0
    title: str = ""
    walker_names: bool = False

    @property
    def elements_left(self) -> int:
        """Elements not read, an estimate (0 for a complete read): all elements less those walked."""
        return 0 if self.complete else max(0, self.elements - self.walked)


async def extract_page(frame: Frame, *, frame_ids: FrameIds, max_chars: int = 0,
                       timeout_ms: float = DEFAULT_TIMEOUT_MS, worlds: Worlds | None = None,
                       with_semantics: bool = True) -> PageRead:
    """Read ``frame`` (normally ``page.main_frame``) like :func:`extract_frame`, bounded, in one evaluate.

    The walk stops collecting once it holds about ``max_chars`` characters of visible HTML (0: no bound) and
    counts the rest without serialising it; the same evaluate returns the page version, whether the document
    is still loading and how many elements it has, so a read costs one round trip however large the page.
    ``worlds`` as for :func:`extract_frame`. ``with_semantics=False`` leaves Chromium's accessibility tree out
    (names from the walker alone; closed shadow roots are still read): a navigation's card (headings and counts)
    and text reads (markdown and plain text show no accessible names) do not need it (holding the tree costs
    what building it costs: tens of milliseconds on a corpus page).

    Raises:
        ActionTimeout: the read took longer than ``timeout_ms``.
        PageError: the frame navigated, closed or crashed during the read.
    """
    frame_ids._forget_detached()
    budget = max(0.001, timeout_ms / 1000)
    facts: dict = {}
    try:
        async with semantics.FrameSessions(frame.page) as sessions:
            html = await asyncio.wait_for(_extract(frame, frame_ids, None, budget, max_chars, facts, sessions, worlds,
                                                   walker_names=not with_semantics), budget)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out after {timeout_ms:.0f} ms reading the page; it may be busy. "
                            "Try again, or read a smaller part with a selector.") from exc
    except PlaywrightError as exc:  # every Playwright error becomes one of ours
        raise translate(exc, action="read the page") from exc
    version = facts.get("version")
    return PageRead(html=html, version=version if isinstance(version, str) else None,
                    loading=facts.get("readyState", "complete") != "complete",
                    elements=int(facts.get("elements") or 0), walked=int(facts.get("walked") or 0),
                    complete=not facts.get("stopped"), rest=str(facts.get("rest") or ""),
                    siblings_left=int(facts.get("siblingsLeft") or 0), title=str(facts.get("title") or ""),
                    walker_names=bool(facts.get("walkerNames")))


def _locator_text(locator: Locator) -> str:
    impl = getattr(locator, "_impl_obj", None)
    return str(getattr(impl, "_selector", None) or locator)


async def extract_locator(locator: Locator, *, frame_ids: FrameIds, timeout_ms: float = DEFAULT_TIMEOUT_MS,
                          target: str | None = None, max_matches: int | None = None,
                          worlds: Worlds | None = None) -> list[str]:
    """Return the visible HTML of every element ``locator`` matches, in document order.

    Each element is read with :func:`extract_frame` in its own frame (frames inside it are spliced in).
    An element that is hidden gives ``''`` in its slot. A locator that matches nothing returns ``[]``
    (the caller decides whether that is a :class:`SelectorError`).

    Args:
        locator: any Playwright locator (CSS, ``text=``, ``role=``, ``bcref=e12``, chained, in frames).
        frame_ids: the page's :class:`FrameIds`.
        timeout_ms: milliseconds for the whole read (default 15,000).
        target: how to name the selector in error messages (default: the locator's selector string).
        max_matches: read at most this many matches, the first in document order (default: all).
        worlds: as for :func:`extract_frame`.

    Returns:
        A list of visible-HTML strings, one per matched element.

    Raises:
        SelectorError: the selector is malformed.
        ActionTimeout: the read took longer than ``timeout_ms``.
        PageError: the page navigated or closed during the read.
    """
    name = target or _locator_text(locator)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.001, timeout_ms / 1000)
    try:
        count = await locator.count()
        if count == 0:
            return []
        if max_matches is not None and count > max_matches:
            found = [await locator.nth(i).element_handle() for i in range(max_matches)]
            handles = [h for h in found if h is not None]
        else:
            handles = await locator.element_handles()
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=name) from exc
    results: list[str] = []
    try:
        for handle in handles:
            frame = await (worlds.frame_of(handle) if worlds is not None else handle.owner_frame())
            if frame is None:
                results.append("")
                continue
            left_ms = max(1.0, (deadline - loop.time()) * 1000)
            results.append(await extract_frame(frame, frame_ids=frame_ids, root=handle, timeout_ms=left_ms,
                                               worlds=worlds))
    except PlaywrightError as exc:
        raise translate(exc, action="read", target=name) from exc
    finally:
        for handle in handles:
            with contextlib.suppress(PlaywrightError):  # the page may be gone already, and the handle with it
                await handle.dispose()
    return results


async def register_ref_engine(playwright: Playwright) -> None:
    """Register our selector engines on ``playwright.selectors`` (idempotent).

    ``frame.locator("bcref=e12")`` then matches exactly the element the extractor registered as ``e12`` in that
    frame, if it is still connected to the frame's current document, and nothing otherwise. ``bcref`` runs in
    Playwright's utility world, the isolated world the walker runs in (:mod:`.worlds`; it reads that world's
    ``window.__browserCtx``); ``bcrefmain`` is the same engine in the main world, for pages without CDP;
    ``bcpin`` hands elements to the isolated world. Registering after contexts exist is fine: Playwright
    pushes the engines to existing contexts too.
    """
    for name, source, content in ((REF_ENGINE_NAME, "ref_engine", True), (MAIN_REF_ENGINE_NAME, "ref_engine", False),
                                  (PIN_ENGINE_NAME, "pin_engine", True)):
        try:
            await playwright.selectors.register(name, script(source), content_script=content)
        except PlaywrightError as exc:
            if "already registered" not in str(exc):
                raise translate(exc, action="register the ref selector engine") from exc


def is_ref(target: str) -> bool:
    """Return True if ``target`` is a ref such as ``e12`` (main frame) or ``f3e12`` (child frame f3)."""
    return isinstance(target, str) and _REF_RE.fullmatch(target.strip()) is not None


def ref_frame_prefix(ref: str) -> str:
    """Return the frame id of ``ref``: ``''`` for ``e12``, ``'f3'`` for ``f3e12``.

    Raises:
        InvalidArgument: ``ref`` is not a ref.
    """
    m = _REF_RE.fullmatch(ref.strip()) if isinstance(ref, str) else None
    if m is None:
        raise InvalidArgument(f"{ref!r} is not a ref; refs look like e12 or f3e12 (from browser_snapshot).")
    return m.group(1) or ""


async def page_version(page: Page, timeout_s: float = VERSION_TIMEOUT_S, worlds: Worlds | None = None) -> str | None:
    """Return an opaque string that changes when the main document navigates or its DOM mutates, or
    ``None`` when the page has no version now: mid-navigation (after :data:`VERSION_ATTEMPTS` tries),
    closed, crashed, or stuck (no answer within ``timeout_s`` seconds, default 5).

    Built from the document's ``performance.timeOrigin`` (new per document), a MutationObserver counter kept in
    ``window.__browserCtx.version`` (installed here if no extraction has run yet) and ``location.href``.
    Mutations made before the observer was installed are not counted; compare versions, never parse them.
    Every caller that stamps or compares versions uses this one function, with the page's ``worlds`` (the
    counter lives in the walker's world; without it, the main world's). Never raises.
    """
    try:
        return await asyncio.wait_for(_read_version(page, worlds), timeout_s)
    except (TimeoutError, PlaywrightError):
        return None


async def _read_version(page: Page, worlds: Worlds | None) -> str | None:
    for attempt in range(VERSION_ATTEMPTS):
        try:
            if worlds is not None:
                return await worlds.evaluate(page.main_frame, script("extract"), {"versionOnly": True})
            return await page.main_frame.evaluate(script("extract"), {"versionOnly": True})
        except PlaywrightError as exc:
            low = str(exc).lower()
            if attempt + 1 < VERSION_ATTEMPTS and ("context was destroyed" in low or "navigat" in low):
                await asyncio.sleep(VERSION_RETRY_S)
                continue
            return None  # closed, crashed, or still navigating
    return None
