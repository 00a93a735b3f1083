// Rendering console arguments as text, for the console hook (js/console_hook.js, which bundles this module
// as M.console_format; scripts.invocation passes it). The same shapes as core/console.py's rendering of CDP
// previews: an Error's stack, a node as tag#id.class, one level of an object's own data properties (getters
// are not called; a Proxy can observe the reads), console.dir a few levels deep, console.table as a small
// table, printf-style %s %d %i %f %o %O %c.
//
// console_format() -> {format, show, deep, table, isError, isNode, DEEP_CHARS}, called by the hook when it is
// installed (before the page's own scripts), so the builtins used here are captured then, and a page
// replacing JSON, Map, Array methods or Function.prototype.apply afterwards does not break them.
//   format(args, from) -> [text of args[from..], an Error argument's stack is in it]
//   show(v) -> one argument's text; deep(v, depth, room) -> v a few levels deep in about room characters;
//   table(data, columns) -> console.table's text
(() => {
  // -- builtins, captured now -----------------------------------------------------------------------
  const apply = Reflect.apply;
  const getProto = Object.getPrototypeOf, keysOf = Object.keys;
  const ownDesc = Object.getOwnPropertyDescriptor, objIs = Object.is, isArray = Array.isArray;
  const objToString = Object.prototype.toString;
  const sSlice = String.prototype.slice, sIndexOf = String.prototype.indexOf, sTrim = String.prototype.trim;
  const toStr = String, toNum = Number, trunc = Math.trunc, isNaNf = isNaN;
  const NativeError = Error;
  const isView = ArrayBuffer.isView;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get, mapEach = Map.prototype.forEach;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get, setEach = Set.prototype.forEach;
  const NodeCtor = typeof Node === 'function' ? Node : null;
  const str = (v) => { try { return toStr(v); } catch (e) { return '?'; } };
  const slice = (s, a, b) => apply(sSlice, s, [a, b]);
  const tagOf = (v) => { try { return apply(objToString, v, []); } catch (e) { return ''; } };

  // -- rendering arguments --------------------------------------------------------------------------
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

  return {format, show, deep, table, isError, isNode, DEEP_CHARS};
})
