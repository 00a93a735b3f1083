/*
 * Keep the elements Python found with click, mouse, pointer or touch listeners (CDP DOMDebugger.getEventListeners,
 * browser/listeners.py) on the registry of the world it runs in, for the walk (bc.listened, a WeakSet), with the
 * token the walk is told to expect (bc.listenedToken: a walk told another one was not given this set).
 * Bundled with js/registry.js. Arguments: the token, then the elements (any number). Returns how many were kept.
 */
((M, token, ...nodes) => {
  const bc = M.registry(window, document);
  bc.listened = new WeakSet(nodes.filter((n) => n && n.nodeType === 1));
  bc.listenedToken = token;
  return nodes.length;
})
