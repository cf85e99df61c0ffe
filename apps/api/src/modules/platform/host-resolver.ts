import { AppError, DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { isDatabaseUnavailable, type DomainRepository, type OrganizationRepository } from '@relay/db';
import { INGEST_BLOCKED } from '@relay/contracts';
import { normaliseHost, type IngestHostSettings } from './ingest-hosts';

export interface HostResolverDeps {
  settings: IngestHostSettings;
  organizations: Pick<OrganizationRepository, 'findBySlugForIngest' | 'subscriptionStatus'>;
  domains: Pick<DomainRepository, 'organizationOfActive'>;
  /** How long a resolved host is remembered (0: ask the database every time). Misses are never cached. */
  cacheMs: number;
  now?: () => number;
}

export type HostResolver = (host: string) => Promise<OrgId>;

// Which organization a webhook belongs to, from the Host it was sent to (X-Forwarded-Host only from
// trusted proxies: Express' req.hostname applies TRUST_PROXY):
//   without INGEST_CANONICAL_HOST       every host → the default organization (single tenant);
//   <INGEST_CANONICAL_HOST>             → the default organization;
//   <slug>.<INGEST_CANONICAL_HOST>      → that organization;
//   an active custom domain             → its organization;
//   anything else (pending, unknown or deleted domains) → 404 ingest_host_unknown, nothing stored.
// A suspended or canceled organization answers 403 organization_suspended.
export function createHostResolver(deps: HostResolverDeps): HostResolver {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { orgId: OrgId; status: string; until: number }>();
  const canonical = deps.settings.canonicalHost ? normaliseHost(deps.settings.canonicalHost) : undefined;

  async function lookup(host: string): Promise<{ orgId: OrgId; status: string } | null> {
    let orgId: OrgId | null;
    if (!canonical || host === canonical) orgId = DEFAULT_ORGANIZATION_ID;
    else if (host.endsWith(`.${canonical}`) && !host.slice(0, -canonical.length - 1).includes('.')) {
      orgId = (await deps.organizations.findBySlugForIngest(host.slice(0, -canonical.length - 1)))?.id ?? null;
    } else orgId = await deps.domains.organizationOfActive(host);
    if (!orgId) return null;
    const status = await deps.organizations.subscriptionStatus(orgId);
    return status === null ? null : { orgId, status };
  }

  return async (rawHost) => {
    const host = normaliseHost(rawHost);
    let hit = cache.get(host);
    if (!hit || hit.until <= now()) {
      const found = await lookup(host).catch((err: unknown) => {
        throw isDatabaseUnavailable(err) ? new AppError('database_unavailable') : err;
      });
      if (!found) throw new AppError('ingest_host_unknown', `No organization receives webhooks at ${host}.`);
      hit = { ...found, until: now() + deps.cacheMs };
      if (deps.cacheMs > 0) cache.set(host, hit);
    }
    if (INGEST_BLOCKED.includes(hit.status)) throw new AppError('organization_suspended');
    return hit.orgId;
  };
}
