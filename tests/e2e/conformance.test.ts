import { Writable } from 'node:stream';
import { SYSTEM_ACTOR } from '@relay/db';
import { createLogger } from '@relay/service-kit';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime } from '../../apps/api/src/runtime';
import { reopenEvents, waitFor } from '@relay/test-support';
import { apiKeyCredential, FAST_HASH_ENV, seedUser, startPipeline, userCredential, type Pipeline } from './harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Spec conformance (issue 11, item 9) and the session settings of item 8.
describe('spec conformance', () => {
  let pipeline: Pipeline;
  let admin: { userId: string; authorization: string };
  const ingest = (source: string) =>
    pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{"n":1}').expect(202);

  beforeAll(async () => {
    pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 'conformance' }, worker: false });
    admin = await userCredential(pipeline, 'admin');
  });
  afterAll(() => pipeline.close());

  it('answers GET /api/auth/me without credentials: 200, no mechanism in effect', async () => {
    const res = await pipeline.http.get('/api/auth/me').expect(200);
    expect(res.body).toEqual({ mechanism: 'none', kind: null, user: null, organization: null, role: null, scopes: [] });
  });

  it('lists in /api/auth/me only the scopes the principal can actually use', async () => {
    const viewer = await userCredential(pipeline, 'viewer');
    const asViewer = await pipeline.http.get('/api/auth/me').set('authorization', viewer.authorization).expect(200);
    expect(asViewer.body.scopes).toEqual(['events:read', 'rules:read']);
    const asAdmin = await pipeline.http.get('/api/auth/me').set('authorization', admin.authorization).expect(200);
    expect(asAdmin.body.scopes).toEqual([
      'events:read',
      'webhooks:send',
      'rules:read',
      'rules:write',
      'organization:manage',
    ]);
    const key = await apiKeyCredential(pipeline, ['rules:write']);
    expect((await pipeline.http.get('/api/auth/me').set('authorization', key).expect(200)).body.scopes).toEqual([
      'rules:write',
    ]);
  });

  it("gives audit entries the spec's types: an API key's act is its creator's, a bulk action has its own id", async () => {
    const created = await pipeline.http
      .post('/api/api-keys')
      .set('authorization', admin.authorization)
      .send({ name: 'deployer', scopes: ['rules:write', 'organization:manage'] })
      .expect(201);
    const key = `Bearer ${created.body.token}`;
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', key)
      .send({ target_url: 'https://example.com/hook' })
      .expect(200);
    const ids = [(await ingest('bulk-audit')).body.id, (await ingest('bulk-audit')).body.id];
    await pipeline.http
      .post('/events/bulk/delete')
      .set('authorization', key)
      .send({ filter: { source: 'bulk-audit' } })
      .expect(200);
    // A login failure for a name nobody has: the system actor, and an id of its own.
    await pipeline.http.post('/api/auth/login').send({ username: 'nobody-at-all', password: 'x' }).expect(401);

    // The harness checks every answer against the declared schema: actor_user_id and resource_id are UUIDs,
    // actor_email a string, in every entry.
    const page = await pipeline.http.get('/api/audit?per_page=100').set('authorization', admin.authorization);
    expect(page.status).toBe(200);
    const entries = page.body.entries as Array<Record<string, unknown>>;
    const byAction = (action: string) => entries.find((e) => e.action === action)!;
    expect(byAction('config.default_target_updated')).toMatchObject({
      actor_user_id: admin.userId,
      actor_email: 'admin@example.com',
      metadata: { api_key_id: created.body.id },
    });
    const bulk = byAction('events.bulk_deleted');
    expect(bulk.resource_id).toMatch(UUID);
    expect(ids).not.toContain(bulk.resource_id);
    expect(bulk).toMatchObject({ actor_user_id: admin.userId, metadata: { affected: 2 } });
    expect([...(bulk.metadata as { ids: string[] }).ids].sort()).toEqual([...ids].sort());
    const failed = await pipeline.store.prisma.auditEntry.findFirstOrThrow({ where: { action: 'auth.login_failed' } });
    expect(failed).toMatchObject({ actorUserId: SYSTEM_ACTOR.id, actorEmail: SYSTEM_ACTOR.email });
    expect(failed.resourceId).toMatch(UUID);
  });

  it('filters needs_attention=false as well as true', async () => {
    const [failed, delivered, acknowledged] = [
      (await ingest('attention')).body.id as string,
      (await ingest('attention')).body.id as string,
      (await ingest('attention')).body.id as string,
    ];
    await pipeline.store.prisma.event.update({ where: { id: failed }, data: { status: 'failed' } });
    await pipeline.store.prisma.event.update({ where: { id: delivered }, data: { status: 'delivered' } });
    await pipeline.store.prisma.event.update({
      where: { id: acknowledged },
      data: { status: 'failed', acknowledgedAt: new Date() },
    });
    await reopenEvents(pipeline.store.pool, [failed, delivered, acknowledged]);
    const list = async (flag: string) =>
      (
        await pipeline.http
          .get(`/events?source=attention&needs_attention=${flag}`)
          .set('authorization', admin.authorization)
          .expect(200)
      ).body.events
        .map((e: { id: string }) => e.id)
        .sort();
    expect(await list('true')).toEqual([failed]);
    expect(await list('false')).toEqual([delivered, acknowledged].sort());
  });

  it('answers a JSON body of null with 400 validation_failed, not invalid_json', async () => {
    for (const [path, auth] of [
      ['/api/auth/login', undefined],
      ['/api/auth/tokens', admin.authorization],
      ['/events/bulk/retry', admin.authorization],
      ['/api/platform/bootstrap/operator', undefined],
    ] as const) {
      const req = pipeline.http.post(path).set('content-type', 'application/json');
      const res = await (auth ? req.set('authorization', auth) : req).send('null');
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 400,
        code: 'validation_failed',
      });
    }
    // Broken JSON is still invalid_json.
    const broken = await pipeline.http
      .post('/api/auth/login')
      .set('content-type', 'application/json')
      .send('{"username":')
      .expect(400);
    expect(broken.body.code).toBe('invalid_json');
  });

  it('needs an explicit "all": true to retry or delete with an empty filter', async () => {
    const id = (await ingest('everything')).body.id as string;
    await pipeline.store.prisma.event.update({ where: { id }, data: { status: 'failed' } });
    for (const path of ['/events/bulk/retry', '/events/bulk/delete']) {
      const refused = await pipeline.http
        .post(path)
        .set('authorization', admin.authorization)
        .send({ filter: {} })
        .expect(400);
      expect(refused.body.code).toBe('bulk_all_required');
    }
    expect(await pipeline.eventById(id)).toMatchObject({ status: 'failed' });
    const all = await pipeline.http
      .post('/events/bulk/delete')
      .set('authorization', admin.authorization)
      .send({ filter: {}, all: true })
      .expect(200);
    expect(all.body.ids).toContain(id);
  });
});

