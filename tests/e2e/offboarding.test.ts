import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { organizationExportLineSchema } from '../../packages/contracts/src/index';
import { createOperatorRepository } from '@relay/db';
import { createDeliveryQueue, createHookQueue, createRedisConnection } from '@relay/queue';
import { reopenEvents, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import type supertest from 'supertest';
import {
  apiKeyCredential,
  createOrganization,
  FAST_HASH_ENV,
  REDIS_URL,
  seedUser,
  startPipeline,
  testPasswords,
  userCredential,
  type Pipeline,
} from './harness';

let pipeline: Pipeline;
let target: TargetServer;
let operatorCookie: string;
let orgA: OrgId;
let orgB: OrgId;
let tenantAdmin: string;
const eventsOfA: string[] = [];
const NOT_UTF8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);

const asOperator = (req: supertest.Test) => req.set('cookie', operatorCookie).set('sec-fetch-site', 'same-origin');

/** `count` queued events of `orgId`, two per created_at millisecond (so the export's id tie-break matters). */
async function seedEvents(orgId: OrgId, count: number, source: string): Promise<string[]> {
  const { rows } = await pipeline.store.pool.query<{ id: string }>(
    `INSERT INTO events (id, organization_id, source, target_url, body, headers, status, next_attempt_at, created_at)
     SELECT relay_uuid7(), $1, $2, $3, convert_to('{"n":' || n || '}', 'UTF8'),
       '{"content-type": "application/json"}'::jsonb, 'queued', now() AT TIME ZONE 'UTC',
       timestamp '2026-01-01' + (n / 2) * interval '1 millisecond'
     FROM generate_series(1, $4::int) n RETURNING id`,
    [orgId, source, `${target.url}/${source}`, count],
  );
  const ids = rows.map((r) => r.id);
  await reopenEvents(pipeline.store.pool, ids);
  return ids;
}

/** Row counts of everything an organization owns, for "untouched" checks. */
async function footprint(orgId: OrgId) {
  const p = pipeline.store.prisma;
  const byOrg = { where: { organizationId: orgId } };
  return {
    organization: await p.organization.count({ where: { id: orgId } }),
    events: await p.event.count(byOrg),
    openEvents: await p.openEvent.count(byOrg),
    attempts: await p.deliveryAttempt.count(byOrg),
    search: await p.eventSearchPending.count(byOrg),
    users: await p.user.count(byOrg),
    tokens: await p.personalToken.count(byOrg),
    apiKeys: await p.apiKey.count(byOrg),
    rules: await p.rule.count(byOrg),
    hooks: await p.hook.count(byOrg),
    domains: await p.customDomain.count(byOrg),
    identityProviders: await p.organizationIdentityProvider.count(byOrg),
    audit: await p.auditEntry.count(byOrg),
  };
}

