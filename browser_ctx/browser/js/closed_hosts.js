// The custom elements a walk marked as possible hosts of a closed shadow root (browser_ctx/browser/
// closed_shadow.py), found by the walk's token on the registry of the world it ran in. Evaluated over CDP in
// that world. Argument: token (string). Returns the array (read once), or null.
((token) => {
  const bc = window.__browserCtx;
  if (!bc || bc.axToken !== token || !Array.isArray(bc.shadowHosts)) return null;
  const hosts = bc.shadowHosts;
  bc.shadowHosts = null;
  return hosts;
})