describe('readiness waits for start-up work', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(() => pipeline.close());

  it('answers /ready 503 until the initial admin exists, then 200', async () => {
    const runtime = createApiRuntime(
      parseApiConfig({
        ...pipeline.baseEnv,
        ...FAST_HASH_ENV,
        INITIAL_ADMIN_USERNAME: 'first-admin',
        INITIAL_ADMIN_PASSWORD: 'first-admin-password-1',
      }),
      pino({ level: 'silent' }),
    );
    try {
      // Once Postgres and Redis answer, only the start-up work stands between the process and ready.
      const early = await waitFor(
        async () => {
          const res = await supertest(runtime.app).get('/ready');
          return res.body.checks?.redis === 'ok' ? res : undefined;
        },
        30_000,
        'the dependencies to answer',
      );
      expect(early.status).toBe(503);
      expect(early.body.detail).toMatch(/start-up/i);
      expect(await pipeline.store.prisma.user.count({ where: { username: 'first-admin' } })).toBe(0);
      await runtime.start();
      await supertest(runtime.app).get('/ready').expect(200);
      expect(await pipeline.store.prisma.user.count({ where: { username: 'first-admin' } })).toBe(1);
    } finally {
      await runtime.close();
    }
  });
});

describe('GET /config/endpoint with hosted organizations', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { INGEST_CANONICAL_HOST: 'relay.test', INGEST_HOST_CACHE_MS: '0', PUBLIC_BASE_URL: 'http://api.example' },
      worker: false,
    });
  });
  afterAll(() => pipeline.close());

  it('advertises only URLs that accept webhooks', async () => {
    const post = (url: string) =>
      pipeline.http
        .post(new URL(url).pathname + 'orders')
        .set('host', new URL(url).host)
        .set('content-type', 'application/json')
        .send('{}');
    // PUBLIC_BASE_URL's host is not an ingest host here: it refuses webhooks, so it is not advertised.
    await post('http://api.example/').expect(404);
    const unknown = await pipeline.http.get('/config/endpoint').set('host', 'api.example').expect(200);
    expect(unknown.body).toMatchObject({ ingest_url: null, source_url_template: null, ingest_urls: [] });
    const known = await pipeline.http.get('/config/endpoint').set('host', 'relay.test').expect(200);
    expect(known.body.ingest_urls.length).toBeGreaterThan(0);
    for (const url of known.body.ingest_urls as string[]) await post(url).expect(202);
    // The bare ingest URL uses DEFAULT_SOURCE: one that would refuse every webhook stops the api at start.
    expect(() => parseApiConfig({ DEFAULT_SOURCE: 'not a source!' })).toThrow(/DEFAULT_SOURCE: must be a valid source/);
    // No advertised source may be one the relay keeps for itself.
    for (const reserved of known.body.reserved_sources as string[]) {
      const res = await post(`${known.body.ingest_url}${reserved}/`);
      expect(res.status).not.toBe(202);
    }
  });
});

