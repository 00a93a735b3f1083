// Console capture in the page (installed by browser_ctx/browser/capture/console.py in every frame's main
// world, before the page's own scripts, as `(this function)(M, binding, maxPending, keepChars, traceFrames)`
// through browser_ctx/browser/scripts.py's invocation()). Why in the page: receiving one CDP Runtime.consoleAPICalled event per
// message through Playwright's driver grew the driver by 70-120 MB over 100,000 messages; folding here
// sends a few batches instead, so a flood of 100,000 repeats is one entry with a count.
//
// Every call is folded into `pending`, keyed like browser_ctx.core.console.fold_key (level, url:line of
// the caller, text with digit runs as '#'), and sent as a JSON batch through the CDP binding named BINDING
// (Runtime.addBinding on browser-ctx's own CDP session; nothing of Playwright's is exposed to the page).
// A batch goes out at once, inside the console call, while the frame has sent fewer than 50 batches in
// the last second (as a CDP console event would); beyond that every 100 ms. It also goes out at once when
// MAX distinct entries are pending, on pagehide and for every call after it, and when
// drain() is called (browser-ctx does that before it reads the console). If the binding is not there
// yet (an out-of-process frame before its session attaches), the batch waits and is retried.
//
// The original console method still runs (DevTools and Playwright see the message) for up to 100 calls
// per second per frame (bursts of 200); beyond that a flood is only counted here, so it never reaches
// the CDP sessions. Console calls made while this hook is itself formatting (a Proxy trap or getter that
// logs) go to the original console only.
//
// The hook uses builtins captured when it is installed, so a page replacing JSON, Map, Array methods,
// Function.prototype.apply or Error.prepareStackTrace afterwards does not break it. Arguments are rendered
// as text by js/console_format.js (M.console_format, bundled: scripts.MODULES), which captures its builtins
// at the same moment; rendering an object reads its own data properties (getters are not called), which a
// Proxy can observe.
//
// A batch is a JSON array of:
//   {l: level (error|warning|info|debug), t: text (first KEEP chars, latest call), n: full length (chars),
//    u: caller url, ln: caller line (1-based), st: frames kept (console.trace), sc: frames in all,
//    e: 1 if an Error argument's stack is in the text, c: calls folded, f/z: first/last call (ms since epoch),
//    v: 1 if the text varied in its numbers, h: location.href at the first call (top frame only)}
// plus one trailing {d: calls dropped because nothing could be sent}. The server knows which document
// sent a batch from the CDP execution context it came from.
//
// Arguments: M, its modules (M.console_format, passed by invocation()); BINDING, the binding's name (the
// hook's own handle on globalThis is BINDING + 'Hook');
// MAX, distinct entries held before a batch is sent at once; KEEP, characters kept per message;
// FRAMES, stack frames kept per console.trace.
((M, BINDING, MAX, KEEP, FRAMES) => {
  const G = globalThis;
  const HOOK = BINDING + 'Hook';
  const hasOwn = Object.prototype.hasOwnProperty;
  const apply = Reflect.apply;
  if (apply(hasOwn, G, [HOOK])) return;
  const con = G.console;
  if (!con) return;

  // -- builtins, captured now -----------------------------------------------------------------------
  const defineProperty = Object.defineProperty;
  const fnToString = Function.prototype.toString;
  const jsonString = JSON.stringify;  // used on primitive strings only: no toJSON lookup
  const sSlice = String.prototype.slice, sCharCode = String.prototype.charCodeAt, sTrim = String.prototype.trim;
  const toStr = String, toNum = Number;
  const NativeError = Error, dateNow = Date.now, perf = G.performance;
  const perfNow = perf ? perf.now.bind(perf) : dateNow;
  const later = G.setTimeout, cancel = G.clearTimeout;
  const listen = G.addEventListener ? G.addEventListener.bind(G) : null;
  const str = (v) => { try { return toStr(v); } catch (e) { return '?'; } };
  const slice = (s, a, b) => apply(sSlice, s, [a, b]);
  const R = M.console_format();   // rendering arguments (its builtins captured now too)
  const format = R.format, show = R.show, deep = R.deep, table = R.table, isError = R.isError, isNode = R.isNode;
  const DEEP_CHARS = R.DEEP_CHARS;

  const isTop = (() => { try { return G.top === G; } catch (e) { return false; } })();
  let leaving = false;  // after pagehide every call is sent at once

  // -- sending ------------------------------------------------------------------------------------
  let pending = {__proto__: null};
  let pendingCount = 0, dropped = 0, timer = 0, windowStart = 0, sentInWindow = 0;
  let binding = null;
  // The binding is taken off the page's global object as soon as it is there, so page scripts cannot
  // call it (they could file fake entries); it stays callable from here.
  const findBinding = () => {
    if (binding) return binding;
    let fn;
    try { fn = G[BINDING]; } catch (e) { fn = null; }
    if (typeof fn === 'function') {
      binding = fn;
      try { delete G[BINDING]; } catch (e) { /* not configurable: left visible */ }
    }
    return binding;
  };
  findBinding();
  const q = (s) => apply(jsonString, null, [toStr(s)]);
  const encode = (item) => {
    let out = '{"l":' + q(item.l) + ',"t":' + q(item.t) + ',"n":' + item.n + ',"u":' + q(item.u) + ',"ln":' + item.ln +
      ',"c":' + item.c + ',"f":' + item.f + ',"z":' + item.z;
    if (item.v) out += ',"v":1';
    if (item.e) out += ',"e":1';
    if (item.h !== undefined) out += ',"h":' + q(item.h);
    if (item.st) {
      let frames = '';
      for (let i = 0; i < item.st.length; i++) frames += (i ? ',' : '') + q(item.st[i]);
      out += ',"st":[' + frames + '],"sc":' + item.sc;
    }
    return out + '}';
  };
  // Sends what is pending as one batch; false if the binding is not (yet) in this frame.
  const send = () => {
    if (timer) { cancel(timer); timer = 0; }
    if (!pendingCount && !dropped) return true;
    const fn = findBinding();
    if (!fn) { timer = later(send, 200); return false; }
    let body = '';
    for (const key in pending) body += encode(pending[key]) + ',';
    body += '{"d":' + dropped + '}';
    pending = {__proto__: null};
    pendingCount = 0;
    dropped = 0;
    try { apply(fn, G, ['[' + body + ']']); } catch (e) { /* the binding went away: lost */ }
    return true;
  };
  const schedule = () => {
    if (leaving) { send(); return; }
    if (timer) return;
    const now = perfNow();
    if (now - windowStart > 1000) { windowStart = now; sentInWindow = 0; }
    if (sentInWindow < 50) { sentInWindow++; send(); } else timer = later(send, 100);
  };

  // -- where the call came from ---------------------------------------------------------------------------
  // V8 stack lines of the page's call: line 0 is "Error", 1 is `callers`, 2 the console wrapper.
  const callers = (limit) => {
    const savedLimit = NativeError.stackTraceLimit, savedPrepare = NativeError.prepareStackTrace;
    let stack = null;
    try {
      NativeError.stackTraceLimit = limit + 2;
      NativeError.prepareStackTrace = undefined;
      stack = new NativeError().stack;
    } catch (e) { stack = null; } finally {
      try { NativeError.stackTraceLimit = savedLimit; NativeError.prepareStackTrace = savedPrepare; } catch (e) { /* frozen */ }
    }
    if (typeof stack !== 'string') return [];
    const frames = [];
    let start = 0, line = 0;
    for (let k = 0; k <= stack.length; k++) {
      if (k === stack.length || stack[k] === '\n') {
        if (line >= 3) {
          const text = apply(sTrim, slice(stack, start, k), []);
          if (slice(text, 0, 3) === 'at ') frames[frames.length] = text;
        }
        line++;
        start = k + 1;
      }
    }
    return frames;
  };
  // "at fn (url:line:col)" or "at url:line:col" -> [url, line]
  const locate = (frame) => {
    let end = frame.length;
    if (frame[end - 1] === ')') end--;
    const c2 = lastColon(frame, end), c1 = c2 > 0 ? lastColon(frame, c2) : -1;
    if (c1 < 0) return ['', 0];
    let open = c1;
    while (open > 0 && frame[open - 1] !== '(' && frame[open - 1] !== ' ') open--;
    return [slice(frame, open, c1), toNum(slice(frame, c1 + 1, c2)) || 0];
  };
  const lastColon = (s, before) => { for (let k = before - 1; k >= 0; k--) if (s[k] === ':') return k; return -1; };

  // -- folding ---------------------------------------------------------------------------------------
  const digitsFolded = (s) => {
    let out = '', digit = false;
    for (let k = 0; k < s.length; k++) {
      const c = apply(sCharCode, s, [k]);
      if (c >= 48 && c <= 57) { if (!digit) out += '#'; digit = true; } else { out += s[k]; digit = false; }
    }
    return out;
  };
  let groupDepth = 0;  // console.group nesting: every call inside is indented two spaces per level
  const indent = (text) => {
    let pad = '';
    for (let k = 0; k < groupDepth && k < 16; k++) pad += '  ';
    return pad + text;
  };
  const record = (frames, level, raw, errArg, trace) => {
    const text = groupDepth ? indent(raw) : raw;
    let url = '', line = 0;
    if (frames.length) { const at = locate(frames[0]); url = at[0]; line = at[1]; }
    const kept = text.length > KEEP ? slice(text, 0, KEEP) : text;
    const key = level + '\u0000' + url + ':' + line + '\u0000' + digitsFolded(kept);
    const now = dateNow();
    const held = pending[key];
    if (held) {
      held.c++;
      held.z = now;
      if (held.t !== kept) { held.v = 1; held.t = kept; held.n = text.length; }
    } else {
      if (pendingCount >= MAX && !send()) { dropped++; return; }  // no binding: count, keep nothing
      const item = {l: level, t: kept, n: text.length, u: url, ln: line, c: 1, f: now, z: now};
      if (trace) {
        item.st = [];
        for (let k = 0; k < frames.length && k < FRAMES; k++) item.st[k] = frames[k];
        item.sc = frames.length;
      }
      if (errArg) item.e = 1;
      if (isTop) { try { item.h = str(G.location.href); } catch (e) { /* opaque */ } }
      pending[key] = item;
      pendingCount++;
    }
    schedule();
  };

  // -- wrapping the console ------------------------------------------------------------------------------
  let busy = false;  // formatting: a getter or Proxy trap that logs goes to the original console only
  let budget = 200, refilled = perfNow();
  const passThrough = () => {
    const now = perfNow();
    budget = budget + (now - refilled) / 10;  // 100 per second
    if (budget > 200) budget = 200;
    refilled = now;
    if (budget < 1) return false;
    budget--;
    return true;
  };
  const MARK = Symbol.for('browser-ctx console hook');
  const wrap = (name, make, stack = true) => {
    const orig = con[name];
    if (typeof orig !== 'function') return;
    let chained = false;  // another session's hook (a shared tab): it applies the budget itself
    try { chained = orig[MARK] === true; } catch (e) { /* a hostile getter */ }
    const depth = name === 'trace' ? 200 : 1;
    const wrapper = {[name](...args) {
      if (busy) return apply(orig, this, args);
      busy = true;
      try { make(args, stack ? callers(depth) : []); } catch (e) { /* capture must never break the page */ }
      busy = false;
      if (chained || passThrough()) return apply(orig, this, args);
      return undefined;
    }}[name];
    try { defineProperty(wrapper, MARK, {value: true}); } catch (e) { /* then a second hook applies its own budget */ }
    try { defineProperty(wrapper, 'toString', {value: () => apply(fnToString, orig, [])}); } catch (e) { /* cosmetic */ }
    try { defineProperty(con, name, {value: wrapper, writable: true, configurable: true, enumerable: true}); }
    catch (e) { /* a frozen console: not captured */ }
  };
  const LEVEL = {__proto__: null, log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug',
                 trace: 'info', dirxml: 'info'};
  for (const name in LEVEL) {
    const level = LEVEL[name];
    wrap(name, (args, frames) => {
      const r = format(args, 0);
      record(frames, level, name === 'trace' && !r[0] ? 'console.trace' : r[0], r[1], name === 'trace');
    });
  }
  wrap('dir', (args, frames) => {
    const v = args[0];
    const text = v !== null && typeof v === 'object' && !isError(v) && !isNode(v) ? deep(v, 0, DEEP_CHARS) : show(v);
    record(frames, 'info', text, isError(v), false);
  });
  wrap('table', (args, frames) => record(frames, 'info', table(args[0], args[1]), false, false));
  const group = (args, frames) => {
    const r = format(args, 0);
    record(frames, 'info', r[0] || 'console.group', r[1], false);
    groupDepth++;
  };
  wrap('group', group);
  wrap('groupCollapsed', group);
  wrap('groupEnd', () => { if (groupDepth > 0) groupDepth--; }, false);
  wrap('assert', (args, frames) => {
    if (args[0]) return;
    const r = format(args, 1);
    record(frames, 'error', 'Assertion failed' + (r[0] ? ': ' + r[0] : ''), r[1], false);
  });
  const counts = {__proto__: null};
  const timers = {__proto__: null};
  const label = (args) => (args.length && args[0] !== undefined ? str(args[0]) : 'default');
  wrap('count', (args, frames) => {
    const k = label(args);
    counts[k] = (counts[k] || 0) + 1;
    record(frames, 'info', k + ': ' + counts[k], false, false);
  });
  wrap('countReset', (args) => { delete counts[label(args)]; }, false);
  wrap('time', (args) => { timers[label(args)] = perfNow(); }, false);
  const elapsed = (args, frames, end) => {
    const k = label(args);
    if (!(k in timers)) { record(frames, 'warning', "Timer '" + k + "' does not exist", false, false); return; }
    const ms = perfNow() - timers[k];
    if (end) delete timers[k];
    const extra = end ? '' : format(args, 1)[0];
    record(frames, 'info', k + ': ' + ms + ' ms' + (extra ? ' ' + extra : ''), false, false);
  };
  wrap('timeLog', (args, frames) => elapsed(args, frames, false));
  wrap('timeEnd', (args, frames) => elapsed(args, frames, true));

  const api = {
    // Send what is pending now; true (false if the binding is missing in this frame).
    drain() { return send(); },
  };
  defineProperty(G, HOOK, {value: api, enumerable: false, configurable: false, writable: false});
  if (listen) {
    // Not beforeunload: a listener there makes the browser ask a busy renderer before leaving it.
    listen('pagehide', () => { leaving = true; send(); }, true);
    listen('pageshow', (e) => { if (e.persisted) leaving = false; }, true);
  }
})
