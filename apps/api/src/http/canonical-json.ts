/**
 * JSON text in which every object's keys are sorted, so that two values equal as JSON (the same body
 * sent again with its keys in another order) spell the same text. Array order is kept: it is meaning.
 * What JSON.stringify turns into JSON first (a Buffer's bytes, a Date) is compared as that JSON.
 */
export function canonicalJson(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    // Object.fromEntries defines own properties, so a "__proto__" key stays data, not a prototype.
    return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}
