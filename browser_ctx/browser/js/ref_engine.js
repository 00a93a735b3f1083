// The `bcref` selector engine: page.locator('bcref=e12') matches exactly the element the walker
// registered as e12 in that frame, if it is still connected to the frame's current document.
// Registered twice (refs.py): as bcref in Playwright's utility world, the isolated world the walker keeps its registry
// in (window.__browserCtx there), and as bcrefmain in the main world, for pages without CDP; loaded through
// browser_ctx/browser/scripts.py.
(() => {
  const find = (root, selector) => {
    const bc = window.__browserCtx;
    if (!bc || !bc.refs) return null;
    const m = /^\s*(f[1-9][0-9]*)?e([1-9][0-9]*)\s*$/.exec(selector);
    if (!m || (m[1] || '') !== bc.prefix) return null;
    const w = bc.refs.get(Number(m[2]));
    const el = w && w.deref();
    if (!el || !el.isConnected || el.ownerDocument !== document) return null;
    if (root && root !== document && root.nodeType !== 9) {
      let n = el;
      while (n && n !== root) n = n.parentNode || n.host;
      if (!n) return null;
    }
    return el;
  };
  return {
    query(root, selector) { return find(root, selector); },
    queryAll(root, selector) { const el = find(root, selector); return el ? [el] : []; },
  };
})()