describe('session settings (item 8)', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 's' }, worker: false });
    await seedUser(pipeline, { username: 'origin', role: 'admin', password: 'origin-password-1' });
  });
  afterAll(() => pipeline.close());

  it('makes the session cookie Secure by default when PUBLIC_BASE_URL is https', () => {
    expect(parseApiConfig({ PUBLIC_BASE_URL: 'https://relay.example.com' }).SESSION_COOKIE_SECURE).toBe(true);
    expect(parseApiConfig({ PUBLIC_BASE_URL: 'http://localhost:3000' }).SESSION_COOKIE_SECURE).toBe(false);
    expect(
      parseApiConfig({ PUBLIC_BASE_URL: 'https://relay.example.com', SESSION_COOKIE_SECURE: 'false' })
        .SESSION_COOKIE_SECURE,
    ).toBe(false);
  });

  it('warns at start when PUBLIC_BASE_URL is https and TRUST_PROXY is unset', async () => {
    const start = async (env: Record<string, string>) => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
      const runtime = createApiRuntime(
        parseApiConfig({ ...pipeline.baseEnv, SESSION_SECRET: 's', ...env }),
        createLogger('api', 'warn', sink),
      );
      // Closed only once connected: a runtime closed mid-connect leaves its Redis client reconnecting.
      await waitFor(async () => (await supertest(runtime.app).get('/ready')).body.checks?.redis === 'ok', 30_000);
      await runtime.close();
      return lines.join('');
    };
    expect(await start({ PUBLIC_BASE_URL: 'https://relay.example.com' })).toMatch(/TRUST_PROXY is not set/);
    expect(await start({ PUBLIC_BASE_URL: 'https://relay.example.com', TRUST_PROXY: 'loopback' })).not.toMatch(
      /TRUST_PROXY/,
    );
    expect(await start({ PUBLIC_BASE_URL: 'http://localhost:3000' })).not.toMatch(/TRUST_PROXY/);
  });

  it("compares the Origin's scheme, host and port with the request's own", async () => {
    const login = await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'origin', password: 'origin-password-1' })
      .expect(200);
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
    const write = (headers: Record<string, string>) =>
      pipeline.http.post('/api/auth/tokens').set('cookie', cookie).set(headers).send({ name: 'origin-check' });
    const cases: Array<[Record<string, string>, number]> = [
      [{ host: 'relay.test', origin: 'http://relay.test' }, 201],
      [{ host: 'relay.test', origin: 'http://relay.test:80' }, 201],
      [{ host: 'relay.test:8080', origin: 'http://relay.test:8080' }, 201],
      // Same host name, another port or scheme: another origin.
      [{ host: 'relay.test', origin: 'http://relay.test:8080' }, 403],
      [{ host: 'relay.test:8080', origin: 'http://relay.test' }, 403],
      [{ host: 'relay.test', origin: 'https://relay.test' }, 403],
      [{ host: 'relay.test', origin: 'null' }, 403],
    ];
    for (const [headers, status] of cases) {
      expect({ headers, status: (await write(headers)).status }).toEqual({ headers, status });
    }
  });
});
