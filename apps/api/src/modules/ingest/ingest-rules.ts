import { AppError, createCachedLoader, type OrgId } from '@relay/core';
import { isDatabaseUnavailable, type RuleRecord, type RuleRepository } from '@relay/db';

/** What ingest needs of the rule that owns a source: its options (dedup, verification, ordering). */
export type IngestRule = Pick<
  RuleRecord,
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
  rules: Pick<RuleRepository, 'findActiveBySource'>;
  /** How long an answer is remembered (INGEST_HOST_CACHE_MS); 0: read every time. */
  cacheMs: number;
  now?: () => number;
  /** Entries kept at most; past it the cache starts over (a flood of made-up sources cannot grow it). */
  maxEntries?: number;
}

// Ingest reads the owning rule's options once per source and caches them briefly (also "no rule"),
// so a source without options costs no query per webhook, and a burst on a cold cache shares one query.
// A rule changed in another api process applies here within cacheMs (docs/rules.md says so).
export function createIngestRuleLookup(deps: IngestRuleLookupDeps): IngestRuleLookup {
  return createCachedLoader({
    load: async (orgId: OrgId, source: string): Promise<IngestRule | null> => {
      // Postgres away: the webhook is refused as the insert would refuse it (503), not as a failure of the relay.
      const found = await deps.rules.findActiveBySource(orgId, source).catch((err: unknown) => {
        throw isDatabaseUnavailable(err) ? new AppError('database_unavailable') : err;
      });
      return (
        found && {
          id: found.id,
          dedup: found.dedup,
          verification: found.verification,
          verificationSecret: found.verificationSecret,
          previousVerificationSecret: found.previousVerificationSecret,
          previousVerificationExpiresAt: found.previousVerificationExpiresAt,
          ordering: found.ordering,
        }
      );
    },
    keyOf: (orgId, source) => `${orgId}\u0000${source}`,
    cacheMs: deps.cacheMs,
    ...(deps.maxEntries !== undefined ? { maxEntries: deps.maxEntries } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
}
