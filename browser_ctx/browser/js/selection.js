// The selected text: in the focused input or textarea (null for a password), else the document's selection.
() => {
  const a = document.activeElement;
  if (a && (a.localName === 'input' || a.localName === 'textarea')) {
    if (a.type === 'password' || typeof a.selectionStart !== 'number') return null;
    return a.value.slice(a.selectionStart, a.selectionEnd);
  }
  const s = getSelection();
  return s ? s.toString() : null;
}
