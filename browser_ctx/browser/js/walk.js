/*
 * browser-ctx in-page walker: what a person can see of a frame (or of one element), as a tree.
 *
 * One function expression, run in a frame's isolated world (browser_ctx/browser/worlds.py), bundled by
 * scripts.bundle('walk') with the modules it uses (scripts.MODULES), each a factory in M:
 *   M.registry (js/registry.js: refs, version), M.walk_state (js/walk_state.js: options, shared helpers and
 *   state), M.emit (js/emit.js: the tree, text, generated text), M.names (js/names.js: the fallback accessible
 *   names), M.visibility (js/visibility.js: geometry, paint, covers, modals and popups), M.forms (js/forms.js:
 *   form controls), M.operable (js/operable.js: operable elements the page gave no ARIA), M.ax_computed
 *   (js/ax_computed.js: Chromium's roles and names of the kept nodes, not a factory: called on their array).
 *   walk(opts)  opts = {root?, framePrefix, maxValueChars, maxNameChars?, refBase?, maxChars?, axToken?,
 *                       withCounter?, withFacts?, listenedNone?, listened?, axNames?}
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
 * (document.title), at ([timeOrigin, performance.now()] at the walk)}.
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

  /* options read once, shared helpers, and the state the modules share (S.ctx, S.lastSpace, S.measure) */
  const S = M.walk_state(win, doc, bc, opts);
  bc.prefix = S.prefix;
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
    rest: stopped ? restHash() : '', siblingsLeft, title: String(doc.title || ''),
    at: [performance.timeOrigin, performance.now()], settled: (win.__bcSettle || {}).doc === doc ? win.__bcSettle.last : null });
  /* nodes whose semantics Python asks of Chromium's accessibility tree (opts.axToken, see
     browser_ctx/browser/semantics.py): each is marked data-ax="<index in axKept>" before its data-name,
     and the list is left on the registry (bc.axKept, read once) under the token */
  const axKept = typeof opts.axToken === 'string' ? [] : null;
  /* custom elements that may host a closed shadow root (no open root, a box, no light content shown): marked
     <bc-shadow data-host="i"> and left on the registry (bc.shadowHosts, same token) for Python to read the
     closed root through CDP and walk it (browser/closed_shadow.py) */
  const shadowHosts = axKept ? [] : null;
  /* the result: the walked tree as JSON (see the header), '' when nothing is shown */
  /* {axNames: {limit, valueRoles}} (the document's accessibility tree is held): Chromium's roles and names of the
     kept nodes are read here (js/ax_computed.js), returned as a 4th item, [wire, n, facts | null, names]; the
     kept nodes stay on the registry only when some of them are still to be asked over CDP (or names is null) */
  const done = (tree) => {
    let names = null;
    if (axKept && opts.axNames) names = M.ax_computed.call(axKept, opts.axNames.limit, opts.axNames.valueRoles);
    if (axKept) {
      bc.axKept = !names || names[1].some((row) => row[3]) ? axKept : null;
      bc.axToken = opts.axToken; bc.shadowHosts = shadowHosts;
    }
    const wire = tree ? JSON.stringify(tree) : '';
    if (opts.axNames && opts.withCounter) return [wire, bc.n, opts.withFacts ? facts() : null, names];
    return opts.withCounter ? (opts.withFacts ? [wire, bc.n, facts()] : [wire, bc.n]) : wire;
  };
  if (!root) return done(null);

  if (bc.refs.size > bc.pruneAt) {           /* forget refs of collected elements now and then */
    for (const [k, w] of bc.refs) if (!w.deref()) bc.refs.delete(k);
    bc.pruneAt = Math.max(4096, bc.refs.size * 2);
  }

  /* ---------- the modules ---------- */
  const E = M.emit(S);
  const N = M.names(S);
  const V = M.visibility(S, N, E);
  const F = M.forms(S, N, E, M.sensitive);
  const { words, DROP, style, isBlock, collapse, cap, flatChildren, refFor, maxName } = S;
  const de = S.de;
  const { openNode, closeNode, dropNode, addLeaf, addText, isEmpty, attr, valueAttr, emitText, trimTrailingSpace,
    emitPseudo, emitGraphic, textBlock } = E;
  const { accName, nameText, svgName } = N;
  const { enter, geometryHidden, inkHidden, textOutOfSight, noteBox, rescued, fileViaLabel, modal, noteCovered,
    behindPopup, lightShown } = V;
  const { formAttrs, walkOption, emitStandIn, replaced } = F;

  /* ---------- constants ---------- */
  const KEEP = words('html body main header footer nav aside section article form fieldset legend h1 h2 h3 h4 h5 ' +
    'h6 p ul ol li dl dt dd table caption thead tbody tfoot tr th td a button input select option optgroup ' +
    'textarea label img figure figcaption pre code blockquote details summary dialog br hr iframe video audio ' +
    'progress meter output address time abbr em strong');
  /* geometry (size/clip/off-document) is not tested for these: they have no box of their own or break tables */
  const NO_GEOMETRY = words('html body option optgroup tr td th thead tbody tfoot br');
  /* leaves: children are never walked */
  const LEAF = words('input textarea img iframe frame video audio progress meter canvas br hr');
  const INTERACTIVE_ROLES = words('button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio ' +
    'option combobox textbox searchbox slider spinbutton treeitem');
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
  const PRUNABLE = words('div span p em strong code abbr time');
  const ICON_TAGS = words('span i div b em a');

  /* interactive by tag or role ([contenteditable] is found by the caller's attribute scan) */
  const isInteractive = (e, tag, role) => {
    if (tag === 'a' && e.hasAttribute('href')) return true;   /* else its role decides (<a role=button>) */
    if (tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'summary') return true;
    if (tag === 'input') return e.type !== 'hidden';
    /* a data grid's cells and rows (grid/treegrid) are what people select, edit and open: each has a ref */
    if (role === 'gridcell') return true;
    if (role === 'row') return !!e.closest('[role="grid"], [role="treegrid"]');
    return role !== '' && INTERACTIVE_ROLES.has(role);
  };

  /* ---------- the walk ---------- */
  let ctlDepth = 0;         /* the page's own controls around the walk (nothing inside one is operable apart) */
  let delegRoots = 0;       /* listened-to containers around the walk (the icons inside them are operable) */
  /* elements with click, mouse, pointer or touch listeners, found over CDP before the walk (browser/listeners.py);
     {listenedNone: true}: the document has none now; {listened: token}: the set kept with that token (else throw) */
  if (opts.listenedNone) bc.listened = null;
  else if (opts.listened && bc.listenedToken !== opts.listened) throw new Error('browser-ctx: listened set not kept');
  const listened = bc.listened instanceof WeakSet ? bc.listened : null;

  const walkChildren = (e, cs, vis, measure) => {
    const kids = flatChildren(e);
    let pre = -1;
    const saved = S.ctx;
    S.ctx = enter(e, cs);
    const resets = E.enterCounters(cs);   /* resets made by the children last until this element ends */
    let ink = -1;           /* does text here paint (1), or not (0)? read at the first text that needs it */
    let seen = -1;          /* is the first text here in sight (1) or not (0)? measured once per element */
    const covered = modal !== null && e !== modal && !modal.contains(e);   /* text beside an open modal */
    if (!covered) emitPseudo(e, '::before', vis);
    for (let i = 0; i < kids.length; i++) {
      if (limit && !stopped && E.size() >= limit) stopped = true;
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
    E.leaveCounters(resets);
    S.ctx = saved;
  };

  /* an editable's text as its lines: one line per block child when it is made of lines (CodeMirror 6's
     .cm-line divs, a blank line being <div><br></div>), else innerText */
  const editorLines = (e) => {
    const kids = e.children;
    let lines = kids.length > 0;
    for (let c = e.firstChild; c && lines; c = c.nextSibling) {
      if (c.nodeType === 3 && /[^ \t\n\r\f]/.test(c.data)) lines = false;
      else if (c.nodeType === 1 && !isBlock(style(c).display)) lines = false;
    }
    if (!lines) return e.innerText || e.textContent || '';
    const out = [];
    for (let i = 0; i < kids.length; i++) out.push((kids[i].innerText || '').replace(/\n$/, ''));
    return out.join('\n');
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
      let acts = 0;   /* <text>s a user clicks (a pointer cursor the <svg> has not, or a listener): [text, element] */
      const oneImage = !!name && /^(img|image|graphics-symbol)$/.test((e.getAttribute('role') || '').trim());
      const found = e.getElementsByTagName('text');
      for (let i = 0; !oneImage && i < found.length && i < 500; i++) {
        const t = found[i];
        const ts = style(t);
        if (ts.display === 'none' || ts.visibility !== 'visible' || ts.opacity === '0' || ts.fontSize === '0px' ||
            (ts.fill === 'none' && ts.stroke === 'none') || t.closest('[aria-hidden="true"]')) continue;
        const s = collapse(t.textContent || '');
        if (!s) continue;
        const tr = t.getBoundingClientRect();
        if (tr.width < 2 || tr.height < 2) continue;   /* drawn too small to see (a folded pie menu's items) */
        const act = ctlDepth === 0 && ((ts.cursor === 'pointer' && cs.cursor !== 'pointer') ||
          (!!listened && (listened.has(t) || (!!t.parentElement && t.parentElement !== e && listened.has(t.parentElement)))));
        if (act) acts += 1;
        texts.push(act ? [s, t] : s);
      }
      if (acts) {   /* a line of its text, each clickable one with its ref: [D](e5) [L](e6) [+](e7) */
        openNode('div');
        for (const x of texts) {
          if (typeof x === 'string') { addText(x + ' '); continue; }
          const TA = {};
          attr(TA, 'data-name', cap(x[0], maxName)); attr(TA, 'data-op', 'cursor'); attr(TA, 'data-ref', refFor(x[1]));
          openNode('span', TA); addText(x[0]); closeNode(); addText(' ');
        }
        closeNode();
        S.lastSpace = true;
      } else if (texts.length) textBlock(texts.join(' '));
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
      childMeasure = S.measure;
    }
    if (ariaHidden && behindPopup(e)) return;
    const block = isBlock(display);
    noteBox(e, cs);

    /* visibility: hidden: the element itself is invisible; only visible descendants are kept */
    if (vis === 'hidden' || vis === 'collapse') {
      if (LEAF.has(tag) || tag === 'select' || tag === 'canvas') return;
      const outTag = KEEP.has(tag) ? tag : (block ? 'div' : 'span');
      openNode(outTag);
      if (block) S.lastSpace = true;
      walkChildren(e, cs, vis, childMeasure);
      if (block) trimTrailingSpace(cs);
      if (isEmpty()) dropNode();
      else closeNode();
      if (block) S.lastSpace = true;
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
      else if (fallback) textBlock(fallback);
      else emitGraphic(e, 'canvas ' + e.width + '\u00d7' + e.height + ', no text layer');
      return;
    }
    if (tag === 'iframe' || tag === 'frame') {
      const fid = e.__browserCtxFrameId;
      const A = {};
      attr(A, 'data-frame', fid == null ? '' : fid);
      const name = accName(e, tag, e.getAttribute('role'));
      if (name) attr(A, 'data-name', cap(name, maxName));
      addLeaf('bc-frame', A);
      S.lastSpace = true;
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
      op = O.why(e, tag, cs, S.ctx.cursor, opAttrs, listened, delegRoots > 0);
      if (op === 'root') { op = ''; delegRoot = true; }
      if (op) interactive = true;
    }
    /* a sprite icon (a text-less box painting a background image): an image named by its class token */
    if (!interactive && !role && !delegRoot && ICON_TAGS.has(tag)) {
      const icon = O.icon(e, cs);
      if (icon) { const IA = {}; attr(IA, 'data-icon', icon); addLeaf('img', IA); S.lastSpace = false; return; }
    }
    const A = {};
    if (viaLabel) attr(A, 'data-via', 'label');
    if (cls) {
      const toks = cls.trim().split(/\s+/, 3).join(' ');
      if (toks) attr(A, 'class', toks);
    }
    if (role) attr(A, 'role', role);
    /* the id of a block that may hold a folded run or a summarised part (2+ children, a table) names it in the
       fold or record line's one-call target ("browser_snapshot target='#orders'") */
    if (block && e.id && ID_OK.test(e.id) && (e.childElementCount >= 2 || tag === 'table' || TABLE_ROLES.has(role0))) {
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
        if (hint) {
          attr(A, 'data-hint', cap(hint[0], 80)); attr(A, 'data-hint-from', hint[1]);
          if (hint[2]) attr(A, 'data-hint-token', hint[2]);   /* the class token or id itself */
        }
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
        if (hint) {
          attr(A, 'data-hint', cap(hint[0], 80)); attr(A, 'data-hint-from', hint[1]);
          if (hint[2]) attr(A, 'data-hint-token', hint[2]);   /* the class token or id itself */
        }
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
    else if (editable) {   /* as shown: its lines kept, trailing line breaks dropped */
      const v = editorLines(e).replace(/\u200b/g, '').replace(/\n+$/, '');
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
      S.lastSpace = tag !== 'img' && tag !== 'input';
      return;
    }
    openNode(outTag, A);
    if (block) S.lastSpace = true;
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
    if (isEmpty() && PRUNABLE.has(outTag) && !role && !interactive && !named) {
      dropNode();        /* an empty wrapper shows nothing */
    } else {
      closeNode();
      if (!block && (tag === 'textarea' || tag === 'select')) S.lastSpace = false;
    }
    if (block) S.lastSpace = true;
  };
  /* ---------- the root ---------- */
  if (!V.placeRoot(root)) return done(null);
  if (root.nodeType === 1) walk(root, false);
  else if (root.nodeType === 11) {   /* a closed shadow root handed over by browser/closed_shadow.py */
    const hcs = style(root.host);
    for (let c = root.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) walk(c, false);
      else if (c.nodeType === 3 && /[^ \t\n\r\f]/.test(c.data)) emitText(c, hcs.visibility, hcs, false, -1);
    }
  }
  return done(E.tree(root));
})
