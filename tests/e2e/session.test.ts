import { DEFAULT_ORGANIZATION_ID, parseToken } from '@relay/core';
import supertest from 'supertest';
import { FAST_HASH_ENV, seedUser, startPipeline, type Pipeline } from './harness';

const cookieOf = (res: supertest.Response) =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('relay_session='));

describe('sessions: login, logout, me, CSRF and brute force', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { ...FAST_HASH_ENV, SESSION_SECRET: 'test-session-secret', LOGIN_MAX_FAILURES_PER_USER: '3' },
      worker: false,
    });
    await seedUser(pipeline, { username: 'dana', role: 'admin', password: 'dana-password-1' });
    await seedUser(pipeline, { username: 'eve', role: 'viewer', password: 'eve-password-12' });
  });
  afterAll(() => pipeline.close());

  it('logs in with a fresh HttpOnly, SameSite=Lax session cookie that `me` reports as a session', async () => {
    const agent = supertest.agent(pipeline.api.app);
    const login = await agent
      .post('/api/auth/login')
      .send({ username: 'dana', password: 'dana-password-1' })
      .expect(200);
    const cookie = cookieOf(login)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(login.body).toMatchObject({ mechanism: 'session', user: { username: 'dana', role: 'admin' } });
    const me = await agent.get('/api/auth/me').expect(200);
    expect(me.body).toMatchObject({ mechanism: 'session', user: { username: 'dana' } });
  });

  it('changes the session id at login, and the old one is dead after logout', async () => {
    const first = cookieOf(
      await pipeline.http.post('/api/auth/login').send({ username: 'eve', password: 'eve-password-12' }).expect(200),
    )!.split(';')[0]!;
    const second = cookieOf(
      await pipeline.http
        .post('/api/auth/login')
        .set('cookie', first)
        .set('sec-fetch-site', 'same-origin')
        .send({ username: 'eve', password: 'eve-password-12' })
        .expect(200),
    )!.split(';')[0]!;
    expect(second).not.toBe(first);
    await pipeline.http.get('/api/auth/me').set('cookie', second).expect(200);
    await pipeline.http.post('/api/auth/logout').set('cookie', second).set('sec-fetch-site', 'same-origin').expect(204);
    // `me` is public: a dead session is no session, so no mechanism is in effect.
    expect((await pipeline.http.get('/api/auth/me').set('cookie', second).expect(200)).body.mechanism).toBe('none');
  });

  it('refuses cookie-authenticated writes without same-origin proof, but not token or Basic ones', async () => {
    const cookie = cookieOf(
      await pipeline.http.post('/api/auth/login').send({ username: 'dana', password: 'dana-password-1' }).expect(200),
    )!.split(';')[0]!;
    const bare = await pipeline.http.post('/api/auth/tokens').set('cookie', cookie).send({ name: 'x' }).expect(403);
    expect(bare.body.code).toBe('csrf_rejected');
    // Which request headers prove a cookie-authenticated write comes from the relay's own pages.
    const cases: Array<{ headers: Record<string, string>; status: number }> = [
      { headers: { 'sec-fetch-site': 'cross-site' }, status: 403 },
      { headers: { host: 'relay.test', origin: 'https://evil.test' }, status: 403 },
      { headers: { host: 'relay.test', origin: 'http://relay.test' }, status: 201 },
      { headers: { 'sec-fetch-site': 'same-origin' }, status: 201 },
    ];
    for (const { headers, status } of cases) {
      const reply = await pipeline.http.post('/api/auth/tokens').set('cookie', cookie).set(headers).send({ name: 'x' });
      expect({ headers, status: reply.status }).toEqual({ headers, status });
    }
    const basic = `Basic ${Buffer.from('dana:dana-password-1').toString('base64')}`;
    await pipeline.http.post('/api/auth/tokens').set('authorization', basic).send({ name: 'z' }).expect(201);
    await pipeline.http
      .post('/api/auth/login')
      .set('sec-fetch-site', 'cross-site')
      .send({ username: 'dana', password: 'dana-password-1' })
      .expect(403);
  });

  it('answers an unknown user and a wrong password alike, and audits the failure', async () => {
    const wrong = await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'dana', password: 'not-it' })
      .expect(401);
    const unknown = await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'nobody', password: 'not-it' })
      .expect(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
    const entries = await pipeline.store.prisma.auditEntry.findMany({ where: { action: 'auth.login_failed' } });
    expect(entries.find((e) => e.organizationId === DEFAULT_ORGANIZATION_ID)?.metadata).toMatchObject({
      username: 'dana',
    });
    expect(entries.find((e) => e.organizationId === null)?.metadata).toMatchObject({ username: 'nobody' });
    expect(JSON.stringify(entries)).not.toContain('not-it');
  });

  it('answers 429 with Retry-After after repeated failures, even for the right password', async () => {
    for (let i = 0; i < 3; i++)
      await pipeline.http
        .post('/api/auth/login')
        .send({ username: 'eve', password: `wrong-${i}` })
        .expect(401);
    const blocked = await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'eve', password: 'eve-password-12' })
      .expect(429);
    expect(blocked.body.code).toBe('too_many_attempts');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('session cookie over TLS, session TTL, and secrets kept out of logs', () => {
  let pipeline: Pipeline;
  const logged: string[] = [];
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: {
        ...FAST_HASH_ENV,
        SESSION_SECRET: 'tls-secret',
        SESSION_COOKIE_SECURE: 'true',
        TRUST_PROXY: 'loopback',
        SESSION_TTL_SECONDS: '600',
      },
      worker: false,
    });
    await seedUser(pipeline, { username: 'tls', role: 'admin', password: 'tls-password-12' });
  });
  afterAll(() => pipeline.close());

  it('sets a Secure __Host- cookie behind a trusted TLS proxy, stored in Redis with the TTL', async () => {
    const res = await pipeline.http
      .post('/api/auth/login')
      .set('x-forwarded-proto', 'https')
      .send({ username: 'tls', password: 'tls-password-12' })
      .expect(200);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
    expect(cookie).toMatch(/^__Host-relay_session=/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/);
    const sid = decodeURIComponent(cookie.split(';')[0]!.split('=')[1]!).replace(/^s:/, '').split('.')[0]!;
    const { createClient } = await import('redis');
    const redis = createClient({ url: pipeline.baseEnv.REDIS_URL });
    await redis.connect();
    const ttl = await redis.ttl(`${pipeline.prefix}:sess:${sid}`);
    await redis.close();
    expect(ttl).toBeGreaterThan(500);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('never writes tokens, passwords or cookies to the logs', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('@relay/service-kit');
    const { parseApiConfig } = await import('../../apps/api/src/config');
    const { createApiRuntime } = await import('../../apps/api/src/runtime');
    const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
    const runtime = createApiRuntime(
      parseApiConfig({ ...pipeline.baseEnv, LOG_LEVEL: 'trace', ...FAST_HASH_ENV, SESSION_SECRET: 'tls-secret' }),
      createLogger('api', 'trace', sink),
    );
    const http = supertest(runtime.app);
    const basicAuth = `Basic ${Buffer.from('tls:tls-password-12').toString('base64')}`;
    const created = await http
      .post('/api/auth/tokens')
      .set('authorization', basicAuth)
      .send({ name: 'logged?' })
      .expect(201);
    await http.get('/api/auth/me').set('authorization', `Bearer ${created.body.token}`).expect(200);
    await http
      .get('/api/auth/me')
      .set('authorization', 'Bearer ts_AAAAAAAAAAAA_thisIsNotARealSecretButShouldNotBeLoggedEither00')
      .expect(401);
    const login = await http.post('/api/auth/login').send({ username: 'tls', password: 'tls-password-12' }).expect(200);
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
    await http.get('/api/auth/me').set('cookie', cookie).expect(200);
    await runtime.close();
    const text = logged.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of [
      parseToken(created.body.token)!.secret,
      'thisIsNotARealSecret',
      'tls-password-12',
      cookie.split('=')[1],
      basicAuth.split(' ')[1],
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
