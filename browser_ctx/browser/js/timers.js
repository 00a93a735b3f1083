// Keeps the page's own setTimeout from before the page's scripts run (an init script in every frame's main world,
// added by browser/session.py) as window.__browserCtxSetTimeout: not writable, not configurable, not enumerable,
// so a page that later stubs or replaces setTimeout cannot stall browser_evaluate's wait for CSP reports
// (js/evaluate.js). Once per document.
(() => {
  if (Object.prototype.hasOwnProperty.call(window, '__browserCtxSetTimeout')) return;
  Object.defineProperty(window, '__browserCtxSetTimeout', {
    value: window.setTimeout, writable: false, configurable: false, enumerable: false,
  });
})
