import { AppError, DEFAULT_ORGANIZATION_ID, userPrincipal } from '@relay/core';
import { ownRedis, uniqueQueuePrefix, waitFor } from '@relay/test-support';
import express from 'express';
import { pino } from 'pino';
import { createClient, type RedisClientType } from 'redis';
import supertest from 'supertest';
import { z } from 'zod';
import { createIdempotencyStore } from './idempotency-store';
import { mountOperations } from './mount-operations';
import { operationFactory, type Reply } from './operation';
import { errorHandler } from './problem';

// The idempotency layer against the real Redis, with handlers the test controls: a first attempt
// that fails, or one that is still running when its duplicate arrives. No database: the caller's
// token names its credential (`X-Caller`), as authenticate() would after checking it; a request
// with only an Authorization header is unverified, like the public operator bootstrap.
const define = operationFactory<unknown>();
let client: RedisClientType;
let prefix: string;
let act: () => Promise<Reply>;
let calls = 0;

function app(redis = client) {
  const store = createIdempotencyStore({
    client: redis,
    prefix,
    ttlSeconds: 60,
    runningSeconds: 60,
    onError: () => {},
  });
  const op = define({
    method: 'post',
    path: '/things',
    tag: 'test',
    access: 'public',
    summary: 'test',
    idempotent: { secretField: 'secret' },
    body: z.object({ a: z.number() }),
    responses: { 201: { description: 'ok' } },
    handler: async () => {
      calls += 1;
      return act();
    },
  });
  const plain = define({ ...op, path: '/plain', idempotent: undefined });
  const server = express();
  server.use(express.json());
  server.use((req, _res, next) => {
    const caller = req.get('x-caller');
    const user = { id: `user-${caller}`, organizationId: DEFAULT_ORGANIZATION_ID, role: 'admin' as const };
    if (caller) req.principal = userPrincipal({ ...user, username: 'u', email: 'u@example.com' }, 'token', caller);
    next();
  });
  server.use(mountOperations([op, plain], undefined, { validateResponses: false, idempotency: store }));
  server.use(errorHandler(pino({ level: 'silent' })));
  return supertest(server);
}

const post = (key: string | undefined, body: object = { a: 1 }, path = '/things', caller = 'alice') => {
  const req = app().post(path).set('x-caller', caller).send(body);
  return key === undefined ? req : req.set('idempotency-key', key);
};

beforeAll(async () => {
  client = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await client.connect();
});
afterAll(() => client.close());
beforeEach(() => {
  prefix = uniqueQueuePrefix();
  calls = 0;
  act = async () => ({ status: 201, body: { id: calls, secret: `s-${calls}` } });
});

describe('Idempotency-Key', () => {
  it('replays the first answer without acting, minus the secret, and stores no secret', async () => {
    const first = await post('k1').expect(201);
    expect(first.body).toEqual({ id: 1, secret: 's-1' });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('k1').expect(201);
    expect(again.body).toEqual({ id: 1, secret_redacted: true });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls).toBe(1);
    const keys = await client.keys(`${prefix}:idempotency:*`);
    expect(keys).toHaveLength(1);
    expect(await client.get(keys[0]!)).not.toContain('s-1');
    expect(await client.ttl(keys[0]!)).toBeGreaterThan(50);
  });

  it('answers 422 for the same key with another body, and 409 while the first attempt still runs', async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    act = async () => {
      await gate;
      return { status: 201, body: { id: calls } };
    };
    const first = post('k2').then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const duplicate = await post('k2').expect(409);
    expect(duplicate.body.code).toBe('idempotency_in_progress');
    expect((await post('k2', { a: 2 }).expect(422)).body.code).toBe('idempotency_key_reused');
    finish();
    expect((await first).status).toBe(201);
    expect((await post('k2', { a: 2 }).expect(422)).body.code).toBe('idempotency_key_reused');
    expect((await post('k2').expect(201)).headers['idempotent-replayed']).toBe('true');
    expect(calls).toBe(1);
  });

  it('frees the key after a 5xx (thrown or answered) so that a retry acts; keeps a 4xx', async () => {
    act = () => Promise.reject(new Error('boom'));
    await post('k3').expect(500);
    act = () => Promise.reject(new AppError('database_unavailable'));
    await post('k3').expect(503);
    act = async () => ({ status: 201, body: { id: calls } });
    expect((await post('k3').expect(201)).body).toEqual({ id: 3 });
    act = () => Promise.reject(new AppError('not_found', 'No such thing.', { reason: 'gone' }));
    await post('k4').expect(404);
    act = async () => ({ status: 201, body: { id: calls } });
    const replay = await post('k4').expect(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toMatchObject({ code: 'not_found', detail: 'No such thing.', reason: 'gone' });
    expect(calls).toBe(4);
  });

  it('keeps no 429, and for an unverified caller only a success, so guesses leave nothing in Redis', async () => {
    act = () => Promise.reject(new AppError('too_many_attempts'));
    await post('k6').expect(429);
    act = async () => ({ status: 201, body: { id: calls } });
    expect((await post('k6').expect(201)).headers['idempotent-replayed']).toBeUndefined();

    const unverified = (authorization: string) =>
      app().post('/things').set('authorization', authorization).set('idempotency-key', 'k7').send({ a: 1 });
    act = () => Promise.reject(new AppError('unauthenticated'));
    for (let i = 0; i < 3; i++) await unverified(`Bearer guess-${i}`).expect(401);
    act = () => Promise.reject(new AppError('not_found'));
    await unverified('Bearer guess-0').expect(404);
    expect(await client.keys(`${prefix}:idempotency:*`)).toHaveLength(1);
    act = async () => ({ status: 201, body: { id: calls, secret: 'once' } });
    await unverified('Bearer right').expect(201);
    expect((await unverified('Bearer right').expect(201)).body).toEqual({ id: 7, secret_redacted: true });
    expect(await client.keys(`${prefix}:idempotency:*`)).toHaveLength(2);
  });

  it('refuses keys that are empty, longer than 255 or not printable ASCII, before acting', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await post(key).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'Idempotency-Key' }] });
    }
    await post('x'.repeat(255)).expect(201);
    await post(' !"#$%&~ spaces inside ').expect(201);
    expect(calls).toBe(2);
  });

  it('scopes keys to the credential and ignores them where the operation is not idempotent', async () => {
    await post('k5').expect(201);
    const other = await post('k5', { a: 1 }, '/things', 'bob').expect(201);
    expect(other.body).toEqual({ id: 2, secret: 's-2' });
    await post('k5', { a: 1 }, '/plain').expect(201);
    await post('k5', { a: 1 }, '/plain').expect(201);
    expect(calls).toBe(4);
  });

  it('answers 503 at once, without acting, while Redis is away; requests without a key still run', async () => {
    const own = await ownRedis();
    await own.start();
    const away: RedisClientType = createClient({ url: own.url, socket: { reconnectStrategy: () => 100 } });
    away.on('error', () => {});
    await away.connect();
    await own.stop();
    try {
      await waitFor(async () => !away.isReady, 30_000, 'the client to notice');
      const res = await app(away).post('/things').set('x-caller', 'a').set('idempotency-key', 'k8').send({ a: 1 });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(calls).toBe(0);
      await app(away).post('/things').set('x-caller', 'a').send({ a: 1 }).expect(201);
    } finally {
      away.destroy();
    }
  });
});
