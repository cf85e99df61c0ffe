import { jsonValueDepth } from '../json-depth';
import { compileCel } from './cel-filter';
import type { CompileFilterResult, CompiledFilter, FilterError, FilterSubject } from './filter-types';
import { compileJsonMatcher } from './json-filter';

/** The largest filter, serialized as JSON (bytes). */
export const FILTER_MAX_BYTES = 16 * 1024;
/** The deepest nesting of objects and arrays in a filter (the filter object itself is 1). */
export const FILTER_MAX_DEPTH = 16;

const SUBJECT_FIELDS = ['body', 'headers', 'path', 'query'];
const LOGICAL = ['$and', '$or', '$not'];

const failure = (path: string, at: (string | number)[], message: string): CompileFilterResult => ({
  ok: false,
  errors: [{ path, at, message }],
});

/** Header names are compared lower-cased, as the event stores them: `X-GitHub-Event` finds `x-github-event`. */
function lowerCaseHeaders(filter: Record<string, unknown>): Record<string, unknown> {
  const headers = filter.headers;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return filter;
  const lowered = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k.startsWith('$') ? k : k.toLowerCase(), v]),
  );
  return { ...filter, headers: lowered };
}

function hasNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string' && v.includes('\u0000')) return true;
    if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/**
 * Checks a filter (a Hookdeck-style JSON filter or `{"cel": "…"}`) and compiles it for `matches`. Every
 * problem is named by its path from the filter's root. Limits: 16 KB serialized, depth 16.
 */
export function compileFilter(input: unknown): CompileFilterResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return failure('filter', [], 'must be an object: a JSON filter or {"cel": "<expression>"}');
  }
  // Depth first: serializing a deeply nested value would overflow the stack before the size is known.
  if (jsonValueDepth(input, FILTER_MAX_DEPTH) > FILTER_MAX_DEPTH) {
    return failure('filter', [], `is nested deeper than ${FILTER_MAX_DEPTH} levels`);
  }
  if (Buffer.byteLength(JSON.stringify(input)) > FILTER_MAX_BYTES) {
    return failure('filter', [], `is larger than ${FILTER_MAX_BYTES / 1024} KB as JSON`);
  }
  // Stored as jsonb, which cannot hold NUL.
  if (hasNul(input)) return failure('filter', [], 'must not contain NUL (\\u0000) characters');
  const record = input as Record<string, unknown>;
  if (Object.hasOwn(record, 'cel')) {
    const extra = Object.keys(record).filter((k) => k !== 'cel');
    if (extra.length > 0) return failure(`filter.${extra[0]}`, [extra[0]!], 'cannot be combined with cel');
    const cel = compileCel(record.cel);
    return cel.ok ? { ok: true, filter: { kind: 'cel', source: input, test: cel.test } } : cel;
  }
  const errors: FilterError[] = [];
  for (const key of Object.keys(record)) {
    if (!SUBJECT_FIELDS.includes(key) && !LOGICAL.includes(key)) {
      errors.push({
        path: `filter.${key}`,
        at: [key],
        message: `unknown field; a filter reads ${SUBJECT_FIELDS.join(', ')} (or combines with ${LOGICAL.join(' ')})`,
      });
    }
  }
  const compiled = compileJsonMatcher(lowerCaseHeaders(record));
  if (!compiled.ok) errors.push(...compiled.errors);
  if (!compiled.ok || errors.length > 0) return { ok: false, errors };
  const match = compiled.match;
  return { ok: true, filter: { kind: 'json', source: input, test: (subject) => match(subject) } };
}

/** Whether a webhook passes the filter. A CEL expression that fails at run time on this webhook does not match. */
export function matches(filter: CompiledFilter, subject: FilterSubject): boolean {
  return filter.test(subject);
}
