import { createCachedLoader, type OrgId } from '@relay/core';
import type { ProviderRecord, ProviderRepository } from '@relay/db';

/** The rule (provider) of a delivery: its health, ordering, delivery policy, secrets and headers. */
export type RuleLookup = (orgId: OrgId, providerId: string | null) => Promise<ProviderRecord | null>;

/** The lookup, and a way to drop a rule this process was told has changed (its health turned). */
export type CachedRuleLookup = RuleLookup & { forget(orgId: OrgId, providerId: string): void };

// Deliveries of one rule come in runs, so a rule read is remembered briefly: one query per rule per
// cacheMs instead of one per delivery. A change made through the API applies within cacheMs; a rule that
// turns unhealthy is forgotten at once by every worker (rule-changes.ts in @relay/queue, runtime.ts).
export function createRuleLookup(
  providers: Pick<ProviderRepository, 'findById'>,
  options: { cacheMs: number; maxEntries?: number; now?: () => number },
): CachedRuleLookup {
  const cached = createCachedLoader({
    load: (orgId: OrgId, providerId: string) => providers.findById(orgId, providerId),
    keyOf: (orgId, providerId) => `${orgId}\u0000${providerId}`,
    ...options,
  });
  const lookup: RuleLookup = (orgId, providerId) =>
    providerId === null ? Promise.resolve(null) : cached(orgId, providerId);
  return Object.assign(lookup, { forget: (orgId: OrgId, providerId: string) => cached.forget(orgId, providerId) });
}
