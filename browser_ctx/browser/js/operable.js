/*
 * Operable elements the page gave no ARIA (a module of js/walk.js, bundled by scripts.bundle): what a user
 * could click or drag though the accessibility tree does not say so, a name for it, and the state its own
 * markup shows.
 *   operable(win) -> {why, handleName, hint, classStates, slider}
 *   why(e, tag, cs, parentCursor, attrs, listened, delegated) -> '' | 'onclick' | 'tabindex' | 'draggable' |
 *     'cursor' | 'listener' | 'delegated' | 'root' ('root': listened to, but too large to be one control: a
 *     container whose listener serves the icons inside it, which are then 'delegated'; so is a plain list
 *     item, no control inside, whose list is listened to: a jQuery UI sortable's)
 *     attrs: {onclick, tabindex, draggable} from the walker's attribute scan; listened: a WeakSet of elements
 *     with click, mouse, pointer or touch listeners (CDP DOMDebugger.getEventListeners; browser/listeners.py);
 *     delegated: the walk is inside a 'root'
 *   label(e) -> the text before e's first block or list child (a tree item's own label), '' when none
 *   handleName(e) -> a name from the element's own markup: an SVG <title>, <use href="#icon-star"> ("star"),
 *     an image's alt, '' when none
 *   hint(e) -> [words, source, token]: words from its class or id ('like', 'slider handle'), where they came
 *     from ('class', 'id') and the class token or id itself ('like', 'ui-slider-handle'), or null; a class
 *     token extending one of its own that names nothing comes first (ui-icon-disk beside ui-icon), then one no
 *     same-tag sibling shares; then a naming data attribute (['#e60000', 'attr', 'data-value']: Quill's colour
 *     swatches), a swatch's painted colour (['rgb(230, 0, 0)', 'colour', '']), a shared class token (jQuery
 *     UI's ui-spinner-button on both arrows), the id
 *   icon(e, cs) -> the class token of a text-less element of at most 64 px a side whose box paints a background
 *     image (a sprite icon: 'ui-icon-disk'), '' when e is not one
 *   classStates(e) -> state words its class words say ('collapsed folder'), '' when none
 *   slider(e) -> the position of a slider handle along its track ('42%'), or '' when e is not one
 *   replacement(select) -> the visible element a hidden <select> is shown by (a trigger of Selectric, Select2,
 *     Chosen, nice-select …: a sibling, or its wrapper's sibling, showing the selected option), or null
 *   standsFor(e) -> the hidden <select> a trigger stands for (its previous sibling, or the one select inside it),
 *     when e's class says it is one (select, chosen, dropdown, combo); else null
 *   editor(e, cls) -> 'codemirror5' | 'monaco' for a code editor whose keys go to a hidden textarea, else ''
 *   editorText(e, kind) -> the editor's text, its lines joined by '\n' (only the lines it has rendered)
 */
