// What kind of control an element is and what it shows, for choosing values, typing and verify.
// Argument: el, the element. Returns {tag, type, role, kind, editable, readonly, disabled, multiple,
// expanded, controls, text, value, items}: kind is 'select' (native), 'combobox' (ARIA, editable or not),
// 'listbox', 'file', 'date' (a native date/time input), 'text' (input/textarea), 'editable'
// (contenteditable) or 'other'; value is what a person sees as the control's value (selected option
// labels, the field's text, a custom select's shown text, a multi-select's chips), items the same as a
// list, text the field's own value (an input's, for putting it back), sensitive whether that value is shown only
// as filled/empty (a password, a card number: js/sensitive.js). Takes its modules first (scripts.bundle).
((M, el) => {
  const t = (s) => (s || '').replace(/[\s\u200b]+/g, ' ').trim();
  const tag = el.localName;
  const type = tag === 'input' ? (el.type || 'text').toLowerCase() : '';
  const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  const dates = ['date', 'time', 'datetime-local', 'month', 'week'];
  const doc = el.ownerDocument;
  const byId = (id) => (id ? doc.getElementById(id) : null);
  const idsText = (attr) => (el.getAttribute(attr) || '').split(/\s+/).map(byId).filter(Boolean);
  /* text of a node without the texts the field points to as its description (react-select's placeholder) */
  const described = idsText('aria-describedby');
  const shownText = (node) => {
    const parts = [];
    const walk = (n) => {
      if (n.nodeType === 3) { parts.push(n.data); return; }
      if (n.nodeType !== 1 || described.includes(n)) return;
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden') return;
      if (n.getAttribute('aria-hidden') === 'true' && n !== node) return;
      const block = cs.display !== 'inline' && cs.display !== 'contents';
      if (block) parts.push('\n');
      for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
      if (block) parts.push('\n');
    };
    walk(node);
    return parts.join('').split('\n').map(t).filter(Boolean);
  };
  let kind = 'other';
  if (tag === 'select') kind = 'select';
  else if (type === 'file') kind = 'file';
  else if (dates.includes(type)) kind = 'date';
  else if (role === 'combobox') kind = 'combobox';
  else if (role === 'listbox') kind = 'listbox';
  else if (tag === 'textarea' || (tag === 'input' && !['checkbox', 'radio', 'button', 'submit', 'reset',
    'image', 'hidden', 'range', 'color'].includes(type))) kind = 'text';
  else if (el.isContentEditable) kind = 'editable';
  const field = tag === 'input' || tag === 'textarea';
  const editable = (field && !el.readOnly && !el.disabled) || (!field && el.isContentEditable);
  const disabled = el.disabled === true || el.getAttribute('aria-disabled') === 'true'
    || !!el.closest('fieldset[disabled]');
  const readonly = (field && el.readOnly) || el.getAttribute('aria-readonly') === 'true';
  let items = [];
  if (tag === 'select') {
    items = Array.from(el.selectedOptions).map((o) => t(o.label || o.text));
  } else if (role === 'listbox') {
    items = Array.from(el.querySelectorAll('[role=option][aria-selected=true],[role=option][aria-checked=true]'))
      .map((o) => t(o.getAttribute('aria-label') || o.innerText));
  } else if (field && el.type === 'password') {
    items = el.value ? ['(filled)'] : [];
  } else if (field && t(el.value)) {
    items = [el.value];
  } else if (field && role === 'combobox') {
    /* an empty editable combobox (react-select and the like) shows its value around the input: the
       closest container with text of its own that holds no other field or label */
    for (let a = el.parentElement, up = 0; a && up < 4; a = a.parentElement, up++) {
      if (a.matches('form, label, fieldset') || a.querySelector('label')) break;
      if (Array.from(a.querySelectorAll('input, select, textarea')).some((f) => f !== el && f.type !== 'hidden')) break;
      const seen = shownText(a);
      if (seen.length) { items = seen; break; }
    }
  } else if (field) {
    items = [];
  } else {
    items = shownText(el);
  }
  const placeholder = el.hasAttribute('data-placeholder');
  return {
    tag, type, role, kind, editable, readonly, disabled,
    text: field && type !== 'password' ? el.value : '',
    sensitive: field && (type === 'password' || M.sensitive(el)),
    multiple: tag === 'select' ? el.multiple : el.getAttribute('aria-multiselectable') === 'true',
    expanded: el.getAttribute('aria-expanded') === 'true',
    controls: el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '',
    value: placeholder ? '' : items.join(', '),
    items: placeholder ? [] : items,
  };
})
