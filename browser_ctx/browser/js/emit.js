/*
 * The tree the walker builds (a module of js/walk.js, bundled by scripts.bundle): nodes, attributes, text with
 * white space collapsed as a browser shows it, and CSS generated text (::before/::after, counters).
 *   emit(S) -> E   S: the shared state (js/walk_state.js; reads and sets S.lastSpace)
 *   A node is [tag, attrs | 0, ...children]; a child is a node or a string (adjacent strings are merged).
 *   openNode(tag, A?), closeNode(), dropNode() (close the open node and drop it: it holds nothing),
 *   addLeaf(tag, A?), addText(s), isEmpty() (the open node has no children), size() (the characters the tree
 *   would take as HTML: tags, attributes and text, for maxChars), tree(root) (the result: the one node, or
 *   ['#fragment', 0, ...nodes], or null)
 *   attr(A, k, v): an attribute of a node being built; valueAttr(A, v): a field's value, cut to S.maxValue
 *   emitText(t, vis, pcs, measure, pre), trimTrailingSpace(cs), emitPseudo(e, which, vis),
 *   enterCounters(cs) -> a mark, leaveCounters(mark): the CSS counters of an element and its children
 *   emitGraphic(e, name): an image node named name; textBlock(s): a div of text (capped at 2,000 characters)
 */