((win) => {
  const words = (s) => new Set(s.split(' '));
  /* tags never made operable here: structure, text blocks of their own, form parts */
  const NOT_OPERABLE = words('html body main header footer nav aside section article form fieldset legend table ' +
    'thead tbody tfoot tr ul ol dl label option optgroup br hr iframe frame video audio canvas dialog details ' +
    'summary h1 h2 h3 h4 h5 h6 pre code blockquote figure figcaption');
  const CLICK_EVENTS = words('click dblclick mousedown mouseup pointerdown pointerup touchstart touchend');
  /* class-word parts that name a library or a styling role, not what the element does */
  const STOP = words('fa fas far fab fal bi ti mdi ql ui icon icons glyphicon material symbols btn button js is has ' +
    'c o u l el k ant mat v el-icon svg img image sprite small large lg sm xs md widget corner all tl tr bl br ' +
    'top bottom left right state default hover focus front clearfix helper only content horizontal vertical');
  const STATES = [
    [words('expanded open opened collapsable is-open is-expanded'), 'expanded'],
    [words('collapsed closed expandable is-closed is-collapsed'), 'collapsed'],
    [words('folder dir directory'), 'folder'],
    [words('file'), 'file'],
    [words('selected is-selected'), 'selected'],
    [words('active is-active current'), 'active'],
    [words('pressed is-pressed on toggled'), 'pressed'],
    [words('checked is-checked'), 'checked'],
    [words('disabled is-disabled'), 'disabled'],
  ];
  /* small enough to be one control: a few elements, a line or two of text */
  const small = (e) => e.getElementsByTagName('*').length <= 15 && (e.textContent || '').length <= 300;
  /* an icon: no text of its own, a class saying what it is, a box of at most 64 px a side */
  const iconLike = (e) => {
    if ((e.textContent || '').trim().length > 2 || !e.getAttribute('class')) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.width <= 64 && r.height <= 64;
  };
  const classWords = (e) => {
    const c = e.getAttribute('class');
    return c ? c.trim().split(/\s+/) : [];
  };
  /* whether e's same-tag siblings (at most 12 looked at) have class token t too: every one of them (at least
     one) when ``all``, else any */
  const sharedBySiblings = (e, t, all) => {
    const up = e.parentElement;
    if (!up) return false;
    let seen = 0;
    for (let c = up.firstElementChild; c && seen < 12; c = c.nextElementSibling) {
      if (c === e || c.localName !== e.localName) continue;
      seen += 1;
      if (c.classList.contains(t) !== all) return !all;
    }
    return all && seen > 0;
  };
  /* data attributes that say what a text-less control stands for, most telling first */
  const NAME_DATA = ['data-label', 'data-title', 'data-tooltip', 'data-original-title', 'data-color', 'data-colour',
    'data-value'];
  /* the painted colour of a text-less box of at most 64 px a side that paints no image (a colour swatch), when
     a same-tag sibling paints another one; else '' */
  const swatchColour = (e) => {
    if (e.firstElementChild || /\S/.test(e.textContent || '')) return '';
    const paint = (c) => {
      const cs = win.getComputedStyle(c);
      return cs.backgroundImage === 'none' ? cs.backgroundColor : '';
    };
    const own = paint(e);
    if (!own || own === 'transparent' || own === 'rgba(0, 0, 0, 0)') return '';
    const r = e.getBoundingClientRect();
    if (r.width < 4 || r.height < 4 || r.width > 64 || r.height > 64) return '';
    const up = e.parentElement;
    let seen = 0;
    for (let c = up ? up.firstElementChild : null; c && seen < 12; c = c.nextElementSibling) {
      if (c === e || c.localName !== e.localName) continue;
      seen += 1;
      if (paint(c) !== own) return own;
    }
    return '';
  };
  const phrase = (token) => {
    const parts = token.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[-_\s]+/).filter((p) => p);
    while (parts.length && STOP.has(parts[0])) parts.shift();
    const kept = parts.filter((p) => !STOP.has(p) && !/^\d+$/.test(p) && p.length > 1);
    return kept.join(' ');
  };
  return {
    CLICK_EVENTS,
    why(e, tag, cs, parentCursor, attrs, listened, delegated) {
      if (NOT_OPERABLE.has(tag)) return '';
      if (attrs.onclick) return 'onclick';
      if (attrs.tabindex >= 0 && tag !== 'a' && small(e)) return 'tabindex';
      if (attrs.draggable) return 'draggable';
      const heard = !!listened && listened.has(e);
      if ((heard || (cs.cursor === 'pointer' && parentCursor !== 'pointer')) && !small(e)) {
        return tag === 'li' ? (heard ? 'listener' : 'cursor') : (heard ? 'root' : '');
      }
      if (cs.cursor === 'pointer' && parentCursor !== 'pointer') return 'cursor';
      if (heard) return 'listener';
      if (delegated && iconLike(e)) return 'delegated';
      /* an item of a list whose own listener serves its items (a jQuery UI sortable, a delegated menu) */
      const up = e.parentElement;
      if (tag === 'li' && listened && up && listened.has(up) && small(e) &&
          !e.querySelector('a[href], button, input, select, textarea, [role], [tabindex]')) return 'delegated';
      return '';
    },
    label(e) {
      let s = '';
      for (let c = e.firstChild; c && s.length < 200; c = c.nextSibling) {
        if (c.nodeType === 3) s += c.data;
        else if (c.nodeType === 1) {
          const d = win.getComputedStyle(c).display;
          if (d !== 'inline' && d !== 'inline-block') { if (s.trim()) break; else continue; }
          s += ' ' + (c.textContent || '') + ' ';
        }
      }
      return s.replace(/\s+/g, ' ').trim();
    },
    handleName(e) {
      const svg = e.localName === 'svg' ? e : e.querySelector('svg');
      if (svg) {
        const t = svg.querySelector('title');
        if (t && t.textContent.trim()) return t.textContent.trim();
        const use = svg.querySelector('use');
        const ref = use && (use.getAttribute('href') || use.getAttribute('xlink:href'));
        if (ref && ref.indexOf('#') >= 0) {
          const p = phrase(ref.slice(ref.indexOf('#') + 1));
          if (p) return p;
        }
      }
      const img = e.localName === 'img' ? e : e.querySelector('img[alt]');
      if (img) {
        const alt = (img.getAttribute('alt') || '').trim();
        if (alt) return alt;
      }
      return '';
    },
    hint(e) {
      const all = classWords(e);
      /* the most specific first: a token extending one of its own that names nothing (ui-icon-disk beside ui-icon) */
      const ext = (t) => all.some((u) => u !== t && t.startsWith(u + '-') && !phrase(u));
      const tokens = all.filter(ext).concat(all.filter((t) => !ext(t)));
      for (let i = 0; i < tokens.length; i++) {
        const p = phrase(tokens[i]);
        if (p && !sharedBySiblings(e, tokens[i], false)) return [p, 'class', tokens[i]];
      }
      for (const a of NAME_DATA) {   /* a swatch or a picker item: what its own data attribute says it stands for */
        const v = (e.getAttribute(a) || '').replace(/\s+/g, ' ').trim();
        if (v && v.length <= 80) return [v, 'attr', a];
      }
      const swatch = swatchColour(e);
      if (swatch) return [swatch, 'colour', ''];
      for (let i = 0; i < tokens.length; i++) {   /* one some same-tag siblings share (Quill's ql-primary) */
        const p = phrase(tokens[i]);
        if (p && !sharedBySiblings(e, tokens[i], true)) return [p, 'class', tokens[i]];
      }
      for (let i = 0; i < all.length; i++) {   /* each shared by every same-tag sibling: the first, as written */
        const p = phrase(all[i]);
        if (p) return [p, 'class', all[i]];
      }
      if (e.id) {
        const p = phrase(e.id);
        if (p) return [p, 'id', e.id];
      }
      return null;
    },
    icon(e, cs) {
      if (e.firstElementChild || cs.backgroundImage === 'none' || !e.getAttribute('class') ||
          /[^ \t\n\r\f\u00a0]/.test(e.textContent || '')) return '';
      const r = e.getBoundingClientRect();
      if (r.width < 4 || r.height < 4 || r.width > 64 || r.height > 64) return '';
      const h = this.hint(e);
      return h && h[1] === 'class' ? h[2] : '';
    },
    classStates(e) {
      const own = classWords(e).map((t) => t.toLowerCase());
      const kids = [];
      if (e.localName === 'li') {
        for (let c = e.firstElementChild, k = 0; c && k < 4; c = c.nextElementSibling, k++) {
          for (const t of classWords(c)) kids.push(t.toLowerCase());
        }
      }
      const found = [];
      for (const [set, word] of STATES) {
        const inKids = (word === 'folder' || word === 'file') && kids.some((t) => set.has(t));
        if (own.some((t) => set.has(t)) || inKids) {
          if (!found.includes(word) && !(word === 'file' && found.includes('folder'))) found.push(word);
        }
      }
      /* a tree item's label (its li's first child) says nothing: the li's own words do (treeview's expandable) */
      const up = e.parentElement;
      if (!found.includes('expanded') && !found.includes('collapsed') && up && up.localName === 'li' &&
          up.firstElementChild && (up.firstElementChild === e || up.firstElementChild.nextElementSibling === e)) {
        const words2 = classWords(up).map((t) => t.toLowerCase());
        for (const [set, word] of STATES.slice(0, 2)) if (words2.some((t) => set.has(t))) { found.unshift(word); break; }
      }
      if (found.includes('expanded') && found.includes('collapsed')) found.splice(found.indexOf('expanded'), 1);
      return found.join(' ');
    },
    replacement(sel) {
      const chosen = sel.selectedOptions && sel.selectedOptions[0];
      const shown = chosen ? (chosen.text || '').replace(/\s+/g, ' ').trim() : '';
      const up = sel.parentElement;
      const cands = [sel.nextElementSibling, up && up.nextElementSibling, sel.previousElementSibling];
      for (let i = 0; i < cands.length; i++) {
        const c = cands[i];
        if (!c || c.localName === 'select' || c.localName === 'option' || c.localName === 'script') continue;
        const r = c.getBoundingClientRect();
        const cs = win.getComputedStyle(c);
        if (r.width < 4 || r.height < 4 || cs.visibility !== 'visible' || cs.display === 'none') continue;
        const text = (c.innerText || '').replace(/\s+/g, ' ').trim();
        const looks = /select|chosen|dropdown|combo/i.test(c.getAttribute('class') || '');
        if ((shown && text.indexOf(shown) >= 0 && text.length <= shown.length + 40) || looks) return c;
      }
      return null;
    },
    standsFor(e) {
      if (!/select|chosen|dropdown|combo/i.test(e.getAttribute('class') || '')) return null;
      const prev = e.previousElementSibling;
      if (!prev) return null;
      let sel = prev.localName === 'select' ? prev : null;
      if (!sel && prev.getElementsByTagName('*').length <= 40) {
        const found = prev.getElementsByTagName('select');
        sel = found.length === 1 ? found[0] : null;
      }
      if (!sel) return null;
      const r = sel.getBoundingClientRect();
      const w = prev.getBoundingClientRect();   /* a wrapper that hides it: no box, or clipped to a pixel */
      const hidden = r.width <= 1 || r.height <= 1 || (sel.checkVisibility && !sel.checkVisibility()) ||
        (prev !== sel && (w.width <= 1 || w.height <= 1));
      return hidden ? sel : null;
    },
    editor(e, cls) {
      if (!cls) return '';
      const c = ' ' + cls + ' ';
      if (c.indexOf(' CodeMirror ') >= 0 && e.querySelector('textarea')) return 'codemirror5';
      if (c.indexOf(' monaco-editor ') >= 0 && e.querySelector('textarea')) return 'monaco';
      return '';
    },
    editorText(e, kind) {
      const clean = (s) => s.replace(/\u200b/g, '').replace(/\u00a0/g, ' ');
      if (kind === 'codemirror5') {
        return Array.from(e.querySelectorAll('.CodeMirror-code .CodeMirror-line, .CodeMirror-code pre'))
          .filter((l, i, all) => all.indexOf(l) === i && !l.closest('.CodeMirror-gutters'))
          .map((l) => clean(l.textContent || '')).join('\n');
      }
      const lines = Array.from(e.querySelectorAll('.view-lines .view-line'));
      lines.sort((a, b) => (parseFloat(a.style.top) || 0) - (parseFloat(b.style.top) || 0));
      return lines.map((l) => clean(l.textContent || '')).join('\n');
    },
    slider(e) {
      const cls = (e.getAttribute('class') || '').toLowerCase();
      if ((cls.indexOf('handle') < 0 && cls.indexOf('thumb') < 0 && cls.indexOf('knob') < 0) ||
          cls.indexOf('sortable') >= 0) return '';   /* a sortable's item (ui-sortable-handle) is no slider's */
      const onTrack = (n) => /slider|range|track/i.test(n.getAttribute('class') || '');
      let track = e.parentElement;
      for (let k = 0; track && k < 3 && !onTrack(track); k++) track = track.parentElement;
      if (!track || !onTrack(track)) return '';
      const t = track.getBoundingClientRect();
      const h = e.getBoundingClientRect();
      if (t.width <= 0 && t.height <= 0) return '';
      const vertical = t.height > t.width * 1.5;
      const at = vertical ? (t.bottom - (h.top + h.height / 2)) / t.height
        : ((h.left + h.width / 2) - t.left) / t.width;
      return Math.round(Math.max(0, Math.min(1, at)) * 100) + '%';
    },
  };
})
