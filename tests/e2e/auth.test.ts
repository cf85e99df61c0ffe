import { DEFAULT_ORGANIZATION_ID, issueToken, parseToken } from '@relay/core';
import { createCredentialRepository, createUserRepository } from '@relay/db';
import { waitFor } from '@relay/test-support';
import { basicAuth, FAST_HASH_ENV, startPipeline, testPasswords, type Pipeline } from './harness';

describe('GET /api/auth/me with Basic and Bearer credentials', () => {
  let pipeline: Pipeline;
  let apiKey: string;
  let personal: string;
  let personalId: string;

  beforeAll(async () => {
    pipeline = await startPipeline({ api: FAST_HASH_ENV, worker: false });
    const users = createUserRepository(pipeline.store.prisma);
    const credentials = createCredentialRepository(pipeline.store.prisma);
    await users.create(DEFAULT_ORGANIZATION_ID, {
      username: 'alice',
      email: 'alice@example.com',
      role: 'admin',
      passwordHash: await testPasswords.hash('correct horse'),
    });
    const bob = await users.create(DEFAULT_ORGANIZATION_ID, {
      username: 'bob',
      email: 'bob@example.com',
      role: 'viewer',
      passwordHash: await testPasswords.hash('battery staple'),
    });
    const key = issueToken();
    await credentials.createApiKey(DEFAULT_ORGANIZATION_ID, {
      name: 'ci',
      prefix: key.prefix,
      secretHash: key.secretHash,
      scopes: ['events:read'],
      createdById: null,
      expiresAt: null,
    });
    apiKey = key.token;
    const token = issueToken();
    personalId = (
      await credentials.createPersonalToken(DEFAULT_ORGANIZATION_ID, bob.id, {
        name: 'laptop',
        prefix: token.prefix,
        secretHash: token.secretHash,
        expiresAt: null,
      })
    ).id;
    personal = token.token;
  });
  afterAll(() => pipeline.close());

  it('answers 200 without credentials saying none is in effect, and never challenges the browser', async () => {
    const res = await pipeline.http.get('/api/auth/me').expect(200);
    expect(res.body).toEqual({ mechanism: 'none', kind: null, user: null, organization: null, role: null, scopes: [] });
    expect(res.headers['www-authenticate']).toBeUndefined();
    const guarded = await pipeline.http.get('/events').expect(401);
    expect(guarded.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(guarded.body.code).toBe('unauthenticated');
    expect(guarded.headers['www-authenticate']).toBeUndefined();
  });

  it('accepts Basic and reports the mechanism, user, organization, role and scopes', async () => {
    const res = await pipeline.http
      .get('/api/auth/me')
      .set('authorization', basicAuth('alice', 'correct horse'))
      .expect(200);
    expect(res.body).toMatchObject({
      mechanism: 'basic',
      kind: 'user',
      user: { username: 'alice', email: 'alice@example.com', role: 'admin' },
      organization: { id: DEFAULT_ORGANIZATION_ID, slug: 'default' },
      role: 'admin',
    });
    expect(res.body.scopes).toContain('organization:manage');
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const wrong = await pipeline.http.get('/api/auth/me').set('authorization', basicAuth('alice', 'nope')).expect(401);
    const unknown = await pipeline.http
      .get('/api/auth/me')
      .set('authorization', basicAuth('mallory', 'nope'))
      .expect(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
    expect(wrong.headers['www-authenticate']).toBeUndefined();
  });

  it('accepts an organization API key with its scopes', async () => {
    const res = await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${apiKey}`).expect(200);
    expect(res.body).toMatchObject({ mechanism: 'token', kind: 'api_key', user: null, scopes: ['events:read'] });
    // last_used_at is written after the answer (it never delays a request): wait for it.
    await waitFor(
      async () => (await pipeline.store.prisma.apiKey.findFirst())?.lastUsedAt != null,
      30_000,
      'the key to be marked used',
    );
  });

  it('accepts a personal token, acting with its owner role', async () => {
    const res = await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${personal}`).expect(200);
    expect(res.body).toMatchObject({
      mechanism: 'token',
      kind: 'user',
      user: { username: 'bob', role: 'viewer' },
      role: 'viewer',
    });
  });

  it('refuses malformed, unknown, tampered and expired tokens', async () => {
    for (const bad of ['ts_nope', `${apiKey.slice(0, -2)}xx`, issueToken().token]) {
      await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${bad}`).expect(401);
    }
    await pipeline.store.prisma.apiKey.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) } });
    await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${apiKey}`).expect(401);
  });

  it('refuses a revoked token on the very next request', async () => {
    await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${personal}`).expect(200);
    await pipeline.store.prisma.personalToken.delete({ where: { id: personalId } });
    await pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${personal}`).expect(401);
  });

  it('stores no plaintext token or password', async () => {
    const keys = await pipeline.store.prisma.apiKey.findMany();
    const users = await pipeline.store.prisma.user.findMany();
    const dump = JSON.stringify({ keys, users });
    expect(dump).not.toContain(parseToken(apiKey)!.secret);
    expect(dump).not.toContain('correct horse');
    expect(users.every((u) => u.passwordHash?.startsWith('$argon2id$'))).toBe(true);
  });

  it('ignores Authorization on public ingest', async () => {
    await pipeline.http
      .post('/github')
      .set('content-type', 'application/json')
      .set('authorization', 'Bearer garbage')
      .send('{}')
      .expect(202);
  });
});
