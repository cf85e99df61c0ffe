import { randomUUID } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { buildOpenApiDocument } from '../../apps/api/src/openapi/openapi-document';
import { ALL_OPERATIONS } from '../../apps/api/src/composition/catalog';
import {
  apiKeyCredential,
  basicAuth,
  REDIS_URL,
  seedUser,
  startPipeline,
  userCredential,
  type Pipeline,
} from './harness';

// Idempotency-Key on the real api: replays without acting again, per credential, and never a
// secret shown once. The password hash keeps its real cost, so a create that hashes one is slow
// enough for its duplicates to arrive while it runs.
const PLATFORM_TOKEN = 'idempotency-test-platform-token-0123456789';

let pipeline: Pipeline;
let redis: RedisClientType;
let admin: string;

beforeAll(async () => {
  pipeline = await startPipeline({
    api: { PLATFORM_ADMIN_TOKEN: PLATFORM_TOKEN, SESSION_SECRET: 'idempotency-test-session-secret' },
    worker: false,
  });
  admin = (await userCredential(pipeline, 'admin')).authorization;
  redis = createClient({ url: REDIS_URL });
  await redis.connect();
});
afterAll(async () => {
  await redis.close();
  await pipeline.close();
});

const post = (path: string, body: object, key: string | undefined, authorization = admin) => {
  const req = pipeline.http.post(path).set('authorization', authorization).send(body);
  return key === undefined ? req : req.set('idempotency-key', key);
};
const manual = (n: number) => ({ source: 'idem', target_url: 'http://127.0.0.1:9999/hook', body: { n } });
const auditCount = (action: string) => pipeline.store.prisma.auditEntry.count({ where: { action } });
const storedAnswers = async () => {
  const keys = await redis.keys(`${pipeline.prefix}:idempotency:*`);
  return (await Promise.all(keys.map((k) => redis.get(k)))).join('\n');
};

