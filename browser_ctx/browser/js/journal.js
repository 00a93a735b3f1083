/*
 * The transient-UI journal (issue 13): installed by browser/journal.py as an init script in every frame's main
 * world, before the page's own scripts, once per document (so it survives navigations by being added again).
 * A MutationObserver notes UI that is shown and then goes between two calls:
 *   - text of live regions (aria-live, role=status|alert|log) that is replaced or cleared, or hidden (its own
 *     `hidden`, class or style: a status element kept with its text and shown again);
 *   - elements added then removed: dialogs (dialog, role=dialog|alertdialog, aria-modal), toasts (elements
 *     added inside a live region, or added with position fixed), elements with role=status|alert|log;
 *   - dialogs shown in place and hidden again (<dialog> showModal/close, a class or style toggled).
 * Observing starts at DOMContentLoaded (what the parser adds is not transient UI).
 * Each entry: {role, text, ms} (ms = how long it was shown). Only what was visible at some point is kept
 * (checkVisibility and a non-empty box, as our reads' rules). Bounded: `maxEntries` entries (the oldest are
 * dropped and counted), `maxText` characters per text, `maxTracked` elements watched at once.
 * It also notes what appeared (or changed its text) since the last drain and is still shown: a toast that comes
 * after an action's record was taken. Not at a document's first drain (what came with the page is in the read).
 * window.__browserCtxJournal.drain() returns {entries, dropped, shown} (shown: [{role, text, ms}], ms = shown
 * for) and empties the journal.
 * It runs in the page's world, so it uses builtins captured when it is installed (before the page's scripts):
 * a page that later replaces MutationObserver, getComputedStyle, checkVisibility, getBoundingClientRect,
 * getAttribute, the textContent/innerText getters, String trim/replace/slice or Array push/shift/splice cannot
 * break it or make a hidden element count as shown.
 */
