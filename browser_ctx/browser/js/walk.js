/*
 * browser-ctx in-page walker: what a person can see of a frame (or of one element), as a tree.
 *
 * One function expression, run in a frame's isolated world (browser_ctx/browser/worlds.py), bundled by
 * scripts.bundle('extract') with the modules it uses (M.registry: js/registry.js):
 *   walk(opts)  opts = {root?, framePrefix, maxValueChars, maxNameChars?, refBase?, maxChars?, axToken?,
 *                       withCounter?, withFacts?}
 * Returns the walked tree as a JSON string ('' when nothing is shown): a node is [tag, attrs | 0, ...children],
 * a child is a node or a text string; tags and attributes follow docs/visible-html.md (data-ref, data-name,
 * data-value, data-filled, bc-frame placeholders, bc-shadow markers, data-ax indexes of the nodes whose
 * semantics Python asks of Chromium). A root whose walk gives several nodes (a closed shadow root, a
 * display:contents element) is ['#fragment', 0, ...nodes].
 * With {withCounter: true} returns [that JSON, the last ref number used in this document] (so refs keep
 * growing across the documents of a frame). Bounded reads: {maxChars: N} stops collecting once the tree
 * holds about N characters (counted as HTML would take them), and counts what it left instead of walking it;
 * {withFacts: true} (with withCounter) returns [JSON, last ref number, facts], facts = {version, readyState,
 * elements (all elements under the root, light DOM), walked (elements visited), stopped (maxChars reached),
 * rest (when stopped: a hash of the text and form values of everything under the root, else ''), siblingsLeft
 * (the most element siblings left unread in one parent on the walk's way out: the rest of a long list), title
 * (document.title)}.
 *
 * State kept on window.__browserCtx (one per document):
 *   refs: Map N -> WeakRef(element); ids: WeakMap element -> N; n: last N used;
 *   prefix: the frame prefix of the last walk; version: MutationObserver callback count (js/page_version.js).
 * Loaded through browser_ctx/browser/scripts.py.
 */
