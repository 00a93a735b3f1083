"""Action record tokens on MiniWoB++ tasks (issue 25): what browser-ctx's action results cost per action.

For each task and seed of :data:`TASKS` (the 24 of the 2026-12-01 agent trial), the MiniWoB++ page
(``miniwob==1.1.0``'s html folder: ``$AGENTSH_MINIWOB_HTML``, else ``/tmp/agentsh-final/miniwob/html``; served
from localhost as the agent trial's harness serves it) is opened with ``browser_navigate``, the episode started with
the seed as the harness does (``browser_evaluate``, not counted), a ``browser_snapshot`` taken, and a scripted,
plausible sequence of actions made: click the task's controls, type into its fields, press keys, select options,
submit. Targets are picked by role and name from the text the script has seen (the last snapshot and the records
since, newest first); an element that text gives no ref (an older tree lists fewer) is reached by the script's
Playwright selector for it, so every tree runs the same actions on the same elements. Reads the script takes to
find new targets (a menu that opened) are made on every tree alike and are not counted.

Each action comes ``--pause`` seconds (1.0) after the previous call, an agent's think time (real agents take
longer): a timer ticks between calls, as it does for them.

Counted: every action result (``browser_click``, ``browser_type``, ``browser_press_key``,
``browser_select_option``): o200k tokens of its text and structured content, as :mod:`bench.client` counts.

Usage: ``python -m bench.record_tokens [--baseline DIR] [--tasks a,b] [--keep-text DIR] [--json FILE]``.
``--baseline DIR`` also runs the source tree at DIR (a git worktree of an older commit; its own ``.venv`` when it
has one). Prints mean / median / p90 (nearest rank) tokens per action per tree, and per task.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import http.server
import json
import math
import os
import re
import statistics
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .client import Connection, connect
from .servers import ServerSpec, build_specs

__all__ = ["TASKS", "ACTION_TOOLS", "run", "main", "percentile", "find_ref"]

#: Tasks and seeds (those of the 2026-12-01 agent trial).
TASKS: list[tuple[str, int]] = [
    ("social-media", 101), ("social-media-some", 102), ("email-inbox", 103), ("email-inbox-forward-nl", 104),
    ("navigate-tree", 105), ("use-slider", 106), ("use-slider-2", 107), ("use-autocomplete", 108),
    ("click-menu-2", 109), ("choose-date", 110), ("text-editor", 111), ("copy-paste-2", 112), ("phone-book", 113),
    ("click-collapsible-2", 114), ("book-flight", 115), ("click-tab-2", 116), ("use-spinner", 117),
    ("search-engine", 118), ("click-scroll-list", 119), ("enter-date", 120), ("find-word", 121),
    ("read-table", 122), ("login-user-popup", 123), ("click-pie", 124),
]
#: Tools whose results are action records.
ACTION_TOOLS = ("browser_click", "browser_type", "browser_press_key", "browser_select_option")
DEFAULT_HTML = "/tmp/agentsh-final/miniwob/html"

# The harness's episode start (agent-trials/agentsh.py EPISODE_JS): seed, an hour per episode, the first
# result kept; the answer comes back base64-encoded between markers, whatever the server's output format.
_EPISODE_JS = """async () => {
  const enc = (o) => 'RT_B64:' + btoa(unescape(encodeURIComponent(JSON.stringify(o)))) + ':END';
  try {
    if (document.readyState !== 'complete') {
      await new Promise((r) => { window.addEventListener('load', r, {once: true}); setTimeout(r, 20000); });
    }
    await new Promise((r) => setTimeout(r, 50));
    if (typeof core === 'undefined' || typeof genProblem !== 'function') return enc({error: 'not a task page'});
    if (!core.cover_div) core.startEpisode();
    Math.seedrandom(%(seed)s);
    core.EPISODE_MAX_TIME = 3600000;
    core.startEpisodeReal();
    let u = core.getUtterance();
    if (u && typeof u === 'object') u = u.utterance;
    for (let i = 0; i < 40 && typeof WOB_TASK_READY !== 'undefined' && WOB_TASK_READY === false; i++) {
      await new Promise((r) => setTimeout(r, 250));
    }
    return enc({utterance: String(u)});
  } catch (e) { return enc({error: String(e)}); }
}"""
_MARK = re.compile(r"RT_B64:([A-Za-z0-9+/=\\]*):END")
_FAVICON = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-1) of ``values`` (not empty)."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


_REF = r"((?:f\d+)?e\d+)"


def find_ref(text: str, roles: str, name: str, after: str | None = None) -> str | None:
    """The ref of the first line of ``text`` (a snapshot or a record) whose role matches ``roles`` (a regex:
    ``button|clickable``) and whose name matches ``name`` (a regex, whole name: ``"like"`` or a class-word name
    ``.like``), after the first line matching ``after`` when given; links inside text (``[name](e4)``) count
    as role ``link``. ``None`` when there is none."""
    if not text.startswith("Page:"):  # a record: lines that went are no targets
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("- "))
    start = 0
    if after is not None:
        m = re.search(after, text)
        if m is None:
            return None
        start = m.end()
    line = re.compile(rf'^[ \t]*(?:[-+~] )?(?:- )?(?:{roles}) (?:"{name}"|\.{name})(?=[\s\[:])[^\n]*?\[{_REF}\]',
                      re.M)
    hits = [(m.start(), m.group(1)) for m in line.finditer(text, start)]
    if "link" in roles.split("|"):
        hits += [(m.start(), m.group(1)) for m in re.compile(rf"\[{name}\]\({_REF}\)").finditer(text, start)]
    return min(hits)[1] if hits else None


@dataclass
class Pick:
    """A target: by role and name in the text seen (:func:`find_ref`), else the Playwright selector ``css``."""

    roles: str
    name: str
    css: str | None = None
    after: str | None = None


@dataclass
class Episode:
    """One task on one server: the calls made and the text seen."""

    conn: Connection
    task: str
    pause: float = 0.0
    utterance: str = ""
    seen: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    async def snapshot(self, target: str | None = None) -> str:
        rec = await self.conn.call("browser_snapshot", {"target": target} if target else {})
        self.seen = [rec.text]
        return rec.text

    def target(self, pick: Pick) -> str | None:
        for text in reversed(self.seen):
            ref = find_ref(text, pick.roles, pick.name, pick.after)
            if ref:
                return ref
        if pick.css is None:
            self.missing.append(f"{pick.roles} {pick.name}")
        return pick.css

    async def _act(self, tool: str, args: dict[str, Any]) -> str:
        await asyncio.sleep(self.pause)  # an agent's think time: what changes by itself changes between calls
        rec = await self.conn.call(tool, args)
        self.rows.append({"task": self.task, "tool": tool, "args": args, "tokens": rec.tokens,
                          "structuredTokens": rec.structured_tokens, "isError": rec.is_error, "text": rec.text})
        self.seen.append(rec.text)
        return rec.text

    async def click(self, pick: Pick) -> str | None:
        target = self.target(pick)
        return await self._act("browser_click", {"target": target}) if target else None

    async def type(self, pick: Pick, text: str, **opts: Any) -> str | None:
        target = self.target(pick)
        return await self._act("browser_type", {"target": target, "text": text, **opts}) if target else None

    async def press(self, key: str) -> str:
        return await self._act("browser_press_key", {"key": key})

    async def select(self, pick: Pick, values: list[str]) -> str | None:
        target = self.target(pick)
        return await self._act("browser_select_option", {"target": target, "values": values}) if target else None


def _shown(text: str) -> str:
    """The text a read or record shows now: lines that went dropped, signs and ``text:`` labels taken off (so a
    script's conditions read the same on trees that render lines differently)."""
    out = []
    for ln in text.splitlines():
        if ln.startswith("- "):
            continue
        ln = re.sub(r"^[+~] ", "", ln).strip()
        out.append(ln[6:] if ln.startswith("text: ") else ln)
    return "\n".join(out)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", _shown(text)) is not None


def _q(u: str, k: int = 0) -> str:
    """The ``k``-th double-quoted phrase of the utterance."""
    found = re.findall(r'"([^"]+)"', u)
    return found[k] if k < len(found) else ""


def _esc(s: str) -> str:
    return re.escape(s)


SUBMIT = Pick("button", "Submit", "#subbtn")


# ---------------------------------------------------------------------------------------------------------------
# Scripts, one per task: what an agent that read the snapshot would do.

async def social_media(ep: Episode) -> None:
    user = re.search(r"@\w+", ep.utterance).group(0)  # type: ignore[union-attr]
    what = _q(ep.utterance)
    post = f'.media:has(.username:text-is("{user}"))'
    icon = {"Reply": "reply", "Retweet": "retweet", "Like": "like"}.get(what)
    if icon:
        await ep.click(Pick("clickable", icon, f"{post} .{icon} >> nth=0", after=rf"(?m){_esc(user)} ·"))
        return
    await ep.click(Pick("clickable", "more", f"{post} .more >> nth=0", after=rf"(?m){_esc(user)} ·"))
    await ep.snapshot()
    if not _has_word(ep.seen[-1], what):  # the menu did not open (a hover style moves the icon under the pointer)
        return
    await ep.click(Pick("clickable|menuitem|listitem|text", _esc(what), f'li:visible:text-is("{what}")'))


async def social_media_some(ep: Episode) -> None:
    m = re.search(r"on (\d+) posts? by (@\w+)", ep.utterance)
    n, user = (int(m.group(1)), m.group(2)) if m else (1, "@")
    shown = ep.seen[-1]
    starts = [mm.end() for mm in re.finditer(rf"(?m){_esc(user)}$", shown)]
    for k in range(min(n, 3)):
        after = None
        if k < len(starts):
            after = rf"(?s)^.{{{starts[k]}}}"  # the k-th post by the user
        await ep.click(Pick("clickable", "like", f'.media:has(.username:text-is("{user}")) .like >> nth={k}',
                            after=after))
    await ep.click(SUBMIT)


async def email_inbox(ep: Episode) -> None:
    m = re.search(r"email by (\w+)", ep.utterance)
    sender = m.group(1) if m else ""
    row = f'.email-thread:has(.email-sender:text-is("{sender}"))'
    if "star icon" in ep.utterance or "trash icon" in ep.utterance:
        icon = "star" if "star" in ep.utterance else "trash"
        await ep.click(Pick("clickable", icon, f"{row} .{icon}", after=rf'"{sender} '))
        return
    await ep.click(Pick("clickable", rf"{sender} [^\"]*", f"{row} .email-sender"))
    if "forward" in ep.utterance:
        to = re.search(r"forward (?:that email )?to (\w+)|forward to (\w+)", ep.utterance)
        name = next(g for g in to.groups() if g) if to else "Bob"
        await ep.click(Pick("clickable|button", "[Ff]orward|email forward", ".email-forward"))
        await ep.type(Pick("textbox", "forward sender|to:", "input.forward-sender"), name)
        await ep.click(Pick("clickable|button", "send forward", "#send-forward"))
    else:
        await ep.click(Pick("clickable|button", "[Rr]eply|email reply", ".email-reply"))
        await ep.type(Pick("textbox", "reply text|reply-text", "#reply-text"), _q(ep.utterance) or "Thanks")
        await ep.click(Pick("clickable|button", "send reply", "#send-reply"))


async def navigate_tree(ep: Episode) -> None:
    name = _q(ep.utterance)
    for _ in range(4):
        if _has_word(ep.seen[-1], name):
            break
        await ep.click(Pick("clickable", "hitarea", ".hitarea.expandable-hitarea >> nth=0"))
    await ep.click(Pick("clickable|treeitem|link", _esc(name), f'#tree span:text-is("{name}")'))


def _slider_value(text: str, k: int) -> int | None:
    vals = re.findall(r"^(-?\d+)$", _shown(text), re.M)
    return int(vals[k]) if k < len(vals) else None


async def use_slider(ep: Episode) -> None:
    goal = int(re.search(r"Select (-?\d+)", ep.utterance).group(1))  # type: ignore[union-attr]
    now = _slider_value(ep.seen[-1], 0) or goal
    await ep.click(Pick("slider", "slider handle", "#slider .ui-slider-handle"))
    key = "ArrowRight" if goal > now else "ArrowLeft"
    for _ in range(min(abs(goal - now), 6)):
        await ep.press(key)
    await ep.click(SUBMIT)


async def use_slider_2(ep: Episode) -> None:
    goals = [int(x) for x in re.findall(r"-?\d+", ep.utterance.split("[", 1)[-1])[:3]]
    for k, goal in enumerate(goals):
        ref = re.findall(r'slider "slider handle" \[((?:f\d+)?e\d+)\]', ep.seen[0])
        target = ref[k] if k < len(ref) else f"#slider-{k + 1} .ui-slider-handle"
        await ep._act("browser_click", {"target": target})
        await ep.press("Home")
        for _ in range(min(goal, 4)):
            await ep.press("ArrowRight")
    await ep.click(SUBMIT)


async def use_autocomplete(ep: Episode) -> None:
    start = _q(ep.utterance, 0)
    end = _q(ep.utterance, 1)
    await ep.type(Pick("textbox", "Tags:", "#tags"), start, slowly=True)
    await ep.click(Pick("option|menuitem|listitem|clickable|text", f"{_esc(start)}[^\"]*{_esc(end)}",
                        f'.ui-menu-item:has-text("{end}") >> nth=0'))
    await ep.click(SUBMIT)


async def click_menu_2(ep: Episode) -> None:
    item = _q(ep.utterance, 1)
    await ep.click(Pick("button", "Menu", "#open-menu"))
    if item in ("Prev", "Stop", "Play", "Next"):
        await ep.click(Pick("menuitem|clickable", "Playback", '#menu div:text-is("Playback")'))
    await ep.click(Pick("menuitem|clickable", _esc(item), f'#menu div:text-is("{item}")'))


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]


