/*
 * The walker's own accessible names (a module of js/walk.js, bundled by scripts.bundle): accname 1.2,
 * simplified. The fallback for where Chromium's names (browser/semantics.py) are not asked for or not given.
 *   names(S) -> N   S: the shared state (js/walk_state.js)
 *   accName(e, tag, role) -> the accessible name of e, '' when it has none
 *   nameText(start, includeHidden, skip, skip2?) -> the text of a subtree for a name (skip, skip2: controls to
 *     omit)
 *   svgName(e) -> an <svg>'s name (aria-labelledby, aria-label, <title>, title), '' when none
 *   labelsOf(e) -> the <label>s of a control (from one index per tree)
 */
((S) => {
  'use strict';
  const doc = S.doc;
  const style = S.style;
  const collapse = S.collapse;
  const flatChildren = S.flatChildren;
  const isBlock = S.isBlock;
  const DROP = S.DROP;
  const BUTTON_TYPES = S.BUTTON_TYPES;
  const NO_VALUE_TYPES = S.NO_VALUE_TYPES;
  const maxName = S.maxName;
  const CONTENT_NAME_ROLES = S.words('button link checkbox radio switch tab menuitem menuitemcheckbox ' +
    'menuitemradio option treeitem cell columnheader rowheader heading tooltip');

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

  return { accName, nameText, svgName, labelsOf };
})
