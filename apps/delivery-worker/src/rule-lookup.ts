import type { OrgId } from '@relay/core';
import type { ProviderRecord, ProviderRepository } from '@relay/db';

/** The rule (provider) of a delivery: its health, ordering, delivery policy, secrets and headers. */
export type RuleLookup = (orgId: OrgId, providerId: string | null) => Promise<ProviderRecord | null>;

// Deliveries of one rule come in runs, so a rule read is remembered briefly: one query per rule per
// cacheMs instead of one per delivery. A change made through the API applies within cacheMs.
export function createRuleLookup(
  providers: Pick<ProviderRepository, 'findById'>,
  options: { cacheMs: number; maxEntries?: number; now?: () => number },
): RuleLookup {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { rule: Promise<ProviderRecord | null>; until: number }>();
  return (orgId, providerId) => {
    if (providerId === null) return Promise.resolve(null);
    const key = `${orgId}\u0000${providerId}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.rule;
    const rule = providers.findById(orgId, providerId);
    if (options.cacheMs > 0) {
      if (cache.size >= maxEntries) cache.clear();
      cache.set(key, { rule, until: now() + options.cacheMs });
      // A failed read is not remembered: the next delivery asks again.
      rule.catch(() => cache.delete(key));
    }
    return rule;
  };
}
