// browser_evaluate's page side: run the caller's code, note any CSP violation it caused, then serialise
// its result safely. Arguments: element (the target element, or undefined for the page), code (an async
// thunk returning [the caller's function or value], in an array so a promise is not awaited early),
// serialise (the safe serialiser, (value, limits) => string), limits (the serialiser's limits).
// Runs in the page's main world (the caller's code must see the page), after the page's scripts, so it uses
// no global a page can replace: the intrinsic Promise of an async function, the setTimeout js/timers.js kept,
// plain string concatenation and
// indexed stores instead of JSON, Array methods or window.Promise. Returns a string:
//   a primitive result, tagged (never through JSON.stringify, which the page may have replaced):
//     '\0s' + string, '\0n' + number, '\0bt' / '\0bf', '\0l' (null), '\0u' (undefined), '\0i' + bigint;
//   '\0t' + error name + '\0' + message (it threw);
//   '\0c' + blocked directives joined by '\1' + ('\0' + thrown name + '\0' + message, if it also threw)
//     (a CSP violation);
//   otherwise the serialiser's JSON text (objects: built with the page's builtins, so a page that replaced
//   them can still distort an object result).
// browser_ctx/core/jsonsafe.py's parse_result reads all of these.
// DevTools evaluation may itself use eval even where the page's CSP forbids it, but what the code does
// (inject a script, set a string timer, assign HTML under Trusted Types) is still blocked; such blocks fire
// securitypolicyviolation events, collected here for one task.
(async (element, code, serialise, limits) => {
  const IntrinsicPromise = (async () => {})().constructor;
  const kept = globalThis.__browserCtxSetTimeout;  // the page's own, kept before its scripts ran (js/timers.js)
  const later = typeof kept === 'function' ? kept : setTimeout;
  const blocked = [];
  const onViolation = (e) => {
    blocked[blocked.length] = '' + (e.effectiveDirective || e.violatedDirective || 'unknown')
      + (e.blockedURI ? ' (' + ('' + e.blockedURI).substring(0, 80) + ')' : '');
  };
  document.addEventListener('securitypolicyviolation', onViolation, true);
  let value, thrown = null;
  try {
    const got = await code();
    const fn = got[0];
    value = typeof fn === 'function' ? await fn(element) : await fn;
  } catch (e) {
    const name = (e && e.name) ? '' + e.name : 'Error';
    const message = (e && e.message !== undefined) ? '' + e.message : '' + e;
    thrown = { name, message: message.substring(0, 500) };
  }
  await new IntrinsicPromise((r) => later(r, 0));
  document.removeEventListener('securitypolicyviolation', onViolation, true);
  const why = thrown ? '\0' + thrown.name + '\0' + thrown.message : '';
  if (blocked.length) {
    let list = '';
    for (let i = 0; i < blocked.length; i++) list += (i ? '\u0001' : '') + blocked[i];
    return '\0c' + list + why;
  }
  if (thrown) return '\0t' + why.substring(1);
  const t = typeof value;
  if (value === null) return '\0l';
  if (t === 'string') return '\0s' + value;
  if (t === 'number') return '\0n' + (value === 0 && 1 / value < 0 ? '-0' : `${value}`);
  if (t === 'boolean') return value ? '\0bt' : '\0bf';
  if (t === 'undefined') return '\0u';
  if (t === 'bigint') return '\0i' + `${value}`;
  return serialise(value, limits);
})
