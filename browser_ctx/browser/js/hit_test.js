// The element at a viewport point (CSS px), looked through open shadow roots, described for an action record,
// with a ref registered for it in this frame's registry (as the walker registers them). Arguments: M, the
// modules {registry, describe} (js/registry.js, js/describe_element.js); pt {x, y}. Returns null when nothing
// is there (outside the viewport), else {role, name, ref, tag}.
(M, pt) => {
  let el = document.elementFromPoint(pt.x, pt.y);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(pt.x, pt.y);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (!el) return null;
  const bc = M.registry(window, document);
  let n = bc.ids.get(el);
  if (n === undefined) {
    n = ++bc.n;
    bc.ids.set(el, n);
    bc.refs.set(n, new WeakRef(el));
  }
  const [role, name] = M.describe(el);
  return { role, name, ref: bc.prefix + 'e' + n, tag: el.localName };
}
