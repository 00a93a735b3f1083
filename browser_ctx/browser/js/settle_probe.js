// Settle probe: installs (once per document) a MutationObserver kept on window.__bcSettle and returns
// [performance.timeOrigin of the document, ms since the last DOM mutation]. No arguments.
(() => {
  let w = window.__bcSettle;
  if (!w || w.doc !== document) {
    w = { doc: document, last: performance.now(), obs: null, mark: 0 };
    try {
      w.obs = new MutationObserver(() => { w.last = performance.now(); });
      w.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch (e) {}
    try { Object.defineProperty(window, '__bcSettle', { value: w, configurable: true, writable: true,
                                                        enumerable: false }); }
    catch (e) { window.__bcSettle = w; }
  }
  return [performance.timeOrigin, performance.now() - w.last];
})
