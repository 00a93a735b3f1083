/*
 * The page-state version: performance.timeOrigin (new per document) + ':' + the registry's mutation count +
 * ':' + location.href. Compare versions, never parse them. Bundled with js/registry.js (scripts.bundle).
 */
((M) => performance.timeOrigin + ':' + M.registry(window, document).version + ':' + location.href)
