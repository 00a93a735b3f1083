"""How long after an action pages written by others still change: the data behind the settle window (issue 25).

For each MiniWoB++ task page (``miniwob==1.1.0``'s html, as ``../shared/agent-trials`` unpacks it; ``--miniwob``)
and a few fixture pages, in process (one Chromium launched as the server launches it): load the page, start an
episode, install the settle probe (``browser/js/settle_probe.js``) and let it watch 3.2 s (the task timer's
ticks become "changes by itself"), then make one action on a control of the task (the first button, text field
and other clickable, each on a fresh load: click, or type two characters key by key) and sample the probe every
20 ms for 2 s. Changes the probe counts (DOM mutations not from a ticking element, short animations running)
form the action's timeline.

For a window ``W`` the settle a quiet-window rule would make is simulated on that timeline: it ends at the first
moment the page has been quiet for ``W`` after the action (network aside: these pages make no requests). A change
after that end is *missed by the record* (the journal and the next call report it). Printed per ``W``: actions
with a missed change, and the median and p90 simulated settle (ms after the action). For typing, also the quick
end ``browser_type`` makes (:func:`simulate_quick`): at the first look when nothing changed by then, else the
window.

Usage: ``python -m bench.settle_gaps [--miniwob DIR] [--tasks N] [--windows 50,100,150,200,300,500]
[--kinds click,type]``. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from browser_ctx._http import serve_directory
from browser_ctx.browser.launcher import chromium_args, find_executable
from browser_ctx.browser.scripts import script
from browser_ctx.settings import LaunchSettings

from .actions import percentile

__all__ = ["timeline", "simulate", "simulate_quick", "main"]

DEFAULT_MINIWOB = Path(os.environ.get("AGENTSH_DIR") or Path(tempfile.gettempdir()) / "agentsh-base") / "miniwob/html"
WATCH_S = 2.0
SAMPLE_S = 0.02
#: When ``browser_type``'s first look sees the page after the keys (ms): a probe and a capture sync.
FIRST_LOOK_MS = 10
LEARN_S = 3.2

_EPISODE = """() => { if (typeof core === 'undefined') return false;
  if (!core.cover_div) core.startEpisode(); Math.seedrandom(7); core.EPISODE_MAX_TIME = 3600000;
  core.startEpisodeReal(); return true; }"""
#: Controls of the task area: [kind, index among the area's controls] of the first button, text field and other.
_CONTROLS = """() => { const area = document.getElementById('area') || document.body;
  const all = [...area.querySelectorAll('button, input, select, textarea, a[href], [role=button], [role=tab], '
    + '[role=option], [onclick], .ui-menu-item, h3, label')].filter((e) => e.checkVisibility && e.checkVisibility()
    && e.getBoundingClientRect().width > 2);
  const isText = (e) => (e.tagName === 'INPUT' && /^(text|search|password|email|number|)$/.test(e.type))
    || e.tagName === 'TEXTAREA';
  const isButton = (e) => e.tagName === 'BUTTON' || e.getAttribute('role') === 'button'
    || (e.tagName === 'INPUT' && /^(button|submit)$/.test(e.type));
  const pick = [];
  const first = (test, kind) => { const i = all.findIndex(test); if (i >= 0) pick.push([kind, i]); };
  first(isButton, 'click'); first(isText, 'type');
  first((e) => !isButton(e) && !isText(e) && e.tagName !== 'SELECT', 'click');
  return pick; }"""
_NTH = """([i]) => { const area = document.getElementById('area') || document.body;
  const all = [...area.querySelectorAll('button, input, select, textarea, a[href], [role=button], [role=tab], '
    + '[role=option], [onclick], .ui-menu-item, h3, label')].filter((e) => e.checkVisibility && e.checkVisibility()
    && e.getBoundingClientRect().width > 2);
  const el = all[i]; if (!el) return null; el.setAttribute('data-bench-target', '1'); return el.tagName; }"""


async def _probe(page: Page) -> list[Any]:
    return await page.evaluate(script("settle_probe"))


async def timeline(page: Page, url: str, kind: str, index: int) -> dict[str, Any] | None:
    """Load ``url``, act on control ``index`` (``kind`` click or type) and return the action's timeline:
    ``{"changes": [ms after the action, ...], "control": tag}``, or ``None`` when the control is gone."""
    await page.goto(url, wait_until="load")
    await page.evaluate(_EPISODE)
    await _probe(page)
    await asyncio.sleep(LEARN_S)
    tag = await page.evaluate(_NTH, [index])
    if tag is None:
        return None
    target = page.locator("[data-bench-target]")
    try:
        if kind == "type":
            await target.press_sequentially("ab", timeout=2000)
        else:
            await target.click(timeout=2000, no_wait_after=True)
    except PlaywrightError:
        return None
    t_end = (await page.evaluate("() => performance.now()"))
    changes: set[float] = set()
    loop = asyncio.get_running_loop()
    stop = loop.time() + WATCH_S
    while loop.time() < stop:
        try:
            layout_quiet = (await _probe(page))[2]
            now = await page.evaluate("() => performance.now()")
        except PlaywrightError:  # navigated: the rest is the new page's
            break
        if layout_quiet < 0:
            changes.add(now - layout_quiet - t_end)  # an animation runs until then
        await asyncio.sleep(SAMPLE_S)
    try:
        times = await page.evaluate("() => (window.__bcSettle && window.__bcSettle.times) || []")
    except PlaywrightError:
        times = []
    changes.update(t - t_end for t in times if t >= t_end - 1)
    return {"changes": sorted(max(0.0, c) for c in changes if c <= WATCH_S * 1000), "control": tag}


def simulate(changes: list[float], window: float) -> tuple[float, bool]:
    """The settle a quiet window of ``window`` ms makes on ``changes`` (ms after the action): (when it ends, ms
    after the action; whether a change comes after that end)."""
    last = 0.0
    for c in changes:
        if c - last >= window:
            return last + window, True
        last = max(last, c)
    return last + window, False


def simulate_quick(changes: list[float], window: float) -> tuple[float, bool]:
    """``browser_type``'s quick end on ``changes``: at the first look (:data:`FIRST_LOOK_MS`) when nothing changed
    by then, else as :func:`simulate` with ``window``. Returns (when it ends; whether a change comes after)."""
    if not any(c <= FIRST_LOOK_MS for c in changes):
        return float(FIRST_LOOK_MS), bool(changes)
    return simulate(changes, window)


async def run(miniwob: Path, tasks: int, kinds: tuple[str, ...] = ("click", "type")) -> list[dict[str, Any]]:
    """Every (task, control) timeline."""
    names = sorted(p.stem for p in (miniwob / "miniwob").glob("*.html"))[:tasks]
    rows = []
    settings = LaunchSettings(offline_external=True)
    with serve_directory(miniwob) as port:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=find_executable(settings),
                                               args=chromium_args(settings))
            try:
                page = await browser.new_page()
                for name in names:
                    url = f"http://127.0.0.1:{port}/miniwob/{name}.html"
                    try:
                        await page.goto(url, wait_until="load")
                        await page.evaluate(_EPISODE)
                        controls = await page.evaluate(_CONTROLS)
                    except PlaywrightError:
                        continue
                    for kind, index in controls:
                        if kind not in kinds:
                            continue
                        try:
                            got = await timeline(page, url, kind, index)
                        except PlaywrightError:
                            got = None
                        if got is not None:
                            rows.append({"task": name, "action": kind, **got})
            finally:
                await browser.close()
    return rows


def markdown(rows: list[dict[str, Any]], windows: list[int]) -> str:
    """The per-window table."""
    lines = [f"{len(rows)} actions on {len({r['task'] for r in rows})} tasks; changes after the action: "
             f"{sum(1 for r in rows if r['changes'])} actions changed the page, "
             f"{sum(1 for r in rows if any(c > 100 for c in r['changes']))} still changed it after 100 ms",
             "", "| window ms | actions with a change after the record | median settle ms | p90 settle ms |",
             "|---:|---:|---:|---:|"]
    for w in windows:
        sims = [simulate(r["changes"], w) for r in rows]
        missed = sum(1 for _, m in sims if m)
        ends = [e for e, _ in sims]
        lines.append(f"| {w} | {missed} ({missed / max(1, len(rows)):.0%}) | {statistics.median(ends):.0f} | "
                     f"{percentile(ends, 0.9):.0f} |")
    typed = [r for r in rows if r["action"] == "type"]
    if typed:
        lines += ["", f"Typing ({len(typed)} actions), ended at the first look ({FIRST_LOOK_MS} ms) when nothing "
                  "changed by then, else by the window:", "",
                  "| window ms | typing actions with a change after the record | of which missed by the quick end "
                  "alone | median settle ms |", "|---:|---:|---:|---:|"]
        for w in windows:
            quick = [simulate_quick(r["changes"], w) for r in typed]
            alone = sum(1 for r, (_, m) in zip(typed, quick, strict=True) if m and not simulate(r["changes"], w)[1])
            lines.append(f"| {w} | {sum(1 for _, m in quick if m)} | {alone} | "
                         f"{statistics.median(e for e, _ in quick):.0f} |")
    late = sorted(((r["task"], r["action"], r["changes"][-1]) for r in rows if r["changes"]), key=lambda x: -x[2])
    lines += ["", "Latest change after the action (the 8 latest): " + "; ".join(
        f"{t} {a} {c:.0f} ms" for t, a, c in late[:8])]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.settle_gaps", description=__doc__.splitlines()[0])
    ap.add_argument("--miniwob", type=Path, default=DEFAULT_MINIWOB, help="MiniWoB++ html folder (default %(default)s)")
    ap.add_argument("--tasks", type=int, default=130, help="the first N tasks by name (default all)")
    ap.add_argument("--windows", default="50,100,150,200,300,500", help="quiet windows to simulate, ms")
    ap.add_argument("--kinds", default="click,type", help="actions to make: click, type (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write every timeline here")
    args = ap.parse_args()
    if not (args.miniwob / "miniwob").is_dir():
        raise SystemExit(f"No MiniWoB++ tasks in {args.miniwob} (run ../shared/agent-trials/agentsh.py start once, "
                         "or pass --miniwob DIR).")
    rows = asyncio.run(run(args.miniwob, args.tasks, tuple(k.strip() for k in args.kinds.split(","))))
    print(markdown(rows, [int(w) for w in args.windows.split(",")]))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
