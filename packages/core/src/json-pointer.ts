// RFC 6901 JSON pointers, for rule options that take a key from a payload (deduplication, ordering).

/** The pointer's reference tokens, unescaped (~1 is "/", ~0 is "~", in that order); "" is the whole document. */
export function jsonPointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** The value at a pointer in a parsed JSON document; undefined when the pointer leads nowhere. */
export function jsonPointerGet(document: unknown, pointer: string): unknown {
  const tokens = jsonPointerTokens(pointer);
  if (tokens === undefined) return undefined;
  let current: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null) {
      // Own properties only: "/constructor" must not reach Object.prototype.
      if (!Object.hasOwn(current, token)) return undefined;
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}

/**
 * A key's text from the value at a pointer: a string as it is, a number or boolean as its JSON text;
 * an object, array, null or nothing gives no key (such a value names no single delivery or order).
 */
export function jsonPointerKeyText(document: unknown, pointer: string): string | undefined {
  const value = jsonPointerGet(document, pointer);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}
