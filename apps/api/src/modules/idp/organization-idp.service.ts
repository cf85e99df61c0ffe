import {
  AppError,
  DEFAULT_ORGANIZATION_ID,
  sealSecret,
  type Principal,
  type SecretKeyring,
  type TargetPolicy,
} from '@relay/core';
import type { identityProviderUpdateSchema } from '@relay/contracts';
import type { IdentityProviderRecord, Repositories } from '@relay/db';
import type { z } from 'zod';
import type { ApiConfig } from '../../config';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';
import { identityProvidersFromSettings, type IdentityProviderConfig } from './identity-provider';
import { issuerAllowed } from './issuer-url';

export type IdentityProviderUpdate = z.output<typeof identityProviderUpdateSchema>;

export interface OrganizationIdpServiceDeps {
  repositories: Pick<Repositories, 'identityProviders' | 'transaction'>;
  /** The OIDC_* settings (the default organization's fallback) and SECRET_ENCRYPTION_KEYS. */
  config: ApiConfig;
  /** The delivery network policy: the relay fetches an organization's issuer like a target. */
  targetPolicy: TargetPolicy;
}

// The client secret is write-only: a view says whether there is one, never what it is.
const rowView = (row: IdentityProviderRecord, buttonLabel: string) => ({
  source: 'organization' as const,
  issuer_url: row.issuerUrl,
  client_id: row.clientId,
  has_client_secret: row.clientSecretSealed !== null,
  scopes: row.scopes,
  button_label: row.buttonLabel ?? buttonLabel,
  provisioning: row.provisioning,
  allowed_domains: row.allowedDomains,
  role_mapping: row.roleMapping,
  updated_at: row.updatedAt.toISOString(),
});

const settingsView = (p: IdentityProviderConfig) => ({
  source: 'settings' as const,
  issuer_url: p.issuer,
  client_id: p.clientId,
  has_client_secret: p.clientSecret !== undefined,
  scopes: p.scopes,
  button_label: p.buttonLabel,
  provisioning: p.provisioning,
  allowed_domains: p.allowedDomains,
  role_mapping: p.roleMapping ? { claim: p.roleMapping.claim, admin: p.roleMapping.adminValues } : null,
  updated_at: null,
});

const invalid = (field: string, message: string) =>
  new AppError('validation_failed', 'The request is not valid.', { errors: [{ field, message }] });

// GET/PUT/DELETE /api/organization/identity-provider: an organization's own OpenID Connect provider. The
// default organization falls back to the OIDC_* settings while it has no row.
export function createOrganizationIdpService(deps: OrganizationIdpServiceDeps) {
  const { repositories: repos, config } = deps;
  const settings = identityProvidersFromSettings(config);
  const seal = (keys: SecretKeyring | undefined, secret: string) => {
    if (!keys) throw new AppError('secrets_not_configured');
    return sealSecret(keys, secret);
  };

  return {
    async get(principal: Principal) {
      const row = await repos.identityProviders.find(principal.orgId);
      if (row) return rowView(row, config.OIDC_BUTTON_LABEL);
      const fallback = await settings(principal.orgId);
      if (!fallback) throw new AppError('idp_not_configured');
      return settingsView(fallback);
    },

    async save(principal: Principal, input: IdentityProviderUpdate) {
      // Plain http would let the network rewrite discovery and keys; only a provider on this machine may use it.
      if (!issuerAllowed(input.issuer_url)) {
        throw invalid('issuer_url', 'must be an https:// URL (http:// only on a loopback address)');
      }
      // An organization admin chooses this URL and the api fetches it (discovery, keys): the same network policy
      // as delivery targets keeps it from reaching private and loopback addresses unless the operator allows them.
      allowedTarget(input.issuer_url, deps.targetPolicy);
      const existing = await repos.identityProviders.find(principal.orgId);
      const secret =
        input.client_secret === undefined
          ? (existing?.clientSecretSealed ?? null)
          : input.client_secret === null
            ? null
            : seal(config.SECRET_ENCRYPTION_KEYS, input.client_secret);
      const secretChange =
        input.client_secret === undefined ? 'kept' : input.client_secret === null ? 'cleared' : 'replaced';
      const row = await repos.transaction(async (tx) => {
        const saved = await tx.identityProviders.save(principal.orgId, {
          issuerUrl: input.issuer_url,
          clientId: input.client_id,
          clientSecretSealed: secret,
          // An OpenID Connect login needs `openid`; without it the provider would send no ID token.
          scopes: [...new Set(['openid', ...input.scopes.split(/\s+/).filter(Boolean)])].join(' '),
          buttonLabel: input.button_label,
          provisioning: input.provisioning,
          allowedDomains: [...new Set(input.allowed_domains.map((d) => d.replace(/^@/, '')))],
          roleMapping: input.role_mapping,
        });
        // Never the secret: only whether it changed.
        const metadata = {
          issuer_url: saved.issuerUrl,
          client_id: saved.clientId,
          client_secret: secretChange,
          provisioning: saved.provisioning,
          role_mapping: saved.roleMapping,
          created: existing === null,
        };
        const fact = { action: 'identity_provider.updated', resourceType: 'organization', resourceId: principal.orgId };
        await audited(tx, principal, { ...fact, metadata });
        return saved;
      });
      return rowView(row, config.OIDC_BUTTON_LABEL);
    },

    /** Removes the organization's own provider (the default organization falls back to the settings again). */
    async delete(principal: Principal): Promise<void> {
      await repos.transaction(async (tx) => {
        if (!(await tx.identityProviders.delete(principal.orgId))) {
          throw new AppError('not_found', 'This organization has no identity provider of its own.');
        }
        const fact = { action: 'identity_provider.deleted', resourceType: 'organization', resourceId: principal.orgId };
        const metadata = { falls_back_to_settings: principal.orgId === DEFAULT_ORGANIZATION_ID };
        await audited(tx, principal, { ...fact, metadata });
      });
    },
  };
}
