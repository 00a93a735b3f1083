"""Perform actions on a tab, let the page settle, and collect what the action caused.

Every action tool runs through :func:`perform`:

1. **Resolve the target** to exactly one element (:func:`resolve_one`). A ref (``e12``, ``f1e3``)
   that matches nothing fails at once with :class:`StaleRefError` (removed, detached, or from
   before a navigation: refs are never reused, so a stale ref never hits another element). A
   selector waits up to the action timeout for a first match; several matches raise
   :class:`SelectorError` naming how many and describing the first few with their refs.
2. **Watch** (:class:`Watch`): before acting, note URL, title, the condensed snapshot, the dialog
   log position; while acting and settling, record new tabs/popups (including ones that close
   themselves), downloads, PDF responses, console errors, failed requests, and the requests in
   flight.
3. **Settle**, bounded: wait until the network (requests of this tab) and the DOM (a
   MutationObserver on the main document) have both been quiet for :data:`SETTLE_QUIET_MS`
   (500 ms), at most :data:`SETTLE_MAX_MS` (5,000 ms). Long-lived connections (EventSource,
   WebSocket) and polling (the same URL requested 3+ times) are not waited for: once the rest is
   quiet and :data:`STREAM_SETTLE_MS` (1,000 ms) have passed, settling stops and the record says
   the network never goes quiet.
4. **Collect** an :class:`~browser_ctx.core.record.ActionRecord`: URL/title change, dialogs,
   popups (a PDF shows as a PDF with its size), downloads (saved under the download folder, at most
   :data:`DOWNLOAD_MAX_BYTES`; never their content), new console errors and failed requests, and
   the DOM delta between the condensed snapshots before and after (or, after a navigation, a short
   card of the new page).

All times are milliseconds unless a name says ``_s``; sizes are bytes.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._errors import (
    ActionTimeout,
    BrowserCtxError,
    InvalidArgument,
    PageError,
    SelectorError,
    StaleRefError,
    one_line,
    translate,
)
from playwright.async_api import expect

from ..core.budget import Budget
from ..core.delta import diff_renderings, render_delta
from ..core.markdown import render_text
from ..core.outline import outline, render_card
from ..core.record import ActionRecord, DownloadInfo, PopupInfo, human_size
from ..core.snapshot import render_snapshot
from ..core.urls import shorten_url
from . import extract, reading
from .reading import visible_html
from .session import BrowserSession, Tab

if TYPE_CHECKING:
    from playwright.async_api import Download, Locator, Page, Request, Response

    from ..settings import Settings

__all__ = [
    "ActionSettings",
    "action_settings",
    "resolve_one",
    "describe_element",
    "Watch",
    "perform",
    "action_error",
    "SETTLE_QUIET_MS",
    "SETTLE_MAX_MS",
    "STREAM_SETTLE_MS",
    "DOWNLOAD_MAX_BYTES",
    "DOWNLOAD_WAIT_MS",
]

log = logging.getLogger("browser_ctx")

#: The network and the DOM must be quiet this long (ms) for the page to count as settled.
SETTLE_QUIET_MS = 500
#: Settling never takes longer than this (ms).
SETTLE_MAX_MS = 5000
#: With a long-lived connection or polling, settling stops after this long (ms) once the rest is quiet.
STREAM_SETTLE_MS = 1000
#: Largest download kept (bytes, 50 MiB); bigger ones are deleted and reported.
DOWNLOAD_MAX_BYTES = 50 * 1024 * 1024
#: How long (ms) a started download may take to finish after the page settled.
DOWNLOAD_WAIT_MS = 15_000
#: How many matches a "several elements" error describes.
DESCRIBE_MATCHES = 3
#: A URL requested this many times while settling counts as polling.
POLL_REPEATS = 3


@dataclass(frozen=True)
class ActionSettings:
    """Settling and download settings (read from ``settings.actions`` when present).

    Attributes:
        quiet_ms: quiet time that ends settling (500).
        max_ms: longest settle (5,000).
        stream_ms: settle time when a long-lived connection or polling keeps the network busy (1,000).
        download_dir: folder downloads are saved in; ``None`` = see :func:`download_dir`.
        download_max_bytes: largest download kept (50 MiB).
        download_wait_ms: how long a download may take to finish (15,000).
    """

    quiet_ms: float = SETTLE_QUIET_MS
    max_ms: float = SETTLE_MAX_MS
    stream_ms: float = STREAM_SETTLE_MS
    download_dir: str | None = None
    download_max_bytes: int = DOWNLOAD_MAX_BYTES
    download_wait_ms: float = DOWNLOAD_WAIT_MS


def action_settings(settings: Settings) -> ActionSettings:
    """Return ``settings.actions`` if the settings carry one, else the defaults."""
    value = getattr(settings, "actions", None)
    return value if isinstance(value, ActionSettings) else ActionSettings()


def download_dir(aset: ActionSettings, settings: Settings | None = None) -> Path:
    """Return (and create) the folder downloads are saved in.

    In order: ``aset.download_dir``; ``<settings.output_dir>/downloads`` (``--output-dir``);
    ``$BROWSER_CTX_OUTPUT_DIR/downloads``; ``<tmp>/browser-ctx-<pid>/downloads``.
    """
    output_dir = getattr(settings, "output_dir", None) if settings is not None else None
    if aset.download_dir:
        path = Path(aset.download_dir)
    elif output_dir:
        path = Path(output_dir).expanduser() / "downloads"
    elif os.environ.get("BROWSER_CTX_OUTPUT_DIR"):
        path = Path(os.environ["BROWSER_CTX_OUTPUT_DIR"]) / "downloads"
    else:
        path = Path(tempfile.gettempdir()) / f"browser-ctx-{os.getpid()}" / "downloads"
    path.mkdir(parents=True, exist_ok=True)
    return path


# -- targets -------------------------------------------------------------------------------------

_DESCRIBE_JS = """el => {
  const t = (s) => (s || '').replace(/\\s+/g, ' ').trim();
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  const field = tag === 'input' || tag === 'select' || tag === 'textarea';
  let role = el.getAttribute('role');
  if (!role) {
    if (tag === 'input') role = ({checkbox: 'checkbox', radio: 'radio', range: 'slider', button: 'button',
      submit: 'button', reset: 'button', search: 'searchbox', password: 'password'})[type] || 'textbox';
    else role = ({a: 'link', select: 'combobox', textarea: 'textbox'})[tag] || tag;
  }
  const labels = el.labels ? Array.from(el.labels).map((l) => t(l.innerText)).join(' ') : '';
  let name = t(el.getAttribute('aria-label')) || labels || (field ? '' : t(el.innerText))
    || t(el.getAttribute('placeholder')) || t(el.getAttribute('title')) || t(el.getAttribute('alt'))
    || (role === 'button' ? t(el.value) : '') || t(el.getAttribute('name'));
  if (name.length > 50) name = name.slice(0, 49) + '\\u2026';
  return [role, name];
}"""


def _ref_locator(tab: Tab, ref: str) -> Locator:
    prefix = extract.ref_frame_prefix(ref)
    frame = tab.page.main_frame if not prefix else (
        tab.frame_ids.frame_for(tab.page, prefix) if tab.frame_ids is not None else None)
    if frame is None or frame.is_detached():
        raise StaleRefError(f"Ref {ref} is stale: its frame is gone. Take a new browser_snapshot.")
    return frame.locator(f"bcref={ref}")


def locator_for(tab: Tab, target: str) -> Locator:
    """Return a Playwright locator for ``target`` (a ref or a selector), without checking matches.

    Raises:
        InvalidArgument: an empty target.
        StaleRefError: a ref whose frame is gone.
    """
    target = target.strip()
    if not target:
        raise InvalidArgument("target is empty; pass a ref from browser_snapshot or a selector.")
    if extract.is_ref(target):
        return _ref_locator(tab, target)
    return tab.page.locator(target)


async def describe_element(locator: Locator, tab: Tab | None = None, ref: str | None = None) -> str:
    """Describe one element in a few words: ``button "Add" [e5]``.

    Args:
        locator: a locator matching the element (the first match is described).
        tab: when given and ``ref`` is not, the element's ref is looked up (registered if new).
        ref: the element's ref, when already known.

    Never raises: returns ``"element"`` when the element cannot be read.
    """
    try:
        if not await locator.first.is_visible():
            return "a hidden element"  # never name what the page hides
        role, name = await locator.first.evaluate(_DESCRIBE_JS, timeout=1000)
    except Exception:  # noqa: BLE001
        return f"element [{ref}]" if ref else "element"
    if ref is None and tab is not None:
        ref = await _ref_of(locator, tab)
    text = f'{role} "{name}"' if name else role
    return f"{text} [{ref}]" if ref else text


async def _ref_of(locator: Locator, tab: Tab) -> str | None:
    """Return the ref of the (single) element ``locator`` points at, registering one if needed."""
    try:
        parts = await extract.extract_locator(locator.first, frame_ids=tab.frame_ids, timeout_ms=2000)
        if parts and parts[0]:
            first_tag = re.match(r"\s*<[^>]*>", parts[0])  # the element itself, not a descendant
            m = re.search(r'\sdata-ref="([^"]+)"', first_tag.group(0)) if first_tag else None
            if m:
                return m.group(1)
    except Exception:  # noqa: BLE001 - describing is best effort
        pass
    return None


async def resolve_one(tab: Tab, target: str, settings: Settings, *, verb: str = "act on") -> Locator:
    """Return a locator that matches exactly one element for ``target``.

    Args:
        tab: the tab to look in.
        target: a ref (``e12``) or a Playwright selector.
        settings: for the action timeout (``settings.timeouts.action_ms``) a selector may wait for a match.
        verb: what we are about to do, for messages ("click", "type into" …).

    Raises:
        StaleRefError: a ref that matches no connected element (at once, no waiting).
        SelectorError: an invalid selector, no match after waiting, or several matches (names how many and
            describes the first few).
    """
    locator = locator_for(tab, target)
    ref = extract.is_ref(target.strip())
    try:
        n = await locator.count()
        if n == 0 and not ref:
            try:
                await locator.first.wait_for(state="attached", timeout=settings.timeouts.action_ms)
            except Exception as exc:  # noqa: BLE001
                if "Timeout" not in type(exc).__name__ and "timeout" not in str(exc).lower():
                    raise
            n = await locator.count()
    except BrowserCtxError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise translate(exc, action=verb, target=target) from exc
    if n == 0:
        if ref:
            raise StaleRefError(f"Ref {target} is stale: its element was removed or the page changed. "
                                "Take a new browser_snapshot.")
        raise SelectorError(f"No element matches {target!r} (waited {settings.timeouts.action_ms:.0f} ms). "
                            "Check the selector, or take a browser_snapshot to find a ref.")
    if n > 1:
        shown = [await describe_element(locator.nth(i), tab) for i in range(min(n, DESCRIBE_MATCHES))]
        more = f", … {n - len(shown)} more" if n > len(shown) else ""
        raise SelectorError(f"{target!r} matches {n} elements; actions need exactly one: {'; '.join(shown)}{more}. "
                            "Use one of those refs or a more specific selector.")
    return locator


_COVER_RE = re.compile(r"-\s*(.+?) intercepts pointer events")


def action_error(exc: BaseException, *, verb: str, target: str, timeout_ms: float) -> BrowserCtxError:
    """Translate a Playwright action error into one line that says why the element could not be used.

    Reads Playwright's call log: "intercepts pointer events" names what covers the element;
    "not enabled", "not visible", "not editable", "not stable" say so; anything else goes through
    :func:`browser_ctx._errors.translate`.
    """
    if isinstance(exc, BrowserCtxError):
        return exc
    msg = str(exc)
    covers = _COVER_RE.findall(msg)
    what = f"{target!r}"
    if covers:
        cover = covers[-1].replace(" subtree", "")
        return ActionTimeout(f"Could not {verb} {what}: it is covered by {one_line(cover, 160)} (it intercepts "
                             f"pointer events; waited {timeout_ms:.0f} ms). Close or dismiss that first.")
    low = msg.lower()
    for needle, why, hint in (
        ("element is not enabled", "it is disabled", "Fill the form so it enables, or check browser_snapshot"),
        ("element is not visible", "it is not visible", "Scroll, open its menu, or pick a visible element"),
        ("element is not editable", "it is not editable (readonly?)", "Pick an editable field"),
        ("element is not stable", "it kept moving (animation)", "Wait, then try again"),
        ("outside of the viewport", "it is outside the viewport", "Scroll it into view first"),
    ):
        if needle in low:
            return ActionTimeout(f"Could not {verb} {what}: {why} (waited {timeout_ms:.0f} ms). {hint}.")
    if "not an <input>" in low or "not an <select>" in low or "not a <select>" in low:
        return SelectorError(f"Could not {verb} {what}: {one_line(msg.split('Error: ')[-1], 160)}")
    if "element is not attached" in low or "element was detached" in low:
        return StaleRefError(f"Could not {verb} {what}: the element was removed from the page. "
                             "Take a new browser_snapshot.")
    return translate(exc, action=verb, target=target, timeout_ms=timeout_ms)


# -- watching ------------------------------------------------------------------------------------

_SETTLE_JS = """() => {
  let w = window.__bcSettle;
  if (!w || w.doc !== document) {
    w = { doc: document, last: performance.now(), obs: null, mark: 0 };
    try {
      w.obs = new MutationObserver(() => { w.last = performance.now(); });
      w.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch (e) {}
    try { Object.defineProperty(window, '__bcSettle', { value: w, configurable: true, writable: true,
                                                        enumerable: false }); }
    catch (e) { window.__bcSettle = w; }
  }
  return [performance.timeOrigin, performance.now() - w.last];
}"""

_LONG_LIVED = ("eventsource", "websocket")


def _short(url: str) -> str:
    return shorten_url(url, limit=100)


def _internal(url: str) -> bool:
    """The browser's own requests (the PDF viewer's chrome-extension:, data:, blob:), not the page's."""
    return url.startswith(("chrome-extension:", "chrome:", "data:", "blob:", "about:"))


