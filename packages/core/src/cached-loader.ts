/** A remembering loader; `forget` drops one key's answer, so the next call for it loads afresh. */
export type CachedLoader<A extends unknown[], V> = ((...args: A) => Promise<V>) & { forget(...args: A): void };

/**
 * A loader whose answers are remembered for `cacheMs` (0: never), keyed by `keyOf`. Concurrent misses of one
 * key share one load; a failed load is forgotten, so the next call tries again. Past `maxEntries` the cache
 * starts over, so a flood of distinct keys (made-up sources) cannot grow it. `forget` drops one key's answer,
 * for a caller told that the source changed: the next call loads afresh.
 */
export function createCachedLoader<A extends unknown[], V>(options: {
  load: (...args: A) => Promise<V>;
  keyOf: (...args: A) => string;
  cacheMs: number;
  maxEntries?: number;
  now?: () => number;
}): CachedLoader<A, V> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { value: Promise<V>; until: number }>();
  const cached = (...args: A): Promise<V> => {
    const key = options.keyOf(...args);
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.value;
    const value = options.load(...args);
    if (options.cacheMs > 0) {
      if (cache.size >= maxEntries) cache.clear();
      cache.set(key, { value, until: now() + options.cacheMs });
      value.catch(() => {
        if (cache.get(key)?.value === value) cache.delete(key);
      });
    }
    return value;
  };
  return Object.assign(cached, { forget: (...args: A) => void cache.delete(options.keyOf(...args)) });
}