/** Users, credentials, a rule with a hook, domains, an identity provider and audit entries. */
async function seedEverything(orgId: OrgId, name: string) {
  const p = pipeline.store.prisma;
  await seedUser(pipeline, { username: `${name}-viewer`, role: 'viewer', password: 'viewer-password-1' }, orgId);
  const admin = await userCredential(pipeline, 'admin', orgId);
  await apiKeyCredential(pipeline, ['events:read'], orgId);
  const rule = await p.rule.create({
    data: { name: randomUUID(), organizationId: orgId, source: `${name}-rule`, targetUrl: `${target.url}/${name}` },
  });
  const hook = await p.hook.create({
    data: {
      name: randomUUID(),
      organizationId: orgId,
      ruleId: rule.id,
      targetUrl: `${target.url}/h`,
      trigger: 'provider_failed',
    },
  });
  await p.customDomain.create({
    data: { organizationId: orgId, domain: `${name}.pending.test`, verificationToken: 't' },
  });
  await p.organizationIdentityProvider.create({
    data: { organizationId: orgId, issuerUrl: 'https://id.example.com', clientId: name },
  });
  await p.auditEntry.create({
    data: {
      organizationId: orgId,
      actorUserId: admin.userId,
      actorEmail: 'a@example.com',
      action: 'rule.created',
      resourceType: 'rule',
      resourceId: rule.id,
    },
  });
  return { admin, rule, hook };
}

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 's' }, worker: false });
  await createOperatorRepository(pipeline.store.prisma).bootstrap('offboard-op', await testPasswords.hash('op-pass-1'));
  const login = await pipeline.http.post('/api/auth/login').send({ username: 'offboard-op', password: 'op-pass-1' });
  operatorCookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;
  orgA = await createOrganization(pipeline, 'leaving');
  orgB = await createOrganization(pipeline, 'staying');
  const a = await seedEverything(orgA, 'leaving');
  await seedEverything(orgB, 'staying');
  tenantAdmin = a.admin.authorization;
  // 1,203 events: three pages of the export, two delete batches; plus two with odd bodies and headers.
  eventsOfA.push(...(await seedEvents(orgA, 1_203, 'orders')));
  await seedEvents(orgB, 40, 'other');
  const { rows } = await pipeline.store.pool.query<{ id: string }>(
    `INSERT INTO events (id, organization_id, source, provider_id, body, headers, status, attempt_count, created_at)
     VALUES (relay_uuid7(), $1, 'raw', $2, $3, $4, 'failed', 2, timestamp '2027-01-01') RETURNING id`,
    [
      orgA,
      a.rule.id,
      NOT_UTF8,
      JSON.stringify({ authorization: 'Bearer rule-secret', 'x-api-key': 'rule-key', 'x-n': '1' }),
    ],
  );
  const odd = rows[0]!.id;
  await reopenEvents(pipeline.store.pool, [odd]);
  eventsOfA.push(odd);
  const attempt = (n: number, kind: 'main' | 'hook', status: number) =>
    pipeline.store.prisma.deliveryAttempt.create({
      data: {
        eventId: odd,
        organizationId: orgA,
        attemptNumber: n,
        kind,
        hookId: kind === 'hook' ? a.hook.id : null,
        targetUrl: target.url,
        responseStatus: status,
        durationMs: 5,
        startedAt: new Date(Date.UTC(2027, 0, 1, 0, 0, n)),
        finishedAt: new Date(Date.UTC(2027, 0, 1, 0, 0, n, 5)),
      },
    });
  await attempt(1, 'main', 500);
  await attempt(2, 'main', 503);
  await attempt(3, 'hook', 200);
  await pipeline.store.pool.query(
    `INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM events`,
  );
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});

describe('exporting an organization (NDJSON)', () => {
  it('is for platform operators only', async () => {
    await pipeline.http.get(`/api/platform/organizations/${orgA}/export`).expect(401);
    const res = await pipeline.http
      .get(`/api/platform/organizations/${orgA}/export`)
      .set('authorization', tenantAdmin)
      .expect(403);
    expect(res.body.code).toBe('forbidden');
    await asOperator(pipeline.http.get(`/api/platform/organizations/${randomUUID()}/export`)).expect(404);
  });

  it('streams every event of the organization, oldest first, and none of another', async () => {
    const res = await asOperator(pipeline.http.get(`/api/platform/organizations/${orgA}/export`))
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done(null, text));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const text = res.body as string;
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => organizationExportLineSchema.parse(JSON.parse(line)));
    expect(lines.map((l) => l.id).sort()).toEqual([...eventsOfA].sort());
    const order = lines.map((l) => `${l.created_at} ${l.id}`);
    expect(order).toEqual([...order].sort());
    expect(lines.some((l) => l.source === 'other')).toBe(false);
    expect(lines[0]).toMatchObject({
      source: 'orders',
      body: expect.stringMatching(/^\{"n":\d+\}$/),
      body_encoding: 'utf8',
    });

    const odd = lines.find((l) => l.source === 'raw')!;
    expect(Buffer.from(odd.body, 'base64')).toEqual(NOT_UTF8);
    expect(odd).toMatchObject({
      body_encoding: 'base64',
      status: 'failed',
      headers: { authorization: 'Bearer [masked]', 'x-api-key': '[masked]', 'x-n': '1' },
      attempts: { main: 2, hook: 1, last_response_status: 503, last_finished_at: '2027-01-01T00:00:02.005Z' },
    });
    expect(text).not.toMatch(/rule-secret|rule-key/);

    const audit = await pipeline.store.prisma.auditEntry.findMany({
      where: { organizationId: null, action: 'organization.exported', resourceId: orgA },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.metadata).toMatchObject({ operator: 'offboard-op', slug: 'leaving' });
  });
});