def _poll_key(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}{p.path}"


@dataclass
class _PageWatch:
    page: Any
    index: int | None = None
    title: str = ""
    url: str = ""
    closed: bool = False


@dataclass
class Watch:
    """Observes one tab from just before an action until it settled. Use :func:`perform`.

    Attributes:
        tab: the tab acted on.
        session: its session.
        settings: server settings.
        delta: compute the DOM delta (reads the page before and after).
    """

    tab: Tab
    session: BrowserSession
    settings: Settings
    delta: bool = True
    delta_tokens: int = 1200
    record: ActionRecord = field(default_factory=lambda: ActionRecord(action=""))
    _before: str | None = None
    _origin: float | None = None
    _dialog_mark: int = 0
    _inflight: dict[Any, str] = field(default_factory=dict)
    _last_net: float = 0.0
    _poll_counts: dict[str, int] = field(default_factory=dict)
    _long_lived: list[str] = field(default_factory=list)
    _events0: dict[str, int] = field(default_factory=dict)
    _popups: list[_PageWatch] = field(default_factory=list)
    _downloads: list[Download] = field(default_factory=list)
    _pdf: dict[str, Any] = field(default_factory=dict)
    _console_mark: dict[int, int] = field(default_factory=dict)
    _failed: list[str] = field(default_factory=list)
    _listeners: list[tuple[Any, str, Any]] = field(default_factory=list)
    _doc_changed: bool = False

    # listeners ------------------------------------------------------------------------------

    def _on(self, emitter: Any, event: str, fn: Any) -> None:
        emitter.on(event, fn)
        self._listeners.append((emitter, event, fn))

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _on_request(self, req: Request) -> None:
        if _internal(req.url):
            return
        if req.resource_type in _LONG_LIVED:
            self._long_lived.append(f"{'EventSource' if req.resource_type == 'eventsource' else 'WebSocket'} "
                                    f"{_short(req.url)}")
            return
        key = _poll_key(req.url)
        self._poll_counts[key] = self._poll_counts.get(key, 0) + 1
        if self._poll_counts[key] >= POLL_REPEATS:
            return
        self._inflight[req] = req.url
        self._last_net = self._now()

    def _on_request_done(self, req: Request) -> None:
        if self._inflight.pop(req, None) is not None:
            self._last_net = self._now()

    def _on_request_failed(self, req: Request) -> None:
        self._on_request_done(req)
        failure = req.failure or "failed"
        if _internal(req.url):
            return
        if "ERR_ABORTED" in failure and req.resource_type == "document":
            return  # a navigation replaced by another one, or a download
        self._failed.append(f"{req.method} {_short(req.url)} → {failure}")

    def _on_any_response(self, resp: Response) -> None:
        """Context-wide: remember PDF documents (this tab's or a popup's)."""
        try:
            ctype = (resp.headers.get("content-type") or "").lower()
        except Exception:  # noqa: BLE001
            ctype = ""
        if "application/pdf" in ctype:
            self._pdf[resp.url] = resp

    def _on_response(self, resp: Response) -> None:
        # The server answered. Chromium reports a request "finished" only once the page has read the
        # body, which an unread fetch() body (typical for an error) never is: count it done now.
        self._on_request_done(resp.request)
        if resp.status >= 400 and not _internal(resp.url):
            self._failed.append(f"{resp.request.method} {_short(resp.url)} → {resp.status}")

    async def _console_errors(self) -> tuple[list[str], int]:
        """New console errors from the tab's event capture (not ``page.on("console")``, which would
        carry every message of a flood through Playwright's driver): one line each, and the count of
        occurrences."""
        events = self.tab.events
        try:
            await events.sync(timeout=1.0)
            found = events.console_errors_since(self._console_mark)
        except Exception:  # noqa: BLE001 - a capture that never started: nothing to report
            return [], 0
        lines = []
        for entry, new in found:
            where = f" ({entry.source})" if entry.source else ""
            lines.append(f"{'×' + str(new) + ' ' if new > 1 else ''}{one_line(entry.text, 200)}{where}")
        return lines, sum(new for _, new in found)

    def _on_download(self, download: Download) -> None:
        self._downloads.append(download)

    def _on_new_page(self, page: Page) -> None:
        self.session.dialogs.install(page)  # the session's own hook may not have run yet
        if page is self.tab.page or any(p.page is page for p in self._popups):
            return
        pw = _PageWatch(page, url=page.url)
        self._popups.append(pw)

        def closed(_p: Any, pw: _PageWatch = pw) -> None:
            pw.closed = True

        def navigated(frame: Any, pw: _PageWatch = pw) -> None:
            if frame.parent_frame is None:
                pw.url = frame.url

        page.on("close", closed)
        page.on("framenavigated", navigated)
        page.on("download", self._on_download)

    # phases ----------------------------------------------------------------------------------

    async def _settle_probe(self) -> tuple[float | None, float]:
        """Return (document timeOrigin or None, ms since the last DOM mutation; 0 while navigating)."""
        try:
            origin, quiet = await asyncio.wait_for(self.tab.page.main_frame.evaluate(_SETTLE_JS), 2)
            return origin, float(quiet)
        except Exception:  # noqa: BLE001 - navigating: the document is changing
            return None, 0.0

    async def _snapshot(self) -> str | None:
        try:
            html = await reading.visible_html(self.tab, self.settings)
            return render_snapshot(html, url=self.tab.page.url)
        except Exception as exc:  # noqa: BLE001 - a page mid-navigation: no delta
            log.debug("snapshot for delta failed: %s", exc)
            return None

    async def start(self, action: str) -> None:
        """Note the state before the action and start listening."""
        page = self.tab.page
        self.record = ActionRecord(action=action, url_before=page.url)
        try:
            self.record.title_before = await page.title()
        except Exception:  # noqa: BLE001
            pass
        self._dialog_mark = self.session.dialogs.mark()
        self._origin, _ = await self._settle_probe()
        if self.delta:
            self._before = await self._snapshot()
        try:
            await self.tab.events.sync(timeout=1.0)
            self._console_mark = self.tab.events.console_mark()
        except Exception:  # noqa: BLE001 - no capture on this tab
            self._console_mark = {}
        self._events0 = {rid: n for rid, (_, n) in self._event_streams().items()}
        self._last_net = self._now()
        self._on(page, "request", self._on_request)
        self._on(page, "requestfinished", self._on_request_done)
        self._on(page, "requestfailed", self._on_request_failed)
        self._on(page, "response", self._on_response)
        self._on(page, "download", self._on_download)
        self._on(page.context, "page", self._on_new_page)
        self._on(page.context, "response", self._on_any_response)

    def _event_streams(self) -> dict[str, tuple[str, int]]:
        """From the tab's event capture: stream request id -> (label, frames/messages so far)."""
        records = getattr(self.tab.events, "records", None)
        if records is None:
            return {}
        out: dict[str, tuple[str, int]] = {}
        try:
            for rec in records():
                if rec.resource_type in _LONG_LIVED and rec.socket is not None:
                    kind = "EventSource" if rec.resource_type == "eventsource" else "WebSocket"
                    out[rec.request_id] = (f"{kind} {_short(rec.url)}", rec.socket.received + rec.socket.sent)
        except Exception:  # noqa: BLE001 - capture shape changed: no stream detection from it
            return {}
        return out

    def _streaming(self) -> list[str]:
        """Describe the long-lived traffic seen since the action started (empty when none)."""
        out = list(dict.fromkeys(self._long_lived))
        for rid, (label, n) in self._event_streams().items():
            got = n - self._events0.get(rid, 0)
            if got > 0:
                out = [o for o in out if o != label]
                out.append(f"{label} ({got} message{'s' if got != 1 else ''} while settling)")
        polling = [k for k, n in self._poll_counts.items() if n >= POLL_REPEATS]
        out.extend(f"polling {_short(k)} ({self._poll_counts[k]} requests)" for k in polling)
        return out

    async def settle(self, aset: ActionSettings) -> None:
        """Wait until network and DOM were quiet for ``aset.quiet_ms`` (bounded by ``aset.max_ms``)."""
        t0 = self._now()
        self._last_net = max(self._last_net, t0)
        note = None
        while True:
            now = self._now()
            elapsed = (now - t0) * 1000
            origin, dom_quiet = await self._settle_probe()
            if origin is not None and self._origin is not None and origin != self._origin:
                self._doc_changed = True
                self._origin = origin
            if self.tab.page.is_closed():
                break
            net_quiet = 0.0 if self._inflight else (self._now() - self._last_net) * 1000
            streaming = self._streaming()
            if net_quiet >= aset.quiet_ms and dom_quiet >= aset.quiet_ms:
                if streaming:
                    note = f"The network never goes quiet ({'; '.join(streaming[:3])}); not waited for."
                break
            if streaming and net_quiet >= aset.quiet_ms and elapsed >= aset.stream_ms:
                note = (f"The network never goes quiet ({'; '.join(streaming[:3])}); stopped waiting after "
                        f"{elapsed / 1000:.1f} s.")
                break
            if elapsed >= aset.max_ms:
                busy = []
                if self._inflight:
                    urls = list(self._inflight.values())
                    busy.append(f"{len(urls)} request{'s' if len(urls) != 1 else ''} still loading "
                                f"({_short(urls[0])})")
                if dom_quiet < aset.quiet_ms:
                    busy.append("the page kept changing")
                busy.extend(streaming[:2])
                note = f"Still busy after {aset.max_ms / 1000:.0f} s ({'; '.join(busy) or 'activity'}); reported as is."
                break
            await asyncio.sleep(0.05)
        self.record.settle_ms = (self._now() - t0) * 1000
        self.record.settle_note = note

    async def _save_downloads(self, aset: ActionSettings) -> None:
        if not self._downloads:
            return
        folder = download_dir(aset, self.settings)
        for dl in self._downloads:
            name = dl.suggested_filename or "download"
            info = DownloadInfo(name)
            self.record.downloads.append(info)
            try:
                path = await asyncio.wait_for(dl.path(), aset.download_wait_ms / 1000)
            except asyncio.TimeoutError:
                info.error = f"still downloading after {aset.download_wait_ms / 1000:.0f} s; cancelled"
                try:
                    await dl.cancel()
                except Exception:  # noqa: BLE001
                    pass
                continue
            except Exception as exc:  # noqa: BLE001
                info.error = one_line(str(exc), 120)
                continue
            failure = await dl.failure()
            if failure or path is None:
                info.error = f"failed: {failure or 'no file'}"
                continue
            size = os.path.getsize(path)
            info.size = size
            if size > aset.download_max_bytes:
                info.error = f"over the {human_size(aset.download_max_bytes)} download cap; deleted"
                await dl.delete()
                continue
            dest = folder / Path(name).name
            stem, suffix, k = dest.stem, dest.suffix, 1
            while dest.exists():
                k += 1
                dest = folder / f"{stem}-{k}{suffix}"
            await dl.save_as(dest)
            info.path = str(dest)

    async def _pdf_size(self, url: str) -> int | None:
        resp = self._pdf.get(url)
        if resp is None:
            return None
        length = resp.headers.get("content-length")
        if length and length.isdigit():
            return int(length)
        try:
            return len(await resp.body())
        except Exception:  # noqa: BLE001
            return None

    async def finish(self, aset: ActionSettings) -> ActionRecord:
        """Stop listening and fill in the record (after :meth:`settle`)."""
        rec = self.record
        page = self.tab.page
        try:
            await self._save_downloads(aset)
        finally:
            for emitter, event, fn in self._listeners:
                try:
                    emitter.remove_listener(event, fn)
                except Exception:  # noqa: BLE001
                    pass
        rec.dialogs = self.session.dialogs.since(self._dialog_mark)
        tabs = self.session.tabs
        for pw in self._popups:
            if pw.closed or pw.page.is_closed():
                rec.popups.append(PopupInfo(None, pw.url or pw.page.url, closed=True))
                continue
            try:
                title = await asyncio.wait_for(pw.page.title(), 2)
            except Exception:  # noqa: BLE001
                title = ""
            index = next((i for i, t in enumerate(tabs) if t.page is pw.page), None)
            url = pw.page.url
            pdf = url in self._pdf
            rec.popups.append(PopupInfo(index, url, title, pdf=pdf, size=await self._pdf_size(url) if pdf else None))
        rec.console_errors, rec.console_error_count = await self._console_errors()
        rec.failed_requests, rec.failed_request_count = self._failed, len(self._failed)
        if page.is_closed():
            rec.notes.append("The tab closed itself.")
            return rec
        rec.url_after = page.url
        try:
            rec.title_after = await asyncio.wait_for(page.title(), 2)
        except Exception:  # noqa: BLE001
            rec.title_after = rec.title_before
        rec.new_document = self._doc_changed
        if rec.new_document and page.url in self._pdf:
            size = await self._pdf_size(page.url)
            rec.page_card = f"PDF document, {human_size(size)}, shown in the browser's PDF viewer."
        elif rec.new_document:
            rec.page_card = await self._card()
        elif self.delta and self._before is not None:
            after = await self._snapshot()
            if after is not None:
                rec.delta = render_delta(diff_renderings(self._before, after), max_tokens=self.delta_tokens)
        return rec

    async def _card(self) -> str | None:
        try:
            html = await reading.visible_html(self.tab, self.settings)
        except Exception:  # noqa: BLE001
            return None
        card = render_card(url=self.tab.page.url, status=None, title=self.record.title_after, outline=outline(html))
        lines = [ln for ln in card.splitlines() if not ln.startswith(("Page:", "Load:"))]
        return "\n".join(lines) or None