(maxEntries, maxText, maxTracked) => {
  const KEY = '__browserCtxJournal';
  if (window[KEY]) return;
  /* builtins, captured now */
  const apply = Reflect.apply, Observer = window.MutationObserver, later = window.setTimeout;
  const styleOf = window.getComputedStyle, perf = window.performance, perfNow = perf.now;
  const EP = Element.prototype, checkVis = EP.checkVisibility, rectOf = EP.getBoundingClientRect;
  const getAttr = EP.getAttribute;
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const textGet = getter(Node.prototype, 'textContent'), innerGet = getter(HTMLElement.prototype, 'innerText');
  const SP = String.prototype, sTrim = SP.trim, sReplace = SP.replace, sSlice = SP.slice, sIncludes = SP.includes;
  const AP = Array.prototype, aPush = AP.push, aShift = AP.shift, aSplice = AP.splice, aSome = AP.some;
  const attr = (el, name) => apply(getAttr, el, [name]);
  const textContentOf = (el) => apply(textGet, el, []);
  const entries = [];
  let dropped = 0;
  const tracked = new Map();   /* element -> {role, since, seen, text, fresh} */
  const regions = new Map();   /* live region element -> {text, since, seen, fresh} */
  let drains = 0;  /* drain() calls so far in this document */
  const LIVE = '[aria-live]:not([aria-live="off"]),[role="status"],[role="alert"],[role="log"]';
  const POPUP = 'dialog,[role="dialog"],[role="alertdialog"],[aria-modal="true"]';
  /* a widget's own popup (a select's option list, a menu, a date picker's grid) is not a toast: the action that
     opened it reports it, and it goes when the widget closes */
  const WIDGET = '[role="listbox"],[role="menu"],[role="tree"],[role="grid"],[role="option"],[role="menuitem"]';
  const now = () => apply(perfNow, perf, []);
  const squash = (t) => apply(sTrim, apply(sReplace, t, [/\s+/g, ' ']), []);
  const cut = (t) => (t.length > maxText ? apply(sSlice, t, [0, maxText - 1]) + '\u2026' : t);
  const textOf = (el) => cut(squash(textContentOf(el) || ''));
  /* what a shown element shows: innerText leaves out its display:none / visibility:hidden parts */
  const shownText = (el) => cut(squash((el.isConnected && el instanceof HTMLElement ? apply(innerGet, el, [])
    : textContentOf(el)) || ''));
  const hiddenByStyle = (el) => !!checkVis
    && !apply(checkVis, el, [{ opacityProperty: true, visibilityProperty: true }]);
  const shows = (el) => {
    if (hiddenByStyle(el)) return false;
    const r = apply(rectOf, el, []);
    return r.width > 1 && r.height > 1;
  };
  /* shown: its own box, or (a container of absolutely placed toasts has no height) one of its first elements */
  const visible = (el) => {
    if (!el.isConnected) return false;
    if (shows(el)) return true;
    if (hiddenByStyle(el)) return false;
    const inner = el.getElementsByTagName('*');
    for (let i = 0; i < inner.length && i < 20; i++) if (shows(inner[i])) return true;
    return false;
  };
  const nameOf = (el) => {
    const label = attr(el, 'aria-label');
    if (label) return cut(squash(label));
    const by = attr(el, 'aria-labelledby');
    const ref = by && el.ownerDocument.getElementById(by.split(/\s+/)[0]);
    if (ref) return shownText(ref);
    const h = el.querySelector('h1,h2,h3,h4,h5,h6,[role="heading"]');
    return h ? shownText(h) : shownText(el);
  };
  const push = (role, text, since) => {
    if (!text) return;
    apply(aPush, entries, [{ role, text, ms: Math.max(0, Math.round(now() - since)) }]);
    if (entries.length > maxEntries) { apply(aShift, entries, []); dropped += 1; }
  };
  const regionOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return el ? el.closest(LIVE) : null;
  };
  const roleOfRegion = (el) => attr(el, 'role') || 'live region';
  /* fresh: shown (or its text changed) since the last drain; `initial` (there at DOMContentLoaded) is not */
  const track = (el, role, initial) => {
    if (tracked.has(el) || tracked.size >= maxTracked) return;
    const popup = el.matches(POPUP);
    const seen = visible(el);
    tracked.set(el, { role, since: now(), seen, text: seen ? (popup ? nameOf(el) : shownText(el)) : '', popup,
      fresh: seen && !initial });
    if (!seen) { later(check, 150); later(check, 600); }  /* fading in: look again */
  };
  const watchRegion = (el, initial) => {
    if (regions.has(el) || regions.size >= maxTracked) return;
    const raw = textOf(el);
    const seen = !!raw && visible(el);
    regions.set(el, { raw, text: seen ? shownText(el) : '', since: now(), seen, fresh: seen && !initial });
  };
  let styleChecks = 0;  /* getComputedStyle calls left in this mutation batch */
  const added = (node) => {
    if (node.nodeType !== 1) return;
    const region = node.parentElement && node.parentElement.closest(LIVE);
    if (node.matches(POPUP)) track(node, attr(node, 'role') || 'dialog');
    else if (region) track(node, attr(node, 'role') || (attr(region, 'role') ? roleOfRegion(region) : 'toast'));
    else if (node.matches(LIVE)) watchRegion(node);
    else if (styleChecks-- > 0 && squash(textContentOf(node) || '') && apply(styleOf, window, [node]).position === 'fixed'
             && !node.matches(WIDGET) && !node.querySelector(WIDGET)) {
      track(node, attr(node, 'role') || 'toast');
    }
    if (node.firstElementChild) {
      const inner = node.querySelectorAll(POPUP + ',' + LIVE);
      for (let i = 0; i < inner.length && i < 20; i++) {
        if (inner[i].matches(POPUP)) track(inner[i], attr(inner[i], 'role') || 'dialog');
        else watchRegion(inner[i]);
      }
    }
  };
  function check() {
    const gone = [];  /* texts of elements that went in this pass: a region they were in does not repeat them */
    for (const [el, info] of tracked) {
      if (visible(el)) {
        if (!info.seen) { info.seen = true; info.since = now(); info.fresh = true; }  /* shown from now */
        const t = info.popup ? nameOf(el) : shownText(el);
        if (t && t !== info.text) { info.text = t; info.fresh = true; }
        continue;
      }
      if (el.isConnected && !info.seen) continue;  /* not shown yet */
      tracked.delete(el);
      if (info.seen) { push(info.role, info.text, info.since); apply(aPush, gone, [info.text]); }
    }
    for (const [el, info] of regions) {
      const raw = el.isConnected ? textOf(el) : '';
      /* textContent: a cheap test; what was shown is kept in info.text. An attribute of the region changed (its
         `hidden`, class or style): whether it shows is looked at again, even with the same text */
      if (raw === info.raw && !info.dirty) continue;
      info.dirty = false;
      const seen = !!raw && visible(el);
      const text = seen ? shownText(el) : '';
      const told = apply(aSome, gone, [(g) => g && (apply(sIncludes, info.text, [g]) || apply(sIncludes, g, [info.text]))]);
      if (info.text && info.seen && !told && !apply(sIncludes, text, [info.text])) push(roleOfRegion(el), info.text, info.since);
      if (!el.isConnected) { regions.delete(el); continue; }
      info.raw = raw;
      info.text = text;
      info.since = now();
      info.seen = seen;
      info.fresh = seen && !!text;
    }
  }
  /* what appeared since the last drain and is still shown (a region repeating a toast's text is left out) */
  const freshShown = () => {
    const out = [], texts = [];
    for (const [, info] of tracked) {
      if (!info.fresh || !info.seen || !info.text || out.length >= maxEntries) continue;
      apply(aPush, out, [{ role: info.role, text: info.text, ms: Math.max(0, Math.round(now() - info.since)) }]);
      apply(aPush, texts, [info.text]);
    }
    for (const [el, info] of regions) {
      if (!info.fresh || !info.seen || !info.text || out.length >= maxEntries) continue;
      if (apply(aSome, texts, [(g) => apply(sIncludes, info.text, [g]) || apply(sIncludes, g, [info.text])])) continue;
      apply(aPush, out, [{ role: roleOfRegion(el), text: info.text,
        ms: Math.max(0, Math.round(now() - info.since)) }]);
    }
    for (const [, info] of tracked) info.fresh = false;
    for (const [, info] of regions) info.fresh = false;
    return out;
  };
  const observe = () => {
    const root = document.documentElement;
    if (!root) return;
    const live = root.querySelectorAll(LIVE);
    for (let i = 0; i < live.length && i < maxTracked; i++) watchRegion(live[i], true);
    const popups = root.querySelectorAll(POPUP);
    for (let i = 0; i < popups.length && i < 20; i++) track(popups[i], attr(popups[i], 'role') || 'dialog', true);
    new Observer((records) => {
      styleChecks = 50;
      for (let k = 0; k < records.length; k++) {
        const r = records[k];
        if (r.type === 'childList') for (let i = 0; i < r.addedNodes.length; i++) added(r.addedNodes[i]);
        else if (r.type === 'attributes' && r.target.nodeType === 1 && r.target.matches(POPUP)) {
          track(r.target, attr(r.target, 'role') || 'dialog');  /* a dialog shown in place (showModal) */
        }
        const region = regionOf(r.target);
        if (region) {
          watchRegion(region);
          const info = r.type === 'attributes' && regions.get(region);
          if (info) info.dirty = true;
        }
      }
      check();
    }).observe(root, { childList: true, subtree: true, characterData: true, attributes: true,
      attributeFilter: ['open', 'hidden', 'style', 'class', 'aria-hidden', 'data-visible', 'data-removed'] });
  };
  Object.defineProperty(window, KEY, {
    value: Object.freeze({
      drain: () => {
        check();
        const shown = freshShown();
        const out = { entries: apply(aSplice, entries, [0]), dropped, shown: drains++ > 0 ? shown : [] };
        dropped = 0;
        return out;
      },
    }),
  });
  /* While the parser builds the document nothing is transient yet, and looking at each parsed element (and
     forcing style for fixed-position checks) cost seconds on a page of 200,000 elements: observing starts at
     DOMContentLoaded, with a scan of what is there by then. */
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', observe, { once: true });
  else observe();
}
