// Console capture in the page (installed by browser_ctx/browser/capture/console.py in every frame's main
// world, before the page's own scripts, as `(this function)(binding, maxPending, keepChars, traceFrames)`
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
// Function.prototype.apply or Error.prepareStackTrace afterwards does not break it. Rendering an object
// reads its own data properties (getters are not called), which a Proxy can observe.
//
// A batch is a JSON array of:
//   {l: level (error|warning|info|debug), t: text (first KEEP chars, latest call), n: full length (chars),
//    u: caller url, ln: caller line (1-based), st: frames kept (console.trace), sc: frames in all,
//    e: 1 if an Error argument's stack is in the text, c: calls folded, f/z: first/last call (ms since epoch),
//    v: 1 if the text varied in its numbers, h: location.href at the first call (top frame only)}
// plus one trailing {d: calls dropped because nothing could be sent}. The server knows which document
// sent a batch from the CDP execution context it came from.
//
// Arguments: BINDING, the binding's name (the hook's own handle on globalThis is BINDING + 'Hook');
// MAX, distinct entries held before a batch is sent at once; KEEP, characters kept per message;
// FRAMES, stack frames kept per console.trace.
((BINDING, MAX, KEEP, FRAMES) => {
  const G = globalThis;
  const HOOK = BINDING + 'Hook';
  const hasOwn = Object.prototype.hasOwnProperty;
  const apply = Reflect.apply;
  if (apply(hasOwn, G, [HOOK])) return;
  const con = G.console;
  if (!con) return;

  // -- builtins, captured now -----------------------------------------------------------------------
  const defineProperty = Object.defineProperty, getProto = Object.getPrototypeOf, keysOf = Object.keys;
  const ownDesc = Object.getOwnPropertyDescriptor, objIs = Object.is, isArray = Array.isArray;
  const objToString = Object.prototype.toString, fnToString = Function.prototype.toString;
  const jsonString = JSON.stringify;  // used on primitive strings only: no toJSON lookup
  const sSlice = String.prototype.slice, sIndexOf = String.prototype.indexOf;
  const sCharCode = String.prototype.charCodeAt, sTrim = String.prototype.trim;
  const toStr = String, toNum = Number, trunc = Math.trunc, isNaNf = isNaN;
  const NativeError = Error, dateNow = Date.now, perf = G.performance;
  const perfNow = perf ? perf.now.bind(perf) : dateNow;
  const isView = ArrayBuffer.isView;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get, mapEach = Map.prototype.forEach;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get, setEach = Set.prototype.forEach;
  const later = G.setTimeout, cancel = G.clearTimeout;
  const listen = G.addEventListener ? G.addEventListener.bind(G) : null;
  const NodeCtor = typeof Node === 'function' ? Node : null;
  const str = (v) => { try { return toStr(v); } catch (e) { return '?'; } };
  const slice = (s, a, b) => apply(sSlice, s, [a, b]);
  const tagOf = (v) => { try { return apply(objToString, v, []); } catch (e) { return ''; } };

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

  // -- rendering arguments (the same shapes as core/console.py's rendering of CDP previews) -------------
  const cut = (s, n) => (s.length > n ? slice(s, 0, n) : s);
  const ctorName = (o) => {
    try {
      const p = getProto(o);
      if (p === null) return 'Object';
      const d = ownDesc(p, 'constructor');
      const c = d && 'value' in d ? d.value : null;
      const nd = typeof c === 'function' ? ownDesc(c, 'name') : null;
      const name = nd && typeof nd.value === 'string' ? nd.value : '';
      return name || 'Object';
    } catch (e) { return 'Object'; }
  };
  const isError = (v) => { try { return v instanceof NativeError || tagOf(v) === '[object Error]'; } catch (e) { return false; } };
  const errorText = (v) => {
    try {
      const s = v.stack;
      if (typeof s === 'string' && s) return s;
      return str(v.name || 'Error') + ': ' + str(v.message || '');
    } catch (e) { return 'Error'; }
  };
  const isNode = (v) => { try { return NodeCtor !== null && v instanceof NodeCtor; } catch (e) { return false; } };
  const nodeText = (v) => {
    try {
      if (v.nodeType === 1) {
        let s = str(v.localName);
        if (v.id) s += '#' + str(v.id);
        const cls = typeof v.className === 'string' ? apply(sTrim, v.className, []) : '';
        if (cls) {
          let dotted = '', space = false;
          for (let i = 0; i < cls.length; i++) {
            const ch = cls[i];
            if (ch === ' ' || ch === '\t' || ch === '\n') space = true;
            else { dotted += (space ? '.' : '') + ch; space = false; }
          }
          s += '.' + dotted;
        }
        return s;
      }
      return str(v.nodeName || 'Node');
    } catch (e) { return 'Node'; }
  };
  const fnText = (v) => {
    try { const d = ownDesc(v, 'name'); return 'ƒ ' + (d && typeof d.value === 'string' ? d.value : '') + '()'; }
    catch (e) { return 'ƒ ()'; }
  };
  const prim = (v) => {
    switch (typeof v) {
      case 'number': return objIs(v, -0) ? '-0' : toStr(v);
      case 'bigint': return toStr(v) + 'n';
      case 'boolean': return v ? 'true' : 'false';
      case 'undefined': return 'undefined';
      case 'symbol': return str(v);
      default: return null;
    }
  };
  const special = (v, tag) => {
    if (tag === '[object Date]' || tag === '[object RegExp]') return str(v);
    if (tag === '[object Promise]') return 'Promise';
    return null;
  };
  // One level down (a property value inside a preview).
  const inner = (v) => {
    if (typeof v === 'string') return '"' + cut(v, 60) + '"';
    if (v === null) return 'null';
    const p = prim(v);
    if (p !== null) return p;
    if (typeof v === 'function') return 'ƒ';
    try {
      if (isArray(v)) return 'Array(' + v.length + ')';
      if (isError(v)) return str(v.name || 'Error');
      if (isNode(v)) return nodeText(v);
      const s = special(v, tagOf(v));
      if (s !== null) return s;
      const n = ctorName(v);
      return n === 'Object' ? '{…}' : n;
    } catch (e) { return '{…}'; }
  };
  const own = (o, k) => {  // an own data property's value, shown one level down; accessors are not called
    const d = ownDesc(o, k);
    if (!d) return 'undefined';
    return 'value' in d ? inner(d.value) : '(…)';
  };
  const preview = (v) => {
    try {
      const tag = tagOf(v);
      if (isArray(v) || isView(v)) {
        const n = v.length;
        let items = '';
        for (let i = 0; i < n && i < 100; i++) items += (i ? ', ' : '') + own(v, toStr(i));
        return '[' + items + (n > 100 ? ', …' : '') + ']';
      }
      if (tag === '[object Map]' || tag === '[object Set]') {
        const isMap = tag === '[object Map]';
        let size = 0, parts = '', n = 0;
        try {
          size = apply(isMap ? mapSize : setSize, v, []);
          const STOP = {};
          try {
            apply(isMap ? mapEach : setEach, v, [(value, key) => {
              if (n === 5) throw STOP;
              parts += (n++ ? ', ' : '') + (isMap ? inner(key) + ' => ' + inner(value) : inner(value));
            }]);
          } catch (e) { if (e !== STOP) throw e; }
        } catch (e) { /* not a real Map/Set */ }
        return (isMap ? 'Map(' : 'Set(') + size + ') {' + parts + (size > 5 ? ', …' : '') + '}';
      }
      const s = special(v, tag);
      if (s !== null) return s;
      if (isNode(v)) return nodeText(v);
      const keys = keysOf(v);
      let parts = '';
      for (let i = 0; i < keys.length && i < 5; i++) parts += (i ? ', ' : '') + keys[i] + ': ' + own(v, keys[i]);
      const name = ctorName(v);
      return (name === 'Object' ? '' : name + ' ') + '{' + parts + (keys.length > 5 ? ', …' : '') + '}';
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
  // -- structured output: console.dir (a few levels deep), console.table (a small table) --------------
  const DEEP_LEVELS = 3, DEEP_CHARS = 600, TABLE_ROWS = 5, TABLE_COLS = 6;
  // An object or array rendered DEEP_LEVELS levels deep in about `room` characters (own data properties
  // only: getters are not called); what does not fit is counted ("… 7 more").
  const deep = (v, depth, room) => {
    if (typeof v === 'string') return '"' + cut(v, 60) + '"';
    if (v === null) return 'null';
    const p = prim(v);
    if (p !== null) return p;
    if (typeof v === 'function') return 'ƒ';
    if (depth >= DEEP_LEVELS || room < 8) return inner(v);
    try {
      if (isError(v) || isNode(v) || isView(v)) return inner(v);
      const tag = tagOf(v);
      const s = special(v, tag);
      if (s !== null) return s;
      if (tag === '[object Map]' || tag === '[object Set]') return preview(v);
      const arr = isArray(v);
      const keys = arr ? null : keysOf(v);
      const n = arr ? v.length : keys.length;
      let out = '';
      for (let i = 0; i < n; i++) {
        const k = arr ? toStr(i) : keys[i];
        const d = ownDesc(v, k);
        const val = !d ? 'undefined' : 'value' in d ? deep(d.value, depth + 1, room - out.length - k.length - 4) : '(…)';
        const part = (i ? ', ' : '') + (arr ? '' : k + ': ') + val;
        if (i && out.length + part.length > room) { out += ', … ' + (n - i) + ' more'; break; }
        out += part;
      }
      const name = arr ? '' : ctorName(v);
      return arr ? '[' + out + ']' : (name === 'Object' ? '' : name + ' ') + '{' + out + '}';
    } catch (e) { return '{…}'; }
  };
  // console.table: the first TABLE_ROWS rows, at most TABLE_COLS columns, one line each, and the counts.
  const table = (data, columns) => {
    if (data === null || typeof data !== 'object') return show(data);
    try {
      const arr = isArray(data);
      const rowKeys = arr ? null : keysOf(data);
      const nRows = arr ? data.length : rowKeys.length;
      const cols = [];
      let nCols = 0, values = false;
      const has = (c) => { for (let j = 0; j < nCols; j++) if (cols[j] === c) return true; return false; };
      if (isArray(columns)) for (let j = 0; j < columns.length; j++) cols[nCols++] = str(columns[j]);
      const rows = [];
      for (let i = 0; i < nRows && i < TABLE_ROWS; i++) {
        const key = arr ? toStr(i) : rowKeys[i];
        const d = ownDesc(data, key);
        const row = d && 'value' in d ? d.value : undefined;
        rows[i] = [key, row];
        if (row !== null && typeof row === 'object') {
          if (!isArray(columns)) { const ks = keysOf(row); for (let j = 0; j < ks.length; j++) if (!has(ks[j])) cols[nCols++] = ks[j]; }
        } else values = true;
      }
      const shown = nCols > TABLE_COLS ? TABLE_COLS : nCols;
      let out = 'table: ' + nRows + ' row' + (nRows === 1 ? '' : 's') + ' × ' + nCols + ' column' + (nCols === 1 ? '' : 's');
      out += '\n(index)';
      for (let j = 0; j < shown; j++) out += ' | ' + cols[j];
      if (nCols > shown) out += ' | … ' + (nCols - shown) + ' more';
      if (values) out += ' | Value';
      for (let i = 0; i < rows.length; i++) {
        const key = rows[i][0], row = rows[i][1];
        out += '\n' + key;
        const isObj = row !== null && typeof row === 'object';
        for (let j = 0; j < shown; j++) {
          const d = isObj ? ownDesc(row, cols[j]) : null;
          out += ' | ' + (!d ? '' : 'value' in d ? inner(d.value) : '(…)');
        }
        if (nCols > shown) out += ' | …';
        if (values) out += ' | ' + (isObj ? '' : inner(row));
      }
      if (nRows > rows.length) out += '\n… ' + (nRows - rows.length) + ' more rows';
      return out;
    } catch (e) { return '{…}'; }
  };

  // Returns [text, an Error argument's stack is in it].
  const format = (args, from) => {
    let out = '', err = false, i = from;
    if (typeof args[i] === 'string' && args.length > i + 1 && apply(sIndexOf, args[i], ['%']) >= 0) {
      const fmt = args[i++];
      let k = 0;
      while (k < fmt.length) {
        const at = apply(sIndexOf, fmt, ['%', k]);
        if (at < 0 || at === fmt.length - 1) { out += slice(fmt, k, fmt.length); break; }
        out += slice(fmt, k, at);
        const spec = fmt[at + 1];
        k = at + 2;
        if (spec === '%') { out += '%'; continue; }
        if (apply(sIndexOf, 'sdifoOc', [spec]) < 0 || i >= args.length) { out += '%' + spec; continue; }
        const a = args[i++];
        if (spec === 'c') continue;
        if (spec === 'd' || spec === 'i' || spec === 'f') {
          let x;
          try { x = typeof a === 'bigint' ? a : toNum(a); } catch (e) { x = NaN; }
          out += typeof x === 'bigint' ? toStr(x) : isNaNf(x) ? 'NaN' : toStr(spec === 'f' ? x : trunc(x));
          continue;
        }
        if (isError(a)) err = true;
        out += show(a);
      }
    }
    for (; i < args.length; i++) {
      const a = args[i];
      if (isError(a)) err = true;
      out += (out || i > from ? ' ' : '') + show(a);
    }
    return [out, err];
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
