// Register a ref for one element in its frame's registry, as the walker registers the elements it shows: for an
// answer listing several matches, so each can be acted on by its ref. Arguments: M, the modules {registry}
// (js/registry.js); el, the element. Returns [ref, its number].
(M, el) => {
  const bc = M.registry(window, el.ownerDocument);
  let n = bc.ids.get(el);
  if (n === undefined) {
    n = ++bc.n;
    bc.ids.set(el, n);
    bc.refs.set(n, new WeakRef(el));
  }
  return [(bc.prefix || '') + 'e' + n, n];
}
