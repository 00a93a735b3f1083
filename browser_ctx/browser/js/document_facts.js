// Facts of the main frame's current document, for following client-side redirects: timeOrigin
// (one per document; unchanged by pushState), the URL now and the one it was loaded from, the HTTP
// status of the navigation that made it (0 when unknown), the seconds of a meta refresh that moves it on,
// whether the document has loaded (readyState "complete"), and whether an inline script of the page sets `location` (`location = …`, `location.href = …`,
// `location.replace(…)`, `.assign(…)`, `.reload(…)`) and defers work (a timer, a load handler, jQuery's ready): it
// may move the page on a timer. Scripts that only read `location` (analytics: 59 of the 130 corpus pages mention
// it), and ones that set it as they run (a mobile redirect: it has happened by the load, or never will) do not make
// a navigation wait (21 of the 130 set it, 10 of them beside a timer or a handler).
// smallScripts: how many scripts the document loaded from a file of a known size up to 20,000 bytes
// (redirects.py's SCANNED_SCRIPT_BYTES); only then are external scripts read for a timer that sets `location`.
(() => {
  const SETS_LOCATION = /\blocation(?:\.href)?\s*=(?!=)|\blocation\.(?:replace|assign|reload)\s*\(/;
  const DEFERS = /\bset(?:Timeout|Interval)\s*\(|\baddEventListener\s*\(\s*["'](?:load|pageshow|readystatechange|DOMContentLoaded)\b|\bon(?:load|pageshow|readystatechange)\s*=|\brequestAnimationFrame\s*\(|\$\(\s*(?:function\b|\(\s*\)\s*=>)|\.ready\s*\(/;
  const nav = performance.getEntriesByType("navigation")[0];
  const meta = document.querySelector('meta[http-equiv="refresh" i]');
  let refresh = null;
  if (meta) {
    const found = /^\s*(\d+(?:\.\d+)?)\s*[;,]\s*(?:url\s*=)?\s*\S/i.exec(meta.getAttribute("content") || "");
    refresh = found ? Number(found[1]) : null;
  }
  return {
    origin: performance.timeOrigin,
    url: location.href,
    navUrl: nav ? nav.name : location.href,
    status: nav && typeof nav.responseStatus === "number" ? nav.responseStatus : 0,
    refresh,
    scripted: Array.prototype.some.call(document.scripts,
      (s) => !s.src && SETS_LOCATION.test(s.text) && DEFERS.test(s.text)),
    loaded: document.readyState === "complete",
    smallScripts: performance.getEntriesByType("resource").filter(
      (e) => e.initiatorType === "script" && e.decodedBodySize > 0 && e.decodedBodySize <= 20000).length,
  };
})
