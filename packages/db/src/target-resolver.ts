import type { OrgId } from '@relay/core';
import type pg from 'pg';
import type { SourceKey } from './repositories/rule.repository';
import { RESOLVE_TARGETS } from './target.sql';

export interface ResolvedTarget {
  targetUrl: string | null;
  ruleId: string | null;
}

export interface TargetResolverOptions {
  /** The install-wide default (DEFAULT_TARGET_URL). An organization's own default plugs in before it. */
  defaultTargetUrl: string | undefined;
}

const keyOf = (key: SourceKey) => `${key.orgId}\u0000${key.source}`;

// Target selection per the spec (the rule itself lives in target.sql.ts), for events stored without
// a target: the worker asks again at delivery time, so configuring a target later rescues them.
export function createTargetResolver(pool: pg.Pool, options: TargetResolverOptions) {
  async function resolveMany(keys: readonly SourceKey[]): Promise<Map<string, ResolvedTarget>> {
    const { rows } = await pool.query<{
      organization_id: string;
      source: string;
      provider_id: string | null;
      target_url: string | null;
    }>(RESOLVE_TARGETS, [keys.map((k) => k.orgId), keys.map((k) => k.source), options.defaultTargetUrl ?? null]);
    return new Map(
      rows.map((r) => [
        keyOf({ orgId: r.organization_id as OrgId, source: r.source }),
        { targetUrl: r.target_url, ruleId: r.provider_id },
      ]),
    );
  }

  return {
    resolveMany,
    async resolve(orgId: OrgId, source: string): Promise<ResolvedTarget> {
      return (
        (await resolveMany([{ orgId, source }])).get(keyOf({ orgId, source })) ?? { targetUrl: null, ruleId: null }
      );
    },
  };
}

export type TargetResolver = ReturnType<typeof createTargetResolver>;
