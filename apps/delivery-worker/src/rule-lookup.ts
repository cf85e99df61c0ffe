import { createCachedLoader, type OrgId } from '@relay/core';
import type { RuleRecord, RuleRepository } from '@relay/db';

/** The rule of a delivery: its health, ordering, delivery policy, secrets and headers. */
export type RuleLookup = (orgId: OrgId, ruleId: string | null) => Promise<RuleRecord | null>;

/** The lookup, and a way to drop a rule this process was told has changed (its health turned). */
export type CachedRuleLookup = RuleLookup & { forget(orgId: OrgId, ruleId: string): void };

// Deliveries of one rule come in runs, so a rule read is remembered briefly: one query per rule per
// cacheMs instead of one per delivery. A change made through the API applies within cacheMs; a rule that
// turns unhealthy is forgotten at once by every worker (rule-changes.ts in @relay/queue, runtime.ts).
export function createRuleLookup(
  rules: Pick<RuleRepository, 'findById'>,
  options: { cacheMs: number; maxEntries?: number; now?: () => number },
): CachedRuleLookup {
  const cached = createCachedLoader({
    load: (orgId: OrgId, ruleId: string) => rules.findById(orgId, ruleId),
    keyOf: (orgId, ruleId) => `${orgId}\u0000${ruleId}`,
    ...options,
  });
  const lookup: RuleLookup = (orgId, ruleId) => (ruleId === null ? Promise.resolve(null) : cached(orgId, ruleId));
  return Object.assign(lookup, { forget: (orgId: OrgId, ruleId: string) => cached.forget(orgId, ruleId) });
}