describe('Idempotency-Key', () => {
  it('POST /api/send: the same key and body replay the first answer; nothing is sent again', async () => {
    const first = await post('/api/send', manual(1), 'send-1').expect(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/api/send', manual(1), 'send-1').expect(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await pipeline.store.prisma.event.count({ where: { source: 'idem' } })).toBe(1);
    expect(await auditCount('event.sent')).toBe(1);

    const reused = await post('/api/send', manual(2), 'send-1').expect(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    const fresh = await post('/api/send', manual(1), 'send-2').expect(202);
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(await pipeline.store.prisma.event.count({ where: { source: 'idem' } })).toBe(2);
  });

  it('the same JSON with its keys in another order is the same request: it replays, not 422', async () => {
    const body = { source: 'idem-order', target_url: 'http://127.0.0.1:9999/hook', body: { a: 1, b: { c: 2, d: 3 } } };
    const first = await post('/api/send', body, 'order-1').expect(202);
    const reordered = { body: { b: { d: 3, c: 2 }, a: 1 }, target_url: body.target_url, source: body.source };
    const again = await post('/api/send', reordered, 'order-1').expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await pipeline.store.prisma.event.count({ where: { source: 'idem-order' } })).toBe(1);
    // Really another body (a value changed, or an array reordered) is still refused.
    const changed = { ...reordered, body: { b: { d: 3, c: 2 }, a: 2 } };
    expect((await post('/api/send', changed, 'order-1').expect(422)).body.code).toBe('idempotency_key_reused');
    await post('/api/send', { ...body, body: [1, 2] }, 'order-2').expect(202);
    await post('/api/send', { ...body, body: [2, 1] }, 'order-2').expect(422);
  });

  it('is scoped to the calling credential: another token or key with the same key acts anew', async () => {
    const mine = await post('/api/send', manual(3), 'shared-key').expect(202);
    const otherUser = (await userCredential(pipeline, 'admin')).authorization;
    const key = await apiKeyCredential(pipeline, ['webhooks:send']);
    for (const authorization of [otherUser, key]) {
      const theirs = await post('/api/send', manual(3), 'shared-key', authorization).expect(202);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
    }
    expect(await pipeline.store.prisma.event.count({ where: { source: 'idem' } })).toBe(5);
  });

  it('a session is scoped to its user: a new session of the same user replays, a personal token acts anew', async () => {
    await seedUser(pipeline, { username: 'sam', role: 'admin', password: 'sam-password-123' });
    const login = async () => {
      const res = await pipeline.http.post('/api/auth/login').send({ username: 'sam', password: 'sam-password-123' });
      const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
      return cookies.find((c) => c.includes('relay_session='))!.split(';')[0]!;
    };
    const viaSession = async (cookie: string) =>
      pipeline.http
        .post('/api/send')
        .set('cookie', cookie)
        .set('sec-fetch-site', 'same-origin')
        .set('idempotency-key', 'session-key')
        .send(manual(6))
        .expect(202);
    const first = await viaSession(await login());
    const second = await viaSession(await login());
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const token = await post('/api/auth/tokens', { name: 'sam' }, undefined, basicAuth('sam', 'sam-password-123'));
    const viaToken = await post('/api/send', manual(6), 'session-key', `Bearer ${token.body.token}`).expect(202);
    expect(viaToken.body.id).not.toBe(first.body.id);
  });

  it('keeps a 4xx answer (a retry refused) but not a 400 of validation, which never acted', async () => {
    const sent = await post('/api/send', manual(4), undefined).expect(202);
    const refused = await post(`/events/${sent.body.id}/retry`, {}, 'retry-1').expect(409);
    expect(refused.body.code).toBe('event_not_retryable');
    await pipeline.store.prisma.event.update({ where: { id: sent.body.id }, data: { status: 'failed' } });
    // No body is the same request as `{}` (both act on the primary target).
    const replayed = await pipeline.http
      .post(`/events/${sent.body.id}/retry`)
      .set('authorization', admin)
      .set('idempotency-key', 'retry-1')
      .expect(409);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    await post(`/events/${sent.body.id}/retry`, {}, 'retry-2').expect(202);
    await pipeline.store.prisma.event.update({ where: { id: sent.body.id }, data: { status: 'failed' } });
    expect((await post(`/events/${sent.body.id}/retry`, {}, 'retry-2').expect(202)).headers).toMatchObject({
      'idempotent-replayed': 'true',
    });
    expect(await auditCount('event.retried')).toBe(1);

    await post('/rules', { source: 42, target_url: 'http://127.0.0.1:9999/rule' }, 'rule-1').expect(400);
    const rule = { source: 'idem-rule', target_url: 'http://127.0.0.1:9999/rule' };
    const created = await post('/rules', rule, 'rule-1').expect(201);
    expect((await post('/rules', rule, 'rule-1').expect(201)).body).toEqual(created.body);
    expect(await pipeline.store.prisma.rule.count({ where: { source: 'idem-rule' } })).toBe(1);
  });

  it('bulk actions replay their result and act once', async () => {
    const sent = await post('/api/send', manual(5), undefined).expect(202);
    await pipeline.store.prisma.event.update({ where: { id: sent.body.id }, data: { status: 'delivered' } });
    const first = await post('/events/bulk/retry', { ids: [sent.body.id] }, 'bulk-1').expect(200);
    expect(first.body).toMatchObject({ affected: 1, ids: [sent.body.id] });
    await pipeline.store.prisma.event.update({ where: { id: sent.body.id }, data: { status: 'delivered' } });
    const again = await post('/events/bulk/retry', { ids: [sent.body.id] }, 'bulk-1').expect(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await auditCount('events.bulk_retried')).toBe(1);
  });

  it('API keys and personal tokens: a replay leaves the token out, says so, and Redis never holds it', async () => {
    const body = { name: 'ci', scopes: ['events:read'] };
    const key = await post('/api/api-keys', body, 'key-1').expect(201);
    expect(key.body.token).toMatch(/^ts_/);
    expect(key.body.secret_redacted).toBeUndefined();
    const keyReplay = await post('/api/api-keys', body, 'key-1').expect(201);
    expect(keyReplay.headers['idempotent-replayed']).toBe('true');
    const { token: _token, ...withoutToken } = key.body;
    expect(keyReplay.body).toEqual({ ...withoutToken, secret_redacted: true });
    expect(await pipeline.store.prisma.apiKey.count({ where: { name: 'ci' } })).toBe(1);

    const token = await post('/api/auth/tokens', { name: 'laptop' }, 'token-1').expect(201);
    const tokenReplay = await post('/api/auth/tokens', { name: 'laptop' }, 'token-1').expect(201);
    expect(tokenReplay.body).toMatchObject({ id: token.body.id, secret_redacted: true });
    expect(tokenReplay.body.token).toBeUndefined();

    const stored = await storedAnswers();
    expect(stored).toContain(key.body.id);
    expect(stored).not.toContain(key.body.token);
    expect(stored).not.toContain(token.body.token);
  });

  it('the operator bootstrap replays without the password, scoped to the platform token', async () => {
    const bootstrap = (key: string) =>
      post('/api/platform/bootstrap/operator', { username: 'root' }, key, `Bearer ${PLATFORM_TOKEN}`);
    const first = await bootstrap('boot-1').expect(201);
    expect(first.body.password).toEqual(expect.any(String));
    const replay = await bootstrap('boot-1').expect(201);
    expect(replay.body).toEqual({ operator: first.body.operator, secret_redacted: true });
    expect(await storedAnswers()).not.toContain(first.body.password);
    expect((await bootstrap('boot-2').expect(409)).body.code).toBe('operator_exists');
  });

  it('duplicates that arrive while the first create runs answer 409 and nothing is created twice', async () => {
    const body = { username: `dup-${randomUUID().slice(0, 6)}`, email: 'dup@example.com' };
    const user = { ...body, password: 'Correct-Horse-Battery-9', role: 'viewer' };
    const answers = await Promise.all([1, 2, 3, 4].map(() => post('/api/users', user, 'user-1')));
    const statuses = answers.map((res) => res.status).sort();
    const acted = answers.filter((res) => res.status === 201 && !res.headers['idempotent-replayed']);
    expect(acted).toHaveLength(1);
    const busy = answers.filter((res) => res.status === 409);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) expect(res.body.code).toBe('idempotency_in_progress');
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(await pipeline.store.prisma.user.count({ where: { username: body.username } })).toBe(1);
    expect((await post('/api/users', user, 'user-1').expect(201)).body).toEqual(acted[0]!.body);
    // Compared as validated: leaving out a field at its default is the same request.
    const { role: _default, ...withoutRole } = user;
    expect((await post('/api/users', withoutRole, 'user-1').expect(201)).headers['idempotent-replayed']).toBe('true');
    expect((await post('/api/users', { ...user, role: 'admin' }, 'user-1').expect(422)).body.code).toBe(
      'idempotency_key_reused',
    );
  });

  it('is declared on every create, send, retry and bulk action, and in the OpenAPI document', () => {
    const idempotent = ALL_OPERATIONS.filter((op) => op.idempotent).map((op) => `${op.method} ${op.path}`);
    expect(idempotent.sort()).toEqual(
      [
        'post /api/api-keys',
        'post /api/auth/tokens',
        'post /api/domains',
        'post /api/platform/bootstrap/operator',
        'post /api/platform/organizations',
        'post /api/send',
        'post /api/users',
        'post /events/:id/retry',
        'post /events/bulk/delete',
        'post /events/bulk/retry',
        'post /rules',
        'post /rules/:id/destinations',
        'post /rules/:id/hooks',
      ].sort(),
    );
    const doc = buildOpenApiDocument(ALL_OPERATIONS, { version: 'test' }) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: object }>>;
    };
    const send = doc.paths['/api/send']!.post!;
    expect(send.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(Object.keys(send.responses)).toEqual(expect.arrayContaining(['202', '409', '422']));
    const ack = doc.paths['/events/{id}/ack']!.post!;
    expect(ack.parameters?.some((p) => p.name === 'Idempotency-Key')).toBe(false);
  });
});
