import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { waitFor } from '@relay/test-support';
import supertest from 'supertest';
import { FAST_HASH_ENV, startApiReplica, startPipeline, userCredential, type Pipeline } from './harness';
import { CANONICAL, HOSTED_ENV, operatorSession, webhookAt } from './limits-fixture';
import type { ApiRuntime } from '../../apps/api/src/runtime';

// Rate limits are counted in Redis, so two api processes (two runtimes on one database and queue prefix, as two
// replicas would be) share every count. The main app runs with the ingest limit off and a generous API limit; the
// replicas carry the install-wide settings under test.
let pipeline: Pipeline;
let asOperator: (req: supertest.Test) => supertest.Test;
const replicas: ApiRuntime[] = [];
// Used once their Redis connection is up: the producer connection queues nothing while offline, and a limiter that
// cannot reach Redis lets requests pass uncounted (by design), so the first webhooks would not be counted.
const replicaPair = async (env: Record<string, string>) => {
  const pair = [startApiReplica(pipeline, env), startApiReplica(pipeline, env)];
  replicas.push(...pair);
  const clients = pair.map((api) => supertest(api.app));
  for (const http of clients) await waitFor(async () => (await http.get('/ready')).body.checks?.redis === 'ok', 30_000);
  return clients;
};
const eventsOf = (organizationId: string) => pipeline.store.prisma.event.count({ where: { organizationId } });

beforeAll(async () => {
  pipeline = await startPipeline({
    api: { ...FAST_HASH_ENV, ...HOSTED_ENV, INGEST_HOST_CACHE_MS: '0', API_RATE_LIMIT: '1000' },
    worker: false,
  });
  asOperator = await operatorSession(pipeline);
});
afterAll(async () => {
  await Promise.all(replicas.map((api) => api.close()));
  await pipeline.close();
});

describe('the ingest rate limit', () => {
  it('refuses the N+1th webhook across two api processes, with Retry-After and the draft-8 headers, storing nothing', async () => {
    const [a, b] = await replicaPair({ ...HOSTED_ENV, INGEST_RATE_LIMIT: '4', RATE_LIMIT_WINDOW_SECONDS: '60' });
    const accepted = [];
    for (const http of [a!, b!, a!, b!]) accepted.push(await webhookAt(http, CANONICAL).expect(202));
    expect(accepted.map((res) => res.headers.ratelimit)).toEqual([
      expect.stringMatching(/^"4-in-1min"; r=3; t=\d+$/),
      expect.stringMatching(/^"4-in-1min"; r=2; t=\d+$/),
      expect.stringMatching(/^"4-in-1min"; r=1; t=\d+$/),
      expect.stringMatching(/^"4-in-1min"; r=0; t=\d+$/),
    ]);
    const refused = await webhookAt(a!, CANONICAL, '{"refused":true}').expect(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429, limit: 4, window_seconds: 60 });
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.retry_after_seconds).toBe(retryAfter);
    expect(refused.headers['ratelimit-policy']).toMatch(/^"4-in-1min"; q=4; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(refused.headers.ratelimit).toMatch(/^"4-in-1min"; r=0; t=\d+$/);
    expect((await webhookAt(b!, CANONICAL).expect(429)).body.code).toBe('rate_limited');
    // Only the four accepted webhooks were stored.
    expect(await eventsOf(DEFAULT_ORGANIZATION_ID)).toBe(4);
    const bodies = await pipeline.store.prisma.eventPayload.findMany({ select: { body: true } });
    expect(bodies.map((e) => Buffer.from(e.body).toString())).not.toContain('{"refused":true}');
  });

  it('is off unless set: no RateLimit headers, no refusal', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await webhookAt(pipeline.http, CANONICAL).expect(202);
      expect(res.headers.ratelimit).toBeUndefined();
    }
  });
});

