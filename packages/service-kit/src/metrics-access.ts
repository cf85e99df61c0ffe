import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a scrape may read /metrics: always while no METRICS_TOKEN is set, else only with
 * `Authorization: Bearer <token>`. Digests of equal length are compared in constant time, so
 * neither the token's content nor its length leaks through response timing.
 */
export function metricsAccessAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  const presented = match?.[1]?.trim() ?? '';
  // Compared even when nothing was presented: a missing header costs what a wrong one does.
  return timingSafeEqual(digest(presented), digest(token)) && presented !== '';
}