((M, arg0, arg1) => {
  'use strict';
  const isNode = arg0 != null && typeof arg0 === 'object' && typeof arg0.nodeType === 'number';
  const opts = isNode ? Object.assign({}, arg1 || {}, { root: arg0 }) : (arg0 || {});
  const win = window;
  const doc = document;
  const bc = M.registry(win, doc);
  const O = M.operable(win);
  if (typeof opts.refBase === 'number' && opts.refBase > bc.n) bc.n = opts.refBase;

  const prefix = typeof opts.framePrefix === 'string' ? opts.framePrefix : '';
  bc.prefix = prefix;
  const maxValue = opts.maxValueChars > 0 ? opts.maxValueChars : 200;
  const maxName = opts.maxNameChars > 0 ? opts.maxNameChars : 200;
  const root = opts.root || doc.body || doc.documentElement;
  /* the result: the HTML, or [HTML, last ref number] with opts.withCounter */
  const limit = opts.maxChars > 0 ? opts.maxChars : 0;
  let stopped = false;
  let walked = 0;
  let siblingsLeft = 0;     /* elements left unread among the siblings where the walk stopped */
  /* when the walk stopped early: a hash (FNV-1a) of everything under the root, text and form values (hidden
     parts too), so the page fingerprint still sees a change in what was not collected */
  const restHash = () => {
    let h = 0x811c9dc5;
    const mix = (t) => { for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619); };
    mix(root.textContent || '');
    const fields = root.querySelectorAll('input, textarea, select');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      mix('\u0000' + (f.type === 'checkbox' || f.type === 'radio' ? String(f.checked) : f.type === 'password' ? '' : String(f.value)));
    }
    return (h >>> 0).toString(36);
  };
  const facts = () => ({ version: performance.timeOrigin + ':' + bc.version + ':' + location.href,
    readyState: doc.readyState, elements: root ? 1 + root.getElementsByTagName('*').length : 0, walked, stopped,
    rest: stopped ? restHash() : '', siblingsLeft, title: String(doc.title || '') });
  /* nodes whose semantics Python asks of Chromium's accessibility tree (opts.axToken, see
     browser_ctx/browser/semantics.py): each is marked data-ax="<index in axKept>" before its data-name,
     and the list is left on the registry (bc.axKept, read once) under the token */
  const axKept = typeof opts.axToken === 'string' ? [] : null;
  /* custom elements that may host a closed shadow root (no open root, a box, no light content shown): marked
     <bc-shadow data-host="i"> and left on the registry (bc.shadowHosts, same token) for Python to read the
     closed root through CDP and walk it (browser/closed_shadow.py) */
  const shadowHosts = axKept ? [] : null;
  /* the result: the walked tree as JSON (see the header), '' when nothing is shown */
  const done = (tree) => {
    if (axKept) { bc.axKept = axKept; bc.axToken = opts.axToken; bc.shadowHosts = shadowHosts; }
    const wire = tree ? JSON.stringify(tree) : '';
    return opts.withCounter ? (opts.withFacts ? [wire, bc.n, facts()] : [wire, bc.n]) : wire;
  };
  if (!root) return done(null);

  if (bc.refs.size > bc.pruneAt) {           /* forget refs of collected elements now and then */
    for (const [k, w] of bc.refs) if (!w.deref()) bc.refs.delete(k);
    bc.pruneAt = Math.max(4096, bc.refs.size * 2);
  }

  /* ---------- constants ---------- */
  const words = (s) => new Set(s.split(' '));
  const DROP = words('script style template noscript head meta link base title object embed param source track ' +
                     'datalist col colgroup wbr');
  const KEEP = words('html body main header footer nav aside section article form fieldset legend h1 h2 h3 h4 h5 ' +
    'h6 p ul ol li dl dt dd table caption thead tbody tfoot tr th td a button input select option optgroup ' +
    'textarea label img figure figcaption pre code blockquote details summary dialog br hr iframe video audio ' +
    'progress meter output address time abbr em strong');
  /* geometry (size/clip/off-document) is not tested for these: they have no box of their own or break tables */
  const NO_GEOMETRY = words('html body option optgroup tr td th thead tbody tfoot br');
  /* leaves: children are never walked */
  const LEAF = words('input textarea img iframe frame video audio progress meter canvas br hr');
  /* replaced boxes: at most 1x1 px means hidden (tracking pixels, zero-size frames) */
  const REPLACED = words('img iframe frame video canvas input textarea select');
  const INTERACTIVE_ROLES = words('button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio ' +
    'option combobox textbox searchbox slider spinbutton treeitem');
  const CONTENT_NAME_ROLES = words('button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio ' +
    'option treeitem cell columnheader rowheader heading tooltip');
  const LANDMARK_TAGS = words('main nav aside header footer section search');
  const LANDMARK_ROLES = words('banner main navigation complementary contentinfo region search form');
  const NAMED_TAGS = words('img iframe frame dialog fieldset form table');
  /* aria-rowcount/-rowindex/-colcount: a grid's total and which rows are rendered ("rows 1-25 of 200");
     Chromium's accessibility tree does not carry them, so the attributes are kept as the page sets them */
  const ARIA = ['aria-expanded', 'aria-checked', 'aria-selected', 'aria-pressed', 'aria-current', 'aria-level',
                'aria-disabled', 'aria-rowcount', 'aria-rowindex', 'aria-colcount'];
  /* roles named like a table: a data grid's name ("Orders") comes from Chromium, as a <table>'s does */
  const TABLE_ROLES = words('table grid treegrid');
  const ID_OK = /^[A-Za-z][\w-]{0,63}$/;
  const ARIA_SET = new Set(ARIA);
  const NO_VALUE_TYPES = words('password hidden file checkbox radio submit reset button image');
  /* a field whose value is shown only as filled/empty, like a password: card number and code, one-time
     codes (by autocomplete), and any Luhn-valid run of 13-19 digits (a card number in a plain field) */
  const SENSITIVE_AUTOCOMPLETE = /\b(cc-number|cc-csc|one-time-code)\b/i;
  const luhn = (digits) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  };
  const sensitive = (e) => {
    if (SENSITIVE_AUTOCOMPLETE.test(e.getAttribute('autocomplete') || '')) return true;
    const digits = String(e.value || '').replace(/[\s-]/g, '');
    return /^[0-9]{13,19}$/.test(digits) && luhn(digits);
  };
  const BUTTON_TYPES = words('submit reset button image');
  const PRUNABLE = words('div span p em strong code abbr time');

  /* ---------- helpers ---------- */
  /* not cached on purpose: thousands of retained CSSStyleDeclaration wrappers cost more in GC than a re-read */
  const style = (e) => win.getComputedStyle(e);
  const isBlock = (d) => d === 'block' || d === 'flex' || d === 'grid' || d === 'list-item' || d === 'flow-root' ||
    d.startsWith('table') || d.startsWith('block ') || d.endsWith(' list-item') || d === 'flow-root list-item';
  const clean = (s) => (s.indexOf('\u0000') >= 0 ? s.replace(/\u0000/g, '\uFFFD') : s);
  const collapse = (s) => s.replace(/[ \t\n\r\f]+/g, ' ').trim();
  const cap = (s, n) => (s.length > n ? s.slice(0, n - 1) + '\u2026' : s);
  /* an attribute of a node being built: A[k] = v (a string; '' for a boolean attribute) */
  const attr = (A, k, v) => { A[k] = clean(String(v)); };
  /* a field's value, cut to maxValue; a cut value also carries a hash of the whole value (FNV-1a), so the
     page fingerprint sees a change beyond the cut (the condensers ignore data-value-hash) */
  const fnv = (s) => { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619); return (h >>> 0).toString(36); };
  const valueAttr = (A, v) => { attr(A, 'data-value', cap(v, maxValue)); if (v.length > maxValue) attr(A, 'data-value-hash', fnv(v)); };

  const refFor = (e) => {
    let n = bc.ids.get(e);
    if (n === undefined) {
      n = ++bc.n;
      bc.ids.set(e, n);
      bc.refs.set(n, new WeakRef(e));
    }
    return prefix + 'e' + n;
  };

  /* children in the flat tree: open shadow root instead of light children, slots resolved */
  const flatChildren = (e) => {
    if (e.localName === 'slot' && e.assignedNodes) {
      const r = e.getRootNode();
      if (r && r.host) return e.assignedNodes({ flatten: true });
    }
    const sr = e.shadowRoot;
    return sr ? sr.childNodes : e.childNodes;
  };

  /* labels of a control, from one index per tree (el.labels rescans the whole tree on every call) */
  const labelIndex = new Map();
  const labelsOf = (e) => {
    const r = e.getRootNode();
    let idx = labelIndex.get(r);
    if (idx === undefined) {
      idx = new Map();
      if (r.querySelectorAll) {
        for (const l of r.querySelectorAll('label')) {
          const c = l.control;
          if (!c) continue;
          const list = idx.get(c);
          if (list) list.push(l); else idx.set(c, [l]);
        }
      }
      labelIndex.set(r, idx);
    }
    return idx.get(e) || [];
  };

  /* ---------- accessible names ---------- */
  const byId = (e, id) => {
    const r = e.getRootNode();
    return (r && r.getElementById) ? r.getElementById(id) : doc.getElementById(id);
  };

  const svgName = (e) => {
    if (e.getAttribute('aria-hidden') === 'true') return '';
    const role = e.getAttribute('role');
    if (role === 'presentation' || role === 'none') return '';
    const lb = e.getAttribute('aria-labelledby');
    if (lb) {
      const s = collapse(lb.split(/\s+/).map((id) => { const t = id && byId(e, id); return t ? t.textContent : ''; })
        .join(' '));
      if (s) return s;
    }
    const al = e.getAttribute('aria-label');
    if (al && al.trim()) return collapse(al);
    for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName === 'title') { const s = collapse(c.textContent); if (s) return s; }
    }
    const t = e.getAttribute('title');
    return t ? collapse(t) : '';
  };

  /* text of a subtree for a name: includes visually hidden text (clipped, off-screen, zero size, opacity 0),
     excludes display:none, [hidden], aria-hidden=true, and text under visibility:hidden. skip: a control to omit. */
  const nameText = (start, includeHidden, skip, skip2) => {
    const acc = [];
    let len = 0;
    const limit = maxName * 2;
    const visit = (n, vis) => {
      if (len > limit) return;
      const t = n.nodeType;
      if (t === 3) {
        if (includeHidden || (vis !== 'hidden' && vis !== 'collapse')) { acc.push(n.data); len += n.data.length; }
        return;
      }
      if (t !== 1 || n === skip || n === skip2) return;
      const tag = n.localName;
      if (DROP.has(tag)) return;
      if (tag === 'svg') { const s = svgName(n); if (s) { acc.push(' ' + s + ' '); len += s.length; } return; }
      if (!includeHidden && (n.hasAttribute('hidden') || n.getAttribute('aria-hidden') === 'true')) return;
      const cs = style(n);
      if (!includeHidden && cs.display === 'none') return;
      const al = n.getAttribute('aria-label');
      if (al && al.trim()) { acc.push(' ' + al + ' '); len += al.length; return; }
      if (tag === 'img' || (tag === 'input' && n.type === 'image')) {
        const alt = n.getAttribute('alt');
        if (alt) { acc.push(' ' + alt + ' '); len += alt.length; }
        return;
      }
      if (tag === 'input') {
        const ty = n.type;
        const v = BUTTON_TYPES.has(ty) ? n.value : (NO_VALUE_TYPES.has(ty) ? '' : n.value);
        if (v) { acc.push(' ' + v + ' '); len += v.length; }
        return;
      }
      if (tag === 'textarea') { acc.push(' ' + n.value + ' '); len += n.value.length; return; }
      if (tag === 'select') {
        const o = n.selectedOptions && n.selectedOptions[0];
        if (o) acc.push(' ' + o.text + ' ');
        return;
      }
      if (tag === 'br') { acc.push(' '); return; }
      if (tag === 'iframe' || tag === 'frame' || tag === 'canvas') return;
      const block = isBlock(cs.display);
      if (block) acc.push(' ');
      const kids = flatChildren(n);
      const vis2 = cs.visibility;
      for (let i = 0; i < kids.length; i++) visit(kids[i], vis2);
      if (block) acc.push(' ');
    };
    const kids = flatChildren(start);
    const vis0 = start.nodeType === 1 ? style(start).visibility : 'visible';
    for (let i = 0; i < kids.length; i++) visit(kids[i], vis0);
    return collapse(acc.join(''));
  };

  /* the accessible name of e (accname 1.2, simplified); '' when it has none */
  const accName = (e, tag, role) => {
    const lb = e.getAttribute('aria-labelledby');
    if (lb) {
      const parts = [];
      for (const id of lb.split(/\s+/)) {
        const t = id && byId(e, id);
        if (t) parts.push(t === e ? '' : (t.getAttribute('aria-label') || nameText(t, true, null)));
      }
      const s = collapse(parts.join(' '));
      if (s) return s;
    }
    const al = e.getAttribute('aria-label');
    if (al && al.trim()) return collapse(al);
    if (tag === 'input') {
      const ty = e.type;
      if (ty === 'submit' || ty === 'reset' || ty === 'button') {
        const v = collapse(e.value || '');
        if (v) return v;
        if (ty === 'submit') return 'Submit';
        if (ty === 'reset') return 'Reset';
      }
      if (ty === 'image') {
        const alt = collapse(e.getAttribute('alt') || '');
        if (alt) return alt;
      }
    }
    const labels = (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter' ||
                    tag === 'progress' || tag === 'output') ? labelsOf(e) : [];
    if (labels.length) {
      const parts = [];
      for (const l of labels) parts.push(nameText(l, false, e));
      const s = collapse(parts.join(' '));
      if (s) return s;
    }
    if (tag === 'img') {
      const alt = e.getAttribute('alt');
      if (alt !== null) { const s = collapse(alt); if (s) return s; }
    } else if (tag === 'fieldset') {
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (c.localName === 'legend') { const s = nameText(c, false, null); if (s) return s; break; }
      }
    } else if (tag === 'table') {
      const c = e.caption;
      if (c) { const s = nameText(c, false, null); if (s) return s; }
    }
    const fromContent = (role && CONTENT_NAME_ROLES.has(role)) ||
      (!role && (tag === 'a' || tag === 'button' || tag === 'summary' || tag === 'option'));
    if (fromContent) {
      const s = nameText(e, false, null);
      if (s) return s;
    }
    const title = e.getAttribute('title');
    if (title && title.trim()) return collapse(title);
    const ph = (tag === 'input' || tag === 'textarea') ? e.getAttribute('placeholder') : null;
    if (ph && ph.trim()) return collapse(ph);
    if (e.hasAttribute('contenteditable') && !fromContent) return '';
    return '';
  };

  /* interactive by tag or role ([contenteditable] is found by the caller's attribute scan) */
  const isInteractive = (e, tag, role) => {
    if (tag === 'a') return e.hasAttribute('href');
    if (tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'summary') return true;
    if (tag === 'input') return e.type !== 'hidden';
    /* a data grid's cells and rows (grid/treegrid) are what people select, edit and open: each has a ref */
    if (role === 'gridcell') return true;
    if (role === 'row') return !!e.closest('[role="grid"], [role="treegrid"]');
    return role !== '' && INTERACTIVE_ROLES.has(role);
  };

  /* ---------- geometry ---------- */
  const de = doc.documentElement;
  const sx = win.scrollX;
  const sy = win.scrollY;
  const scrollW = de ? de.scrollWidth : 0;
  const rtl = de ? style(de).direction === 'rtl' : false;
  const minX = rtl ? (de.clientWidth - scrollW) : 0;
  const maxX = rtl ? de.clientWidth : scrollW;

  const lengths = (s) => s.match(/-?[\d.]+(?:e-?\d+)?(?:px|%)?|auto/g) || [];
  /* clip: rect(t, r, b, l) on an absolutely positioned box: empty area means hidden */
  const clipEmpty = (clip, w, h) => {
    if (!clip || clip === 'auto' || !clip.startsWith('rect(')) return false;
    const v = lengths(clip.slice(5));
    if (v.length !== 4) return false;
    const num = (x, dflt) => (x === 'auto' ? dflt : parseFloat(x));
    const top = num(v[0], 0); const right = num(v[1], w); const bottom = num(v[2], h); const left = num(v[3], 0);
    return bottom - top <= 0 || right - left <= 0;
  };
  /* clip-path: inset() that leaves nothing (inset(50%) or more), or circle(0) */
  const clipPathEmpty = (cp, w, h) => {
    if (!cp || cp === 'none') return false;
    if (cp.startsWith('inset(')) {
      const body = cp.slice(6, cp.indexOf(')') < 0 ? cp.length : cp.indexOf(')')).split(' round ')[0];
      const v = lengths(body);
      if (!v.length) return false;
      const t = v[0]; const r = v[1] || t; const b = v[2] || t; const l = v[3] || r;
      const px = (x, size) => (x.endsWith('%') ? parseFloat(x) * size / 100 : parseFloat(x));
      return px(t, h) + px(b, h) >= h || px(l, w) + px(r, w) >= w;
    }
    if (cp.startsWith('polygon(')) {    /* a polygon of no area: polygon(0 0, 0 0, 0 0) */
      const pts = cp.slice(8, cp.lastIndexOf(')')).replace(/^\s*(nonzero|evenodd)\s*,/, '').split(',');
      const px = (x, size) => (x.endsWith('%') ? parseFloat(x) * size / 100 : parseFloat(x));
      let area = 0;
      const xy = pts.map((q) => { const v = lengths(q); return [px(v[0] || '0', w), px(v[1] || '0', h)]; });
      for (let i = 0; i < xy.length; i++) {
        const j = (i + 1) % xy.length;
        area += xy[i][0] * xy[j][1] - xy[j][0] * xy[i][1];
      }
      return !(Math.abs(area) / 2 >= 1);
    }
    return /^circle\(\s*0(?:px|%)?[\s)]/.test(cp) || /^ellipse\(\s*0(?:px|%)?\s/.test(cp);
  };

  /* mask-image (also set by -webkit-mask-image and the mask shorthand; the computed value, not 'none'): does it
     mask the whole box away? Only when every layer is a gradient whose every colour stop has alpha 0 (a fully
     transparent mask shows nothing); a url()/image() layer, a colour not read as rgb()/rgba() or a function
     with '/ alpha', or anything else left after the colours (calc(), color-mix()) keeps the element. */
  const GRADIENT = /^(?:repeating-)?(?:linear|radial|conic)-gradient\((.*)\)$/;
  const COLOUR_FN = /\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([^()]*\)/g;
  const maskEmpty = (m) => {
    const layers = [];
    let depth = 0; let from = 0;
    for (let i = 0; i < m.length; i++) {
      const ch = m.charCodeAt(i);
      if (ch === 40) depth += 1;
      else if (ch === 41) depth -= 1;
      else if (ch === 44 && depth === 0) { layers.push(m.slice(from, i)); from = i + 1; }
    }
    layers.push(m.slice(from));
    for (let i = 0; i < layers.length; i++) {
      const g = GRADIENT.exec(layers[i].trim());
      if (!g) return false;
      const stops = g[1].match(COLOUR_FN);
      if (!stops) return false;
      for (let j = 0; j < stops.length; j++) {
        const c = stops[j];
        let a = 1;
        if (c.startsWith('rgb')) { const v = rgba(c); if (!v) return false; a = v[3]; }
        else {
          const am = /\/\s*([\d.]+)(%?)\s*\)$/.exec(c);
          if (am) a = am[2] ? +am[1] / 100 : +am[1];
        }
        if (!(a === 0)) return false;
      }
      const rest = g[1].replace(COLOUR_FN, '');
      if (rest.indexOf('(') >= 0 || rest.indexOf('#') >= 0) return false;
    }
    return true;
  };

  /* ---------- paint context: what the walk knows of the ancestors of where it is ----------
     ctx.alpha: the product of the ancestors' opacity and filter: opacity(); ctx.bg: the colour text is painted
     on, [r, g, b] (the nearest ancestor's opaque background colour, the page's canvas at the top; null when a
     background image or a translucent layer over the unknown makes it unknown); ctx.clip: the rectangle
     [left, top, right, bottom] (viewport px) that overflow:hidden/clip ancestors leave visible to boxes in flow,
     ctx.absClip: the same for absolutely positioned boxes (only clips at or inside their containing block
     apply); null: no clip. Set by walkChildren for the children of each element, restored after them. */
  const rgba = (c) => {
    const m = /^rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:[,/] ?([\d.]+%?))?\)$/.exec(c);
    if (!m) return null;
    const a = m[4] === undefined ? 1 : (m[4].endsWith('%') ? parseFloat(m[4]) / 100 : +m[4]);
    return [+m[1], +m[2], +m[3], a];
  };
  const over = (c, bg) => [0, 1, 2].map((i) => c[i] * c[3] + bg[i] * (1 - c[3]));
  const luminance = (c) => {
    const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const contrast = (a, b) => {
    const la = luminance(a); const lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  const filterAlpha = (f) => {
    let a = 1;
    if (f === 'none' || f.indexOf('opacity(') < 0) return a;
    const re = /opacity\(([\d.]+)(%?)\)/g;
    for (let m = re.exec(f); m; m = re.exec(f)) a *= m[2] ? +m[1] / 100 : +m[1];
    return a;
  };
  const bgOf = (cs, under) => {
    if (cs.backgroundImage !== 'none') return null;
    const c = cs.backgroundColor;
    if (c === 'rgba(0, 0, 0, 0)' || c === 'transparent') return under;
    const v = rgba(c);
    if (!v) return null;
    if (v[3] >= 0.95) return v.slice(0, 3);
    return v[3] <= 0.05 ? under : (under ? over(v, under) : null);
  };
  const canvasBg = () => {   /* the page's canvas: the root's background, else body's, else white */
    if (!de) return [255, 255, 255];
    const dcs = style(de);
    if (/^dark$|^only dark/.test(dcs.colorScheme)) return null;
    const b = bgOf(dcs, [255, 255, 255]);
    return b && doc.body ? bgOf(style(doc.body), b) : b;
  };
  const intersect = (c, r) => (c ? [Math.max(c[0], r.left), Math.max(c[1], r.top), Math.min(c[2], r.right),
    Math.min(c[3], r.bottom)] : [r.left, r.top, r.right, r.bottom]);
  const outside = (r, c) => !!c && (r.right <= c[0] || r.left >= c[2] || r.bottom <= c[1] || r.top >= c[3]);
  let ctx = { alpha: 1, bg: null, clip: null, absClip: null, cursor: 'auto', blend: null };
  /* the context for e's children, e being in the current context */
  const enter = (e, cs) => {
    let alpha = ctx.alpha;
    const op = cs.opacity;
    if (op !== '1') alpha *= parseFloat(op);
    const f = cs.filter;
    if (f !== 'none') alpha *= filterAlpha(f);
    const pos = cs.position;
    const own = pos === 'fixed' ? null : (pos === 'absolute' ? ctx.absClip : ctx.clip);
    let clip = own;
    const ox = cs.overflowX; const oy = cs.overflowY;
    if ((ox === 'hidden' || ox === 'clip' || oy === 'hidden' || oy === 'clip') && e !== de && e !== doc.body) {
      const r = e.getBoundingClientRect();
      const c = intersect(own, r);
      clip = (ox === 'hidden' || ox === 'clip') && (oy === 'hidden' || oy === 'clip') ? c
        : (ox === 'hidden' || ox === 'clip') ? [c[0], own ? own[1] : -Infinity, c[2], own ? own[3] : Infinity]
          : [own ? own[0] : -Infinity, c[1], own ? own[2] : Infinity, c[3]];
    }
    const positioned = pos !== 'static' || (clip !== null && cs.transform !== 'none');
    const blend = cs.mixBlendMode && cs.mixBlendMode !== 'normal' ? cs.mixBlendMode : ctx.blend;
    return { alpha, bg: bgOf(cs, ctx.bg), clip, absClip: pos === 'fixed' ? clip : (positioned ? clip : ctx.absClip),
      cursor: cs.cursor, blend };
  };

  /* does text in this style (the context already entered) paint nothing a person can see: no opacity left,
     a transparent fill (-webkit-text-fill-color, which follows color) with no stroke or shadow, or a fill the
     colour of what it is painted on (contrast under 1.1:1)? */
  const inkHidden = (cs) => {
    if (ctx.alpha <= 0.05) return true;
    if (cs.textShadow !== 'none') return false;
    if (parseFloat(cs.webkitTextStrokeWidth) > 0) {
      const sc = rgba(cs.webkitTextStrokeColor);
      if (!sc || sc[3] > 0.05) return false;
    }
    const fill = rgba(cs.webkitTextFillColor);
    if (!fill) return false;
    if (fill[3] <= 0.05) return true;
    const bg = ctx.bg;
    if (!bg) return false;
    const painted = fill[3] >= 1 ? fill : over(fill, bg);
    /* a blend mode paints the text's colour mixed with what is behind it (black in screen mode on white: white) */
    const shown = ctx.blend ? blended(painted, bg, ctx.blend) : painted;
    return !!shown && contrast(shown, bg) < 1.1;
  };
  /* the colour a blend mode paints for source s over backdrop b ([r, g, b], 0-255); null for a mode not known */
  const BLENDS = {
    multiply: (a, b) => a * b, screen: (a, b) => a + b - a * b, darken: Math.min, lighten: Math.max,
    difference: (a, b) => Math.abs(a - b), exclusion: (a, b) => a + b - 2 * a * b,
    overlay: (a, b) => (b <= 0.5 ? 2 * a * b : 1 - 2 * (1 - a) * (1 - b)),
    'hard-light': (a, b) => (a <= 0.5 ? 2 * a * b : 1 - 2 * (1 - a) * (1 - b)),
    'color-dodge': (a, b) => (b === 0 ? 0 : (a >= 1 ? 1 : Math.min(1, b / (1 - a)))),
    'color-burn': (a, b) => (b >= 1 ? 1 : (a <= 0 ? 0 : 1 - Math.min(1, (1 - b) / a))),
  };
  const blended = (src, back, mode) => {
    const f = BLENDS[mode];
    return f ? [0, 1, 2].map((i) => 255 * f(src[i] / 255, back[i] / 255)) : null;
  };

  /* is a text node (with more than white space) out of sight by geometry: under 1 px wide or 2.5 px high
     (font-size 0 or 1px, zoom, negative letter-spacing, scaled away), off the document (text-indent), outside
     an overflow-clipping ancestor, or, in the viewport, covered at its centre and corners by an opaque box that
     is not its own (at most COVER_CHECKS such tests per read)? A hit test costs time in proportion to the
     elements of the page (5 ms each on a page of 200,000), so a large page gets fewer: a million over its
     element count, at most 200 (5 on a page of 200,000 elements). */
  const COVER_CHECKS = Math.min(200, Math.floor(1e6 / Math.max(1, doc.getElementsByTagName('*').length)));
  let coverChecks = 0;
  const textRange = doc.createRange();
  const opaqueBox = (el) => {
    const tag = el.localName;
    if (tag === 'img' || tag === 'video' || tag === 'canvas') return true;
    const cs = style(el);
    const v = cs.backgroundImage === 'none' ? rgba(cs.backgroundColor) : null;
    return !!v && v[3] >= 0.95 && parseFloat(cs.opacity) >= 0.95;
  };
  /* the topmost box at (x, y) hides owner's text there: it is opaque and neither owner, inside it, nor around it
     (a transparent box on top, such as a stretched link, hides nothing; pointer-events:none boxes are not hit) */
  const coveredAt = (x, y, owner) => {
    const el = doc.elementFromPoint(x, y);
    return !!el && el !== owner && !el.contains(owner) && !owner.contains(el) && opaqueBox(el);
  };
  /* outside the viewport, where no hit test reaches: is the text under one of the opaque positioned boxes the walk
     has met (at most 200), painted above it (a positioned box paints over text in flow; among positioned ones the
     higher z-index, then the later one)? */
  const covers = [];
  const coveredByBox = (b, owner) => {
    for (let i = 0; i < covers.length; i++) {
      const [el, r, z] = covers[i];
      if (r.left > b.left + 1 || r.right < b.right - 1 || r.top > b.top + 1 || r.bottom < b.bottom - 1) continue;
      if (el.contains(owner) || owner.contains(el) || z < 0) continue;
      let mine = null;   /* the outermost positioned ancestor of the text below what holds both */
      for (let a = owner; a && a.nodeType === 1 && !a.contains(el); a = a.parentElement) {
        if (style(a).position !== 'static') mine = a;
      }
      if (!mine) return true;
      const mz = style(mine).zIndex === 'auto' ? 0 : (parseInt(style(mine).zIndex, 10) || 0);
      if (z > mz || (z === mz && (mine.compareDocumentPosition(el) & 4))) return true;
    }
    return false;
  };
  const textOutOfSight = (t) => {
    textRange.selectNodeContents(t);
    const b = textRange.getBoundingClientRect();
    if (b.width < 1 || b.height < 2.5) return true;
    if ((b.right + sx <= minX) || (b.bottom + sy <= 0) || (maxX > 0 && b.left + sx >= maxX)) return true;
    if (outside(b, ctx.clip)) return true;
    const owner = t.parentNode;
    if (coverChecks >= COVER_CHECKS || !owner || owner.nodeType !== 1 || t.getRootNode() !== doc) return false;
    const vw = win.innerWidth; const vh = win.innerHeight;
    if (b.bottom <= 0 || b.top >= vh || b.right <= 0 || b.left >= vw) return coveredByBox(b, owner);
    coverChecks += 1;
    const l = Math.max(b.left + 1, 0); const r = Math.min(b.right - 1, vw - 1);
    const tp = Math.max(b.top + 1, 0); const bt = Math.min(b.bottom - 1, vh - 1);
    if (!coveredAt((l + r) / 2, (tp + bt) / 2, owner)) return false;
    return coveredAt(l, tp, owner) && coveredAt(r, tp, owner) && coveredAt(l, bt, owner) && coveredAt(r, bt, owner);
  };

  /* why a rendered element is hidden by geometry/paint, or '' if it is not; sets state.measure */
  const state = { measure: false };
  const geometryHidden = (e, tag, cs, display, measure) => {
    state.measure = false;
    if (cs.opacity === '0') return 'opacity';
    if (ctx.alpha * parseFloat(cs.opacity) * (cs.filter === 'none' ? 1 : filterAlpha(cs.filter)) <= 0.05) {
      return 'opacity';
    }
    const mi = cs.maskImage || cs.webkitMaskImage;
    if (mi && mi !== 'none' && maskEmpty(mi)) return 'masked';
    const pos = cs.position;
    if (display === 'inline' && pos === 'static' && !measure && !REPLACED.has(tag) && cs.clipPath === 'none') {
      /* a non-replaced inline box in flow: width/height/overflow/transform/clip/containment do not apply */
      return '';
    }
    if (cs.contentVisibility === 'hidden') return 'content-visibility';
    const r = e.getBoundingClientRect();
    const w = r.width;
    const h = r.height;
    const clips = (w <= 1 || h <= 1) && (cs.overflowX !== 'visible' || cs.overflowY !== 'visible');
    if (w === 0 || h === 0) {
      if (w === 0 && h === 0 && !clips && !REPLACED.has(tag)) state.measure = true;  /* content may overflow */
      else if (w === 0 && h === 0) return 'zero-size';
      else if (clips || REPLACED.has(tag)) return 'zero-size';
    } else if (w <= 1 && h <= 1 && (clips || REPLACED.has(tag))) {
      return 'clipped';
    }
    if ((pos === 'absolute' || pos === 'fixed') && clipEmpty(cs.clip, w, h)) return 'clipped';
    if (clipPathEmpty(cs.clipPath, w, h)) return 'clipped';
    if (pos === 'fixed' && (r.bottom <= 0 || r.top >= win.innerHeight || r.right <= 0 || r.left >= win.innerWidth)) {
      return 'off-screen';   /* a fixed box outside the viewport: no scrolling brings it in */
    }
    if (w > 0 && h > 0 && outside(r, pos === 'fixed' ? null : (pos === 'absolute' ? ctx.absClip : ctx.clip))) {
      return 'clipped';      /* outside what an overflow:hidden ancestor shows */
    }
    const L = r.left + sx; const R = r.right + sx; const T = r.top + sy; const B = r.bottom + sy;
    if ((R <= minX && L < minX) || (B <= 0 && T < 0) || (maxX > 0 && L >= maxX)) return 'off-document';
    return '';
  };

  /* a visually hidden checkbox/radio/file input with a label: the label is what people click, keep the input */
  /* a file input hidden outright (display:none, hidden) behind a label: the label opens its chooser, keep the input */
  const fileViaLabel = (e, tag) => tag === 'input' && e.type === 'file' && labelsOf(e).length > 0;
  const rescued = (e, tag) => {
    if (tag !== 'input') return false;
    const ty = e.type;
    return (ty === 'checkbox' || ty === 'radio' || ty === 'file') && labelsOf(e).length > 0;
  };

  const textHasBox = (t) => {
    const range = doc.createRange();
    range.selectNodeContents(t);
    const b = range.getBoundingClientRect();
    return b.width > 0 || b.height > 0;
  };

  /* ---------- the tree being built ----------
     A node is [tag, attrs | 0, ...children]; a child is a node or a string (adjacent strings are merged).
     `cur` is the open node children are added to; `up` holds the nodes it is inside. outLen counts the
     characters the tree would take as HTML (tags, attributes and text), for maxChars. */
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
  let lastSpace = true;     /* the output ends in whitespace or at a block boundary */
  let ctlDepth = 0;         /* the page's own controls around the walk (nothing inside one is operable apart) */
  let delegRoots = 0;       /* listened-to containers around the walk (the icons inside them are operable) */
  const replaced = new WeakSet();   /* triggers shown as the <select> they stand for: not walked */
  /* elements with click, mouse, pointer or touch listeners, found over CDP before the walk (browser/listeners.py) */
  const listened = bc.listened instanceof WeakSet ? bc.listened : null;

  /* an open modal <dialog> (showModal): the page beside it is inert under its backdrop, so only the dialog is
     read; an ARIA modal (role=dialog/alertdialog or aria-modal, the rest of the page aria-hidden by the page,
     as Radix and MUI do) likewise. Instead of the covered part, one line says what covers it, once. */
  let modal = null;
  if (de) {
    const dialogs = doc.getElementsByTagName('dialog');
    for (let i = 0; i < dialogs.length; i++) {
      try { if (dialogs[i].open && dialogs[i].matches(':modal')) modal = dialogs[i]; } catch (err) { /* no :modal */ }
    }
  }
  let coverNoted = false;
  const noteCovered = (by) => {
    if (coverNoted) return;
    coverNoted = true;
    const role = by.getAttribute('role') || '';
    const name = accName(by, by.localName, role);
    const what = role === 'alertdialog' ? 'alert dialog' : 'dialog';
    openNode('p', { 'data-covered': '' });
    addText(clean('Rest of the page covered by ' + what + (name ? ' "' + cap(name, maxName) + '"' : '')));
    closeNode();
    lastSpace = true;
  };
  /* the visible popups (dialogs, listboxes, menus) outside any aria-hidden subtree that float over the page
     (aria-modal, or fixed: themselves or an ancestor up to 6 levels), read once when the walk first meets a
     shown aria-hidden subtree: such a subtree is the page behind a popup (dropped, and a modal dialog says it
     covers the page); any other aria-hidden subtree is read, since a person sees it */
  const floats = (p) => {
    if (p.getAttribute('aria-modal') === 'true') return true;
    let k = 0;
    for (let a = p; a && a.nodeType === 1 && k < 7; a = a.parentElement, k++) if (style(a).position === 'fixed') return true;
    return false;
  };
  let popups = null;
  const POPUP_SELECTOR = 'dialog[open], [aria-modal="true"], [role="dialog"], [role="alertdialog"], ' +
    '[role="listbox"], [role="menu"]';
  const behindPopup = (e) => {
    if (popups === null) {
      popups = [];
      const found = doc.querySelectorAll(POPUP_SELECTOR);
      for (let i = 0; i < found.length && popups.length < 50; i++) {
        const p = found[i];
        if (p.closest('[aria-hidden="true"]')) continue;
        if (p.checkVisibility && !p.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
        if (floats(p)) popups.push(p);
      }
    }
    for (let i = 0; i < popups.length; i++) {
      const p = popups[i];
      if (e.contains(p)) continue;
      const role = p.getAttribute('role') || '';
      if (p.localName === 'dialog' || role === 'dialog' || role === 'alertdialog' ||
          p.getAttribute('aria-modal') === 'true') noteCovered(p);
      return true;
    }
    return false;
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
        lastSpace = /\s$/.test(s);
        return pre;
      }
    }
    if (spacey) s = s.replace(/[ \t\n\r\f]+/g, ' ');
    if (lastSpace && s.charCodeAt(0) === 32) s = s.slice(1);
    if (!s) return pre;
    if (measure && s !== ' ' && !textHasBox(t)) return pre;
    addText(clean(s));
    lastSpace = s.charCodeAt(s.length - 1) === 32;
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
  const PSEUDO_TOKEN = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)|counters?\(\s*([\w-]+)[^)]*\)/g;
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
    if (lastSpace && s.charCodeAt(0) === 32) s = s.slice(1);
    if (!s) return;
    addText(clean(s));
    lastSpace = s.charCodeAt(s.length - 1) === 32;
  };

  /* does any light child of e have a box (element) or rendered text? */
  const lightShown = (e) => {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && c.getClientRects().length) return true;
      if (c.nodeType === 3 && /[^ \t\n\r\f]/.test(c.data)) {
        const r = doc.createRange();
        r.selectNodeContents(c);
        if (r.getClientRects().length) return true;
      }
    }
    return false;
  };

  const walkChildren = (e, cs, vis, measure) => {
    const kids = flatChildren(e);
    let pre = -1;
    const saved = ctx;
    ctx = enter(e, cs);
    if (pseudoHosts === null) pseudoHosts = findPseudoHosts();
    if (usesCounters) countersOf(cs);
    const resets = resetLog.length;   /* resets made by the children last until this element ends */
    let ink = -1;           /* does text here paint (1), or not (0)? read at the first text that needs it */
    let seen = -1;          /* is the first text here in sight (1) or not (0)? measured once per element */
    const covered = modal !== null && e !== modal && !modal.contains(e);   /* text beside an open modal */
    if (!covered) emitPseudo(e, '::before', vis);
    for (let i = 0; i < kids.length; i++) {
      if (limit && !stopped && outLen >= limit) stopped = true;
      if (stopped) {          /* enough for the budget: the rest is counted (facts.elements), not serialised */
        let left = 0;         /* the longest run of siblings left unread, on the way out of the walk */
        for (let j = i; j < kids.length; j++) if (kids[j].nodeType === 1) left += 1;
        if (left > siblingsLeft) siblingsLeft = left;
        break;
      }
      const c = kids[i];
      const t = c.nodeType;
      if (t === 1) walk(c, measure);
      else if (t === 3) {
        if (vis !== 'hidden' && vis !== 'collapse' && /[^ \t\n\r\f]/.test(c.data)) {
          if (covered) { noteCovered(modal); continue; }
          if (ink < 0) ink = inkHidden(cs) ? 0 : 1;
          if (ink === 0) continue;
          if (seen < 0) seen = textOutOfSight(c) ? 0 : 1;
          if (seen === 0) continue;
        }
        pre = emitText(c, vis, cs, measure, pre);
      }
    }
    if (!covered && !stopped) emitPseudo(e, '::after', vis);
    while (resetLog.length > resets) {
      const [name, was] = resetLog.pop();
      if (was === undefined) counters.delete(name); else counters.set(name, was);
    }
    ctx = saved;
  };

  const emitGraphic = (e, name) => {
    const A = {};
    attr(A, 'alt', cap(name, maxName));
    attr(A, 'data-name', cap(name, maxName));
    addLeaf('img', A);
    lastSpace = false;
  };

  const formAttrs = (A, e, tag) => {
    if (tag === 'input') {
      const ty = e.type;
      attr(A, 'type', ty);
      const nm = e.getAttribute('name'); if (nm) attr(A, 'name', nm);
      const ph = e.getAttribute('placeholder'); if (ph) attr(A, 'placeholder', ph);
      if ((ty === 'checkbox' || ty === 'radio') && e.checked) A.checked = '';
      if (e.matches(':disabled')) A.disabled = '';
      if (e.required) A.required = '';
      if (e.readOnly && !BUTTON_TYPES.has(ty)) A.readonly = '';
      if (e.multiple) A.multiple = '';
      if (ty === 'password' || sensitive(e)) attr(A, 'data-filled', e.value ? 'yes' : 'no');
      else if (!NO_VALUE_TYPES.has(ty) && e.value) valueAttr(A, e.value);
    } else if (tag === 'textarea') {
      const nm = e.getAttribute('name'); if (nm) attr(A, 'name', nm);
      const ph = e.getAttribute('placeholder'); if (ph) attr(A, 'placeholder', ph);
      if (e.matches(':disabled')) A.disabled = '';
      if (e.required) A.required = '';
      if (e.readOnly) A.readonly = '';
      if (e.value) valueAttr(A, e.value);
    } else if (tag === 'select') {
      const nm = e.getAttribute('name'); if (nm) attr(A, 'name', nm);
      if (e.matches(':disabled')) A.disabled = '';
      if (e.required) A.required = '';
      if (e.multiple) A.multiple = '';
    } else if (tag === 'button') {
      const ty = e.getAttribute('type'); if (ty) attr(A, 'type', e.type);
      const nm = e.getAttribute('name'); if (nm) attr(A, 'name', nm);
      if (e.matches(':disabled')) A.disabled = '';
    }
  };

  const walkOption = (e, tag) => {
    if (tag === 'optgroup') {
      const A = {};
      const lab = e.getAttribute('label'); if (lab) attr(A, 'label', lab);
      if (e.disabled) A.disabled = '';
      openNode('optgroup', A);
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (c.localName !== 'option' || c.hasAttribute('hidden')) continue;
        if (style(c).display !== 'none') walkOption(c, 'option');
      }
      closeNode();
      return;
    }
    const A = {};
    if (e.selected) A.selected = '';
    if (e.disabled) A.disabled = '';
    openNode('option', A);
    const t = clean(collapse(e.text));
    if (t) addText(t);
    closeNode();
  };

  /* a hidden <select> in the place of the trigger that stands for it: one combobox, its options, both refs */
  const emitStandIn = (sel, trigger) => {
    replaced.add(trigger);
    const A = {};
    const labels = labelsOf(sel);   /* its label's text, not the trigger's (a label may hold both) */
    const name = (labels.length ? collapse(labels.map((l) => nameText(l, false, sel, trigger)).join(' ')) : '') ||
      accName(sel, 'select', '');
    if (name) attr(A, 'data-name', cap(name, maxName));
    attr(A, 'data-ref', refFor(sel));
    formAttrs(A, sel, 'select');
    attr(A, 'data-role', 'combobox');
    attr(A, 'data-trigger', refFor(trigger));
    const opts = [];
    for (let i = 0; i < sel.options.length && opts.length < 20; i++) opts.push(collapse(sel.options[i].text));
    attr(A, 'data-options', opts.join('\u001f'));
    openNode('select', A);
    for (let c = sel.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName === 'option' || c.localName === 'optgroup') walkOption(c, c.localName);
    }
    closeNode();
    lastSpace = false;
  };

  const walk = (e, measure) => {
    walked += 1;
    const tag = e.localName;
    if (DROP.has(tag) || replaced.has(e)) return;
    if (modal !== null && e !== modal && !modal.contains(e) && !e.contains(modal)) { noteCovered(modal); return; }
    if (tag === 'svg') {   /* an <svg> root (SVG content is never walked into) */
      const cs = style(e);
      const d = cs.display;
      if (d === 'none' || cs.visibility !== 'visible') return;
      /* Chromium paints nothing of an <svg> with a zero width or height, not even overflow:visible content;
         an inline <svg> is an atomic box, so its geometry is read (measure=true skips the inline shortcut) */
      const sr = e.getBoundingClientRect();
      if (sr.width === 0 || sr.height === 0 || geometryHidden(e, 'svg', cs, d, true)) return;
      const name = svgName(e);
      if (name) emitGraphic(e, name);
      /* the text a chart draws (axis labels, values in <text>), never its path data; an svg named as one
         image (role=img) keeps only its name, as its children are presentational */
      const texts = [];
      const oneImage = !!name && /^(img|image|graphics-symbol)$/.test((e.getAttribute('role') || '').trim());
      const found = e.getElementsByTagName('text');
      for (let i = 0; !oneImage && i < found.length && i < 500; i++) {
        const t = found[i];
        const ts = style(t);
        if (ts.display === 'none' || ts.visibility !== 'visible' || ts.opacity === '0' || ts.fontSize === '0px' ||
            (ts.fill === 'none' && ts.stroke === 'none') || t.closest('[aria-hidden="true"]')) continue;
        const s = collapse(t.textContent || '');
        if (s) texts.push(s);
      }
      if (texts.length) {
        openNode('div');
        addText(clean(cap(texts.join(' '), 2000)));
        closeNode();
        lastSpace = true;
      }
      return;
    }
    /* one pass over the attribute names instead of a getAttribute call per attribute we might keep */
    const names = e.getAttributeNames();
    let cls = null;
    let role = '';
    let editable = false;
    let aria = null;
    let ariaHidden = false;   /* aria-hidden="true": read if a person sees it, unless it is the page behind a popup */
    const opAttrs = { onclick: false, tabindex: -1, draggable: false };   /* what O.why reads */
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      if (n === 'class') cls = e.getAttribute(n);
      else if (n.charCodeAt(0) === 111 && n.charCodeAt(1) === 110 && O.CLICK_EVENTS.has(n.slice(2))) opAttrs.onclick = true;
      else if (n === 'tabindex') { const t = parseInt(e.getAttribute(n), 10); if (t >= 0) opAttrs.tabindex = t; }
      else if (n === 'draggable') opAttrs.draggable = e.getAttribute(n) === 'true';
      else if (n === 'role') role = e.getAttribute(n).trim();
      else if (n === 'inert' || (n === 'hidden' && !fileViaLabel(e, tag))) return;
      else if (n.charCodeAt(0) === 97 && n.startsWith('aria-')) {
        if (n === 'aria-hidden') { if (e.getAttribute(n) === 'true') ariaHidden = true; }
        else if (ARIA_SET.has(n)) (aria || (aria = [])).push(n);
      } else if (n === 'contenteditable') editable = e.getAttribute(n) !== 'false';
    }
    const cs = style(e);
    const display = cs.display;
    /* a native <select> hidden behind a trigger of its own (Selectric, Select2, Chosen, nice-select): shown as
       one combobox, with its options, in the trigger's place (the trigger is not walked) */
    if (tag === 'select' && (display === 'none' || geometryHidden(e, tag, cs, display, measure))) {
      const trigger = O.replacement(e);
      if (trigger) emitStandIn(e, trigger);
      return;
    }
    const standsFor = O.standsFor(e);   /* the trigger of a select hidden with its wrapper */
    if (standsFor) { emitStandIn(standsFor, e); return; }
    if (display === 'none' && !fileViaLabel(e, tag)) return;
    if (tag === 'option' || tag === 'optgroup') { walkOption(e, tag); return; }
    const vis = cs.visibility;
    if (display === 'contents') { if (!(ariaHidden && behindPopup(e))) walkChildren(e, cs, vis, measure); return; }
    let childMeasure = false;
    let viaLabel = false;   /* a hidden file input kept for its label: marked data-via="label" */
    if (!NO_GEOMETRY.has(tag) && e !== de) {
      const why = display === 'none' ? 'display' : geometryHidden(e, tag, cs, display, measure);
      if (why && !rescued(e, tag)) return;
      viaLabel = !!why && tag === 'input' && e.type === 'file';
      childMeasure = state.measure;
    }
    if (ariaHidden && behindPopup(e)) return;
    const block = isBlock(display);
    if (covers.length < 200 && (cs.position === 'absolute' || cs.position === 'fixed') && opaqueBox(e)) {
      const r = e.getBoundingClientRect();
      if (r.width * r.height >= 100) covers.push([e, r, cs.zIndex === 'auto' ? 0 : (parseInt(cs.zIndex, 10) || 0)]);
    }

    /* visibility: hidden: the element itself is invisible; only visible descendants are kept */
    if (vis === 'hidden' || vis === 'collapse') {
      if (LEAF.has(tag) || tag === 'select' || tag === 'canvas') return;
      const outTag = KEEP.has(tag) ? tag : (block ? 'div' : 'span');
      openNode(outTag);
      if (block) lastSpace = true;
      walkChildren(e, cs, vis, childMeasure);
      if (block) trimTrailingSpace(cs);
      if (cur.length === 2) dropNode();
      else closeNode();
      if (block) lastSpace = true;
      return;
    }

    if (tag === 'canvas') {   /* never silence: its name, else its fallback content, else its size */
      const name = accName(e, tag, e.getAttribute('role'));
      let fallback = '';
      if (!name) {   /* fallback content has no boxes: its text nodes, joined as separate words */
        const tw = doc.createTreeWalker(e, 4);
        const parts = [];
        for (let t = tw.nextNode(); t && parts.length < 500; t = tw.nextNode()) parts.push(t.data);
        fallback = collapse(parts.join(' '));
      }
      if (name) emitGraphic(e, name);
      else if (fallback) {
        openNode('div');
        addText(clean(cap(fallback, 2000)));
        closeNode();
        lastSpace = true;
      } else emitGraphic(e, 'canvas ' + e.width + '\u00d7' + e.height + ', no text layer');
      return;
    }
    if (tag === 'iframe' || tag === 'frame') {
      const fid = e.__browserCtxFrameId;
      const A = {};
      attr(A, 'data-frame', fid == null ? '' : fid);
      const name = accName(e, tag, e.getAttribute('role'));
      if (name) attr(A, 'data-name', cap(name, maxName));
      addLeaf('bc-frame', A);
      lastSpace = true;
      return;
    }

    const role0 = role ? role.split(/\s+/)[0] : '';
    const outTag = KEEP.has(tag) ? tag : (block ? 'div' : 'span');
    let interactive = editable || isInteractive(e, tag, role0);
    /* a code editor whose keys go to a hidden textarea (CodeMirror 5, Monaco): one textbox, its lines as value */
    const editor = !interactive && cls ? O.editor(e, cls) : '';
    if (editor) interactive = true;
    /* operable without ARIA (no role, or a presentational one; not inside another control): a ref, a name */
    let op = '';
    let delegRoot = false;   /* listened to but too large for one control: its listener serves the icons inside */
    if (!interactive && ctlDepth === 0 && (!role0 || role0 === 'presentation' || role0 === 'none' ||
        role0 === 'generic') && e !== doc.body && e !== de) {
      op = O.why(e, tag, cs, ctx.cursor, opAttrs, listened, delegRoots > 0);
      if (op === 'root') { op = ''; delegRoot = true; }
      if (op) interactive = true;
    }
    const A = {};
    if (viaLabel) attr(A, 'data-via', 'label');
    if (cls) {
      const toks = cls.trim().split(/\s+/, 3).join(' ');
      if (toks) attr(A, 'class', toks);
    }
    if (role) attr(A, 'role', role);
    /* the id of a block that may hold a folded run (6+ children, a table) names it in the fold line's
       one-call target ("browser_snapshot target='#orders'") */
    if (block && e.id && ID_OK.test(e.id) && (e.childElementCount >= 6 || tag === 'table' || TABLE_ROLES.has(role0))) {
      attr(A, 'data-id', e.id);
    }
    if (tag === 'a') {
      const href = e.getAttribute('href');
      if (href !== null) {
        let h = e.href || href;
        const low = h.slice(0, 11).toLowerCase();
        if (low.startsWith('javascript:')) h = 'javascript:';
        else if (low.startsWith('data:')) h = 'data:';
        attr(A, 'href', h);
      }
    }
    if (tag === 'img') {
      const alt = e.getAttribute('alt');
      if (alt !== null) attr(A, 'alt', cap(collapse(alt), maxName));
    }
    let named = interactive || NAMED_TAGS.has(tag) || LANDMARK_TAGS.has(tag) || LANDMARK_ROLES.has(role0) ||
      role0 === 'dialog' || role0 === 'alertdialog' || TABLE_ROLES.has(role0);
    if (op) {
      /* Chromium names a generic element from nothing: its own text, markup or class words name it (a tree
         item's own label, not the items inside it) */
      const name = accName(e, tag, role0) || O.handleName(e) ||
        (tag === 'li' && e.querySelector('ul, ol') ? O.label(e) : nameText(e, false, null));
      if (name) attr(A, 'data-name', cap(name, maxName));
      else {
        const hint = O.hint(e);
        if (hint) { attr(A, 'data-hint', cap(hint[0], 80)); attr(A, 'data-hint-from', hint[1]); }
      }
    } else if (named) {
      const landmarkOnly = !interactive && !NAMED_TAGS.has(tag);
      let name;
      if (landmarkOnly) {
        const lb = e.getAttribute('aria-labelledby');
        const al = e.getAttribute('aria-label');
        name = lb ? accName(e, tag, role0) : (al ? collapse(al) : collapse(e.getAttribute('title') || ''));
      } else {
        name = accName(e, tag, role0);
      }
      if (axKept) { attr(A, 'data-ax', axKept.length); axKept.push(e); }
      if (name) attr(A, 'data-name', cap(name, maxName));
      else if (interactive) {   /* an unnamed control (an icon button): its markup, else a hint, in case Chromium has none */
        const alt = editor ? '' : O.handleName(e);
        const hint = editor ? [editor === 'monaco' ? 'Monaco editor' : 'CodeMirror editor', 'class']
          : (alt ? [alt, 'icon'] : O.hint(e));
        if (hint) { attr(A, 'data-hint', cap(hint[0], 80)); attr(A, 'data-hint-from', hint[1]); }
      }
    }
    if (interactive) attr(A, 'data-ref', refFor(e));
    if (editor) {
      attr(A, 'data-role', 'textbox');
      attr(A, 'data-editor', editor);
      const v = O.editorText(e, editor);
      if (v) valueAttr(A, v);
    }
    if (op) {
      attr(A, 'data-op', op);
      const slider = O.slider(e);
      if (slider) { attr(A, 'data-role', 'slider'); attr(A, 'data-value', slider); attr(A, 'data-value-from', 'position'); }
    }
    if (interactive) {
      const states = O.classStates(e);
      if (states) attr(A, 'data-class-states', states);
    }
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'button') formAttrs(A, e, tag);
    else if (editable) {   /* as shown: its lines kept (innerText), trailing line breaks dropped */
      const v = (e.innerText || e.textContent || '').replace(/\u200b/g, '').replace(/\n+$/, '');
      if (v.trim()) valueAttr(A, v);
    }
    if ((tag === 'details' || tag === 'dialog') && e.open) A.open = '';
    if (aria) {
      for (let i = 0; i < ARIA.length; i++) if (aria.includes(ARIA[i])) attr(A, ARIA[i], e.getAttribute(ARIA[i]));
    }
    if (tag === 'td' || tag === 'th') {
      if (e.colSpan > 1) attr(A, 'colspan', e.colSpan);
      if (e.rowSpan > 1) attr(A, 'rowspan', e.rowSpan);
    }

    if (tag === 'br' || tag === 'hr' || tag === 'img' || tag === 'input') {
      addLeaf(outTag, A);
      lastSpace = tag !== 'img' && tag !== 'input';
      return;
    }
    openNode(outTag, A);
    if (block) lastSpace = true;
    if (shadowHosts && shadowHosts.length < 20 && tag.indexOf('-') > 0 && !e.shadowRoot && !lightShown(e)) {
      addLeaf('bc-shadow', { 'data-host': String(shadowHosts.length) });
      shadowHosts.push(e);
    }
    const native = interactive && !op;   /* a control of the page's own: nothing inside it is operable apart */
    if (native) ctlDepth += 1;
    if (delegRoot) delegRoots += 1;
    if (tag === 'details' && !e.open) {
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (c.localName === 'summary') { walk(c, childMeasure); break; }
      }
    } else if (!LEAF.has(tag) && !editor) {
      walkChildren(e, cs, vis, childMeasure);
    }
    if (native) ctlDepth -= 1;
    if (delegRoot) delegRoots -= 1;
    if (block) trimTrailingSpace(cs);
    if (cur.length === 2 && PRUNABLE.has(outTag) && !role && !interactive && !named) {
      dropNode();        /* an empty wrapper shows nothing */
    } else {
      closeNode();
      if (!block && (tag === 'textarea' || tag === 'select')) lastSpace = false;
    }
    if (block) lastSpace = true;
  };

  /* ---------- the root ---------- */
  if (root !== doc.body && root !== de) {
    /* a root inside the page: nothing if it or an ancestor hides it */
    const chain = [];
    for (let n = root.parentNode || root.host; n; n = n.parentNode || n.host) if (n.nodeType === 1) chain.push(n);
    for (let n = root; n; n = n.parentNode || n.host) {
      if (n.nodeType === 1 && (n.hasAttribute('hidden') || n.hasAttribute('inert') ||
          (n.getAttribute('aria-hidden') === 'true' && behindPopup(n)))) return done(null);
    }
    if (root.checkVisibility && !root.checkVisibility({ opacityProperty: true, contentVisibilityAuto: false })) {
      return done(null);
    }
    /* the paint context of the root's place: its ancestors' opacity and background (their clips are not
       applied) */
    ctx = { alpha: 1, bg: canvasBg(), clip: null, absClip: null, cursor: 'auto' };
    for (let i = chain.length - 1; i >= 0; i--) {
      const a = chain[i];
      if (a === de || a === doc.body) continue;
      const acs = style(a);
      ctx = { alpha: ctx.alpha * parseFloat(acs.opacity) * filterAlpha(acs.filter), bg: bgOf(acs, ctx.bg), clip: null,
        absClip: null, cursor: acs.cursor };
    }
  } else {
    ctx = { alpha: 1, bg: canvasBg(), clip: null, absClip: null, cursor: 'auto' };
  }
  if (root.nodeType === 1) walk(root, false);
  else if (root.nodeType === 11) {   /* a closed shadow root handed over by browser/closed_shadow.py */
    const hcs = style(root.host);
    for (let c = root.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) walk(c, false);
      else if (c.nodeType === 3 && /[^ \t\n\r\f]/.test(c.data)) emitText(c, hcs.visibility, hcs, false, -1);
    }
  }
  const got = top.length === 3 && root.nodeType === 1 && typeof top[2] !== 'string' ? top[2]
    : (top.length > 2 ? ['#fragment', 0].concat(top.slice(2)) : null);
  return done(got);
})
