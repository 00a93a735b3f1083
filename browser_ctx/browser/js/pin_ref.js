/*
 * Give an element a ref in the registry of the world it runs in (js/registry.js), as the walk would, and return
 * it: an action resolves a selector once, to this one element, and acts on it throughout (a selector may stop
 * matching while the action runs: Radix marks everything outside its open listbox aria-hidden).
 * Bundled with js/registry.js. Arguments: el, {prefix (the frame's ref prefix, '' for the main frame), base (the
 * highest ref number the frame has handed out)}. Returns [ref, the last ref number used].
 */
((M, el, arg) => {
  const prefix = (arg && arg.prefix) || '';
  const base = arg && arg.base;
  const bc = M.registry(window, document);
  if (typeof base === 'number' && base > bc.n) bc.n = base;
  let n = bc.ids.get(el);
  if (n === undefined) {
    n = ++bc.n;
    bc.ids.set(el, n);
    bc.refs.set(n, new WeakRef(el));
  }
  return [prefix + 'e' + n, bc.n];
})