((S) => {
  'use strict';
  const win = S.win;
  const doc = S.doc;
  const clean = S.clean;
  const cap = S.cap;
  const maxValue = S.maxValue;
  const maxName = S.maxName;

  /* `cur` is the open node children are added to; `up` holds the nodes it is inside */
  const top = ['#root', 0];
  let cur = top;
  const up = [];
  let outLen = 0;
  const attrsLen = (A) => { let n = 0; if (A) for (const k in A) n += k.length + A[k].length + 4; return n; };
  const addText = (s) => {
    const n = cur.length;
    if (n > 2 && typeof cur[n - 1] === 'string') cur[n - 1] += s; else cur.push(s);
    outLen += s.length;
  };
  /* a leaf node (no children) */
  const addLeaf = (tag, A) => { cur.push([tag, A || 0]); outLen += tag.length + 2 + attrsLen(A); };
  const openNode = (tag, A) => {
    const node = [tag, A || 0];
    cur.push(node);
    up.push(cur);
    cur = node;
    outLen += 2 * tag.length + 5 + attrsLen(A);
  };
  const closeNode = () => { cur = up.pop(); };
  /* close the open node and drop it: it holds nothing */
  const dropNode = () => {
    const node = cur;
    cur = up.pop();
    cur.pop();
    outLen -= 2 * node[0].length + 5 + attrsLen(node[1]);
  };
  const tree = (root) => (top.length === 3 && root.nodeType === 1 && typeof top[2] !== 'string' ? top[2]
    : (top.length > 2 ? ['#fragment', 0].concat(top.slice(2)) : null));

  /* an attribute of a node being built: A[k] = v (a string; '' for a boolean attribute) */
  const attr = (A, k, v) => { A[k] = clean(String(v)); };
  /* a field's value, cut to maxValue; a cut value also carries a hash of the whole value (FNV-1a), so the
     page fingerprint sees a change beyond the cut (the condensers ignore data-value-hash) */
  const fnv = (s) => { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619); return (h >>> 0).toString(36); };
  const valueAttr = (A, v) => { attr(A, 'data-value', cap(v, maxValue)); if (v.length > maxValue) attr(A, 'data-value-hash', fnv(v)); };

  const textHasBox = (t) => {
    const range = doc.createRange();
    range.selectNodeContents(t);
    const b = range.getBoundingClientRect();
    return b.width > 0 || b.height > 0;
  };

  /* does this computed style preserve white space (pre, pre-wrap, pre-line, break-spaces)? */
  const isPre = (cs) => {
    const ws = cs.whiteSpaceCollapse;
    return ws ? ws !== 'collapse' : /^pre|break-spaces/.test(cs.whiteSpace);
  };

  /* emits a text node; pre: 1/0 if the parent's white-space is known to preserve or not, -1 if not read yet.
     Returns the pre value (read lazily, only for text with white space that collapsing would change). */
  const emitText = (t, vis, pcs, measure, pre) => {
    if (vis === 'hidden' || vis === 'collapse') return pre;
    let s = t.data;
    if (!s) return pre;
    const spacey = /[\t\n\r\f]|  /.test(s);
    if (spacey && pre !== 0) {
      if (pre < 0) pre = isPre(pcs) ? 1 : 0;
      if (pre === 1) {
        if (measure && !textHasBox(t)) return pre;
        addText(clean(s));
        S.lastSpace = /\s$/.test(s);
        return pre;
      }
    }
    if (spacey) s = s.replace(/[ \t\n\r\f]+/g, ' ');
    if (S.lastSpace && s.charCodeAt(0) === 32) s = s.slice(1);
    if (!s) return pre;
    if (measure && s !== ' ' && !textHasBox(t)) return pre;
    addText(clean(s));
    S.lastSpace = s.charCodeAt(s.length - 1) === 32;
    return pre;
  };

  /* drop a space the open node's text ends with (before a block closes, unless white space is preserved) */
  const trimTrailingSpace = (cs) => {
    const i = cur.length - 1;
    if (i < 2) return;
    const s = cur[i];
    if (typeof s !== 'string' || s.charCodeAt(s.length - 1) !== 32 || isPre(cs)) return;
    if (s.length === 1) cur.length = i;
    else cur[i] = s.slice(0, -1);
    outLen -= 1;
  };

  /* CSS generated content (::before/::after text: a "$" price prefix, " per month", an attr() badge, a
     required " *"): the elements that may have some are found once per walk from the page's style rules
     (rules whose content holds a string or attr()), so only they pay for a pseudo-element style read.
     Cross-origin sheets cannot be read and are skipped. Private-use glyphs (icon fonts) are dropped. */
  let pseudoHosts = null;
  const PSEUDO_PART = /::?(?:before|after)\b/g;
  const findPseudoHosts = () => {
    const hosts = new Set();
    const selectors = [];
    let rulesLeft = 20000;
    const scan = (rules) => {
      for (let i = 0; i < rules.length && rulesLeft > 0; i++, rulesLeft--) {
        const r = rules[i];
        const st = r.selectorText;
        if (!st) { if (r.cssRules) scan(r.cssRules); continue; }     /* @media, @supports, @layer */
        if (st.indexOf('before') < 0 && st.indexOf('after') < 0) continue;
        const c = r.style ? r.style.getPropertyValue('content') : '';
        if (!c || !/["']|attr\(|counter/.test(c)) continue;
        if (c.indexOf('counter') >= 0) usesCounters = true;
        const parts = st.split(',');
        for (let j = 0; j < parts.length; j++) {
          if (/::?(?:before|after)\b/.test(parts[j])) selectors.push(parts[j].replace(PSEUDO_PART, '').trim() || '*');
        }
      }
    };
    const sheets = Array.from(doc.styleSheets || []).concat(Array.from(doc.adoptedStyleSheets || []));
    for (let i = 0; i < sheets.length; i++) {
      try { scan(sheets[i].cssRules); } catch (err) { /* a cross-origin sheet */ }
    }
    for (let i = 0; i < selectors.length && hosts.size < 20000; i++) {
      try {
        const found = doc.querySelectorAll(selectors[i]);
        for (let j = 0; j < found.length && hosts.size < 20000; j++) hosts.add(found[j]);
      } catch (err) { /* a selector querySelectorAll does not take (nesting, a browser-specific one) */ }
    }
    return hosts;
  };
  /* url(...) and image-set(...) are images, not text: matched so that the quoted URL inside is not read as a string */
  const PSEUDO_TOKEN = /(?:url|image-set|-webkit-image-set)\((?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^)])*\)|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)|counters?\(\s*([\w-]+)[^)]*\)/g;
  /* CSS counters (content: "Step " counter(s) ": "), kept as the walk goes in document order when the page's
     rules use them: counter-reset and counter-increment of each element (its ::before's too) change them, and
     a reset lasts for the element's following siblings and their descendants (undone when the parent ends) */
  let usesCounters = false;
  const counters = new Map();
  const resetLog = [];
  const pairs = (v) => {
    const out = [];
    if (!v || v === 'none') return out;
    const t = v.trim().split(/\s+/);
    for (let i = 0; i < t.length; i++) {
      const n = parseInt(t[i + 1], 10);
      if (!Number.isNaN(n) && /^-?\d+$/.test(t[i + 1])) { out.push([t[i], n]); i += 1; } else out.push([t[i], null]);
    }
    return out;
  };
  const countersOf = (st) => {
    for (const [name, n] of pairs(st.counterReset)) {
      resetLog.push([name, counters.get(name)]);
      counters.set(name, n === null ? 0 : n);
    }
    for (const [name, n] of pairs(st.counterIncrement)) counters.set(name, (counters.get(name) || 0) + (n === null ? 1 : n));
  };
  /* the counters of an element whose children are walked next; returns the mark leaveCounters undoes to (the
     resets its children make last until it ends) */
  const enterCounters = (cs) => {
    if (pseudoHosts === null) pseudoHosts = findPseudoHosts();
    if (usesCounters) countersOf(cs);
    return resetLog.length;
  };
  const leaveCounters = (resets) => {
    while (resetLog.length > resets) {
      const [name, was] = resetLog.pop();
      if (was === undefined) counters.delete(name); else counters.set(name, was);
    }
  };
  const PRIVATE_USE = /[\uE000-\uF8FF]|[\uDB80-\uDBFF][\uDC00-\uDFFF]/g;
  const pseudoText = (e, which) => {
    const ps = win.getComputedStyle(e, which);
    const c = ps.content;
    if (!c || c === 'none' || c === 'normal' || ps.display === 'none' || ps.visibility !== 'visible' ||
        ps.opacity === '0' || ps.fontSize === '0px') return '';
    let s = '';
    if (usesCounters) countersOf(ps);
    PSEUDO_TOKEN.lastIndex = 0;
    for (let m = PSEUDO_TOKEN.exec(c); m; m = PSEUDO_TOKEN.exec(c)) {
      if (m[1] === undefined && m[2] === undefined && m[3] === undefined && m[4] === undefined) continue;  /* an image */
      if (m[4]) s += String(counters.get(m[4]) || 0);
      else if (m[3]) s += e.getAttribute(m[3]) || '';
      else s += (m[1] !== undefined ? m[1] : m[2]).replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g,
        (all, hex, ch) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : ch));
    }
    return s.replace(PRIVATE_USE, '');
  };
  const emitPseudo = (e, which, vis) => {
    if (vis === 'hidden' || vis === 'collapse') return;
    if (pseudoHosts === null) pseudoHosts = findPseudoHosts();
    if (!pseudoHosts.has(e)) return;
    let s = pseudoText(e, which).replace(/[ \t\n\r\f]+/g, ' ');
    if (S.lastSpace && s.charCodeAt(0) === 32) s = s.slice(1);
    if (!s) return;
    addText(clean(s));
    S.lastSpace = s.charCodeAt(s.length - 1) === 32;
  };

  const emitGraphic = (e, name) => {
    const A = {};
    attr(A, 'alt', cap(name, maxName));
    attr(A, 'data-name', cap(name, maxName));
    addLeaf('img', A);
    S.lastSpace = false;
  };
  const textBlock = (s) => {
    openNode('div');
    addText(clean(cap(s, 2000)));
    closeNode();
    S.lastSpace = true;
  };

  return { openNode, closeNode, dropNode, addLeaf, addText, isEmpty: () => cur.length === 2, size: () => outLen,
    tree, attr, valueAttr, emitText, trimTrailingSpace, emitPseudo, enterCounters, leaveCounters, emitGraphic,
    textBlock };
})
