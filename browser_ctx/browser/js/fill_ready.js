// Ready a text input or textarea to be typed over, as Playwright's fill does (its text selected, then the
// focus in it), only when Playwright's fill would act on it now: an input of a typeable type or a textarea,
// visible, enabled, editable, not inert. Argument: el. Returns whether it did (false: nothing was done).
((el) => {
  const tag = el.localName;
  const typeable = ['', 'email', 'password', 'search', 'tel', 'text', 'url'];
  if (!el.isConnected || !(tag === 'textarea' || (tag === 'input' && typeable.includes(el.type.toLowerCase()))))
    return false;
  if (el.hasAttribute('readonly') || el.matches(':disabled')) return false;
  for (let e = el; e; e = e.parentElement || (e.parentNode && e.parentNode.host) || null)
    if (e.hasAttribute('inert') || e.getAttribute('aria-disabled') === 'true') return false;
  const style = getComputedStyle(el);
  if (style.visibility !== 'visible' || !el.checkVisibility()) return false;
  const rect = el.getBoundingClientRect();
  if (!(rect.width > 0 && rect.height > 0)) return false;
  if (tag === 'input') el.select();
  else { el.selectionStart = 0; el.selectionEnd = el.value.length; }
  el.focus();
  return true;
})