async def _calendar(ep: Episode, field_pick: Pick, mm: int, dd: int, yyyy: int) -> None:
    """Open a jQuery UI datepicker, page to the month, click the day."""
    await ep.click(field_pick)
    await ep.snapshot("#ui-datepicker-div")
    shown = ep.seen[-1]
    m = re.search(r"(" + "|".join(_MONTHS) + r")\s+(\d{4})", shown)
    steps = 0
    if m:
        steps = (yyyy - int(m.group(2))) * 12 + (mm - 1 - _MONTHS.index(m.group(1)))
    key = "Next" if steps > 0 else "Prev"
    for _ in range(min(abs(steps), 3)):
        await ep.click(Pick("link|clickable", key, f'a[title="{key}"]'))
        await ep.snapshot("#ui-datepicker-div")
    await ep.click(Pick("link", str(dd), f'#ui-datepicker-div a:text-is("{dd}")'))


async def choose_date(ep: Episode) -> None:
    mm, dd, yyyy = (int(x) for x in re.search(r"(\d+)/(\d+)/(\d+)", ep.utterance).groups())  # type: ignore
    await _calendar(ep, Pick("textbox", "datepicker", "#datepicker"), mm, dd, yyyy)
    await ep.click(SUBMIT)


async def text_editor(ep: Episode) -> None:
    await ep.click(Pick("textbox", "editor", ".ql-editor"))
    await ep.press("Control+Home")
    for _ in range(3):
        await ep.press("Shift+ArrowRight")
    style = "bold" if "bold" in ep.utterance else "italic" if "italic" in ep.utterance else "underline"
    await ep.click(Pick("button", style, f".ql-{style}"))
    await ep.click(SUBMIT)


