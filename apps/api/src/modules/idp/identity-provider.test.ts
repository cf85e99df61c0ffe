import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { parseApiConfig } from '../../config';
import { sealSecret, parseSecretKeys } from '@relay/core';
import type { IdentityProviderRecord } from '@relay/db';
import { identityProviderFor, identityProvidersFromSettings, roleFromClaims } from './identity-provider';
import { issuerAllowed } from './issuer-url';

describe('identity-provider settings', () => {
  it('accepts an http issuer only on a loopback address', () => {
    for (const url of [
      'https://id.example.com',
      'http://127.0.0.1:4000',
      'http://localhost:8080/realms/x',
      'http://[::1]:9',
    ]) {
      expect([url, issuerAllowed(url)]).toEqual([url, true]);
    }
    for (const url of ['http://id.example.com', 'http://10.0.0.1', 'ftp://127.0.0.1', 'not a url']) {
      expect([url, issuerAllowed(url)]).toEqual([url, false]);
    }
    expect(() => parseApiConfig({ OIDC_ISSUER_URL: 'http://id.example.com', OIDC_CLIENT_ID: 'relay' })).toThrow(
      /OIDC_ISSUER_URL.*https/s,
    );
  });

  it('answers the settings for the default organization only, with the derived redirect URL', async () => {
    const config = parseApiConfig({
      PUBLIC_BASE_URL: 'https://relay.example.com/',
      OIDC_ISSUER_URL: 'https://id.example.com',
      OIDC_CLIENT_ID: 'relay',
      OIDC_PROVISIONING: 'domains',
      OIDC_ALLOWED_DOMAINS: 'Example.com, @corp.example',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_ADMIN_VALUES: 'relay-admins,ops',
    });
    const lookup = identityProvidersFromSettings(config);
    expect(await lookup(DEFAULT_ORGANIZATION_ID)).toMatchObject({
      redirectUri: 'https://relay.example.com/api/auth/callback/idp',
      scopes: 'openid email profile',
      clientSecret: undefined,
      allowedDomains: ['example.com', 'corp.example'],
      roleMapping: { claim: 'groups', adminValues: ['relay-admins', 'ops'] },
    });
    expect(await lookup('0199a000-0000-7000-8000-000000000001' as OrgId)).toBeNull();
    expect(await identityProvidersFromSettings(parseApiConfig({}))(DEFAULT_ORGANIZATION_ID)).toBeNull();
    expect(() => parseApiConfig({ OIDC_PROVISIONING: 'everyone' })).toThrow(/OIDC_PROVISIONING/);
  });

  it('maps a claim holding an admin value to admin, anything else to viewer', () => {
    const mapping = { claim: 'groups', adminValues: ['relay-admins'] };
    expect(roleFromClaims(mapping, { groups: ['staff', 'relay-admins'] })).toBe('admin');
    expect(roleFromClaims(mapping, { groups: 'relay-admins staff' })).toBe('admin');
    expect(roleFromClaims(mapping, { groups: ['relay-admins-not'] })).toBe('viewer');
    expect(roleFromClaims(mapping, {})).toBe('viewer');
  });

  it("answers an organization's own row first, the settings for the default organization without one", async () => {
    const keys = `k1:${Buffer.alloc(32, 3).toString('base64')}`;
    const config = parseApiConfig({
      PUBLIC_BASE_URL: 'https://relay.example.com',
      OIDC_ISSUER_URL: 'https://id.example.com',
      OIDC_CLIENT_ID: 'settings-client',
      SECRET_ENCRYPTION_KEYS: keys,
    });
    const hosted = '0199a000-0000-7000-8000-000000000002' as OrgId;
    const row: IdentityProviderRecord = {
      organizationId: hosted,
      issuerUrl: 'https://id.hosted.example',
      clientId: 'hosted-client',
      clientSecretSealed: sealSecret(parseSecretKeys(keys)!, 'hosted-secret'),
      scopes: 'openid email',
      buttonLabel: null,
      provisioning: 'verified_email',
      allowedDomains: [],
      roleMapping: { claim: 'groups', admin: ['admins'] },
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const lookup = identityProviderFor(config, { find: async (id) => (id === hosted ? row : null) });
    expect(await lookup(hosted)).toMatchObject({
      organizationId: hosted,
      clientId: 'hosted-client',
      clientSecret: 'hosted-secret',
      // Not the default organization: the callback is on the host the login starts on.
      redirectUri: undefined,
      roleMapping: { claim: 'groups', adminValues: ['admins'] },
      buttonLabel: config.OIDC_BUTTON_LABEL,
    });
    expect(await lookup(DEFAULT_ORGANIZATION_ID)).toMatchObject({ clientId: 'settings-client' });
    expect(await lookup('0199a000-0000-7000-8000-000000000003' as OrgId)).toBeNull();
  });
});
