import { SYSTEM_ACTOR } from '@relay/db';
import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { testPrincipal } from '@relay/test-support';
import { createCredentialService } from './credential.service';
import { useServiceDatabase } from '../service-test-kit';

const store = useServiceDatabase();
let ada: Principal;
let bob: Principal;
const key = testPrincipal({
  kind: 'api_key',
  mechanism: 'token',
  scopes: ['organization:manage'],
  userId: null,
  username: null,
  email: null,
  credentialId: '00000000-0000-7000-8000-0000000000c1',
});
// Postgres text refuses NUL: the audit insert fails while the credential's own insert succeeds.
const broken = (p: Principal): Principal => ({ ...p, email: 'broken\u0000@example.com' });
const service = () => createCredentialService({ repositories: store.repositories() });

async function user(username: string): Promise<Principal> {
  const repos = store.repositories();
  const u = await repos.users.create(DEFAULT_ORGANIZATION_ID, {
    username,
    email: `${username}@example.com`,
    role: 'viewer',
    passwordHash: 'x',
  });
  const base = { kind: 'user', mechanism: 'session', orgId: DEFAULT_ORGANIZATION_ID, scopes: 'all' } as const;
  return { ...base, role: u.role, userId: u.id, username, email: u.email, credentialId: null };
}

beforeAll(async () => {
  ada = await user('ada');
  bob = await user('bob');
});

describe('credential service: personal tokens', () => {
  it('creates a token shown once, audited, listed only to its owner', async () => {
    const created = await service().createToken(ada, { name: 'laptop' });
    expect(created).toMatchObject({ name: 'laptop', expires_at: null, last_used_at: null });
    expect(created.token).toMatch(/^ts_/);
    expect(created.prefix).toBe(created.token.slice(0, created.prefix.length));
    const [entry] = await store.auditOf(created.id);
    expect(entry).toMatchObject({
      action: 'token.created',
      resourceType: 'token',
      actorUserId: ada.userId,
      actorEmail: ada.email,
      metadata: { name: 'laptop', mechanism: 'session' },
    });
    expect((await service().listTokens(ada)).map((t) => t.id)).toContain(created.id);
    expect(await service().listTokens(bob)).toEqual([]);
  });

  it("deletes only the owner's token, audited; another user's token is not_found", async () => {
    const created = await service().createToken(ada, { name: 'ci', expires_at: '2100-01-01T00:00:00Z' });
    expect(created.expires_at).toBe('2100-01-01T00:00:00.000Z');
    await expect(service().deleteToken(bob, created.id)).rejects.toMatchObject({ code: 'not_found' });
    await service().deleteToken(ada, created.id);
    expect((await store.auditOf(created.id)).map((e) => e.action)).toEqual(['token.created', 'token.deleted']);
    await expect(service().deleteToken(ada, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses API keys: personal tokens belong to users', async () => {
    await expect(service().listTokens(key)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(service().createToken(key, { name: 'x' })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('writes no token when its audit entry cannot be written', async () => {
    await expect(service().createToken(broken(ada), { name: 'atomic' })).rejects.toThrow();
    expect(await store.db.prisma.personalToken.findFirst({ where: { name: 'atomic' } })).toBeNull();
  });
});

describe('credential service: API keys', () => {
  it('creates a key with its scopes, audited with the acting key in the metadata', async () => {
    const created = await service().createApiKey(key, { name: 'deploy', scopes: ['events:read'] });
    expect(created).toMatchObject({ name: 'deploy', scopes: ['events:read'] });
    const [entry] = await store.auditOf(created.id);
    expect(entry).toMatchObject({
      action: 'api_key.created',
      resourceType: 'api_key',
      // The acting key is no stored key with a creator here: the system actor stands in.
      actorUserId: SYSTEM_ACTOR.id,
      metadata: { name: 'deploy', scopes: ['events:read'], api_key_id: key.credentialId },
    });
    expect((await service().listApiKeys(ada)).map((k) => k.id)).toContain(created.id);
  });

  it('deletes with an audit entry; an unknown id is not_found', async () => {
    const created = await service().createApiKey(ada, { name: 'gone', scopes: ['rules:read'] });
    await service().deleteApiKey(ada, created.id);
    expect((await store.auditOf(created.id)).map((e) => e.action)).toEqual(['api_key.created', 'api_key.deleted']);
    await expect(service().deleteApiKey(ada, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps the key when the audit entry of its deletion cannot be written', async () => {
    const created = await service().createApiKey(ada, { name: 'kept', scopes: ['rules:read'] });
    await expect(service().deleteApiKey(broken(ada), created.id)).rejects.toThrow();
    expect(await store.db.prisma.apiKey.findUnique({ where: { id: created.id } })).not.toBeNull();
    await expect(service().createApiKey(broken(ada), { name: 'never', scopes: ['rules:read'] })).rejects.toThrow();
    expect(await store.db.prisma.apiKey.findFirst({ where: { name: 'never' } })).toBeNull();
  });
});
