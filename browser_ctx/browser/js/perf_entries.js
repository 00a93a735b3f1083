// The page's performance entries, read in our isolated world (it shares the window's performance timeline).
// Argument: {mode: 'start' | 'read', limit}. 'start' forgets what was kept and observes from now on
// (largest-contentful-paint, layout-shift, event, first-input, longtask, long-animation-frame), describing each
// entry's element when it is seen (it may be gone by the read). 'read' adds the buffered entries, and returns
// {url, since, now, nav, lcp, shifts, events, longTasks, frames, resources}, times in ms on the page's clock;
// an element is {ref, tag, id, name, src, selector}.
(async (opts) => {
  const TYPES = ['largest-contentful-paint', 'layout-shift', 'event', 'first-input', 'longtask',
    'long-animation-frame'];
  const limit = opts.limit || 200;
  const r1 = (x) => Math.round((x || 0) * 10) / 10;
  const cut = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; };
  const bc = globalThis.__browserCtx;
  const cssId = (id) => (/^[A-Za-z][\w-]*$/.test(id) ? '#' + id : null);
  const selector = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 4; e = e.parentElement) {
      const id = e.id && cssId(e.id);
      if (id && e.ownerDocument.querySelectorAll(id).length === 1) { parts.unshift(id); return parts.join(' > '); }
      let part = e.localName;
      const same = e.parentElement ? Array.from(e.parentElement.children).filter((c) => c.localName === e.localName) : [];
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(e) + 1})`;
      parts.unshift(part);
      if (part === 'body' || part === 'html') break;
    }
    return parts.join(' > ');
  };
  const describe = (node) => {
    if (!node) return null;
    const el = node.nodeType === 1 ? node : node.parentElement;
    if (!el) return null;
    let ref = '';
    try { const n = bc && bc.ids.get(el); if (n) ref = (bc.prefix || '') + 'e' + n; } catch (e) { /* no registry */ }
    const name = el.getAttribute('aria-label') || el.getAttribute('alt') || el.getAttribute('title')
      || (node.nodeType === 3 ? node.data : el.textContent) || el.getAttribute('name') || '';
    const src = el.currentSrc || el.getAttribute('src') || '';
    return { ref, tag: el.localName, id: el.id || '', name: cut(name, 32), src: src.startsWith('data:') ? 'data:' : cut(src, 200),
      selector: selector(el), sized: el.localName === 'img' ? !!(el.getAttribute('width') && el.getAttribute('height')) : null,
      connected: el.isConnected };
  };
  const plain = (e) => {
    const t = e.entryType;
    const base = { type: t, name: e.name, start: r1(e.startTime), duration: r1(e.duration) };
    if (t === 'largest-contentful-paint') {
      return Object.assign(base, { size: e.size, url: e.url || '', loadTime: r1(e.loadTime), renderTime: r1(e.renderTime),
        element: describe(e.element) });
    }
    if (t === 'layout-shift') {
      return Object.assign(base, { value: e.value, recentInput: e.hadRecentInput,
        sources: (e.sources || []).slice(0, 5).map((s) => ({ element: describe(s.node),
          moved: Math.round(Math.hypot((s.currentRect.x - s.previousRect.x), (s.currentRect.y - s.previousRect.y))) })) });
    }
    if (t === 'event' || t === 'first-input') {
      return Object.assign(base, { interaction: e.interactionId || 0, processingStart: r1(e.processingStart),
        processingEnd: r1(e.processingEnd), element: describe(e.target) });
    }
    if (t === 'long-animation-frame') {
      return Object.assign(base, { blocking: r1(e.blockingDuration), renderStart: r1(e.renderStart),
        scripts: (e.scripts || []).slice(0, 5).map((s) => ({ url: s.sourceURL || '', fn: s.sourceFunctionName || '',
          at: s.sourceCharPosition, invoker: cut(s.invoker, 80), type: s.invokerType, duration: r1(s.duration),
          forcedLayout: r1(s.forcedStyleAndLayoutDuration) })) });
    }
    return base;
  };
  let S = globalThis.__browserCtxPerf;
  const keep = (e) => {
    const key = `${e.entryType}|${e.name}|${e.startTime}|${e.duration}|${e.interactionId || 0}`;
    if (!S.seen.has(key) && S.seen.size < limit * TYPES.length && e.startTime >= S.since) S.seen.set(key, plain(e));
  };
  const observe = (type, buffered, sink) => {
    try {
      const o = new PerformanceObserver((list) => list.getEntries().forEach(sink));
      o.observe(Object.assign({ type, buffered }, type === 'event' ? { durationThreshold: 16 } : {}));
      return o;
    } catch (e) { return null; }
  };
  if (opts.mode === 'start' || !S) {
    if (S) S.observers.forEach((o) => o && o.disconnect());
    S = globalThis.__browserCtxPerf = { seen: new Map(), observers: [], since: opts.mode === 'start' && !opts.reload ? performance.now() : 0 };
    S.observers = TYPES.map((t) => observe(t, !!opts.reload, keep));
    if (opts.mode === 'start') return { since: r1(S.since) };
  }
  const late = TYPES.map((t) => observe(t, true, keep));
  await new Promise((res) => setTimeout(res, 60));
  late.concat(S.observers).forEach((o) => { if (o) { o.takeRecords().forEach(keep); } });
  late.forEach((o) => o && o.disconnect());
  const all = Array.from(S.seen.values());
  const of = (t) => all.filter((e) => e.type === t).sort((a, b) => a.start - b.start).slice(-limit);
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource').filter((e) => e.startTime >= S.since).slice(-limit).map((e) => ({
    url: e.name, initiator: e.initiatorType, blocking: e.renderBlockingStatus || '', transfer: e.transferSize,
    encoded: e.encodedBodySize, start: r1(e.startTime), requestStart: r1(e.requestStart), responseStart: r1(e.responseStart),
    end: r1(e.responseEnd), duration: r1(e.duration) }));
  const images = Array.from(document.images).filter((i) => !(i.getAttribute('width') && i.getAttribute('height'))
    && i.complete && i.naturalWidth).slice(0, 20).map((i) => describe(i));
  return {
    url: location.href, since: r1(S.since), now: r1(performance.now()),
    nav: nav ? { ttfb: r1(nav.responseStart), dcl: r1(nav.domContentLoadedEventEnd), load: r1(nav.loadEventEnd),
      transfer: nav.transferSize, type: nav.type } : null,
    lcp: of('largest-contentful-paint'), shifts: of('layout-shift'), events: of('event').concat(of('first-input')),
    longTasks: of('longtask'), frames: of('long-animation-frame'), resources: res, unsizedImages: images,
  };
})
