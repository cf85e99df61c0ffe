import { createCachedLoader, type OrgId } from '@relay/core';
import type { ProviderRecord, ProviderRepository } from '@relay/db';

/** The rule (provider) of a delivery: its health, ordering, delivery policy, secrets and headers. */
export type RuleLookup = (orgId: OrgId, providerId: string | null) => Promise<ProviderRecord | null>;

// Deliveries of one rule come in runs, so a rule read is remembered briefly: one query per rule per
// cacheMs instead of one per delivery. A change made through the API applies within cacheMs.
export function createRuleLookup(
  providers: Pick<ProviderRepository, 'findById'>,
  options: { cacheMs: number; maxEntries?: number; now?: () => number },
): RuleLookup {
  const cached = createCachedLoader({
    load: (orgId: OrgId, providerId: string) => providers.findById(orgId, providerId),
    keyOf: (orgId, providerId) => `${orgId}\u0000${providerId}`,
    ...options,
  });
  return (orgId, providerId) => (providerId === null ? Promise.resolve(null) : cached(orgId, providerId));
}
