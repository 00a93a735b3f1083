/*
 * Keep the elements Python found with click, mouse, pointer or touch listeners (CDP DOMDebugger.getEventListeners,
 * browser/listeners.py) on the registry of the world it runs in, for the walk (bc.listened, a WeakSet).
 * Bundled with js/registry.js. Arguments: the elements (any number). Returns how many were kept.
 */
((M, ...nodes) => {
  const bc = M.registry(window, document);
  bc.listened = new WeakSet(nodes.filter((n) => n && n.nodeType === 1));
  return nodes.length;
})
