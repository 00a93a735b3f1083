/*
 * What a person can see (a module of js/walk.js, bundled by scripts.bundle): geometry (size, clips, masks,
 * off-document), the paint context (opacity, background, overflow clips, blend modes), text that paints
 * nothing (ink, contrast) or is covered, and what an open modal or a popup covers.
 *   visibility(S, N, E) -> V   S: the shared state (js/walk_state.js; reads S.ctx, sets S.ctx and S.measure);
 *     N: js/names.js; E: js/emit.js (the "covered by" line)
 *   placeRoot(root) -> false when the root is hidden (it or an ancestor), else sets S.ctx for it
 *   enter(e, cs) -> the paint context for e's children, e being in S.ctx
 *   geometryHidden(e, tag, cs, display, measure) -> why a rendered element is hidden by geometry/paint
 *     ('opacity', 'masked', 'content-visibility', 'zero-size', 'clipped', 'off-screen', 'off-document') or '';
 *     sets S.measure
 *   inkHidden(cs) -> text in this style paints nothing a person can see; textOutOfSight(t) -> a text node is
 *     out of sight by geometry or covered; noteBox(e, cs): an opaque positioned box that may cover text
 *   rescued(e, tag), fileViaLabel(e, tag): hidden inputs kept for their label
 *   modal: an open modal <dialog> or null; noteCovered(by): one line saying what covers the page (once);
 *   behindPopup(e) -> e (aria-hidden) is the page behind a floating popup; lightShown(e) -> a light child of e
 *     has a box or rendered text
 */