async def perform(call_session: BrowserSession, tab: Tab, settings: Settings, action: str, act: Any, *,
                  delta: bool = True, settle: bool = True, budget: Budget | None = None) -> ActionRecord:
    """Run ``act()`` (a coroutine function) on ``tab`` under a :class:`Watch` and return the record.

    Args:
        call_session: the browser session.
        tab: the tab acted on.
        settings: server settings (timeouts; ``settings.actions`` for :class:`ActionSettings`).
        action: the record's first line, e.g. ``'Clicked button "Add" [e5]'``.
        act: ``async () -> str | None``; its return value, if a string, is added as a note.
        delta: compute the DOM delta.
        settle: wait for the page to settle (else collect at once).
        budget: the call's budget (``budget.tokens`` caps the whole result; default: the server default);
            the delta gets at most 1,200 tokens and leaves ~250 for the rest of the record.

    Raises:
        Whatever ``act`` raises (already translated by the caller); listeners are removed either way.
    """
    aset = action_settings(settings)
    cap = budget.tokens if budget is not None else settings.caps.default_max_tokens
    watch = Watch(tab, call_session, settings, delta=delta, delta_tokens=max(60, min(1200, cap - 250)))
    await watch.start(action)
    try:
        note = await act()
    except BaseException:
        for emitter, event, fn in watch._listeners:
            try:
                emitter.remove_listener(event, fn)
            except Exception:  # noqa: BLE001
                pass
        raise
    if isinstance(note, str) and note:
        watch.record.notes.append(note)
    if settle:
        await watch.settle(aset)
    else:
        origin, _ = await watch._settle_probe()
        if origin is not None and watch._origin is not None and origin != watch._origin:
            watch._doc_changed = True
    return await watch.finish(aset)


