import { ownRedis, waitFor, type OwnRedis } from '@relay/test-support';
import type supertest from 'supertest';
import { basicAuth, FAST_HASH_ENV, seedUser, startPipeline, userCredential, type Pipeline } from './harness';
import { listen, openStream, type SseClient } from './sse-client';

// With Redis stopped, everything whose answer needs Redis (password checks, sessions, Idempotency-Key,
// the live stream) answers a 503 problem instead of hanging: the test's own timeout is the only clock,
// so a request that waited for Redis to come back would fail it. Bearer calls and ingest need only
// Postgres and carry on.
const PASSWORD = 'outage-password-1';

const sessionCookie = (res: supertest.Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;

describe('Redis stopped', () => {
  let redis: OwnRedis;
  let pipeline: Pipeline;
  let bearer: string;
  let cookie: string;
  let server: Awaited<ReturnType<typeof listen>>;
  let following: SseClient;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    pipeline = await startPipeline({
      redisUrl: redis.url,
      api: { ...FAST_HASH_ENV, SESSION_SECRET: 'redis-outage-session-secret', REDIS_COMMAND_TIMEOUT_MS: '500' },
      worker: false,
    });
    await seedUser(pipeline, { username: 'olive', role: 'admin', password: PASSWORD });
    bearer = (await userCredential(pipeline, 'admin')).authorization;
    // A session started while Redis was there: afterwards its cookie needs Redis to be read.
    await waitFor(
      async () =>
        (await pipeline.http.post('/api/auth/login').send({ username: 'olive', password: PASSWORD })).status === 200
          ? true
          : undefined,
      10_000,
      'a login while Redis is up',
    );
    cookie = sessionCookie(
      await pipeline.http.post('/api/auth/login').send({ username: 'olive', password: PASSWORD }).expect(200),
    );
    await pipeline.http.get('/api/auth/me').set('cookie', cookie).expect(200);
    // A stream that follows the organization already: its subscription must not let new streams in later.
    server = await listen(pipeline.api.app);
    following = await openStream(`${server.url}/events/stream`, { authorization: bearer });
    expect(following.status).toBe(200);
    await redis.stop();
  });
  afterAll(async () => {
    following.close();
    await server.close();
    await pipeline.close();
    await redis.stop();
  });

  const expectUnavailable = (res: supertest.Response) => {
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('service_unavailable');
  };

  it('refuses a password login with a 503 problem (fail closed, no session)', async () => {
    const res = await pipeline.http.post('/api/auth/login').send({ username: 'olive', password: PASSWORD });
    expectUnavailable(res);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses HTTP Basic with a 503 problem, the right password included', async () => {
    expectUnavailable(await pipeline.http.get('/api/auth/me').set('authorization', basicAuth('olive', PASSWORD)));
    expectUnavailable(await pipeline.http.get('/rules').set('authorization', basicAuth('olive', 'wrong-one')));
  });

  it('answers a request with a session cookie, and a logout, with a 503 problem', async () => {
    expectUnavailable(await pipeline.http.get('/rules').set('cookie', cookie));
    expectUnavailable(
      await pipeline.http.post('/api/auth/logout').set('cookie', cookie).set('sec-fetch-site', 'same-origin'),
    );
  });

  it('answers a request with an Idempotency-Key with a 503 problem, without acting', async () => {
    const res = await pipeline.http
      .post('/api/auth/tokens')
      .set('authorization', bearer)
      .set('idempotency-key', 'outage-1')
      .send({ name: 'during the outage' });
    expectUnavailable(res);
    const tokens = await pipeline.http.get('/api/auth/tokens').set('authorization', bearer).expect(200);
    expect(JSON.stringify(tokens.body)).not.toContain('during the outage');
  });

  it('refuses a new live stream with a 503 problem, though a stream of its organization was open', async () => {
    const client = await openStream(`${server.url}/events/stream`, { authorization: bearer });
    client.close();
    expect(client.status).toBe(503);
    expect(client.headers['content-type']).toMatch(/^application\/problem\+json/);
    const again = await pipeline.http.get('/events/stream').set('authorization', bearer).expect(503);
    expect(again.body.code).toBe('stream_unavailable');
  });

  it('still answers Bearer calls and accepts webhooks', async () => {
    await pipeline.http.get('/rules').set('authorization', bearer).expect(200);
    const ingest = await pipeline.http
      .post('/outage-source')
      .set('content-type', 'application/json')
      .send('{"a":1}')
      .expect(202);
    expect((await pipeline.eventById(ingest.body.id))?.status).toBe('queued');
  });
});
