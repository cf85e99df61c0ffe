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
