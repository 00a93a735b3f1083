// The safe serialiser of browser_evaluate results: (value, limits) => string (JSON text).
// Pure ES2020, no eval, so it runs on pages whose Content-Security-Policy forbids unsafe-eval.
// Markers and limits: see browser_ctx/core/jsonsafe.py, which parses and renders its output.
((value, limits) => {
  const L = limits;
  let used = 0;
  const seen = new Map();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const nodeTag = (n) => {
    if (n.nodeType === 1) {
      let t = n.localName;
      if (n.id) t += '#' + n.id;
      const c = typeof n.className === 'string' ? n.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
      if (c.length) t += '.' + c.join('.');
      return t;
    }
    if (n.nodeType === 3) return '#text';
    if (n.nodeType === 9) return '#document';
    if (n.nodeType === 8) return '#comment';
    if (n.nodeType === 11) return '#fragment';
    return n.nodeName || 'node';
  };
  const walk = (v, path, depth) => {
    if (used > L.totalChars) return { $budget: true };
    const t = typeof v;
    if (v === null) { used += 4; return null; }
    if (t === 'undefined') { used += 9; return { $undefined: true }; }
    if (t === 'boolean') { used += 5; return v; }
    if (t === 'number') {
      used += 8;
      if (Number.isNaN(v)) return { $number: 'NaN' };
      if (v === Infinity) return { $number: 'Infinity' };
      if (v === -Infinity) return { $number: '-Infinity' };
      if (v === 0 && 1 / v < 0) return { $number: '-0' };
      return v;
    }
    if (t === 'bigint') { const s = v.toString(); used += s.length; return { $bigint: s }; }
    if (t === 'symbol') { used += 10; return { $symbol: String(v.description ?? '') }; }
    if (t === 'string') {
      const room = Math.max(0, Math.min(L.stringChars, L.totalChars - used));
      if (v.length > room) { used += room; return { $string: { head: v.slice(0, room), length: v.length } }; }
      used += v.length;
      return v;
    }
    if (t === 'function') {
      let src = '';
      try { src = cut(Function.prototype.toString.call(v), 120); } catch (e) { src = ''; }
      used += src.length + 20;
      return { $function: { name: v.name || '', source: src } };
    }
    // objects
    if (seen.has(v)) { used += 12; return { $ref: seen.get(v) }; }
    try {
      if (typeof Window !== 'undefined' && v instanceof Window) { used += 8; return { $window: true }; }
    } catch (e) { /* cross-origin */ }
    if (typeof Node !== 'undefined' && v instanceof Node) {
      let text = '';
      try { text = cut((v.textContent || '').replace(/\s+/g, ' ').trim(), 80); } catch (e) { text = ''; }
      used += text.length + 20;
      return { $node: { tag: nodeTag(v), text } };
    }
    seen.set(v, path);
    if (depth >= L.depth) {
      used += 10;
      return {
        $depth: Array.isArray(v) ? 'Array(' + v.length + ')' : ((v.constructor && v.constructor.name) || 'Object'),
      };
    }
    if (v instanceof Date) { used += 30; return { $date: isNaN(v) ? 'Invalid Date' : v.toISOString() }; }
    if (v instanceof RegExp) { used += 20; return { $regexp: cut(String(v), 200) }; }
    if (v instanceof Error) {
      used += 60;
      return { $error: { name: String(v.name || 'Error'), message: cut(String(v.message || ''), 300) } };
    }
    if (typeof Promise !== 'undefined' && v instanceof Promise) { used += 10; return { $promise: true }; }
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      used += 20;
      return { $typed: { type: (v.constructor && v.constructor.name) || 'ArrayBuffer',
                         length: v.length ?? v.byteLength } };
    }
    if (v instanceof Map || v instanceof Set) {
      const out = [];
      let i = 0;
      for (const entry of v) {
        if (i >= L.items || used > L.totalChars) break;
        out.push(v instanceof Map
          ? [walk(entry[0], path + '.<key' + i + '>', depth + 1), walk(entry[1], path + '.<value' + i + '>', depth + 1)]
          : walk(entry, path + '[' + i + ']', depth + 1));
        i++;
      }
      if (v.size > i) out.push({ $more: v.size - i });
      return v instanceof Map ? { $map: out } : { $set: out };
    }
    if ((typeof NodeList !== 'undefined' && v instanceof NodeList)
        || (typeof HTMLCollection !== 'undefined' && v instanceof HTMLCollection)) {
      v = Array.from(v);
      seen.set(v, path);
    }
    if (Array.isArray(v)) {
      const out = [];
      const n = Math.min(v.length, L.items);
      for (let i = 0; i < n; i++) {
        if (used > L.totalChars) { out.push({ $budget: true }); break; }
        let item;
        try { item = v[i]; } catch (e) { out.push({ $threw: cut(String(e && e.message), 200) }); continue; }
        out.push(walk(item, path + '[' + i + ']', depth + 1));
        used += 1;
      }
      if (v.length > out.length && out.every((x) => !(x && x.$budget))) out.push({ $more: v.length - out.length });
      return out;
    }
    const out = {};
    let ctor = '';
    try {
      ctor = Object.getPrototypeOf(v) === null ? '' : ((v.constructor && v.constructor.name) || '');
    } catch (e) {
      ctor = '';
    }
    if (ctor && ctor !== 'Object') out.$class = ctor;
    let keys = [];
    try { keys = Object.keys(v); } catch (e) { keys = []; }
    const n = Math.min(keys.length, L.items);
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      const key = k.startsWith('$') ? '$' + k : k;
      if (used > L.totalChars) { out.$budget = true; break; }
      used += k.length + 2;
      let item;
      try { item = v[k]; } catch (e) { out[key] = { $threw: cut(String(e && e.message), 200) }; continue; }
      out[key] = walk(item, path + (/^[A-Za-z_$][\w$]*$/.test(k) ? '.' + k : '[' + JSON.stringify(k) + ']'), depth + 1);
    }
    if (keys.length > n) out.$more = keys.length - n;
    return out;
  };
  let tree;
  try { tree = walk(value, '$', 0); } catch (e) { tree = { $threw: String(e && e.message) }; }
  return JSON.stringify(tree);
})
