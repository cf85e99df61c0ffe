import supertest from 'supertest';
import {
  apiKeyCredential,
  basicAuth,
  FAST_HASH_ENV,
  startApiReplica,
  startPipeline,
  testPasswords,
  userCredential,
  type Pipeline,
} from './harness';

const TOKEN = 'platform-admin-token-0123456789abcdef';
const CANONICAL = 'relay.test';
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

let pipeline: Pipeline;
let operatorCookie: string;
const cookieOf = (res: supertest.Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;
const asOperator = (req: supertest.Test) => req.set('cookie', operatorCookie).set(SAME_ORIGIN);
const bootstrap = (username: string, token?: string) => {
  const req = pipeline.http.post('/api/platform/bootstrap/operator').send({ username });
  return token === undefined ? req : req.set('authorization', `Bearer ${token}`);
};
const newOrganization = (overrides: Record<string, unknown> = {}) => ({
  name: 'Acme Inc',
  slug: 'acme',
  username: 'acme-admin',
  password: 'Correct-Horse-9',
  email: 'admin@acme.example',
  subscriber_name: 'Acme Inc',
  billing_contact_name: 'Bea Bills',
  billing_contact_email: 'billing@acme.example',
  ...overrides,
});
const ingestAt = (host: string) =>
  pipeline.http.post('/orders').set('host', host).set('content-type', 'application/json').send('{"n":1}');

beforeAll(async () => {
  pipeline = await startPipeline({
    api: {
      ...FAST_HASH_ENV,
      SESSION_SECRET: 's',
      PLATFORM_ADMIN_TOKEN: TOKEN,
      INGEST_CANONICAL_HOST: CANONICAL,
      INGEST_HOST_CACHE_MS: '0',
      // The bootstrap race below makes 1 wrong and 5 concurrent attempts; with the default 5 per user, a loaded
      // machine could count them all before the winner's refund and answer one 429 (tests/e2e/brute-force.test.ts
      // covers the limit itself).
      LOGIN_MAX_FAILURES_PER_USER: '20',
      PUBLIC_BASE_URL: 'https://relay.test',
      // supertest speaks plain http: the cookie https would make Secure by default is never set over it.
      SESSION_COOKIE_SECURE: 'false',
    },
    worker: false,
  });
});
afterAll(() => pipeline.close());

describe('operator bootstrap', () => {
  it('refuses a missing/wrong token, creates exactly one operator under concurrency, then 409s any token', async () => {
    expect((await bootstrap('root').expect(401)).body.code).toBe('unauthenticated');
    await bootstrap('root', 'wrong-token').expect(401);
    const racers = await Promise.all(Array.from({ length: 5 }, (_, i) => bootstrap(`root${i}`, TOKEN)));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await pipeline.store.prisma.platformOperator.count()).toBe(1);
    const created = racers.find((r) => r.status === 201)!.body;
    expect(created).toEqual({
      operator: { id: expect.any(String), username: expect.stringMatching(/^root\d$/) },
      password: expect.any(String),
    });
    expect((await bootstrap('again', TOKEN).expect(409)).body.code).toBe('operator_exists');
    expect((await bootstrap('again', 'wrong').expect(409)).body.code).toBe('operator_exists');
    // The password is stored only as a hash.
    expect(JSON.stringify(await pipeline.store.prisma.platformOperator.findMany())).not.toContain(created.password);

    const login = await pipeline.http
      .post('/api/auth/login')
      .send({ username: created.operator.username, password: created.password })
      .expect(200);
    expect(login.body).toMatchObject({ kind: 'operator', operator: { username: created.operator.username } });
    operatorCookie = cookieOf(login);
    expect((await pipeline.http.get('/api/auth/me').set('cookie', operatorCookie).expect(200)).body).toMatchObject({
      mechanism: 'session',
      kind: 'operator',
      organization: null,
    });

    const actions = (
      await pipeline.store.prisma.auditEntry.findMany({
        where: { organizationId: null, action: { startsWith: 'operator.' } },
      })
    ).map((e) => e.action);
    expect(actions.filter((a) => a === 'operator.bootstrapped')).toHaveLength(1);
    expect(actions.filter((a) => a === 'operator.bootstrap_refused').length).toBeGreaterThanOrEqual(8);
  });

  it('is disabled while PLATFORM_ADMIN_TOKEN is unset', async () => {
    const replica = startApiReplica(pipeline, { PLATFORM_ADMIN_TOKEN: '' });
    try {
      await supertest(replica.app)
        .post('/api/platform/bootstrap/operator')
        .set('authorization', `Bearer ${TOKEN}`)
        .send({ username: 'x-root' })
        .expect(404);
    } finally {
      await replica.close();
    }
  });
});