describe('the API rate limit', () => {
  it('refuses the N+1th request of one credential across two api processes; other credentials go on', async () => {
    const [a, b] = await replicaPair({ ...HOSTED_ENV, API_RATE_LIMIT: '3', TRUST_PROXY: 'loopback' });
    const first = await userCredential(pipeline, 'viewer');
    const second = await userCredential(pipeline, 'viewer');
    for (const http of [a!, b!, a!]) {
      const res = await http.get('/api/organization').set('authorization', first.authorization).expect(200);
      expect(res.headers['ratelimit-policy']).toMatch(/^"3-in-1min"; q=3; w=60; pk=/);
    }
    const refused = await b!.get('/events').set('authorization', first.authorization).expect(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"3-in-1min"; r=0; t=\d+$/);
    await a!.get('/api/organization').set('authorization', second.authorization).expect(200);
    // Unauthenticated requests count per client IP (one of their own here, through the trusted proxy).
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 3; i++) await a!.get('/events').set(from('203.0.113.9')).expect(401);
    expect((await b!.get('/events').set(from('203.0.113.9')).expect(429)).body.code).toBe('rate_limited');
    await b!.get('/events').set(from('203.0.113.10')).expect(401);
  });
});

describe('per-organization overrides through the platform API', () => {
  it('validates, audits and applies ingest_rate_limit and api_rate_limit; null clears them', async () => {
    const created = await asOperator(pipeline.http.post('/api/platform/organizations'))
      .send({
        name: 'Acme',
        slug: 'acme',
        username: 'acme-admin',
        password: 'Correct-Horse-9',
        email: 'admin@acme.example',
        subscriber_name: 'Acme',
        billing_contact_name: 'Bea',
        billing_contact_email: 'billing@acme.example',
      })
      .expect(201);
    const orgId: string = created.body.organization.id;
    expect(created.body.organization.subscription).toMatchObject({
      ingest_rate_limit: null,
      api_rate_limit: null,
      retention_days: null,
    });
    const patch = (body: object) =>
      asOperator(pipeline.http.patch(`/api/platform/organizations/${orgId}/subscription`)).send(body);
    const bad = await patch({ ingest_rate_limit: 0, api_rate_limit: 1.5, retention_days: 100_000 }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'api_rate_limit',
      'ingest_rate_limit',
      'retention_days',
    ]);
    const updated = await patch({ ingest_rate_limit: 2, api_rate_limit: 2, retention_days: 30 }).expect(200);
    expect(updated.body.subscription).toMatchObject({ ingest_rate_limit: 2, api_rate_limit: 2, retention_days: 30 });
    const detail = await asOperator(pipeline.http.get(`/api/platform/organizations/${orgId}`)).expect(200);
    expect(detail.body.subscription).toMatchObject({ ingest_rate_limit: 2, api_rate_limit: 2, retention_days: 30 });
    const audit = await pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'subscription.updated', resourceId: orgId },
      orderBy: { createdAt: 'desc' },
    });
    expect(audit?.metadata).toMatchObject({
      from: { ingest_rate_limit: null, api_rate_limit: null, retention_days: null },
      to: { ingest_rate_limit: 2, api_rate_limit: 2, retention_days: 30 },
    });

    // The main app has no ingest limit of its own: the organization's applies, to it alone.
    const host = `acme.${CANONICAL}`;
    await webhookAt(pipeline.http, host).expect(202);
    await webhookAt(pipeline.http, host).expect(202);
    expect((await webhookAt(pipeline.http, host).expect(429)).body).toMatchObject({ code: 'rate_limited', limit: 2 });
    expect(await eventsOf(orgId)).toBe(2);
    await webhookAt(pipeline.http, CANONICAL).expect(202);

    // Each credential of the organization gets 2 requests instead of API_RATE_LIMIT (1000).
    const acme = await userCredential(pipeline, 'viewer', orgId as never);
    await pipeline.http.get('/api/organization').set('authorization', acme.authorization).expect(200);
    await pipeline.http.get('/api/organization').set('authorization', acme.authorization).expect(200);
    await pipeline.http.get('/api/organization').set('authorization', acme.authorization).expect(429);
    const other = await userCredential(pipeline, 'viewer');
    for (let i = 0; i < 3; i++) {
      await pipeline.http.get('/api/organization').set('authorization', other.authorization).expect(200);
    }

    // null: the install-wide settings again (ingest off on this app).
    const cleared = await patch({ ingest_rate_limit: null, api_rate_limit: null }).expect(200);
    expect(cleared.body.subscription).toMatchObject({ ingest_rate_limit: null, api_rate_limit: null });
    await webhookAt(pipeline.http, host).expect(202);
    await pipeline.http.get('/api/organization').set('authorization', acme.authorization).expect(200);
  });
});
