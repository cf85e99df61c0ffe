import type { OrgId } from '@relay/core';
import type { ProviderRecord, ProviderRepository } from '@relay/db';

/** What ingest needs of the rule that owns a source: its options (dedup, verification, ordering). */
export type IngestRule = Pick<
  ProviderRecord,
  | 'id'
  | 'dedup'
  | 'verification'
  | 'verificationSecret'
  | 'previousVerificationSecret'
  | 'previousVerificationExpiresAt'
  | 'ordering'
>;

export type IngestRuleLookup = (orgId: OrgId, source: string) => Promise<IngestRule | null>;

export interface IngestRuleLookupDeps {
  providers: Pick<ProviderRepository, 'findActiveBySource'>;
  /** How long an answer is remembered (INGEST_HOST_CACHE_MS); 0: read every time. */
  cacheMs: number;
  now?: () => number;
  /** Entries kept at most; past it the cache starts over (a flood of made-up sources cannot grow it). */
  maxEntries?: number;
}

// Ingest reads the owning rule's options once per source and caches them briefly (also "no rule"),
// so a source without options costs no query per webhook. A rule changed in another api process
// applies here within cacheMs (docs/rules.md says so).
export function createIngestRuleLookup(deps: IngestRuleLookupDeps): IngestRuleLookup {
  const now = deps.now ?? Date.now;
  const maxEntries = deps.maxEntries ?? 10_000;
  const cache = new Map<string, { rule: IngestRule | null; until: number }>();
  return async (orgId, source) => {
    const key = `${orgId}\u0000${source}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.rule;
    const found = await deps.providers.findActiveBySource(orgId, source);
    const rule: IngestRule | null = found && {
      id: found.id,
      dedup: found.dedup,
      verification: found.verification,
      verificationSecret: found.verificationSecret,
      previousVerificationSecret: found.previousVerificationSecret,
      previousVerificationExpiresAt: found.previousVerificationExpiresAt,
      ordering: found.ordering,
    };
    if (deps.cacheMs > 0) {
      if (cache.size >= maxEntries) cache.clear();
      cache.set(key, { rule, until: now() + deps.cacheMs });
    }
    return rule;
  };
}
