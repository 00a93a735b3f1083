// The `bcpin` selector engine, registered with content_script=true so it runs in Playwright's utility world
// (the isolated world our page-side code runs in, browser_ctx/browser/worlds.py). It hands an element that
// Playwright found over to that world, where a page's scripts cannot reach it:
//   `<selector> >> bcpin=pin:KEY`   keeps the element under KEY in globalThis.__browserCtxPins (a Map; the
//                                   script that uses it takes it out);
//   `<selector> >> bcpin=all:KEY`   appends every match to the array kept under KEY, in document order;
//   `bcpin=frame:ID` on an iframe   stores the child frame's id (f3) as the element's __browserCtxFrameId,
//                                   which the walker (walk.js) reads to label the frame's placeholder.
// Either way it matches the element itself, so Playwright's waiting and counting work as for the selector.
(() => {
  const run = (root, selector) => {
    if (!root || root.nodeType !== 1) return [];
    const m = /^(pin|all|frame):(.+)$/.exec(selector);
    if (!m) return [];
    if (m[1] !== 'frame') {
      let pins = globalThis.__browserCtxPins;
      if (!(pins instanceof Map)) {
        pins = new Map();
        Object.defineProperty(globalThis, '__browserCtxPins', { value: pins, configurable: true, writable: true,
                                                                enumerable: false });
      }
      if (m[1] === 'pin') pins.set(m[2], root);
      else if (Array.isArray(pins.get(m[2]))) pins.get(m[2]).push(root);
      else pins.set(m[2], [root]);
    } else {
      root.__browserCtxFrameId = m[2];
    }
    return [root];
  };
  return {
    query(root, selector) { return run(root, selector)[0] || null; },
    queryAll(root, selector) { return run(root, selector); },
  };
})()
