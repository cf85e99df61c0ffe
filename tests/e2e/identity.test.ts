import { DEFAULT_ORGANIZATION_ID, parseToken } from '@relay/core';
import { basicAuth, FAST_HASH_ENV, seedUser, startPipeline, type Pipeline } from './harness';

const ALICE = basicAuth('alice', 'alice-password-1');
const BOB = basicAuth('bob', 'bob-password-12');

describe('identity endpoints: API keys, personal tokens, users, audit', () => {
  let pipeline: Pipeline;
  const secrets: string[] = [];
  beforeAll(async () => {
    pipeline = await startPipeline({ api: FAST_HASH_ENV, worker: false });
    await seedUser(pipeline, { username: 'alice', role: 'admin', password: 'alice-password-1' });
    await seedUser(pipeline, { username: 'bob', role: 'viewer', password: 'bob-password-12' });
  });
  afterAll(() => pipeline.close());
  const api = () => pipeline.http;

  it('API keys: created by an admin, shown once, scoped, and revoked by deletion', async () => {
    const created = await api()
      .post('/api/api-keys')
      .set('authorization', ALICE)
      .send({ name: 'reader', scopes: ['events:read'] })
      .expect(201);
    expect(created.body).toMatchObject({
      name: 'reader',
      scopes: ['events:read'],
      token: expect.stringMatching(/^ts_/),
    });
    secrets.push(created.body.token);
    const list = await api().get('/api/api-keys').set('authorization', ALICE).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    expect(list.body.api_keys[0]).toMatchObject({ id: created.body.id, prefix: created.body.token.slice(0, 15) });

    const key = `Bearer ${created.body.token}`;
    await api().get('/api/audit').set('authorization', key).expect(200);
    const forbidden = await api().get('/api/api-keys').set('authorization', key).expect(403);
    expect(forbidden.body.code).toBe('forbidden');

    await api().delete(`/api/api-keys/${created.body.id}`).set('authorization', ALICE).expect(204);
    await api().get('/api/audit').set('authorization', key).expect(401);
    await api().delete(`/api/api-keys/${created.body.id}`).set('authorization', ALICE).expect(404);
    await api().delete('/api/api-keys/not-a-uuid').set('authorization', ALICE).expect(404);
  });

  it('API keys: 403 for a viewer, 401 without credentials; bad bodies are 400 with every field', async () => {
    await api()
      .post('/api/api-keys')
      .set('authorization', BOB)
      .send({ name: 'x', scopes: ['events:read'] })
      .expect(403);
    await api()
      .post('/api/api-keys')
      .send({ name: 'x', scopes: ['events:read'] })
      .expect(401);
    const bad = await api()
      .post('/api/api-keys')
      .set('authorization', ALICE)
      .send({ name: '', scopes: ['everything'] })
      .expect(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'scopes.0']);
    const malformed = await api()
      .post('/api/api-keys')
      .set('authorization', ALICE)
      .set('content-type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(malformed.body.code).toBe('invalid_json');
  });

  it('personal tokens: each user sees and deletes only its own; another user’s token id is 404', async () => {
    const created = await api().post('/api/auth/tokens').set('authorization', BOB).send({ name: 'laptop' }).expect(201);
    secrets.push(created.body.token);
    const me = await api().get('/api/auth/me').set('authorization', `Bearer ${created.body.token}`).expect(200);
    expect(me.body).toMatchObject({ user: { username: 'bob' }, role: 'viewer' });
    expect((await api().get('/api/auth/tokens').set('authorization', BOB).expect(200)).body.tokens).toHaveLength(1);
    expect((await api().get('/api/auth/tokens').set('authorization', ALICE).expect(200)).body.tokens).toHaveLength(0);
    await api().delete(`/api/auth/tokens/${created.body.id}`).set('authorization', ALICE).expect(404);
    await api().delete(`/api/auth/tokens/${created.body.id}`).set('authorization', BOB).expect(204);
    await api().get('/api/auth/me').set('authorization', `Bearer ${created.body.token}`).expect(401);
  });

  it('users: admins add users and change roles, never demoting the last admin', async () => {
    const carol = await api()
      .post('/api/users')
      .set('authorization', ALICE)
      .send({ username: 'carol', email: 'carol@example.com', password: 'carol-password-1' })
      .expect(201);
    expect(carol.body).toMatchObject({ username: 'carol', role: 'viewer' });
    expect(carol.body).not.toHaveProperty('password');
    await api()
      .post('/api/users')
      .set('authorization', ALICE)
      .send({ username: 'carol', email: 'c2@example.com', password: 'another-password' })
      .expect(409);
    const invalid = await api()
      .post('/api/users')
      .set('authorization', ALICE)
      .send({ username: 'x', email: 'nope', password: 'short' })
      .expect(400);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'password',
      'username',
    ]);
    await api().get('/api/users').set('authorization', BOB).expect(403);
    const users = await api().get('/api/users').set('authorization', ALICE).expect(200);
    const alice = users.body.users.find((u: { username: string }) => u.username === 'alice');

    const last = await api()
      .patch(`/api/users/${alice.id}/role`)
      .set('authorization', ALICE)
      .send({ role: 'viewer' })
      .expect(409);
    expect(last.body.code).toBe('last_admin');
    await api()
      .patch(`/api/users/${carol.body.id}/role`)
      .set('authorization', ALICE)
      .send({ role: 'admin' })
      .expect(200);
    await api().patch(`/api/users/${alice.id}/role`).set('authorization', ALICE).send({ role: 'viewer' }).expect(200);
    await api().get('/api/users').set('authorization', ALICE).expect(403);
    await api()
      .patch(`/api/users/${alice.id}/role`)
      .set('authorization', basicAuth('carol', 'carol-password-1'))
      .send({ role: 'admin' })
      .expect(200);
    await api()
      .patch('/api/users/00000000-0000-7000-8000-0000000000ff/role')
      .set('authorization', ALICE)
      .send({ role: 'admin' })
      .expect(404);
  });

  it('GET /api/organization returns the caller’s organization', async () => {
    const res = await api().get('/api/organization').set('authorization', BOB).expect(200);
    expect(res.body).toEqual({
      id: DEFAULT_ORGANIZATION_ID,
      slug: 'default',
      name: 'Default organization',
      // No quota: the period is the calendar month in UTC, counted from the stored events.
      usage: {
        events_this_period: expect.any(Number),
        monthly_event_limit: null,
        period_start: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
        period_end: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
      },
    });
  });

  it('audit: each change has an entry with exactly the spec’s fields, newest first, in the spec envelope', async () => {
    const all = await api().get('/api/audit?per_page=200').set('authorization', BOB).expect(200);
    expect(Object.keys(all.body).sort()).toEqual(['entries', 'page', 'pages', 'per_page', 'total']);
    const actions = all.body.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'api_key.created',
        'api_key.deleted',
        'token.created',
        'token.deleted',
        'user.created',
        'user.role_updated',
      ]),
    );
    const entry = all.body.entries[0];
    expect(Object.keys(entry).sort()).toEqual([
      'action',
      'actor_email',
      'actor_user_id',
      'created_at',
      'id',
      'metadata',
      'resource_id',
      'resource_type',
    ]);
    expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(entry.action).toMatch(/^[a-z_]+\.[a-z_]+$/);
    const times = all.body.entries.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    for (const secret of secrets) expect(JSON.stringify(all.body)).not.toContain(parseToken(secret)!.secret);

    const total = all.body.total as number;
    const page2 = await api().get('/api/audit?page=2&per_page=3').set('authorization', BOB).expect(200);
    expect(page2.body).toMatchObject({ total, page: 2, per_page: 3, pages: Math.ceil(total / 3) });
    expect(page2.body.entries.map((e: { id: string }) => e.id)).toEqual(
      all.body.entries.slice(3, 6).map((e: { id: string }) => e.id),
    );
    await api().get('/api/audit?per_page=201').set('authorization', BOB).expect(400);
    await api().get('/api/audit?page=0').set('authorization', BOB).expect(400);
  });

  it('audit filters: action (or a comma list), actor, resource and time; bad values are 400 naming the field', async () => {
    const get = (q: string) => api().get(`/api/audit?per_page=200&${q}`).set('authorization', BOB).expect(200);
    const all = (await get('')).body.entries as { action: string; actor_email: string; resource_id: string }[];
    const created = await get('action=api_key.created');
    expect(created.body.total).toBe(all.filter((e) => e.action === 'api_key.created').length);
    expect(created.body.entries.every((e: { action: string }) => e.action === 'api_key.created')).toBe(true);
    const either = await get('action=api_key.created,token.created');
    const wanted = new Set(['api_key.created', 'token.created']);
    expect(either.body.total).toBe(all.filter((e) => wanted.has(e.action)).length);

    const byAlice = await get(`actor_email=${encodeURIComponent(all[0]!.actor_email)}`);
    expect(byAlice.body.total).toBe(all.filter((e) => e.actor_email === all[0]!.actor_email).length);
    const one = await get(`resource_id=${all[0]!.resource_id}&page=1`);
    expect(one.body.entries.every((e: { resource_id: string }) => e.resource_id === all[0]!.resource_id)).toBe(true);
    expect((await get('from=2999-01-01T00:00:00Z')).body).toMatchObject({ total: 0, pages: 0, entries: [] });
    expect((await get('to=2000-01-01T00:00:00Z')).body.total).toBe(0);

    for (const [query, field] of [
      ['action=Rule%20created', 'action'],
      ['actor_user_id=bob', 'actor_user_id'],
      ['resource_id=r1', 'resource_id'],
      ['from=yesterday', 'from'],
      ['to=2026-01-01', 'to'],
    ]) {
      const bad = await api().get(`/api/audit?${query}`).set('authorization', BOB).expect(400);
      expect(bad.body.code).toBe('validation_failed');
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });
});
