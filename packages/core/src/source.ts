// A source names a provider (`github`, `stripe`, ...). Kept to a URL-safe token so it can be a path
// segment, a filter value and a log field without escaping.
const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidSource(source: string): boolean {
  return SOURCE.test(source);
}

/** First path segment of the ingest path, or undefined for `/`. */
export function sourceFromPath(path: string): string | undefined {
  const first = path
    .split('?')[0]
    ?.split('/')
    .find((segment) => segment !== '');
  if (first === undefined) return undefined;
  try {
    return decodeURIComponent(first);
  } catch {
    return first;
  }
}