async def copy_paste_2(ep: Episode) -> None:
    m = re.search(r"(\d+)(?:st|nd|rd|th) text area", ep.utterance)
    k = int(m.group(1)) - 1 if m else 0
    values = re.findall(r'^\s*textbox [^\n]*= "([^"\n]*)"', ep.seen[0], re.M)
    text = values[k].strip() if k < len(values) else "text"
    await ep.type(Pick("textbox", "answer input", "#answer-input"), text)
    await ep.click(SUBMIT)


async def phone_book(ep: Episode) -> None:
    m = re.search(r"Find (\w+) in the contact book and click on their (\w+)", ep.utterance)
    name, what = (m.group(1), m.group(2)) if m else ("", "address")
    for _ in range(4):
        if re.search(rf'heading \d "{_esc(name)}"', _shown(ep.seen[-1])):
            break
        await ep.click(Pick("link", "&gt;|>", '#pagination a:text-is(">")'))
    await ep.snapshot()
    label = {"address": "Address", "phone": "Phone", "email": "Email"}.get(what, "Address")
    m2 = re.search(rf"{label}: \[?([^\]\n(]+)", _shown(ep.seen[-1]))
    value = m2.group(1).strip() if m2 else "$^"
    await ep.click(Pick("link", _esc(value), f"a.{what}:visible"))