((S, N, E) => {
  'use strict';
  const win = S.win;
  const doc = S.doc;
  const style = S.style;
  const REPLACED = S.words('img iframe frame video canvas input textarea select');

  /* ---------- geometry ---------- */
  const de = S.de;
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
     S.ctx.alpha: the product of the ancestors' opacity and filter: opacity(); ctx.bg: the colour text is painted
     on, [r, g, b] (the nearest ancestor's opaque background colour, the page's canvas at the top; null when a
     background image or a translucent layer over the unknown makes it unknown); ctx.clip: the rectangle
     [left, top, right, bottom] (viewport px) that overflow:hidden/clip ancestors leave visible to boxes in flow,
     ctx.absClip: the same for absolutely positioned boxes (only clips at or inside their containing block
     apply); null: no clip. ctx.scroll / ctx.absScroll: the same for every box that clips its overflow, scroll
     containers included, and ctx.reach the area the innermost scroll container can scroll to (viewport px): a
     box outside ctx.scroll but in ctx.reach is scrolled out, not hidden (scrolling brings it back, and what a
     hit test finds where it lies is not above it). Set by the walk for the children of each element (enter),
     restored after them. */
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
  /* The walk asks geometryHidden, noteBox and enter about the same element one after the other (with the same
     computed style, cs): each property they read, and the box, is read once from Blink for it (reads cost a
     microsecond each; nothing changes the page between them). */
  let memoCs = null;
  let memo = {};
  const prop = (cs, name) => {
    if (cs !== memoCs) { memoCs = cs; memo = {}; }
    const v = memo[name];
    return v !== undefined ? v : (memo[name] = cs[name]);
  };
  let rectOwner = null;
  let rect = null;
  const rectOf = (e) => {
    if (e !== rectOwner) { rectOwner = e; rect = e.getBoundingClientRect(); }
    return rect;
  };
  /* the context for e's children, e being in the current context */
  const enter = (e, cs) => {
    const ctx = S.ctx;
    let alpha = ctx.alpha;
    const op = prop(cs, 'opacity');
    if (op !== '1') alpha *= parseFloat(op);
    const f = prop(cs, 'filter');
    if (f !== 'none') alpha *= filterAlpha(f);
    const pos = prop(cs, 'position');
    const own = pos === 'fixed' ? null : (pos === 'absolute' ? ctx.absClip : ctx.clip);
    let clip = own;
    const ox = prop(cs, 'overflowX'); const oy = prop(cs, 'overflowY');
    if ((ox === 'hidden' || ox === 'clip' || oy === 'hidden' || oy === 'clip') && e !== de && e !== doc.body) {
      const r = rectOf(e);
      const c = intersect(own, r);
      clip = (ox === 'hidden' || ox === 'clip') && (oy === 'hidden' || oy === 'clip') ? c
        : (ox === 'hidden' || ox === 'clip') ? [c[0], own ? own[1] : -Infinity, c[2], own ? own[3] : Infinity]
          : [own ? own[0] : -Infinity, c[1], own ? own[2] : Infinity, c[3]];
    }
    let scroll = (pos === 'fixed' ? null : (pos === 'absolute' ? ctx.absScroll : ctx.scroll)) || null;
    let reach = pos === 'fixed' ? null : (ctx.reach || null);
    if ((ox !== 'visible' || oy !== 'visible') && e !== de && e !== doc.body) {
      const r = rectOf(e);
      const x = r.left + e.clientLeft; const y = r.top + e.clientTop;
      scroll = intersect(scroll, { left: x, top: y, right: x + e.clientWidth, bottom: y + e.clientHeight });
      if (/auto|scroll/.test(ox + oy)) {
        const rx = x - e.scrollLeft; const ry = y - e.scrollTop;
        reach = [rx, ry, rx + Math.max(e.scrollWidth, e.clientWidth), ry + Math.max(e.scrollHeight, e.clientHeight)];
      }
    }
    const positioned = pos !== 'static' || (clip !== null && cs.transform !== 'none');
    const mb = cs.mixBlendMode;
    const blend = mb && mb !== 'normal' ? mb : ctx.blend;
    return { alpha, bg: bgOf(cs, ctx.bg), clip, absClip: pos === 'fixed' ? clip : (positioned ? clip : ctx.absClip),
      scroll, absScroll: pos === 'fixed' ? scroll : (positioned ? scroll : ctx.absScroll), reach, cursor: cs.cursor,
      blend };
  };

  /* does text in this style (the context already entered) paint nothing a person can see: no opacity left,
     a transparent fill (-webkit-text-fill-color, which follows color) with no stroke or shadow, or a fill the
     colour of what it is painted on (contrast under 1.1:1)? */
  const inkHidden = (cs) => {
    const ctx = S.ctx;
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
  /* an opaque positioned box of 100 px² or more the walk met (e, in style cs): it may cover text */
  const noteBox = (e, cs) => {
    const pos = covers.length < 200 ? prop(cs, 'position') : '';
    if ((pos === 'absolute' || pos === 'fixed') && opaqueBox(e)) {
      const r = rectOf(e);
      if (r.width * r.height >= 100) covers.push([e, r, cs.zIndex === 'auto' ? 0 : (parseInt(cs.zIndex, 10) || 0)]);
    }
  };
  /* the box fixed (or stuck) to the viewport that el is or is inside, else null */
  const pinned = (el) => {
    for (let a = el; a && a.nodeType === 1; a = a.parentElement) {
      const p = style(a).position;
      if (p === 'fixed' || p === 'sticky') return a;
    }
    return null;
  };
  /* text b (viewport px) under a box pinned to the viewport comes out from under it at some scroll position of
     the page: a fixed header over text the page was scrolled to does not hide it */
  const scrollsClear = (b, pin, vh) => {
    const p = pin.getBoundingClientRect();
    const y = b.top + sy; const h = b.height;
    const maxY = Math.max(0, (de ? de.scrollHeight : 0) - vh);
    const clear = (s) => s >= 0 && s <= maxY && y - s >= 0 && y - s + h <= vh && (y - s + h <= p.top || y - s >= p.bottom);
    return clear(0) || clear(maxY) || clear(y - p.bottom) || clear(y + h - p.top);
  };
  /* box b (viewport px) lies outside what its scroll containers show but where the innermost can scroll to */
  const scrolledOut = (b, sc, reach) => !!sc && !!reach && outside(b, sc) && !outside(b, reach);
  const textOutOfSight = (t) => {
    textRange.selectNodeContents(t);
    const b = textRange.getBoundingClientRect();
    if (b.width < 1 || b.height < 2.5) return true;
    if (outside(b, S.ctx.clip)) return true;
    const sc = S.ctx.scroll || null;
    if (scrolledOut(b, sc, S.ctx.reach)) return false;   /* scrolling brings it back */
    if ((b.right + sx <= minX) || (b.bottom + sy <= 0) || (maxX > 0 && b.left + sx >= maxX)) return true;
    const owner = t.parentNode;
    if (coverChecks >= COVER_CHECKS || !owner || owner.nodeType !== 1 || t.getRootNode() !== doc) return false;
    const vw = win.innerWidth; const vh = win.innerHeight;
    if (b.bottom <= 0 || b.top >= vh || b.right <= 0 || b.left >= vw) return coveredByBox(b, owner);
    coverChecks += 1;
    /* hit tests where the text shows: in the viewport and in what its scroll containers show of it */
    const l = Math.max(b.left + 1, 0, sc ? sc[0] : 0); const r = Math.min(b.right - 1, vw - 1, sc ? sc[2] - 1 : vw);
    const tp = Math.max(b.top + 1, 0, sc ? sc[1] : 0); const bt = Math.min(b.bottom - 1, vh - 1, sc ? sc[3] - 1 : vh);
    if (!coveredAt((l + r) / 2, (tp + bt) / 2, owner)) return false;
    if (!(coveredAt(l, tp, owner) && coveredAt(r, tp, owner) && coveredAt(l, bt, owner) && coveredAt(r, bt, owner))) {
      return false;
    }
    const pin = pinned(doc.elementFromPoint((l + r) / 2, (tp + bt) / 2));
    return !(pin && scrollsClear(b, pin, vh));
  };

  /* why a rendered element is hidden by geometry/paint, or '' if it is not; sets S.measure */
  const geometryHidden = (e, tag, cs, display, measure) => {
    S.measure = false;
    const ctx = S.ctx;
    const op = prop(cs, 'opacity');
    if (op === '0') return 'opacity';
    const f = prop(cs, 'filter');
    if (ctx.alpha * parseFloat(op) * (f === 'none' ? 1 : filterAlpha(f)) <= 0.05) {
      return 'opacity';
    }
    const mi = cs.maskImage || cs.webkitMaskImage;
    if (mi && mi !== 'none' && maskEmpty(mi)) return 'masked';
    const pos = prop(cs, 'position');
    if (display === 'inline' && pos === 'static' && !measure && !REPLACED.has(tag) && cs.clipPath === 'none') {
      /* a non-replaced inline box in flow: width/height/overflow/transform/clip/containment do not apply */
      return '';
    }
    if (cs.contentVisibility === 'hidden') return 'content-visibility';
    const r = rectOf(e);
    const w = r.width;
    const h = r.height;
    const clips = (w <= 1 || h <= 1) && (prop(cs, 'overflowX') !== 'visible' || prop(cs, 'overflowY') !== 'visible');
    if (w === 0 || h === 0) {
      if (w === 0 && h === 0 && !clips && !REPLACED.has(tag)) S.measure = true;  /* content may overflow */
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
    if (pos !== 'fixed' && scrolledOut(r, (pos === 'absolute' ? ctx.absScroll : ctx.scroll) || null, ctx.reach)) {
      return '';             /* scrolled out of a scroll container: scrolling brings it back */
    }
    const L = r.left + sx; const R = r.right + sx; const T = r.top + sy; const B = r.bottom + sy;
    if ((R <= minX && L < minX) || (B <= 0 && T < 0) || (maxX > 0 && L >= maxX)) return 'off-document';
    return '';
  };

  /* a visually hidden checkbox/radio/file input with a label: the label is what people click, keep the input */
  /* a file input hidden outright (display:none, hidden) behind a label: the label opens its chooser, keep the input */
  const fileViaLabel = (e, tag) => tag === 'input' && e.type === 'file' && N.labelsOf(e).length > 0;
  const rescued = (e, tag) => {
    if (tag !== 'input') return false;
    const ty = e.type;
    return (ty === 'checkbox' || ty === 'radio' || ty === 'file') && N.labelsOf(e).length > 0;
  };

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
    const name = N.accName(by, by.localName, role);
    const what = role === 'alertdialog' ? 'alert dialog' : 'dialog';
    E.openNode('p', { 'data-covered': '' });
    E.addText(S.clean('Rest of the page covered by ' + what + (name ? ' "' + S.cap(name, S.maxName) + '"' : '')));
    E.closeNode();
    S.lastSpace = true;
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

  /* the walk's root: false if it or an ancestor hides it; else S.ctx is the paint context of its place */
  const placeRoot = (root) => {
    if (root !== doc.body && root !== de) {
      /* a root inside the page: nothing if it or an ancestor hides it */
      const chain = [];
      for (let n = root.parentNode || root.host; n; n = n.parentNode || n.host) if (n.nodeType === 1) chain.push(n);
      for (let n = root; n; n = n.parentNode || n.host) {
        if (n.nodeType === 1 && (n.hasAttribute('hidden') || n.hasAttribute('inert') ||
            (n.getAttribute('aria-hidden') === 'true' && behindPopup(n)))) return false;
      }
      if (root.checkVisibility && !root.checkVisibility({ opacityProperty: true, contentVisibilityAuto: false })) {
        return false;
      }
      /* the paint context of the root's place: its ancestors' opacity and background (their clips are not
         applied) */
      let ctx = { alpha: 1, bg: canvasBg(), clip: null, absClip: null, cursor: 'auto' };
      for (let i = chain.length - 1; i >= 0; i--) {
        const a = chain[i];
        if (a === de || a === doc.body) continue;
        const acs = style(a);
        ctx = { alpha: ctx.alpha * parseFloat(acs.opacity) * filterAlpha(acs.filter), bg: bgOf(acs, ctx.bg), clip: null,
          absClip: null, cursor: acs.cursor };
      }
      S.ctx = ctx;
    } else {
      S.ctx = { alpha: 1, bg: canvasBg(), clip: null, absClip: null, cursor: 'auto' };
    }
    return true;
  };

  return { placeRoot, enter, geometryHidden, inkHidden, textOutOfSight, noteBox, rescued, fileViaLabel, modal,
    noteCovered, behindPopup, lightShown };
})
