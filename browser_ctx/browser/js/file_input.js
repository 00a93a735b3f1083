// Which file input an element stands for, and what it holds. Argument: el, the element.
// Returns {how, input: {name, id, multiple, files: [[name, size in bytes], ...]} | null}: how is 'input' (a file
// input itself), 'label' (a label whose control is a file input) or '' (anything else; its click may still open
// a file chooser). name is the input's accessible label text (labels, aria-label, title, name attribute).
(el => {
  const t = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const isFile = (e) => !!e && e.localName === 'input' && (e.type || '').toLowerCase() === 'file';
  let input = null, how = '';
  if (isFile(el)) { input = el; how = 'input'; }
  else if (el.localName === 'label' && isFile(el.control)) { input = el.control; how = 'label'; }
  if (!input) return {how, input: null};
  const labels = input.labels ? Array.from(input.labels).map((l) => t(l.textContent)).filter(Boolean) : [];
  const name = t(input.getAttribute('aria-label')) || labels.join(' ') || t(input.getAttribute('title'))
    || t(input.getAttribute('name'));
  return {how, input: {name: name.slice(0, 60), id: input.id || '', multiple: input.multiple,
    files: Array.from(input.files || []).map((f) => [f.name, f.size])}};
})
