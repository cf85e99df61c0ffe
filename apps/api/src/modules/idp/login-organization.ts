import { AppError, DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import type { OrganizationRepository } from '@relay/db';
import type { HostResolver } from '../platform/host-resolver';

export interface LoginOrganizationDeps {
  organizations: Pick<OrganizationRepository, 'findBySlugForIngest'>;
  /** The host resolver ingest and custom domains use (`<slug>.<canonical host>`, active custom domains). */
  organizationOf: HostResolver;
}

export type LoginOrganizationResolver = (host: string, slug: string | undefined) => Promise<OrgId>;

const unknown = () => new AppError('idp_not_configured', 'No identity-provider login for that organization here.');

/**
 * Which organization a login is for: `?organization=<slug>`, else the organization of the host the login
 * starts on. An organization's own host (its slug host or custom domain) signs in to that organization only;
 * an unknown slug answers like an organization without a provider (no probing for organizations).
 */
export function loginOrganizationResolver(deps: LoginOrganizationDeps): LoginOrganizationResolver {
  return async (host, slug) => {
    const ofHost = await deps.organizationOf(host).catch(() => null);
    if (slug === undefined) {
      if (!ofHost) throw unknown();
      return ofHost;
    }
    const named = (await deps.organizations.findBySlugForIngest(slug))?.id;
    if (!named) throw unknown();
    if (ofHost && ofHost !== DEFAULT_ORGANIZATION_ID && ofHost !== named) throw unknown();
    return named;
  };
}
