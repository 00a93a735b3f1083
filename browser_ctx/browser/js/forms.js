/*
 * Form controls in the walked tree (a module of js/walk.js, bundled by scripts.bundle): their attributes and
 * values (sensitive ones shown only as filled/empty), <option>s, and the stand-in <select> for a trigger.
 *   forms(S, N, E, sensitive) -> F   S: the shared state (js/walk_state.js); N: js/names.js; E: js/emit.js;
 *     sensitive: js/sensitive.js (a field whose value is shown only as filled/empty)
 *   formAttrs(A, e, tag): the attributes of an input, textarea, select or button
 *   walkOption(e, tag): an <option> or <optgroup> and its options
 *   emitStandIn(sel, trigger): a hidden <select> in the place of the trigger that stands for it
 *   replaced: the triggers shown as the <select> they stand for (a WeakSet; not walked)
 */
((S, N, E, sensitive) => {
  'use strict';
  const style = S.style;
  const collapse = S.collapse;
  const clean = S.clean;
  const cap = S.cap;
  const maxName = S.maxName;
  const BUTTON_TYPES = S.BUTTON_TYPES;
  const NO_VALUE_TYPES = S.NO_VALUE_TYPES;
  const attr = E.attr;
  const valueAttr = E.valueAttr;
  const openNode = E.openNode;
  const closeNode = E.closeNode;
  const addText = E.addText;

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

  const replaced = new WeakSet();   /* triggers shown as the <select> they stand for: not walked */
  /* a hidden <select> in the place of the trigger that stands for it: one combobox, its options, both refs */
  const emitStandIn = (sel, trigger) => {
    replaced.add(trigger);
    const A = {};
    const labels = N.labelsOf(sel);   /* its label's text, not the trigger's (a label may hold both) */
    const name = (labels.length ? collapse(labels.map((l) => N.nameText(l, false, sel, trigger)).join(' ')) : '') ||
      N.accName(sel, 'select', '');
    if (name) attr(A, 'data-name', cap(name, maxName));
    attr(A, 'data-ref', S.refFor(sel));
    formAttrs(A, sel, 'select');
    attr(A, 'data-role', 'combobox');
    attr(A, 'data-trigger', S.refFor(trigger));
    const opts = [];
    for (let i = 0; i < sel.options.length && opts.length < 20; i++) opts.push(collapse(sel.options[i].text));
    attr(A, 'data-options', opts.join('\u001f'));
    openNode('select', A);
    for (let c = sel.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName === 'option' || c.localName === 'optgroup') walkOption(c, c.localName);
    }
    closeNode();
    S.lastSpace = false;
  };

  return { formAttrs, walkOption, emitStandIn, replaced };
})