async def click_collapsible_2(ep: Episode) -> None:
    word = _q(ep.utterance)
    for k in range(1, 4):
        await ep.click(Pick("tab", f"Section #{k}", f'h3:text-is("Section #{k}")'))
        if _has_word(ep.seen[-1], word):
            break
    await ep.click(Pick("link", _esc(word), f'.ui-accordion-content-active .alink:text-is("{word}") >> nth=0'))


async def book_flight(ep: Episode) -> None:
    m = re.search(r"from: (.+?) to: (.+?) on (\d+)/(\d+)/(\d+)", ep.utterance)
    if not m:
        return
    origin, dest = m.group(1), m.group(2)
    for label, sel, city in (("From:", "#flight-from", origin), ("To:", "#flight-to", dest)):
        await ep.type(Pick("textbox", _esc(label), sel), city.split(",")[0], slowly=True)
        await ep.click(Pick("option|menuitem|listitem|clickable|text", f"{_esc(city)}[^\"]*",
                            ".ui-menu-item:visible >> nth=0"))
    await _calendar(ep, Pick("textbox", "flight input|Departure Date", "#datepicker"),
                    int(m.group(3)), int(m.group(4)), int(m.group(5)))
    await ep.click(Pick("button", "Search", "#search"))
    await ep.click(Pick("button", r"Book flight for \$[\d,]+", ".book >> nth=0"))


