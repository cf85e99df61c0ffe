// Nesting depth of JSON, measured without recursion: a deeply nested payload must be refused (or
// shown as text) before anything recursive — JSON.stringify, a schema check — overflows the stack on it.

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of objects and arrays in JSON text (bytes or a string; `[]` is 1, a scalar 0).
 * Brackets inside strings do not count. Stops counting once `stopAbove` is exceeded.
 */
export function jsonTextDepth(text: Uint8Array | string, stopAbove = Infinity): number {
  const codeAt = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = codeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/** The deepest nesting of objects and arrays in a parsed JSON value; stops once `stopAbove` is exceeded. */
export function jsonValueDepth(value: unknown, stopAbove = Infinity): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > stopAbove) return deepest;
    }
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) stack.push({ value: child, depth });
  }
  return deepest;
}
