// Settle probe: installs (once per document) a MutationObserver kept on window.__bcSettle and returns
// [performance.timeOrigin of the document, ms since the last DOM mutation that counts, ms since the last short
// animation ended (negative: ms until the running one ends), the document has loaded (readyState complete),
// performance.now() of the last mutation that counts (of the install until one came: a mark to compare),
// with `since`: the texts (collapsed, up to 120 characters; at most 20) of the elements still shown that change
// by themselves, their last three bursts all after `since`, the last within 2 s; whether the page changed only by
// itself since `walked` (below); the page version (js/page_version.js), null before a walk made this document's
// registry].
// Argument: null, or {since, walked, frame}: `since`, [timeOrigin, performance.now() ms] of the end of our last action
// (of another document: any time counts; without it the texts are []); `walked`, [timeOrigin, performance.now()]
// of a walk of the page. With `walked`, the 7th item: whether the page changed since that walk only where elements
// change by themselves (no mutation that counts; each element changed since the walk has its last three bursts
// after `since`; the probe was installed before the walk; at most 64 such elements were seen changing). With
// `frame` (ms): a promise of the answer once the next animation frame has run (and a task after it), at most
// that long; the next frame after the last look with `arm` (true), when that look armed it: a frame that ran
// since is not waited for again.
// A mutation does not count when its element changes by itself: its third or later burst of changes (bursts
// 50 ms or more apart, each within 2 s of the one before), as a ticking clock, a progress bar or a feed does.
// Changes less than 50 ms apart are one burst (a script animation keeps counting while it runs). An element
// added by a change starts with its parent's history (a ticker that appends a node and then sets its
// attributes is still a ticker).
// Animations (CSS transitions and animations, Web Animations) that end within 1 s of their start count as
// layout; endless or longer ones (spinners, progress) do not. w.times keeps the last 64 counted mutations
// (performance.now() ms), for bench/settle_gaps.py.
((q) => {
  const BURST_MS = 50, RECUR_GAP_MS = 2000, RECUR_BURSTS = 3, SCAN = 100, ANIMATION_MS = 1000, TIMES = 64,
    RECUR_KEPT = 20, SELF_KEPT = 64;
  const since = q && q.since, walked = q && q.walked;
  let w = window.__bcSettle;
  if (!w || w.doc !== document) {
    const t = performance.now();
    w = { doc: document, last: t, layoutEnd: t - ANIMATION_MS, obs: null, seen: new WeakMap(), times: [],
          recur: [], installed: t, self: new Map(), selfLost: -1 };
    // whether mutation record `r` counts (updates its element's burst history either way)
    const counts = (r, now) => {
      const node = r.target;
      const el = node.nodeType === 1 ? node : node.parentNode;
      if (!el) return true;
      let s = w.seen.get(el);
      if (!s) { s = { n: 1, at: now, recurring: false, b: [now] }; w.seen.set(el, s); }
      else {
        const gap = now - s.at;
        s.at = now;
        if (gap >= BURST_MS) {
          s.n = gap > RECUR_GAP_MS ? 1 : s.n + 1;
          s.b = gap > RECUR_GAP_MS ? [now] : s.b.concat([now]).slice(-RECUR_BURSTS);
          const was = s.recurring;
          s.recurring = s.n >= RECUR_BURSTS;
          if (s.recurring && !was && w.recur.length < RECUR_KEPT && !w.recur.includes(el)) w.recur.push(el);
        }
      }
      const added = r.addedNodes;
      for (let i = 0; added && i < added.length && i < 20; i++) {
        if (added[i].nodeType === 1) w.seen.set(added[i], { n: s.n, at: now, recurring: s.recurring, b: s.b });
      }
      if (s.recurring) {  // element -> when it last changed by itself, the most recent SELF_KEPT
        w.self.delete(el);
        w.self.set(el, now);
        if (w.self.size > SELF_KEPT) { const [old, at] = w.self.entries().next().value; w.self.delete(old);
          w.selfLost = at; }
      }
      return !s.recurring;
    };
    try {
      w.obs = new MutationObserver((records) => {
        const now = performance.now();
        let counted = records.length > SCAN;  // a flood is not one element ticking
        for (let i = 0; i < records.length && i < SCAN; i++) if (counts(records[i], now)) counted = true;
        if (counted) {
          w.last = now;
          w.times.push(Math.round(now));
          if (w.times.length > TIMES) w.times.shift();
        }
      });
      w.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch (e) {}
    try { Object.defineProperty(window, '__bcSettle', { value: w, configurable: true, writable: true,
                                                        enumerable: false }); }
    catch (e) { window.__bcSettle = w; }
  }
  const answer = () => {
    const now = performance.now();
    try {
      const animations = document.getAnimations ? document.getAnimations() : [];
      for (let i = 0; i < animations.length && i < 200; i++) {
        const a = animations[i];
        if (a.playState !== 'running' || !a.effect) continue;
        const timing = a.effect.getComputedTiming();
        if (!isFinite(timing.endTime) || timing.endTime > ANIMATION_MS) continue;
        const end = now + Math.max(0, timing.endTime - (timing.localTime || 0)) / Math.abs(a.playbackRate || 1);
        if (end > w.layoutEnd) w.layoutEnd = end;
      }
    } catch (e) {}
    const recurring = [];
    const after = Array.isArray(since) ? (since[0] === performance.timeOrigin ? since[1] : -1) : null;
    for (let i = 0; after !== null && i < w.recur.length; i++) {
      const el = w.recur[i], s = w.seen.get(el);
      if (!el.isConnected || !s || s.b.length < RECUR_BURSTS || s.b[0] <= after || now - s.at > RECUR_GAP_MS) {
        continue;
      }
      recurring.push((el.textContent || '').slice(0, 400).replace(/\s+/g, ' ').trim().slice(0, 120));
    }
    let selfOnly = false;
    if (Array.isArray(walked) && walked[0] === performance.timeOrigin) {
      const at = walked[1];
      selfOnly = w.installed <= at && w.last <= at && w.selfLost <= at;
      for (const [el, t] of w.self) {
        const s = w.seen.get(el);
        if (t > at && (after === null || !s || s.b.length < RECUR_BURSTS || s.b[0] <= after)) selfOnly = false;
      }
    }
    const bc = window.__browserCtx;  // the page version js/page_version.js gives, once a walk made the registry
    const version = bc && bc.schema === 1 && bc.observed === document
      ? performance.timeOrigin + ':' + bc.version + ':' + location.href : null;
    return [performance.timeOrigin, now - w.last, now - w.layoutEnd, document.readyState === 'complete', w.last,
            recurring, selfOnly, version];
  };
  if (q && q.arm) {  // the next frame from now, for a later look's `frame`
    const armed = w.armed = performance.now();
    requestAnimationFrame(() => { if (w.armed === armed) w.framed = armed; });
  }
  if (q && q.frame > 0) {  // after the next frame has run its callbacks and their mutations were seen, or q.frame ms
    return new Promise((resolve) => {
      let done = false;
      const go = () => { if (!done) { done = true; resolve(answer()); } };
      if (w.armed !== undefined && w.framed === w.armed) setTimeout(go, 0);  // the armed frame ran already
      else requestAnimationFrame(() => setTimeout(go, 0));
      setTimeout(go, q.frame);
    });
  }
  return answer();
})
