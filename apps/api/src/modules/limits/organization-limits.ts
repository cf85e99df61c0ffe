import type { OrgId } from '@relay/core';
import type { OrganizationLimits, OrganizationRepository } from '@relay/db';

export interface LimitsCacheDeps {
  organizations: Pick<OrganizationRepository, 'limits'>;
  /** How long an organization's limits are remembered (INGEST_HOST_CACHE_MS); 0: read every time. */
  cacheMs: number;
  now?: () => number;
}

const NONE: OrganizationLimits = {
  ingestRateLimit: null,
  apiRateLimit: null,
  monthlyEventLimit: null,
  currentPeriodEnd: null,
};

export type LimitsOf = (orgId: OrgId) => Promise<OrganizationLimits>;

// Ingest and every API request need the organization's own limits: they are remembered for a few seconds (changes
// through the platform API take effect within that), and concurrent misses share one query, so a burst of webhooks
// costs no database round trip per request.
export function createLimitsCache(deps: LimitsCacheDeps): LimitsOf {
  const now = deps.now ?? Date.now;
  const cache = new Map<OrgId, { limits: Promise<OrganizationLimits>; until: number }>();
  return (orgId) => {
    const hit = cache.get(orgId);
    if (hit && hit.until > now()) return hit.limits;
    let failed = false;
    // Unreadable limits (database down) are the install-wide settings, not remembered: the request goes on and
    // meets the database's own refusal where it needs it (ingest answers 503 database_unavailable).
    const limits = deps.organizations.limits(orgId).then(
      (found) => found ?? NONE,
      () => {
        failed = true;
        if (cache.get(orgId)?.limits === limits) cache.delete(orgId);
        return NONE;
      },
    );
    if (deps.cacheMs > 0 && !failed) cache.set(orgId, { limits, until: now() + deps.cacheMs });
    return limits;
  };
}
