import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { useServiceDatabase } from '../service-test-kit';
import type { IdentityProviderConfig } from './identity-provider';
import { userForIdentity } from './idp-users';

const store = useServiceDatabase();
const ISSUER = 'https://id.example.com';
const provider = (overrides: Partial<IdentityProviderConfig> = {}): IdentityProviderConfig => ({
  organizationId: DEFAULT_ORGANIZATION_ID,
  issuer: ISSUER,
  clientId: 'relay',
  clientSecret: undefined,
  redirectUri: 'https://relay.example.com/api/auth/callback/idp',
  scopes: 'openid email',
  provisioning: 'verified_email',
  allowedDomains: [],
  roleMapping: { claim: 'groups', adminValues: ['relay-admins'] },
  buttonLabel: 'Sign in',
  trusted: false,
  ...overrides,
});
const claims = (sub: string, groups: string[], extra: Record<string, unknown> = {}) => ({
  sub,
  email: `${sub}@example.com`,
  email_verified: true,
  preferred_username: sub,
  groups,
  ...extra,
});
const login = (sub: string, groups: string[], over: Partial<IdentityProviderConfig> = {}, extra = {}) =>
  userForIdentity(store.repositories(), provider(over), ISSUER, claims(sub, groups, extra));

describe('identity-provider users', () => {
  it('re-evaluates a mapped role at each login, and keeps the last admin an admin', async () => {
    const first = await login('erin', ['relay-admins']);
    expect(first).toMatchObject({ role: 'admin', roleManagedByIdp: true });
    // The only admin of the organization: the provider cannot demote her.
    expect(await login('erin', [])).toMatchObject({ id: first.id, role: 'admin' });
    await login('frank', ['relay-admins']);
    expect(await login('erin', [])).toMatchObject({ id: first.id, role: 'viewer' });
    expect(await login('erin', ['relay-admins'])).toMatchObject({ role: 'admin' });
    const changes = await store.db.prisma.auditEntry.findMany({
      where: { action: 'user.role_updated', resourceId: first.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(changes.map((c) => c.metadata)).toEqual([
      { from: 'admin', to: 'viewer', source: 'idp' },
      { from: 'viewer', to: 'admin', source: 'idp' },
    ]);
  });

  it('without a mapping, sets viewer at first login and leaves the role to the users API after', async () => {
    const user = await login('gina', ['relay-admins'], { roleMapping: null });
    expect(user).toMatchObject({ role: 'viewer', roleManagedByIdp: false });
    await store.db.prisma.user.update({ where: { id: user.id }, data: { role: 'admin' } });
    expect(await login('gina', [], { roleMapping: null })).toMatchObject({ role: 'admin' });
  });

  it('makes a free username from preferred_username or the e-mail, never taking an existing one', async () => {
    const a = await login('hank-1', [], {}, { preferred_username: 'hank' });
    const b = await login('hank-2', [], {}, { preferred_username: 'hank' });
    const c = await login('x', [], {}, { preferred_username: undefined, email: 'Ivy.Long@example.com' });
    expect([a.username, b.username, c.username]).toEqual(['hank', 'hank-2', 'Ivy.Long']);
    expect(await store.db.prisma.userIdentity.count({ where: { issuer: ISSUER } })).toBe(6);
  });

  it('provisions nobody while provisioning is off, and refuses users of another organization', async () => {
    await expect(login('jo', [], { provisioning: 'off' })).rejects.toMatchObject({ reason: 'not_provisioned' });
    const other = await store.db.prisma.organization.create({ data: { slug: 'other', name: 'Other' } });
    await expect(login('erin', [], { organizationId: other.id as never })).rejects.toMatchObject({
      reason: 'wrong_organization',
    });
  });
});
