// The nodes a walk kept for semantics (browser_ctx/browser/semantics.py, kept_keys), found by the token
// the walk was given: the walker stores them on its frame's registry as window.__browserCtx.axKept with
// window.__browserCtx.axToken = token. Evaluated over CDP in the main world of a target's main frame; it
// searches that frame and every frame reachable through window.frames (cross-origin ones are skipped:
// reading them throws; an out-of-process iframe is searched through its own CDP session).
// Argument: token (string). Returns the array of kept nodes, or null when no frame holds the token.
((token) => {
  const find = (w) => {
    try {
      const bc = w.__browserCtx;
      if (bc && bc.axToken === token && Array.isArray(bc.axKept)) {
        const kept = bc.axKept;
        bc.axKept = null;  /* read once: the page keeps no reference to the nodes after this */
        return kept;
      }
    } catch (e) { /* a cross-origin frame: not ours to read from here */ }
    for (let i = 0; i < w.frames.length; i++) {
      const hit = find(w.frames[i]);
      if (hit) return hit;
    }
    return null;
  };
  return find(window);
})