async def click_tab_2(ep: Episode) -> None:
    word = _q(ep.utterance)
    for k in range(1, 4):
        if _has_word(ep.seen[-1], word):
            break
        await ep.click(Pick("link|tab", f"Tab #{k}", f'a[href="#tabs-{k}"]'))
    await ep.click(Pick("link", _esc(word), f'.ui-tabs-panel:visible .alink:text-is("{word}") >> nth=0'))


async def use_spinner(ep: Episode) -> None:
    goal = re.search(r"Select (-?\d+)", ep.utterance).group(1)  # type: ignore[union-attr]
    await ep.type(Pick("spinbutton", "[^\"]*", "#spinner"), goal)
    await ep.click(SUBMIT)


async def search_engine(ep: Episode) -> None:
    query = _q(ep.utterance, 0)
    m = re.search(r"the (\d+)(?:st|nd|rd|th) search result", ep.utterance)
    n = int(m.group(1)) if m else 1
    await ep.type(Pick("textbox", "search text", "#search-text"), query)
    await ep.click(Pick("button", "Search", "#search"))
    page = (n - 1) // 3 + 1
    if page > 1:
        await ep.click(Pick("link", str(page), f'#pagination a:text-is("{page}")'))
    k = (n - 1) % 3
    shown = "\n".join(ln for ln in ep.seen[-1].splitlines() if not ln.startswith("- "))
    links = re.findall(rf"^\s*(?:[+~] )?link \"[^\"]*\" \[{_REF}\] → #", shown, re.M)
    links = [r for r in links if not re.search(rf'link "(?:\d+|[<>])" \[{r}\]', shown)]  # not the pages
    target = links[k] if k < len(links) else f"#page-content a >> nth={k}"
    await ep._act("browser_click", {"target": target})


async def click_scroll_list(ep: Episode) -> None:
    m = re.search(r"Select (.+?) from the scroll list", ep.utterance)
    values = [v.strip() for v in m.group(1).split(",")] if m else []
    await ep.select(Pick("select|listbox", "options", "#options"), values)
    await ep.click(SUBMIT)


async def enter_date(ep: Episode) -> None:
    mm, dd, yyyy = re.search(r"(\d+)/(\d+)/(\d+)", ep.utterance).groups()  # type: ignore[union-attr]
    await ep.type(Pick("date|textbox", "tt", "#tt"), f"{yyyy}-{mm}-{dd}")
    await ep.click(SUBMIT)


