// The nodes of a walk's kept array (found by its token, as js/ax_kept.js finds it, and read once) at the indexes
// given, as a new array (null past its end), for browser_ctx/browser/semantics.py to ask about over CDP.
// Evaluated over CDP in the world the walk ran in. Arguments: token (string), wanted (indexes). Returns the
// array, or null when no frame holds the token.
((M, token, wanted) => {
  const kept = M.ax_kept(token);
  return kept ? wanted.map((i) => (i < kept.length ? kept[i] : null)) : null;
})
