// One operation on this document's localStorage or sessionStorage, in our isolated world (the storage is the
// origin's, shared with the page's world). Argument a: {area: 'local' | 'session', op: 'list' | 'get' | 'set' |
// 'delete' | 'clear', key, value, max (items listed), chars (characters of a listed value)}. Returns
// {origin, items: [[key, value cut to chars, full length]], total} for list, {origin, value (null when unset)}
// for get, {origin, existed, count} for the others.
(a) => {
  const s = a.area === 'session' ? sessionStorage : localStorage;
  const origin = location.origin;
  if (a.op === 'list') {
    const items = [];
    for (let i = 0; i < s.length && items.length < a.max; i++) {
      const k = s.key(i), v = s.getItem(k) || '';
      items.push([k, v.slice(0, a.chars), v.length]);
    }
    return { origin, items, total: s.length };
  }
  if (a.op === 'get') return { origin, value: s.getItem(a.key) };
  const existed = a.op === 'clear' ? s.length : (s.getItem(a.key) !== null ? 1 : 0);
  if (a.op === 'set') s.setItem(a.key, a.value);
  else if (a.op === 'delete') s.removeItem(a.key);
  else if (a.op === 'clear') s.clear();
  return { origin, existed, count: s.length };
}
