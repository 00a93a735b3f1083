// The `bcref` selector engine: page.locator('bcref=e12') matches exactly the element the extractor
// registered as e12 in that frame, if it is still connected to the frame's current document.
// Runs in the page's main world (it reads window.__browserCtx). Registered by
// browser_ctx/browser/extract.py's register_ref_engine; loaded through browser_ctx/browser/scripts.py.
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