describe('the platform API', () => {
  let orgId: string;

  it('creates an organization whose admin can log in and ingest on the organization host', async () => {
    const res = await asOperator(pipeline.http.post('/api/platform/organizations')).send(newOrganization()).expect(201);
    expect(res.body).toMatchObject({
      organization: {
        slug: 'acme',
        name: 'Acme Inc',
        subscriber_name: 'Acme Inc',
        billing_contact_email: 'billing@acme.example',
        subscription: { status: 'active' },
      },
      admin: { username: 'acme-admin' },
      ingest_urls: ['https://acme.relay.test/'],
    });
    orgId = res.body.organization.id;
    const admin = basicAuth('acme-admin', 'Correct-Horse-9');
    expect((await pipeline.http.get('/api/auth/me').set('authorization', admin).expect(200)).body).toMatchObject({
      organization: { id: orgId },
      role: 'admin',
    });
    const id = (await ingestAt('acme.relay.test').expect(202)).body.id;
    expect((await pipeline.eventById(id))?.organizationId).toBe(orgId);
    expect(
      (await pipeline.http.get('/events').set('authorization', admin).expect(200)).body.events.map(
        (e: { id: string }) => e.id,
      ),
    ).toEqual([id]);
    // The default organization keeps the base host.
    const base = (await ingestAt(CANONICAL).expect(202)).body.id;
    expect((await pipeline.eventById(base))?.organizationId).toBe('00000000-0000-7000-8000-000000000001');
    expect((await ingestAt('nobody.relay.test').expect(404)).body.code).toBe('ingest_host_unknown');
    expect((await ingestAt('elsewhere.example').expect(404)).body.code).toBe('ingest_host_unknown');
    // GET /config/endpoint answers for the Host asked, or for the caller's organization.
    const byHost = await pipeline.http.get('/config/endpoint').set('host', 'acme.relay.test').expect(200);
    expect(byHost.body).toMatchObject({
      organization: { id: orgId, slug: 'acme' },
      ingest_url: 'https://acme.relay.test/',
      source_url_template: 'https://acme.relay.test/{source}',
      ingest_urls: ['https://acme.relay.test/'],
    });
    expect(
      (await pipeline.http.get('/config/endpoint').set('authorization', admin).expect(200)).body.organization.id,
    ).toBe(orgId);
    expect((await pipeline.http.get('/config/endpoint').set('host', CANONICAL).expect(200)).body.ingest_urls).toEqual([
      'https://relay.test/',
      'https://default.relay.test/',
    ]);
    const audit = await pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'organization.created', organizationId: null },
    });
    expect(audit).toMatchObject({ resourceId: orgId });
  });

  it('reports every validation error at once, and 409 for a taken slug or username', async () => {
    const bad = await asOperator(pipeline.http.post('/api/platform/organizations'))
      .send(
        newOrganization({
          slug: 'Bad Slug!',
          email: 'not-an-email',
          password: 'short',
          billing_contact_email: 'x',
          name: '',
        }),
      )
      .expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'billing_contact_email',
      'email',
      'name',
      'password',
      'slug',
    ]);
    const missing = await asOperator(pipeline.http.post('/api/platform/organizations')).send({ name: 'x' }).expect(400);
    expect(missing.body.errors.length).toBeGreaterThanOrEqual(7);
    expect(
      (
        await asOperator(pipeline.http.post('/api/platform/organizations'))
          .send(newOrganization({ username: 'other-admin' }))
          .expect(409)
      ).body.code,
    ).toBe('slug_taken');
    expect(
      (
        await asOperator(pipeline.http.post('/api/platform/organizations'))
          .send(newOrganization({ slug: 'acme2' }))
          .expect(409)
      ).body.code,
    ).toBe('username_taken');
    await asOperator(pipeline.http.post('/api/platform/organizations'))
      .send(newOrganization({ slug: 'weak', username: 'weak-admin', password: 'aaaaaaaaaaaa' }))
      .expect(400);
    expect(await pipeline.store.prisma.organization.count({ where: { slug: { in: ['acme2', 'weak'] } } })).toBe(0);
  });

  it('lists, searches and shows organizations, and gives an overview', async () => {
    const list = await asOperator(pipeline.http.get('/api/platform/organizations?search=acm')).expect(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, pages: 1, organizations: [{ slug: 'acme' }] });
    expect((await asOperator(pipeline.http.get('/api/platform/organizations')).expect(200)).body.total).toBe(2);
    const detail = await asOperator(pipeline.http.get(`/api/platform/organizations/${orgId}`)).expect(200);
    expect(detail.body).toMatchObject({
      slug: 'acme',
      users_by_role: { admin: 1 },
      events: { queued: 1 },
      ingest_urls: ['https://acme.relay.test/'],
    });
    await asOperator(pipeline.http.get('/api/platform/organizations/00000000-0000-7000-8000-0000000000ff')).expect(404);
    const overview = await asOperator(pipeline.http.get('/api/platform/overview')).expect(200);
    expect(overview.body).toMatchObject({ organizations: 2, events: { queued: 2, delivered: 0, failed: 0 } });
  });

  it('changes the subscription; a suspended organization cannot ingest and keeps its data', async () => {
    const path = `/api/platform/organizations/${orgId}/subscription`;
    for (const body of [{}, { status: 'frozen' }, { monthly_event_limit: -1 }, { current_period_end: 'soon' }]) {
      await asOperator(pipeline.http.patch(path)).send(body).expect(400);
    }
    const patched = await asOperator(pipeline.http.patch(path))
      .send({
        status: 'suspended',
        plan: 'pro',
        monthly_event_limit: 100000,
        current_period_end: '2027-01-01T00:00:00Z',
      })
      .expect(200);
    expect(patched.body.subscription).toEqual({
      plan: 'pro',
      status: 'suspended',
      monthly_event_limit: 100000,
      current_period_end: '2027-01-01T00:00:00.000Z',
      ingest_rate_limit: null,
      api_rate_limit: null,
      retention_days: null,
    });
    expect((await ingestAt('acme.relay.test').expect(403)).body.code).toBe('organization_suspended');
    expect(await pipeline.store.prisma.event.count({ where: { organizationId: orgId } })).toBe(1);
    await asOperator(pipeline.http.patch(path)).send({ status: 'canceled' }).expect(200);
    await ingestAt('acme.relay.test').expect(403);
    await asOperator(pipeline.http.patch(path)).send({ status: 'active' }).expect(200);
    await ingestAt('acme.relay.test').expect(202);
    const audit = await pipeline.store.prisma.auditEntry.findMany({
      where: { action: 'subscription.updated', organizationId: null },
    });
    expect(audit).toHaveLength(3);
    expect(
      (await asOperator(pipeline.http.get('/api/platform/audit')).expect(200)).body.entries.map(
        (e: { action: string }) => e.action,
      ),
    ).toContain('subscription.updated');
    // The filters of the organization log, on the wire: a query the API reads, and a bad one refused.
    const filtered = await asOperator(
      pipeline.http.get('/api/platform/audit').query({ action: 'subscription.updated', resource_id: orgId }),
    ).expect(200);
    expect(filtered.body.total).toBe(3);
    expect(new Set(filtered.body.entries.map((e: { action: string }) => e.action))).toEqual(
      new Set(['subscription.updated']),
    );
    const refused = await asOperator(pipeline.http.get('/api/platform/audit').query({ from: 'yesterday' })).expect(400);
    expect(refused.body.code).toBe('validation_failed');
  });

  it('refuses everyone but operators on every platform route, and operators on tenant routes', async () => {
    const routes: [string, string][] = [
      ['get', '/api/platform/overview'],
      ['get', '/api/platform/organizations'],
      ['get', `/api/platform/organizations/${orgId}`],
      ['post', '/api/platform/organizations'],
      ['patch', `/api/platform/organizations/${orgId}/subscription`],
      ['get', '/api/platform/audit'],
    ];
    const admin = await userCredential(pipeline, 'admin');
    await pipeline.store.prisma.user.update({
      where: { id: admin.userId },
      data: { passwordHash: await testPasswords.hash('tenant-admin-pw-1') },
    });
    const username = (await pipeline.store.prisma.user.findUniqueOrThrow({ where: { id: admin.userId } })).username;
    const tenantSession = cookieOf(
      await pipeline.http.post('/api/auth/login').send({ username, password: 'tenant-admin-pw-1' }).expect(200),
    );
    const callers: [string, Record<string, string>][] = [
      ['tenant admin session', { cookie: tenantSession, ...SAME_ORIGIN }],
      ['tenant admin basic', { authorization: basicAuth(username, 'tenant-admin-pw-1') }],
      ['tenant admin token', { authorization: admin.authorization }],
      [
        'API key with organization:manage',
        {
          authorization: await apiKeyCredential(pipeline, [
            'organization:manage',
            'events:read',
            'rules:write',
            'rules:read',
            'webhooks:send',
          ]),
        },
      ],
    ];
    for (const [method, path] of routes) {
      expect({
        path,
        status: (
          await (pipeline.http as unknown as Record<string, (p: string) => supertest.Test>)[method]!(path).send({})
        ).status,
      }).toEqual({ path, status: 401 });
      for (const [name, headers] of callers) {
        const res = await (pipeline.http as unknown as Record<string, (p: string) => supertest.Test>)[method]!(path)
          .set(headers)
          .send(newOrganization({ slug: 'sneaky', username: 'sneaky-admin' }));
        expect({ path, name, status: res.status }).toEqual({ path, name, status: 403 });
      }
    }
    expect(await pipeline.store.prisma.organization.count({ where: { slug: 'sneaky' } })).toBe(0);
    expect((await asOperator(pipeline.http.get('/events')).expect(403)).body.code).toBe('forbidden');
  });

  it('protects operator sessions against cross-site writes', async () => {
    const res = await pipeline.http
      .post('/api/platform/organizations')
      .set('cookie', operatorCookie)
      .set('sec-fetch-site', 'cross-site')
      .send(newOrganization({ slug: 'csrf', username: 'csrf-admin' }))
      .expect(403);
    expect(res.body.code).toBe('csrf_rejected');
  });

  it('believes X-Forwarded-Host only from trusted proxies', async () => {
    await pipeline.http
      .post('/orders')
      .set('host', 'nobody.relay.test')
      .set('x-forwarded-host', 'acme.relay.test')
      .set('content-type', 'application/json')
      .send('{}')
      .expect(404);
    const behindProxy = startApiReplica(pipeline, {
      INGEST_CANONICAL_HOST: CANONICAL,
      INGEST_HOST_CACHE_MS: '0',
      TRUST_PROXY: 'loopback',
    });
    try {
      const res = await supertest(behindProxy.app)
        .post('/orders')
        .set('host', 'nobody.relay.test')
        .set('x-forwarded-host', 'acme.relay.test')
        .set('content-type', 'application/json')
        .send('{}')
        .expect(202);
      expect((await pipeline.eventById(res.body.id))?.organizationId).toBe(orgId);
    } finally {
      await behindProxy.close();
    }
  });
});
