// browser_evaluate's page side: run the caller's code, note any CSP violation it caused, then serialise
// its result safely. Arguments: element (the target element, or undefined for the page), code (an async
// thunk returning [the caller's function or value], in an array so a promise is not awaited early),
// serialise (the safe serialiser, (value, limits) => string), limits (the serialiser's limits). Returns a JSON string: the serialised value, { $thrown } or { $csp }.
// DevTools evaluation may itself use eval even where the page's CSP forbids it, but what the code does
// (inject a script, set a string timer, assign HTML under Trusted Types) is still blocked; such blocks fire
// securitypolicyviolation events, collected here for one task.
(async (element, code, serialise, limits) => {
  const blocked = [];
  const onViolation = (e) => blocked.push(String(e.effectiveDirective || e.violatedDirective || 'unknown')
    + (e.blockedURI ? ' (' + String(e.blockedURI).slice(0, 80) + ')' : ''));
  document.addEventListener('securitypolicyviolation', onViolation, true);
  let value, thrown = null;
  try {
    const [fn] = await code();
    value = typeof fn === 'function' ? await fn(element) : await fn;
  } catch (e) {
    const name = (e && e.name) ? String(e.name) : 'Error';
    const message = (e && e.message !== undefined) ? String(e.message) : String(e);
    thrown = { name, message: message.slice(0, 500) };
  }
  await new Promise((r) => setTimeout(r, 0));
  document.removeEventListener('securitypolicyviolation', onViolation, true);
  if (blocked.length) return JSON.stringify({ $csp: { blocked: [...new Set(blocked)], thrown } });
  if (thrown) return JSON.stringify({ $thrown: thrown });
  return serialise(value, limits);
})
