import { AppError } from './errors';

// A source names a sender (`github`, `stripe`, ...). Kept to a URL-safe token so it can be a path
// segment, a filter value and a log field without escaping.
const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidSource(source: string): boolean {
  return SOURCE.test(source);
}

/**
 * First path segment of the ingest path, decoded, or undefined for `/`. A path that is not valid percent-encoding
 * (any segment) names no source, as it names no route of the API's: not_found.
 */
export function sourceFromPath(path: string): string | undefined {
  const segments = (path.split('?')[0] ?? '').split('/').filter((segment) => segment !== '');
  try {
    return segments.map((segment) => decodeURIComponent(segment))[0];
  } catch {
    throw new AppError('not_found', `No route for POST ${path}.`);
  }
}

/** The ingest path after its first (source) segment, as received: `/github/org/repo` → `/org/repo`, `/github` → "". */
export function pathAfterSource(path: string): string {
  const withoutQuery = path.split('?')[0] ?? '';
  const trimmed = withoutQuery.replace(/^\/+/, '');
  const slash = trimmed.indexOf('/');
  return slash < 0 ? '' : trimmed.slice(slash);
}

/** A query string as routing filters read it: one string per key, an array of strings for a repeated key. */
export function queryObject(search: string): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(search)) {
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  }
  // Object.fromEntries defines own properties: a key named __proto__ stays a key.
  return Object.fromEntries([...values].map(([key, list]) => [key, list.length === 1 ? list[0]! : list]));
}
