/*
 * What the walker's modules share (a module of js/walk.js, bundled by scripts.bundle): the options read once,
 * the text and DOM helpers several modules use, refs, and the state that changes as the walk goes.
 *   walk_state(win, doc, bc, opts) -> S = {win, doc, de, prefix, maxValue, maxName, words, DROP, BUTTON_TYPES,
 *     NO_VALUE_TYPES, style, isBlock, clean, collapse, cap, flatChildren, refFor,
 *     ctx, lastSpace, measure}
 *   bc: the registry (js/registry.js); opts: the walk's options (js/walk.js).
 *   refFor(e) -> e's ref ('<prefix>e<N>'), a new N the first time e is met (kept on bc.refs / bc.ids)
 * The changing state, read and written by the modules through S:
 *   ctx: the paint context of where the walk is (js/visibility.js: enter); null until the root is placed
 *   lastSpace: the output ends in whitespace or at a block boundary (js/emit.js)
 *   measure: set by geometryHidden (js/visibility.js): a zero-size box whose content may overflow, so its
 *     text is measured
 */
((win, doc, bc, opts) => {
  'use strict';
  const words = (s) => new Set(s.split(' '));
  const prefix = typeof opts.framePrefix === 'string' ? opts.framePrefix : '';
  /* not cached on purpose: thousands of retained CSSStyleDeclaration wrappers cost more in GC than a re-read */
  const style = (e) => win.getComputedStyle(e);
  const S = {
    win, doc, de: doc.documentElement, prefix,
    maxValue: opts.maxValueChars > 0 ? opts.maxValueChars : 200,
    maxName: opts.maxNameChars > 0 ? opts.maxNameChars : 200,
    words,
    DROP: words('script style template noscript head meta link base title object embed param source track ' +
                'datalist col colgroup wbr'),
    BUTTON_TYPES: words('submit reset button image'),
    NO_VALUE_TYPES: words('password hidden file checkbox radio submit reset button image'),
    style,
    isBlock: (d) => d === 'block' || d === 'flex' || d === 'grid' || d === 'list-item' || d === 'flow-root' ||
      d.startsWith('table') || d.startsWith('block ') || d.endsWith(' list-item') || d === 'flow-root list-item',
    clean: (s) => (s.indexOf('\u0000') >= 0 ? s.replace(/\u0000/g, '\uFFFD') : s),
    collapse: (s) => s.replace(/[ \t\n\r\f]+/g, ' ').trim(),
    cap: (s, n) => (s.length > n ? s.slice(0, n - 1) + '\u2026' : s),
    /* children in the flat tree: open shadow root instead of light children, slots resolved */
    flatChildren: (e) => {
      if (e.localName === 'slot' && e.assignedNodes) {
        const r = e.getRootNode();
        if (r && r.host) return e.assignedNodes({ flatten: true });
      }
      const sr = e.shadowRoot;
      return sr ? sr.childNodes : e.childNodes;
    },
    refFor: (e) => {
      let n = bc.ids.get(e);
      if (n === undefined) {
        n = ++bc.n;
        bc.ids.set(e, n);
        bc.refs.set(n, new WeakRef(e));
      }
      return prefix + 'e' + n;
    },
    ctx: null,
    lastSpace: true,
    measure: false,
  };
  return S;
})
