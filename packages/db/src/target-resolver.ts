import type { OrgId } from '@relay/core';
import type { ProviderRepository, SourceKey } from './repositories/provider.repository';

export interface ResolvedTarget {
  targetUrl: string | null;
  providerId: string | null;
}

export interface TargetResolverOptions {
  /** The install-wide default (DEFAULT_TARGET_URL). An organization's own default plugs in before it. */
  defaultTargetUrl: string | undefined;
}

const keyOf = (key: SourceKey) => `${key.orgId}\u0000${key.source}`;

// Target selection per the spec: the active provider for the source, else the default target.
// Batched so one ingest batch costs one query whatever its size.
export function createTargetResolver(providers: ProviderRepository, options: TargetResolverOptions) {
  return {
    async resolveMany(keys: readonly SourceKey[]): Promise<Map<string, ResolvedTarget>> {
      const unique = [...new Map(keys.map((key) => [keyOf(key), key])).values()];
      const found = await providers.findActiveForSources(unique);
      const byKey = new Map<string, ResolvedTarget>();
      for (const provider of found) {
        const key = keyOf({ orgId: provider.organizationId, source: provider.source });
        if (!byKey.has(key)) byKey.set(key, { targetUrl: provider.targetUrl, providerId: provider.id });
      }
      const fallback: ResolvedTarget = { targetUrl: options.defaultTargetUrl ?? null, providerId: null };
      return new Map(unique.map((key) => [keyOf(key), byKey.get(keyOf(key)) ?? fallback]));
    },

    async resolve(orgId: OrgId, source: string): Promise<ResolvedTarget> {
      const map = await this.resolveMany([{ orgId, source }]);
      return map.get(keyOf({ orgId, source })) ?? { targetUrl: options.defaultTargetUrl ?? null, providerId: null };
    },

    keyOf,
  };
}

export type TargetResolver = ReturnType<typeof createTargetResolver>;
