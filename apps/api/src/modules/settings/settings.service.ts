import { DEFAULT_ORGANIZATION_ID, type OrgId, type Principal, type TargetPolicy } from '@relay/core';
import { INGEST_BLOCKED } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { IdentityProviderLookup } from '../idp/identity-provider';
import type { HostResolver } from '../platform/host-resolver';
import { ingestUrlsOf, type IngestHostSettings } from '../platform/ingest-hosts';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';
import { defaultTargetView, endpointView } from './settings.views';

export interface SettingsServiceDeps {
  repositories: Pick<Repositories, 'domains' | 'organizations' | 'transaction'>;
  targetPolicy: TargetPolicy;
  /** DEFAULT_TARGET_URL, in effect where an organization has no default of its own. */
  installDefaultTarget: string | undefined;
  /** PUBLIC_BASE_URL. */
  publicBaseUrl: string;
  /** The organization's identity provider, if any (modules/idp/identity-provider.ts). */
  identityProviderFor: IdentityProviderLookup;
  hosts: IngestHostSettings;
  organizationOf: HostResolver;
  /** First path segments of the relay's own routes: never a source (modules/catalog.ts). */
  reservedSegments: ReadonlySet<string>;
}

// `/config/*`: the organization's default target (admin) and two public discovery answers.
export function createSettingsService(deps: SettingsServiceDeps) {
  const { repositories: repos } = deps;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');

  return {
    async defaultTarget(principal: Principal) {
      return defaultTargetView(await repos.organizations.defaultTarget(principal.orgId), deps.installDefaultTarget);
    },

    async setDefaultTarget(principal: Principal, targetUrl: string | null) {
      const url = targetUrl === null ? null : allowedTarget(targetUrl, deps.targetPolicy);
      await repos.transaction(async (tx) => {
        const previous = await tx.organizations.defaultTarget(principal.orgId);
        await tx.organizations.setDefaultTarget(principal.orgId, url);
        const fact = {
          resourceType: 'organization',
          resourceId: principal.orgId,
          metadata: { from: previous, to: url },
        };
        await audited(tx, principal, { action: 'config.default_target_updated', ...fact });
      });
      return defaultTargetView(url, deps.installDefaultTarget);
    },

    /**
     * The caller's organization when credentials were sent, else the organization of the Host asked.
     * Only URLs that accept webhooks: none without an organization (an unknown host, where
     * PUBLIC_BASE_URL's own host may refuse them) or while its subscription blocks ingest.
     */
    async endpoint(callerOrg: OrgId | undefined, host: string) {
      const orgId = callerOrg ?? (await deps.organizationOf(host).catch(() => null));
      const org = orgId ? await repos.organizations.findById(orgId) : null;
      const reserved = deps.reservedSegments;
      if (!org) return endpointView(base, null, [], reserved);
      const status = await repos.organizations.subscriptionStatus(org.id);
      if (status === null || INGEST_BLOCKED.includes(status)) return endpointView(base, org, [], reserved);
      const active = (await repos.domains.list(org.id)).filter((d) => d.status === 'active').map((d) => d.domain);
      return endpointView(base, org, ingestUrlsOf(deps.hosts, org, active), reserved);
    },

    /** Whether the organization (null: none here) can sign in through a provider; never a secret. */
    /**
     * What the sign-in page shows before anyone signs in. `named`: the organization the page may name, i.e. the
     * signed-in caller's own, or the one the Host belongs to (see organizationToName): never from `?organization=`,
     * which would turn this public answer into a slug-to-name lookup across tenants.
     */
    async oauth(orgId: OrgId | null, named: OrgId | null = null) {
      const provider = orgId ? await deps.identityProviderFor(orgId) : null;
      const shown = named ? await repos.organizations.findById(named) : null;
      // Another organization's login names it, so the login works from any host (the default one's is plain).
      const org = provider && orgId !== DEFAULT_ORGANIZATION_ID ? await repos.organizations.findById(orgId!) : null;
      const loginUrl = org ? `/api/auth/idp?organization=${encodeURIComponent(org.slug)}` : '/api/auth/idp';
      return {
        enabled: provider !== null,
        provider: provider ? ('oidc' as const) : null,
        issuer: provider?.issuer ?? null,
        login_url: provider ? loginUrl : null,
        button_label: provider?.buttonLabel ?? null,
        organization_name: shown?.name ?? null,
      };
    },

    /**
     * Which organization the sign-in page on `host` may name: the Host's own (its `<slug>.<canonical host>` or an
     * active custom domain already say whose page it is), or the default organization when it is the install's
     * only one (a single-organization install). The default organization of a multi-tenant install stays unnamed.
     */
    async organizationToName(host: string): Promise<OrgId | null> {
      const ofHost = await deps.organizationOf(host).catch(() => null);
      if (ofHost !== DEFAULT_ORGANIZATION_ID) return ofHost;
      return (await repos.organizations.isOnlyOne()) ? ofHost : null;
    },
  };
}