async def find_word(ep: Episode) -> None:
    m = re.search(r"Find the (\d+)(?:st|nd|rd|th) word", ep.utterance)
    k = int(m.group(1)) - 1 if m else 0
    para = re.search(r"^(.+)$", _shown(ep.seen[0]).split("\n", 2)[2], re.M)
    words = re.findall(r"[A-Za-z]+", para.group(1)) if para else []
    await ep.type(Pick("textbox", "answer input", "#answer-input"), words[k] if k < len(words) else "word")
    await ep.click(SUBMIT)


async def read_table(ep: Episode) -> None:
    m = re.search(r"value of (.+?) into", ep.utterance)
    key = m.group(1) if m else ""
    row = re.search(rf"row: {_esc(key)} \| ([^\n]+)", _shown(ep.seen[0]))
    await ep.type(Pick("textbox", "tt", "#tt"), row.group(1).strip() if row else "x")
    await ep.click(SUBMIT)


async def login_user_popup(ep: Episode) -> None:
    user, password = _q(ep.utterance, 0), _q(ep.utterance, 1)
    await ep.type(Pick("textbox", "username", "#username"), user)
    await ep.type(Pick("password|textbox", "password", "#password"), password)
    await ep.click(Pick("button", "OK|Login|login", "#subbtn"))


async def click_pie(ep: Episode) -> None:
    item = _q(ep.utterance)
    await ep.click(Pick("clickable|link|button|text", r"\+", 'text="+"'))
    await ep.click(Pick("clickable|link|button", _esc(item), f'#divWheel tspan:text-is("{item}")'))


SCRIPTS: dict[str, Callable[[Episode], Awaitable[None]]] = {
    "social-media": social_media, "social-media-some": social_media_some, "email-inbox": email_inbox,
    "email-inbox-forward-nl": email_inbox, "navigate-tree": navigate_tree, "use-slider": use_slider,
    "use-slider-2": use_slider_2, "use-autocomplete": use_autocomplete, "click-menu-2": click_menu_2,
    "choose-date": choose_date, "text-editor": text_editor, "copy-paste-2": copy_paste_2, "phone-book": phone_book,
    "click-collapsible-2": click_collapsible_2, "book-flight": book_flight, "click-tab-2": click_tab_2,
    "use-spinner": use_spinner, "search-engine": search_engine, "click-scroll-list": click_scroll_list,
    "enter-date": enter_date, "find-word": find_word, "read-table": read_table,
    "login-user-popup": login_user_popup, "click-pie": click_pie,
}