describe('deleting an organization', () => {
  it('is refused for the default organization and while a custom domain is active', async () => {
    const refused = await asOperator(pipeline.http.delete(`/api/platform/organizations/${DEFAULT_ORGANIZATION_ID}`));
    expect([refused.status, refused.body.code]).toEqual([409, 'organization_is_default']);
    const before = await footprint(orgA);
    const domain = await pipeline.store.prisma.customDomain.create({
      data: { organizationId: orgA, domain: 'hooks.leaving.test', verificationToken: 't', status: 'active' },
    });
    const res = await asOperator(pipeline.http.delete(`/api/platform/organizations/${orgA}`)).expect(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('organization_has_domains');
    expect(await footprint(orgA)).toEqual({ ...before, domains: before.domains + 1 });
    await pipeline.store.prisma.customDomain.delete({ where: { id: domain.id } });
  });

  it('removes everything of the organization in batches, leaves the others alone and keeps the platform audit', async () => {
    // Jobs still queued for its events when it goes: the worker must skip them, not fail or crash.
    const redis = createRedisConnection(REDIS_URL, 'worker');
    const deliveries = createDeliveryQueue({ connection: redis, prefix: pipeline.prefix });
    const hookQueue = createHookQueue({ connection: redis, prefix: pipeline.prefix });
    const hook = await pipeline.store.prisma.hook.findFirstOrThrow({ where: { organizationId: orgA } });
    await deliveries.enqueue(eventsOfA.slice(0, 20).map((eventId) => ({ orgId: orgA, eventId, ruleId: null })));
    await hookQueue.enqueue([
      {
        orgId: orgA,
        ruleId: hook.ruleId,
        eventId: eventsOfA[0]!,
        hookId: hook.id,
        run: 0,
        deliveryStatus: 'failed',
        responseStatus: 500,
      },
    ]);
    const otherBefore = await footprint(orgB);
    const defaultBefore = await footprint(DEFAULT_ORGANIZATION_ID);

    await asOperator(pipeline.http.delete(`/api/platform/organizations/${orgA}`)).expect(204);

    expect(await footprint(orgA)).toEqual({
      organization: 0,
      events: 0,
      openEvents: 0,
      attempts: 0,
      search: 0,
      users: 0,
      tokens: 0,
      apiKeys: 0,
      rules: 0,
      hooks: 0,
      domains: 0,
      identityProviders: 0,
      audit: 0,
    });
    expect(await footprint(orgB)).toEqual(otherBefore);
    expect(await footprint(DEFAULT_ORGANIZATION_ID)).toEqual(defaultBefore);

    // The platform's own entries (no organization) survive: the export, the start and the end.
    const platform = await pipeline.store.prisma.auditEntry.findMany({
      where: { organizationId: null, resourceId: orgA },
      orderBy: { createdAt: 'asc' },
    });
    expect(platform.map((e) => e.action)).toEqual([
      'organization.exported',
      'organization.deletion_started',
      'organization.deleted',
    ]);
    expect(platform[2]!.metadata).toMatchObject({
      operator: 'offboard-op',
      slug: 'leaving',
      events: eventsOfA.length,
      audit_entries: 1,
      rules: 1,
      users: 2,
      api_keys: 1,
      domains: 1,
    });
    await asOperator(pipeline.http.delete(`/api/platform/organizations/${orgA}`)).expect(404);
    await asOperator(pipeline.http.get(`/api/platform/organizations/${orgA}/export`)).expect(404);

    // Now the worker meets the orphaned jobs: each is skipped quietly, and it goes on delivering.
    const worker = pipeline.startWorker();
    try {
      const live = await seedEvents(orgB, 1, 'after');
      await deliveries.enqueue([{ orgId: orgB, eventId: live[0]!, ruleId: null }]);
      await pipeline.waitForStatus(live[0]!, 'delivered');
      const queues = [...deliveries.queues, ...hookQueue.queues];
      await waitFor(
        async () => {
          const counts = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'failed')));
          return counts.every((c) => Object.values(c).every((n) => n === 0)) || undefined;
        },
        10_000,
        'the orphaned jobs to be skipped',
      );
      // The hook job of a deleted event recorded nothing (its attempt would have no event).
      expect(await pipeline.store.prisma.deliveryAttempt.count({ where: { organizationId: orgA } })).toBe(0);
    } finally {
      await worker.close();
      await deliveries.close();
      await hookQueue.close();
      redis.disconnect();
    }
  });
});
