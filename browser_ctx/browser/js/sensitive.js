/*
 * Whether a form field's value is shown only as filled/empty, like a password: a card number or code, a one-time
 * code (by autocomplete), or any Luhn-valid run of 13-19 digits (a card number in a plain field).
 *   sensitive(e) -> boolean   e: an input or textarea
 * A module of js/walk.js (through js/forms.js) and of js/widget_state.js (scripts.bundle); core/dom.py applies the
 * same rule to raw HTML.
 */
((e) => {
  if (/\b(cc-number|cc-csc|one-time-code)\b/i.test(e.getAttribute('autocomplete') || '')) return true;
  const digits = String(e.value || '').replace(/[\s-]/g, '');
  if (!/^[0-9]{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
})
