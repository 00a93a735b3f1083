// Describe one element in a few words for messages: [role, accessible name (at most 50 characters)].
// Argument: el, the element. Returns [role, name]. Text comes from the DOM, not from innerText, so CSS
// text-transform (an upper-case MUI button) does not change the name, as in the accessibility tree.
(el => {
  const t = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const shown = (node) => {
    let s = '';
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) s += c.data;
      else if (c === el) continue; // a label's own control is not part of its name (as in Chromium's)
      else if (c.localName === 'select') s += ' ' + (c.selectedOptions[0] ? c.selectedOptions[0].text : '') + ' ';
      else if (c.nodeType === 1 && c.getAttribute('aria-hidden') !== 'true') {
        const cs = getComputedStyle(c);
        if (cs.display === 'none' || cs.visibility === 'hidden') continue;
        s += (cs.display === 'inline' ? '' : ' ') + shown(c) + (cs.display === 'inline' ? '' : ' ');
      }
    }
    return s;
  };
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  const field = tag === 'input' || tag === 'select' || tag === 'textarea';
  let role = el.getAttribute('role');
  if (!role) {
    if (tag === 'input') role = ({checkbox: 'checkbox', radio: 'radio', range: 'slider', button: 'button',
      submit: 'button', reset: 'button', search: 'searchbox', password: 'password', file: 'file input'})[type]
      || 'textbox';
    else role = ({a: 'link', select: 'combobox', textarea: 'textbox'})[tag] || tag;
  }
  const byIds = (attr) => (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)
    .map((id) => el.ownerDocument.getElementById(id)).filter(Boolean).map((n) => t(shown(n))).join(' ');
  const labels = el.labels ? Array.from(el.labels).map((l) => t(shown(l))).join(' ') : '';
  let name = t(el.getAttribute('aria-label')) || t(byIds('aria-labelledby')) || labels || (field ? '' : t(shown(el)))
    || t(el.getAttribute('placeholder')) || t(el.getAttribute('title')) || t(el.getAttribute('alt'))
    || (role === 'button' ? t(el.value) : '') || t(el.getAttribute('name'));
  if (name.length > 50) name = name.slice(0, 49) + '\u2026';
  return [role, name];
})
