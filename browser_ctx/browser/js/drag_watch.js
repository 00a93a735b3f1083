// Watch what a drag does, from just before it until drag_stop: the HTML5 drag events that reach the document
// and the nodes added, removed or retexted. Argument: el, the drag source. Kept on
// globalThis.__browserCtxDrag of the world it runs in (our isolated world: the page cannot see it).
// Returns {draggable}: whether el (or an ancestor) is an HTML5 drag source.
(el) => {
  const old = globalThis.__browserCtxDrag;
  if (old) old.stop();
  const seen = { dragstart: 0, drop: 0, dragend: 0, mutations: 0 };
  const doc = el.ownerDocument, win = doc.defaultView;
  const count = (e) => { seen[e.type] += 1; };
  const types = ['dragstart', 'drop', 'dragend'];
  for (const t of types) win.addEventListener(t, count, true);
  const observer = new MutationObserver((records) => { seen.mutations += records.length; });
  observer.observe(doc, { subtree: true, childList: true, characterData: true });
  const stop = () => {
    for (const t of types) win.removeEventListener(t, count, true);
    for (const r of observer.takeRecords()) seen.mutations += r ? 1 : 0;
    observer.disconnect();
    delete globalThis.__browserCtxDrag;
    return seen;
  };
  Object.defineProperty(globalThis, '__browserCtxDrag', { value: { stop }, configurable: true, writable: true,
                                                          enumerable: false });
  const source = el.closest('[draggable]');
  return { draggable: !!source && source.draggable };
}