def ensure_open(tab: Tab) -> None:
    """Raise :class:`PageError` if ``tab``'s page is closed."""
    if tab.page.is_closed():
        raise PageError("The tab is closed; use browser_tabs to pick another or browser_navigate to open one.")


# -- verify --------------------------------------------------------------------------------------

def _quote(text: Any, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return '"' + text.replace('"', "'") + '"'


async def visible_lines(tab: Tab, settings: Settings) -> list[str]:
    """The page's visible text as lines (hidden content excluded, as in browser_text); [] on failure."""
    try:
        text = render_text(await visible_html(tab, settings))
    except Exception:  # noqa: BLE001
        return []
    return [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]


async def wait_visible_text(tab: Tab, settings: Settings, text: str, timeout_ms: float, *,
                            gone: bool = False) -> bool:
    """Poll the page's visible text (every 250 ms) until ``text`` appears (or, with ``gone``, is absent).

    Case-insensitive, whitespace-collapsed. Returns whether it happened within ``timeout_ms``.
    Hidden text never counts, unlike Playwright's ``get_by_text`` (which sees opacity-0 text).
    """
    want = " ".join(text.split()).lower()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    while True:
        present = want in "\n".join(await visible_lines(tab, settings)).lower()
        if present != gone:
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.25)


async def _closest_texts(tab: Tab, settings: Settings, text: str) -> str:
    lines = [ln for ln in await visible_lines(tab, settings) if len(ln) <= 300]
    if not lines:
        return "no such visible text"
    low = text.lower()
    near = [ln for ln in lines if low[: max(3, len(low) // 2)] in ln.lower()][:3]
    if not near:
        near = difflib.get_close_matches(text, lines, n=3, cutoff=0.5)
    if not near:
        return "no such visible text"
    return "no such visible text; closest: " + ", ".join(_quote(n, 80) for n in near)


async def _state(locator: Locator, what: str) -> str:
    """The element's current state for a FAIL line (never raises)."""
    try:
        n = await locator.count()
        if n == 0:
            return "no element"
        el = locator.first
        if what == "count":
            return str(n)
        if what == "text":
            text = await el.inner_text(timeout=1000)
            return _quote(text) if text.strip() else "no text"
        if what == "value":
            return _quote(await el.input_value(timeout=1000))
        if what == "checked":
            return "checked" if await el.is_checked(timeout=1000) else "unchecked"
        if what == "enabled":
            return "enabled" if await el.is_enabled(timeout=1000) else "disabled"
        if what == "visible":
            return "visible" if await el.is_visible() else "hidden"
    except Exception as exc:  # noqa: BLE001
        return one_line(str(exc), 80)
    return "?"


async def verify(tab: Tab, args: dict[str, Any], settings: Settings) -> str:
    """Check the page with Playwright's web-first ``expect`` (auto-waiting up to ``timeout`` ms).

    Args (camelCase, as the tool gets them): ``target`` (ref or selector), ``text`` (the target, or the
    page when no target, contains this visible text; case-sensitive for a target, case-insensitive on
    the page), ``visible``/``hidden`` (bool), ``count`` (matches), ``value`` (a field's exact value),
    ``checked``, ``enabled`` (bool), ``url``/``title`` (the page's URL/title contains this),
    ``timeout`` (ms, default the action timeout, 5,000; clamped to 0-60,000). A target with no other check means ``visible: true``.

    Returns:
        ``"PASS"``, or ``"FAIL: expected …, got …"`` for the first failing check, with the element's
        current text/value/state or the closest visible texts on the page.

    Raises:
        InvalidArgument: nothing to check.
        StaleRefError: a ref whose element is gone (unless the check is for hidden / count 0).
        SelectorError: a selector that matches several elements for a single-element check.
    """
    page = tab.page
    timeout = min(max(0.0, float(args.get("timeout", settings.timeouts.action_ms))), 60_000.0)
    target = (args.get("target") or "").strip() or None
    keys = ("text", "visible", "hidden", "count", "value", "checked", "enabled")
    if target and not any(k in args for k in keys):
        args = {**args, "visible": True}
    if not target and not any(k in args for k in ("text", "url", "title")):
        if any(k in args for k in keys):
            raise InvalidArgument("visible/hidden/count/value/checked/enabled need a target.")
        raise InvalidArgument("Nothing to verify: pass target, text, url or title (and what to expect).")

    checks: list[tuple[str, Any, Any]] = []  # (expected phrase, async check, async got)
    if "url" in args:
        url = args["url"]
        checks.append((f"URL to contain {_quote(url)}",
                       lambda: expect(page).to_have_url(re.compile(re.escape(url)), timeout=timeout),
                       lambda: _aval(_quote(page.url, 200))))
    if "title" in args:
        title = args["title"]

        async def got_title() -> str:
            return _quote(await page.title())
        checks.append((f"title to contain {_quote(title)}",
                       lambda: expect(page).to_have_title(re.compile(re.escape(title)), timeout=timeout),
                       got_title))
    if target:
        loc = locator_for(tab, target)
        gone_ok = args.get("hidden") is True or args.get("visible") is False or args.get("count") == 0
        single = any(k in args for k in ("text", "value", "checked", "enabled")) or args.get("visible") is True \
            or args.get("hidden") is False
        try:
            n = await loc.count()
        except Exception as exc:  # noqa: BLE001
            raise translate(exc, action="verify", target=target) from exc
        if n == 0 and extract.is_ref(target) and not gone_ok:
            raise StaleRefError(f"Ref {target} is stale: its element was removed or the page changed. "
                                "Take a new browser_snapshot.")
        if n > 1 and single:
            shown = [await describe_element(loc.nth(i), tab) for i in range(min(n, DESCRIBE_MATCHES))]
            raise SelectorError(f"{target!r} matches {n} elements; checks like text/value/visible need exactly "
                                f"one: {'; '.join(shown)}. Use a ref or a more specific selector "
                                "(count works with several).")
        name = target
        if "count" in args:
            c = int(args["count"])
            checks.append((f"{name} to match {c} element{'s' if c != 1 else ''}",
                           lambda: expect(loc).to_have_count(c, timeout=timeout), lambda: _state(loc, "count")))
        vis = args.get("visible")
        if vis is None and "hidden" in args:
            vis = not args["hidden"]
        if vis is True:
            checks.append((f"{name} to be visible", lambda: expect(loc).to_be_visible(timeout=timeout),
                           lambda: _state(loc, "visible")))
        elif vis is False:
            checks.append((f"{name} to be hidden", lambda: expect(loc).to_be_hidden(timeout=timeout),
                           lambda: _state(loc, "visible")))
        if "text" in args:
            text = args["text"]
            checks.append((f"{name} text to contain {_quote(text)}",
                           lambda: expect(loc).to_contain_text(text, timeout=timeout, use_inner_text=True),
                           lambda: _state(loc, "text")))
        if "value" in args:
            value = args["value"]
            try:
                is_password = await loc.first.evaluate("e => e.type === 'password'", timeout=1000)
            except Exception:  # noqa: BLE001
                is_password = False
            if is_password:
                raise InvalidArgument(f"{target!r} is a password field: its value is never read or compared. "
                                      "Check what the page shows after submitting instead.")
            checks.append((f"{name} value to be {_quote(value)}",
                           lambda: expect(loc).to_have_value(value, timeout=timeout), lambda: _state(loc, "value")))
        if "checked" in args:
            want = bool(args["checked"])
            checks.append((f"{name} to be {'checked' if want else 'unchecked'}",
                           lambda: expect(loc).to_be_checked(checked=want, timeout=timeout),
                           lambda: _state(loc, "checked")))
        if "enabled" in args:
            want_e = bool(args["enabled"])
            checks.append((f"{name} to be {'enabled' if want_e else 'disabled'}",
                           lambda: expect(loc).to_be_enabled(enabled=want_e, timeout=timeout),
                           lambda: _state(loc, "enabled")))
    elif "text" in args:
        text = args["text"]

        async def text_visible() -> None:
            if not await wait_visible_text(tab, settings, text, timeout):
                raise AssertionError(text)
        checks.append((f"visible text {_quote(text)} on the page", text_visible,
                       lambda: _closest_texts(tab, settings, text)))
    for expected, check, got in checks:
        try:
            await check()
        except AssertionError:
            return f"FAIL: expected {expected}, got {await got()}"
        except BrowserCtxError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise translate(exc, action="verify", target=target) from exc
    return "PASS"


async def _aval(value: str) -> str:
    return value
