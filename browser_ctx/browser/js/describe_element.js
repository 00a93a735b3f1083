// Describe one element in a few words for messages: [role, accessible name (at most 50 characters)].
// Argument: el, the element. Returns [role, name].
(el => {
  const t = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  const field = tag === 'input' || tag === 'select' || tag === 'textarea';
  let role = el.getAttribute('role');
  if (!role) {
    if (tag === 'input') role = ({checkbox: 'checkbox', radio: 'radio', range: 'slider', button: 'button',
      submit: 'button', reset: 'button', search: 'searchbox', password: 'password'})[type] || 'textbox';
    else role = ({a: 'link', select: 'combobox', textarea: 'textbox'})[tag] || tag;
  }
  const labels = el.labels ? Array.from(el.labels).map((l) => t(l.innerText)).join(' ') : '';
  let name = t(el.getAttribute('aria-label')) || labels || (field ? '' : t(el.innerText))
    || t(el.getAttribute('placeholder')) || t(el.getAttribute('title')) || t(el.getAttribute('alt'))
    || (role === 'button' ? t(el.value) : '') || t(el.getAttribute('name'));
  if (name.length > 50) name = name.slice(0, 49) + '\u2026';
  return [role, name];
})
