// Chromium's role and accessible name of the nodes a walk kept (browser_ctx/browser/semantics.py,
// computed_semantics), read in the page through Element.computedRole / computedName: the same values as
// Accessibility.getPartialAXTree, from the same accessibility tree, without one CDP message per node.
// Chromium exposes them with --enable-blink-features=ComputedAccessibilityInfo; they are fast only once a
// CDP query has had the document's accessibility tree built (semantics.hold_tree), else each read builds
// the whole tree again, so the loop gives up (null) when the reads are slow.
// Called on the kept array (this; found by js/ax_kept.js). Arguments: limit (read the first this many; null:
// all), valueRoles (roles whose value only the CDP answer carries). Returns null (no such API, or too slow),
// else [number of kept nodes, [[index, role, name, ask], ...]] where ask is true for a node whose CDP answer
// says more than its name (a value, an invalid state, a name from title or placeholder, a node it may ignore:
// not rendered, hidden, inert, presentational; not a native select: the walk reads its selected option).
(function (limit, valueRoles) {
  if (typeof Element === 'undefined' || !('computedName' in Element.prototype)) return null;
  const kept = this;
  const roles = new Set(valueRoles);
  /* Chromium ignores a node that is not rendered (a file input behind its label), under aria-hidden or inert,
     outside an open modal dialog, or presentational, and the walk then keeps its own name; computedName does
     not say "ignored", so such nodes are asked over CDP */
  const modals = new Map();  /* document -> whether it shows a modal dialog */
  const modal = (doc) => {
    if (!modals.has(doc)) {
      try { modals.set(doc, !!doc.querySelector(':modal')); } catch (e) { modals.set(doc, true); }
    }
    return modals.get(doc);
  };
  const hidden = (e) => {
    for (let n = e; n; n = n.parentElement || (n.getRootNode && n.getRootNode().host) || null) {
      if (n.nodeType === 1 && (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('inert'))) return true;
    }
    return false;
  };
  const unrendered = (e) => typeof e.checkVisibility === 'function' && !e.checkVisibility({visibilityProperty: true});
  const out = [];
  const t0 = performance.now();
  for (let i = 0; i < kept.length; i++) {
    if (limit !== null && out.length >= limit) break;
    const e = kept[i];
    if (!e || e.nodeType !== 1) continue;  /* not instanceof: a node of a child frame has its own Element */
    const role = e.computedRole || '';
    const name = e.computedName || '';
    const ask = modal(e.ownerDocument) || (roles.has(role) && e.localName !== 'select') || role === 'none' ||
      hidden(e) || unrendered(e) || e.hasAttribute('aria-invalid') || (e.validity !== undefined && !e.validity.valid) ||
      (!name.trim() && (e.hasAttribute('title') || e.hasAttribute('placeholder')));
    out.push([i, role, name, ask]);
    if (performance.now() - t0 > 25 + 2 * out.length) return null;  /* slow: the tree is not held */
  }
  return [kept.length, out];
})
