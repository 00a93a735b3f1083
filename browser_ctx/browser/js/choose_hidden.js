/*
 * Choose options in a native <select> a page hides behind a trigger of its own (Selectric, Select2, Chosen,
 * nice-select): Playwright acts only on visible elements, so the options are selected here and the page told
 * as a user's choice tells it (input and change events, bubbling). Bundled with js/operable.js.
 * Arguments: sel (the select), values (option labels, exact then case-insensitive, or option values; null: only
 * say whether a trigger stands for it, changing nothing).
 * Returns {missing: [values not found], names: [every option's label], shown: the trigger's text or null,
 * trigger: the trigger's ref when the walk gave it one (to choose through its own list), else null}.
 */
((M, sel, values) => {
  const O = M.operable(window);
  const t = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const opts = Array.from(sel.options);
  const names = opts.map((o) => t(o.label || o.text));
  const pick = (v) => opts.find((o) => t(o.label || o.text) === t(v)) ||
    opts.find((o) => t(o.label || o.text).toLowerCase() === t(v).toLowerCase()) || opts.find((o) => o.value === v);
  const found = (values || []).map(pick);
  const missing = (values || []).filter((v, i) => !found[i]);
  if (values && !missing.length) {
    if (!sel.multiple) sel.selectedIndex = found[0].index;
    else opts.forEach((o) => { o.selected = found.includes(o); });
    sel.dispatchEvent(new Event('input', { bubbles: true }));
    sel.dispatchEvent(new Event('change', { bubbles: true }));
  }
  const up = sel.parentElement;
  let trigger = O.replacement(sel);
  if (!trigger && up && up.nextElementSibling && O.standsFor(up.nextElementSibling) === sel) trigger = up.nextElementSibling;
  const bc = window.__browserCtx;
  const n = bc && trigger ? bc.ids.get(trigger) : undefined;
  return { missing, names, shown: trigger ? t(trigger.innerText) : null,
           trigger: n === undefined ? null : (bc.prefix || '') + 'e' + n };
})
