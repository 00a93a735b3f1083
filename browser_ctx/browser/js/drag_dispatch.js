// HTML5 drag and drop by dispatched events, for pages whose drag the browser's mouse drag did not start:
// dragstart and drag on the source, dragenter and dragover on the element under the target's centre, then drop
// there if a dragover was cancelled (the page accepts the drop; else dragleave), and dragend, all sharing one
// DataTransfer so what dragstart sets, drop reads. Arguments: src, the source element; key, the pin the target
// element was kept under (globalThis.__browserCtxPins, js/pin_engine.js). Returns 'dropped', 'refused' (no
// dragover was cancelled), 'cancelled' (dragstart was) or 'no-target'.
(src, key) => {
  const pins = globalThis.__browserCtxPins;
  const dst = pins && pins.get(key);
  if (pins) pins.delete(key);
  if (!dst || !dst.isConnected) return 'no-target';
  const centre = (el) => {
    const r = el.getBoundingClientRect();
    return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  };
  const dt = new DataTransfer();
  const fire = (el, type, at) => {
    const ev = new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt, ...at });
    el.dispatchEvent(ev);
    return ev.defaultPrevented;
  };
  const a = centre(src), b = centre(dst);
  const hit = dst.ownerDocument.elementFromPoint(b.clientX, b.clientY);
  const over = hit && dst.contains(hit) ? hit : dst;
  if (fire(src, 'dragstart', a)) return 'cancelled';
  fire(src, 'drag', a);
  fire(over, 'dragenter', b);
  let accepted = false;
  for (let i = 0; i < 3; i++) accepted = fire(over, 'dragover', b) || accepted;
  if (accepted) fire(over, 'drop', b);
  else fire(over, 'dragleave', b);
  fire(src, 'dragend', b);
  return accepted ? 'dropped' : 'refused';
}
