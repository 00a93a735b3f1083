// Console capture in the page (installed by browser_ctx/browser/events.py in every frame's main world,
// before the page's own scripts). Why in the page: receiving one CDP Runtime.consoleAPICalled event per
// message through Playwright's driver grew the driver by ~70-120 MB over 100,000 messages; folding here
// sends one batch per task instead, so a flood of 100,000 repeats is one entry with a count.
//
// Each console call still reaches the original console method (DevTools and Playwright see it as before).
// Calls are folded into `pending`, keyed like browser_ctx.core.console.fold_key (level, url:line of the
// caller, text with digit runs as '#'), and sent as one JSON batch through the binding __BINDING__
// (Playwright's exposeBinding): at most 100 ms after the first pending call (the task logging them must end
// first), at once when __MAX__ distinct entries are pending, on pagehide and for every call after it, and
// when drain() is called
// (browser-ctx does that before it reads the console). A batch is a JSON array of:
//   {l: level (error|warning|info|debug), t: text (first __KEEP__ chars, latest call), n: full length (chars),
//    u: caller url, ln: caller line (1-based), st: frames kept (console.trace), sc: frames in all,
//    e: 1 if an Error argument's stack is in the text, c: calls folded, f/z: first/last call (ms since epoch),
//    v: 1 if the text varied in its numbers, h: location.href at the first call, top: 1 in the top frame}
// plus one trailing {o: performance.timeOrigin, top, d: calls dropped because no binding was reachable,
// s: when the batch was sent (ms since epoch)}.
(() => {
  const HOOK = '__BINDING__Hook';
  if (Object.prototype.hasOwnProperty.call(globalThis, HOOK)) return;
  const BINDING = '__BINDING__', MAX = __MAX__, KEEP = __KEEP__, FRAMES = __FRAMES__;
  const con = globalThis.console;
  const dateNow = Date.now, perfNow = performance.now.bind(performance);  // pages may fake time later
  if (!con) return;
  const isTop = (() => { try { return window.top === window; } catch (e) { return false; } })();
  // Names the sending document; a page restored from the back/forward cache is a new visit.
  let origin = performance.timeOrigin;
  let leaving = false;  // after pagehide every call is sent at once: no timer runs in a document being left
  addEventListener('pageshow', (e) => { if (e.persisted) { origin = dateNow() + 0.5; leaving = false; } }, true);
  let pending = new Map();
  const INFLIGHT = 2;  // batches on their way at once
  let inflight = 0, timer = 0;
  const waiters = [];

  const settle = () => {
    if (inflight || pending.size) return;
    while (waiters.length) waiters.shift()(true);
  };
  // Sends what is pending as one batch; false if the binding is not (yet) in this frame.
  const send = () => {
    if (timer) { clearTimeout(timer); timer = 0; }
    if (!pending.size) { settle(); return true; }
    const fn = globalThis[BINDING];
    if (typeof fn !== 'function') { if (!timer) timer = setTimeout(() => { timer = 0; send(); }, 200); return false; }
    const batch = Array.from(pending.values());
    batch.push({o: origin, top: isTop ? 1 : 0, d: dropped, s: dateNow()});
    pending = new Map();
    dropped = 0;
    inflight++;
    let done;
    try { done = fn(JSON.stringify(batch)); } catch (e) { inflight--; return false; }
    const finish = () => { inflight--; if (pending.size && inflight < INFLIGHT) schedule(); settle(); };
    if (done && typeof done.then === 'function') done.then(finish, finish); else finish();
    return true;
  };
  // At the end of the current task (a page that logs and then navigates away loses nothing), unless
  // INFLIGHT batches are still on their way: then when one of them is received.
  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; if (inflight < INFLIGHT) send(); });
  };

  // -- rendering arguments (the same shapes as core/console.py's rendering of CDP previews) -------------
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const ctorName = (o) => {
    try {
      const p = Object.getPrototypeOf(o);
      if (p === null) return 'Object';
      const c = p && Object.prototype.hasOwnProperty.call(p, 'constructor') ? p.constructor : null;
      return (c && typeof c.name === 'string' && c.name) || 'Object';
    } catch (e) { return 'Object'; }
  };
  const isError = (v) => { try { return v instanceof Error || Object.prototype.toString.call(v) === '[object Error]'; } catch (e) { return false; } };
  const errorText = (v) => {
    try {
      const s = v.stack;
      if (typeof s === 'string' && s) return s;
      return `${v.name || 'Error'}: ${v.message || ''}`;
    } catch (e) { return 'Error'; }
  };
  const nodeText = (v) => {
    try {
      if (v.nodeType === 1) {
        let s = v.localName;
        if (v.id) s += '#' + v.id;
        const cls = typeof v.className === 'string' ? v.className.trim() : '';
        if (cls) s += '.' + cls.split(/\s+/).join('.');
        return s;
      }
      return v.nodeName || 'Node';
    } catch (e) { return 'Node'; }
  };
  const isNode = (v) => { try { return typeof Node === 'function' && v instanceof Node; } catch (e) { return false; } };
  const fnText = (v) => { try { return `ƒ ${v.name || ''}()`; } catch (e) { return 'ƒ ()'; } };
  const prim = (v) => {
    switch (typeof v) {
      case 'number': return Object.is(v, -0) ? '-0' : String(v);
      case 'bigint': return v + 'n';
      case 'boolean': return String(v);
      case 'undefined': return 'undefined';
      case 'symbol': try { return v.toString(); } catch (e) { return 'Symbol()'; }
      default: return null;
    }
  };
  // One level down (a property value inside a preview).
  const inner = (v) => {
    if (typeof v === 'string') return '"' + cut(v, 60) + '"';
    if (v === null) return 'null';
    const p = prim(v);
    if (p !== null) return p;
    if (typeof v === 'function') return 'ƒ';
    try {
      if (Array.isArray(v)) return `Array(${v.length})`;
      if (isError(v)) return `${v.name || 'Error'}`;
      if (isNode(v)) return nodeText(v);
      if (v instanceof Date) return String(v);
      if (v instanceof RegExp) return String(v);
      const n = ctorName(v);
      return n === 'Object' ? '{…}' : n;
    } catch (e) { return '{…}'; }
  };
  const ownValue = (o, k) => {
    const d = Object.getOwnPropertyDescriptor(o, k);
    if (!d) return undefined;
    return 'value' in d ? {v: d.value} : null;  // accessors are not called
  };
  const preview = (v) => {
    try {
      if (Array.isArray(v) || ArrayBuffer.isView(v)) {
        const items = [];
        const n = Math.min(v.length, 100);
        for (let i = 0; i < n; i++) items.push(inner(v[i]));
        return `[${items.join(', ')}${v.length > 100 ? ', …' : ''}]`;
      }
      if (v instanceof Map || v instanceof Set) {
        const parts = [];
        let i = 0;
        for (const e of v) {
          if (i++ >= 5) break;
          parts.push(v instanceof Map ? `${inner(e[0])} => ${inner(e[1])}` : inner(e));
        }
        return `${v instanceof Map ? 'Map' : 'Set'}(${v.size}) {${parts.join(', ')}${v.size > 5 ? ', …' : ''}}`;
      }
      if (v instanceof Date || v instanceof RegExp) return String(v);
      if (isNode(v)) return nodeText(v);
      if (typeof Promise === 'function' && v instanceof Promise) return 'Promise';
      const keys = Object.keys(v);
      const parts = [];
      for (const k of keys.slice(0, 5)) {
        const d = ownValue(v, k);
        parts.push(`${k}: ${d === null ? '(…)' : inner(d && d.v)}`);
      }
      const name = ctorName(v);
      return `${name === 'Object' ? '' : name + ' '}{${parts.join(', ')}${keys.length > 5 ? ', …' : ''}}`;
    } catch (e) {
      return '{…}';
    }
  };
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v === null) return 'null';
    const p = prim(v);
    if (p !== null) return p;
    if (typeof v === 'function') return fnText(v);
    if (isError(v)) return errorText(v);
    return preview(v);
  };
  const format = (args) => {
    if (!args.length) return ['', false];
    const rest = Array.from(args);
    const out = [];
    let err = false;
    if (typeof rest[0] === 'string' && rest.length > 1 && rest[0].indexOf('%') >= 0) {
      const fmt = rest.shift();
      out.push(fmt.replace(/%[sdifoOc%]/g, (spec) => {
        if (spec === '%%') return '%';
        if (!rest.length) return spec;
        const a = rest.shift();
        if (spec === '%c') return '';
        if (spec === '%d' || spec === '%i') {
          const x = typeof a === 'bigint' ? a : Number(a);
          return typeof x === 'bigint' ? String(x) : (isNaN(x) ? 'NaN' : String(Math.trunc(x)));
        }
        if (spec === '%f') { const x = Number(a); return String(x); }
        if (isError(a)) err = true;
        return show(a);
      }));
    }
    for (const a of rest) { if (isError(a)) err = true; out.push(show(a)); }
    return [out.join(' '), err];
  };

  // -- where the call came from ---------------------------------------------------------------------------
  const FRAME_RE = /\(?((?:[a-zA-Z][\w+.-]*:|\/)[^\s()]*?):(\d+):(\d+)\)?\s*$/;
  // V8 stack lines of the page's call: line 0 is "Error", 1 is `callers`, 2 the console wrapper.
  const callers = (limit) => {
    const saved = Error.stackTraceLimit;
    let stack;
    try {
      Error.stackTraceLimit = limit + 2;
      stack = new Error().stack;
    } catch (e) { stack = null; } finally { try { Error.stackTraceLimit = saved; } catch (e) { /* frozen */ } }
    if (typeof stack !== 'string') return [];
    return stack.split('\n').slice(3).filter((l) => l.trim().startsWith('at '));
  };

  // -- folding ---------------------------------------------------------------------------------------
  let dropped = 0;
  const record = (frames, level, text, errArg, trace) => {
    let url = '', line = 0;
    if (frames.length) {
      const m = FRAME_RE.exec(frames[0]);
      if (m) { url = m[1]; line = +m[2]; }
    }
    const kept = text.length > KEEP ? text.slice(0, KEEP) : text;
    const key = level + '\u0000' + url + ':' + line + '\u0000' + kept.replace(/\d+/g, '#');
    const now = dateNow();
    const held = pending.get(key);
    if (held) {
      held.c++;
      held.z = now;
      if (held.t !== kept) { held.v = 1; held.t = kept; held.n = text.length; }
    } else {
      const item = {l: level, t: kept, n: text.length, u: url, ln: line, c: 1, f: now, z: now};
      if (trace) { item.st = frames.slice(0, FRAMES).map((l) => l.trim()); item.sc = frames.length; }
      if (errArg) item.e = 1;
      if (isTop) { try { item.h = location.href; } catch (e) { /* opaque */ } }
      if (pending.size >= MAX && !send()) { dropped++; return; }  // no binding here: count, keep nothing
      pending.set(key, item);
    }
    if (leaving) send(); else schedule();
  };

  const LEVEL = {log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug', trace: 'info',
                 dir: 'info', dirxml: 'info', table: 'info', group: 'info', groupCollapsed: 'info'};
  const wrap = (name, make, stack = true) => {
    const orig = con[name];
    if (typeof orig !== 'function') return;
    const depth = name === 'trace' ? 200 : 1;
    const wrapper = {[name](...args) {
      try { make(args, stack ? callers(depth) : []); } catch (e) { /* capture must never break the page */ }
      return orig.apply(this, args);
    }}[name];
    try { Object.defineProperty(wrapper, 'toString', {value: () => Function.prototype.toString.call(orig)}); }
    catch (e) { /* cosmetic: a page printing console.log shows the native source */ }
    try { Object.defineProperty(con, name, {value: wrapper, writable: true, configurable: true, enumerable: true}); }
    catch (e) { /* a frozen console: not captured */ }
  };
  for (const name of Object.keys(LEVEL)) {
    wrap(name, (args, frames) => {
      const [text, err] = format(args);
      record(frames, LEVEL[name], name === 'trace' && !text ? 'console.trace' : text, err, name === 'trace');
    });
  }
  wrap('assert', (args, frames) => {
    if (args[0]) return;
    const [text, err] = format(args.slice(1));
    record(frames, 'error', 'Assertion failed' + (text ? ': ' + text : ''), err, false);
  });
  const counts = new Map();
  const timers = new Map();
  const label = (args) => (args.length && args[0] !== undefined ? String(args[0]) : 'default');
  wrap('count', (args, frames) => {
    const k = label(args);
    const n = (counts.get(k) || 0) + 1;
    counts.set(k, n);
    record(frames, 'info', `${k}: ${n}`, false, false);
  });
  wrap('countReset', (args) => { counts.delete(label(args)); }, false);
  wrap('time', (args) => { timers.set(label(args), perfNow()); }, false);
  const elapsed = (args, frames, end) => {
    const k = label(args);
    if (!timers.has(k)) return;
    const ms = perfNow() - timers.get(k);
    if (end) timers.delete(k);
    const [extra] = format(args.slice(1));
    record(frames, 'info', `${k}: ${ms} ms${end ? '' : extra ? ' ' + extra : ''}`, false, false);
  };
  wrap('timeLog', (args, frames) => elapsed(args, frames, false));
  wrap('timeEnd', (args, frames) => elapsed(args, frames, true));

  const api = {
    // Send what is pending and resolve true once every batch sent so far was received (false if the
    // binding is missing in this frame).
    drain() {
      if (!send()) return Promise.resolve(false);
      if (!inflight && !pending.size) return Promise.resolve(true);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
  Object.defineProperty(globalThis, HOOK, {value: api, enumerable: false, configurable: false, writable: false});
  addEventListener('pagehide', () => { leaving = true; send(); }, true);
})();