# ---------------------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def serve_html(folder: Path) -> Iterator[int]:
    """Serve ``folder`` on 127.0.0.1 (no caching, a 1×1 favicon, as the trial harness does); yield the port."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

        def do_GET(self) -> None:  # noqa: N802
            if self.path.split("?")[0] == "/favicon.ico":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(_FAVICON)))
                self.end_headers()
                self.wfile.write(_FAVICON)
                return
            super().do_GET()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()


async def _episode(conn: Connection, site: str, task: str, seed: int, pause: float) -> Episode:
    ep = Episode(conn, task, pause)
    for _ in range(3):  # a first navigation of a new browser can end on about:blank
        await conn.call("browser_navigate", {"url": f"{site}/miniwob/{task}.html"})
        rec = await conn.call("browser_evaluate", {"function": _EPISODE_JS % {"seed": seed}})
        m = _MARK.search(rec.text)
        if m is not None and "error" not in json.loads(base64.b64decode(m.group(1).replace("\\", "")).decode()):
            break
    if m is None:
        ep.missing.append(f"episode start: {rec.text[:200]}")
        return ep
    data = json.loads(base64.b64decode(m.group(1).replace("\\", "")).decode())
    ep.utterance = data.get("utterance") or ""
    await ep.snapshot()
    try:
        await SCRIPTS[task](ep)
    except (AttributeError, ValueError, IndexError, StopIteration) as exc:  # an utterance the script cannot read
        ep.missing.append(f"script: {exc}")
    return ep


async def run(specs: list[ServerSpec], tasks: list[tuple[str, int]], html: Path, pause: float = 1.0,
              log=print) -> list[dict[str, Any]]:
    """Each server in turn, every task: one row per action (server, task, tool, args, tokens, text)."""
    rows: list[dict[str, Any]] = []
    with serve_html(html) as port:
        site = f"http://127.0.0.1:{port}"
        for spec in specs:
            async with connect(spec) as conn:
                for task, seed in tasks:
                    ep = await _episode(conn, site, task, seed, pause)
                    for row in ep.rows:
                        rows.append({"server": spec.name, "seed": seed, **row})
                    spent = sum(r["tokens"] for r in ep.rows)
                    log(f"{spec.name} {task}:{seed} {len(ep.rows)} actions, {spent} tokens"
                        + (f" (not found: {'; '.join(ep.missing)})" if ep.missing else ""))
                await conn.call("browser_navigate", {"url": "about:blank"})
    return rows


def _stats(values: list[int]) -> str:
    if not values:
        return "- / - / -"
    return f"{statistics.mean(values):.0f} / {statistics.median(values):.0f} / {percentile(values, 0.9):.0f}"


def markdown(rows: list[dict[str, Any]]) -> str:
    """Per tree: actions, mean / median / p90 tokens per action, total; then per task."""
    servers = list(dict.fromkeys(r["server"] for r in rows))
    lines = ["| tree | actions | tokens per action: mean / median / p90 | max | total |", "|---|---:|---:|---:|---:|"]
    for s in servers:
        t = [r["tokens"] for r in rows if r["server"] == s]
        lines.append(f"| {s} | {len(t)} | {_stats(t)} | {max(t, default=0)} | {sum(t):,} |")
    lines += ["", "| task | " + " | ".join(f"{s} actions, tokens" for s in servers) + " |",
              "|---|" + "---:|" * len(servers)]
    for task in dict.fromkeys(r["task"] for r in rows):
        cells = []
        for s in servers:
            t = [r["tokens"] for r in rows if r["server"] == s and r["task"] == task]
            cells.append(f"{len(t)}, {sum(t)}")
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def baseline_spec(base: ServerSpec, tree: Path) -> ServerSpec:
    """browser-ctx from the source tree ``tree`` (its own ``.venv`` python when it has one), first on sys.path."""
    python = tree / ".venv" / "bin" / "python"
    src = str(tree.resolve())
    return replace(base, name="browser-ctx-baseline", command=str(python) if python.exists() else base.command,
                   args=["-c", f"import sys; sys.path.insert(0, {src!r}); from browser_ctx.cli import main; "
                         "sys.exit(main())", "serve", "--offline-external"])


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.record_tokens", description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="also run browser-ctx from this source tree (e.g. /work/baseline)")
    ap.add_argument("--tasks", default="", help="comma-separated task names (default: all of TASKS)")
    ap.add_argument("--html", type=Path, default=Path(os.environ.get("AGENTSH_MINIWOB_HTML") or DEFAULT_HTML),
                    help="miniwob==1.1.0's html folder (default: $AGENTSH_MINIWOB_HTML or %(default)s)")
    ap.add_argument("--pause", type=float, default=1.0,
                    help="seconds before each action, an agent's think time (default %(default)s)")
    ap.add_argument("--keep-text", type=Path, help="write every action's result text here, one file per tree")
    ap.add_argument("--json", type=Path, help="also write every row here")
    args = ap.parse_args()
    if not (args.html / "core" / "core.js").exists():
        raise SystemExit(f"no MiniWoB++ html folder at {args.html}: unpack miniwob==1.1.0's miniwob/html there "
                         "or pass --html")
    wanted = {t.strip() for t in args.tasks.split(",") if t.strip()}
    tasks = [(t, s) for t, s in TASKS if not wanted or t in wanted]
    specs = build_specs(["browser-ctx"])
    if args.baseline:
        specs.append(baseline_spec(specs[0], args.baseline))
    rows = asyncio.run(run(specs, tasks, args.html, args.pause))
    print(markdown(rows))
    if args.keep_text:
        args.keep_text.mkdir(parents=True, exist_ok=True)
        for s in dict.fromkeys(r["server"] for r in rows):
            body = "\n\n".join(f"### {r['task']} {r['tool']} {json.dumps(r['args'])} ({r['tokens']} tokens)\n"
                                 f"{r['text']}" for r in rows if r["server"] == s)
            (args.keep_text / f"{s}.md").write_text(body + "\n")
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in r.items()} for r in rows], indent=1))


if __name__ == "__main__":
    main()
