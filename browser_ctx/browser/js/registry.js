/*
 * The per-document registry of browser-ctx's page-side code, in the world it runs in (the isolated world):
 *   registry(win, doc) -> bc = {schema, refs: Map N -> WeakRef(element), ids: WeakMap element -> N, n (last ref
 *   number), prefix, version (MutationObserver callback count), observer, observed, pruneAt}
 * Created on first use (not enumerable on window), and the mutation observer (re)installed once per document.
 * A module of the walker and of page_version (scripts.bundle).
 */
((win, doc) => {
  let bc = win.__browserCtx;
  if (!bc || bc.schema !== 1) {
    bc = { schema: 1, refs: new Map(), ids: new WeakMap(), n: 0, prefix: '', version: 0,
           observer: null, observed: null, pruneAt: 4096 };
    try {
      Object.defineProperty(win, '__browserCtx', { value: bc, configurable: true, writable: true, enumerable: false });
    } catch (e) {
      win.__browserCtx = bc;
    }
  }
  if (bc.observed !== doc) {
    try {
      if (bc.observer) bc.observer.disconnect();
      bc.observer = new MutationObserver(() => { bc.version += 1; });
      bc.observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
      bc.observed = doc;
    } catch (e) { /* no document yet: try again on the next call */ }
  }
  return bc;
})
