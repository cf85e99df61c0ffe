import { DEFAULT_ORGANIZATION_ID, openSecret, type OrgId, type Role } from '@relay/core';
import type { IdentityProviderRecord, IdentityProviderRepository } from '@relay/db';
import type { ApiConfig } from '../../config';

export type Provisioning = 'off' | 'verified_email' | 'domains';

/** Everything a login through an organization's identity provider needs; the secret never leaves the api. */
export interface IdentityProviderConfig {
  organizationId: OrgId;
  issuer: string;
  clientId: string;
  /** Undefined: a public client (PKCE only). */
  clientSecret: string | undefined;
  /** Undefined: the callback on the host the login starts on (host-only cookies must reach it). */
  redirectUri: string | undefined;
  scopes: string;
  provisioning: Provisioning;
  /** Lower-case e-mail domains (`domains` provisioning). */
  allowedDomains: string[];
  /** `claim` containing one of `adminValues` → admin, else viewer; null: the role is managed in the API. */
  roleMapping: { claim: string; adminValues: string[] } | null;
  buttonLabel: string;
  /**
   * The operator's OIDC_* settings: fetched without the target network policy (a setting, not user input). An
   * organization's own provider is user input: it and every URL its discovery names pass the policy at connect time.
   */
  trusted: boolean;
}

export type IdentityProviderLookup = (organizationId: OrgId) => Promise<IdentityProviderConfig | null>;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The OIDC_* settings: the default organization's provider when it has no row of its own. */
export function identityProvidersFromSettings(config: ApiConfig): IdentityProviderLookup {
  const issuer = config.OIDC_ISSUER_URL;
  const clientId = config.OIDC_CLIENT_ID;
  const claim = config.OIDC_ROLE_CLAIM;
  const settings: IdentityProviderConfig | null =
    issuer && clientId
      ? {
          organizationId: DEFAULT_ORGANIZATION_ID,
          issuer,
          clientId,
          clientSecret: config.OIDC_CLIENT_SECRET,
          redirectUri: config.OIDC_REDIRECT_URL,
          scopes: config.OIDC_SCOPES,
          provisioning: config.OIDC_PROVISIONING,
          allowedDomains: list(config.OIDC_ALLOWED_DOMAINS).map((d) => d.toLowerCase().replace(/^@/, '')),
          roleMapping: claim ? { claim, adminValues: list(config.OIDC_ADMIN_VALUES) } : null,
          buttonLabel: config.OIDC_BUTTON_LABEL,
          trusted: true,
        }
      : null;
  return (organizationId) => Promise.resolve(settings && organizationId === DEFAULT_ORGANIZATION_ID ? settings : null);
}

/** The role a provider's claims give: admin when the mapped claim holds one of the admin values. */
export function roleFromClaims(
  mapping: { claim: string; adminValues: string[] },
  claims: Record<string, unknown>,
): Role {
  const value = claims[mapping.claim];
  const values = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : [];
  return values.some((v) => typeof v === 'string' && mapping.adminValues.includes(v)) ? 'admin' : 'viewer';
}

function fromRow(config: ApiConfig, row: IdentityProviderRecord): IdentityProviderConfig {
  return {
    organizationId: row.organizationId,
    issuer: row.issuerUrl,
    clientId: row.clientId,
    clientSecret: row.clientSecretSealed
      ? openSecret(config.SECRET_ENCRYPTION_KEYS, row.clientSecretSealed)
      : undefined,
    // OIDC_REDIRECT_URL is the default organization's (its provider knows that URL); others use the login's host.
    redirectUri: row.organizationId === DEFAULT_ORGANIZATION_ID ? config.OIDC_REDIRECT_URL : undefined,
    scopes: row.scopes,
    provisioning: row.provisioning,
    allowedDomains: row.allowedDomains,
    roleMapping: row.roleMapping ? { claim: row.roleMapping.claim, adminValues: row.roleMapping.admin } : null,
    buttonLabel: row.buttonLabel ?? config.OIDC_BUTTON_LABEL,
    trusted: false,
  };
}

/**
 * The one place a provider configuration comes from: the organization's own row
 * (PUT /api/organization/identity-provider) wins; without one the default organization falls back to the
 * OIDC_* settings and any other organization has none.
 */
export function identityProviderFor(
  config: ApiConfig,
  rows: Pick<IdentityProviderRepository, 'find'>,
): IdentityProviderLookup {
  const fromSettings = identityProvidersFromSettings(config);
  return async (organizationId) => {
    const row = await rows.find(organizationId);
    return row ? fromRow(config, row) : fromSettings(organizationId);
  };
}
