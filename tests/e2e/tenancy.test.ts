import { DEFAULT_ORGANIZATION_ID, issueToken } from '@relay/core';
import { createCredentialRepository, createOrganizationRepository, createUserRepository } from '@relay/db';
import { basicAuth, FAST_HASH_ENV, startPipeline, testPasswords, type Pipeline } from './harness';

describe('two organizations never see or change each other', () => {
  let pipeline: Pipeline;
  let aliceId: string;
  let keyA: string;
  const A = basicAuth('admin-a', 'password-aaaa-1');
  const B = basicAuth('admin-b', 'password-bbbb-1');

  beforeAll(async () => {
    pipeline = await startPipeline({ api: FAST_HASH_ENV, worker: false });
    const orgB = await createOrganizationRepository(pipeline.store.prisma).create({ slug: 'org-b', name: 'B' });
    const users = createUserRepository(pipeline.store.prisma);
    aliceId = (
      await users.create(DEFAULT_ORGANIZATION_ID, {
        username: 'admin-a',
        email: 'a@example.com',
        role: 'admin',
        passwordHash: await testPasswords.hash('password-aaaa-1'),
      })
    ).id;
    await users.create(orgB.id, {
      username: 'admin-b',
      email: 'b@example.com',
      role: 'admin',
      passwordHash: await testPasswords.hash('password-bbbb-1'),
    });
    const key = issueToken();
    keyA = (
      await createCredentialRepository(pipeline.store.prisma).createApiKey(DEFAULT_ORGANIZATION_ID, {
        name: 'a-key',
        prefix: key.prefix,
        secretHash: key.secretHash,
        scopes: ['events:read'],
        createdById: null,
        expiresAt: null,
      })
    ).id;
    await pipeline.http
      .post('/api/users')
      .set('authorization', A)
      .send({ username: 'a-viewer', email: 'v@example.com', password: 'viewer-password' })
      .expect(201);
  });
  afterAll(() => pipeline.close());

  it('lists only its own users, keys, audit entries and organization', async () => {
    const users = await pipeline.http.get('/api/users').set('authorization', B).expect(200);
    expect(users.body.users.map((u: { username: string }) => u.username)).toEqual(['admin-b']);
    expect((await pipeline.http.get('/api/api-keys').set('authorization', B).expect(200)).body.api_keys).toEqual([]);
    expect((await pipeline.http.get('/api/audit').set('authorization', B).expect(200)).body.total).toBe(0);
    expect((await pipeline.http.get('/api/organization').set('authorization', B).expect(200)).body.slug).toBe('org-b');
  });

  it('gets 404 for the other organization’s ids, and nothing changes', async () => {
    await pipeline.http
      .patch(`/api/users/${aliceId}/role`)
      .set('authorization', B)
      .send({ role: 'viewer' })
      .expect(404);
    await pipeline.http.delete(`/api/api-keys/${keyA}`).set('authorization', B).expect(404);
    expect((await pipeline.store.prisma.user.findUnique({ where: { id: aliceId } }))?.role).toBe('admin');
    expect(await pipeline.store.prisma.apiKey.count({ where: { id: keyA } })).toBe(1);
  });
});
