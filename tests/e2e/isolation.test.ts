import { randomUUID } from 'node:crypto';
import { issueToken, SCOPES, type OrgId } from '@relay/core';
import { createCredentialRepository } from '@relay/db';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import type supertest from 'supertest';
import { ACCESS_TABLE } from '../../apps/api/src/composition/catalog';
import { basicAuth, createOrganization, FAST_HASH_ENV, startPipeline, testPasswords, type Pipeline } from './harness';
import { listen, openStream } from './sse-client';

// The isolation suite: organization A's session, Basic credentials, personal token and API key
// (every scope) against organization B's resource ids, on every route of the authorization table.
// Each answer must be 404 (or 403), list answers must not mention B's data, and B's rows must be
// exactly as before.

let pipeline: Pipeline;
let target: TargetServer;
let orgA: OrgId;
let orgB: OrgId;
const b: Record<string, string> = {};
const callers: [string, Record<string, string>][] = [];

async function seedOrganization(orgId: OrgId, name: string) {
  const prisma = pipeline.store.prisma;
  const user = await prisma.user.create({
    data: {
      organizationId: orgId,
      username: `${name}-admin`,
      email: `${name}@example.com`,
      role: 'admin',
      passwordHash: await testPasswords.hash(`${name}-password-1`),
    },
  });
  const viewer = await prisma.user.create({
    data: {
      organizationId: orgId,
      username: `${name}-viewer`,
      email: `v@${name}.example`,
      role: 'viewer',
      passwordHash: 'x',
    },
  });
  const credentials = createCredentialRepository(prisma);
  const token = issueToken();
  const personal = await credentials.createPersonalToken(orgId, user.id, {
    name: 'mine',
    prefix: token.prefix,
    secretHash: token.secretHash,
    expiresAt: null,
  });
  const key = issueToken();
  const apiKey = await credentials.createApiKey(orgId, {
    name: 'all',
    prefix: key.prefix,
    secretHash: key.secretHash,
    scopes: [...SCOPES],
    createdById: user.id,
    expiresAt: null,
  });
  const rule = await prisma.rule.create({
    data: { name: randomUUID(), organizationId: orgId, source: `${name}-source`, targetUrl: `${target.url}/${name}` },
  });
  const hook = await prisma.hook.create({
    data: {
      name: randomUUID(),
      organizationId: orgId,
      ruleId: rule.id,
      targetUrl: `${target.url}/${name}-hook`,
      trigger: 'provider_succeeded',
    },
  });
  const domain = await prisma.customDomain.create({
    data: { organizationId: orgId, domain: `${name}.example.com`, verificationToken: `relay-verify-${name}` },
  });
  return { user, viewer, personal, apiKey, rule, hook, domain, event: '', token: token.token, key: key.token };
}

/** Every row of B's organization, to compare before and after the walk. */
async function snapshotOf(orgId: OrgId) {
  const prisma = pipeline.store.prisma;
  const where = { organizationId: orgId };
  const [org, users, events, attempts, rules, hooks, apiKeys, tokens, domains, audit, destinations, deliveries] =
    await Promise.all([
      prisma.organization.findUnique({ where: { id: orgId } }),
      prisma.user.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.event.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.deliveryAttempt.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.rule.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.hook.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.apiKey.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.personalToken.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.customDomain.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.auditEntry.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.destination.findMany({ where, orderBy: { id: 'asc' } }),
      prisma.delivery.findMany({ where, orderBy: { id: 'asc' } }),
    ]);
  const rows = {
    org,
    users,
    events,
    attempts,
    rules,
    hooks,
    apiKeys,
    tokens,
    domains,
    audit,
    destinations,
    deliveries,
  };
  // Counters (providers.duplicate_count, signature_failure_count) are bigints, which JSON cannot hold.
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

// A body that would be valid if the resource were A's own, so a refusal cannot come from validation.
function bodyFor(route: string): object {
  const bodies: Record<string, object> = {
    'PATCH /rules/:id': { description: 'taken over' },
    'POST /rules/:id/hooks': { target_url: 'https://example.com/x', trigger: 'provider_failed' },
    'PATCH /rules/:id/hooks/:hookId': { active: false },
    'PATCH /api/users/:id/role': { role: 'viewer' },
    // The walker's own organization's rule (no :id): valid, so only isolation could refuse it.
    'PUT /api/organization/identity-provider': { issuer_url: 'https://id.example.com', client_id: 'walk' },
    'PUT /api/organization/notifications': { url: 'https://example.com/notices', secret: 'walk-notice-secret-01' },
    // A wrong current password (403): the right one would end the walk's own sessions and tokens.
    'POST /api/auth/password': { current_password: 'not-the-password', new_password: 'Walk-new-password-1' },
    'POST /api/auth/password-reset': { code: 'no-such-code', new_password: 'Walk-new-password-1' },
    'POST /rules/:id/secret/rotate': { signing_secret: 'taken-over-secret-0123456789' },
    'POST /rules/:id/verification-secret/rotate': { verification_secret: 'taken-over-verification' },
    'POST /rules/:id/dry-run': { filter: { body: { a: 1 } } },
    'POST /rules/:id/destinations': { target_url: 'https://example.com/x' },
    'PATCH /rules/:id/destinations/:destinationId': { active: false },
    // B's rule and B's event: valid for B, so only isolation refuses it (a transform would print the payload).
    'POST /rules/:id/transform-test': { transform: "addHandler('transform', (r) => r);", event_id: b.event },
  };
  return bodies[route] ?? {};
}

function idsFor(template: string): Record<string, string> {
  if (template.startsWith('/events/')) return { id: b.event!, deliveryId: b.delivery! };
  if (template.startsWith('/rules/')) return { id: b.rule!, hookId: b.hook! };
  if (template.startsWith('/api/api-keys/')) return { id: b.apiKey! };
  if (template.startsWith('/api/auth/tokens/')) return { id: b.personal! };
  if (template.startsWith('/api/users/')) return { id: b.user! };
  if (template.startsWith('/api/domains/')) return { id: b.domain! };
  return {};
}

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline({
    api: { ...FAST_HASH_ENV, SESSION_SECRET: 's', LOGIN_MAX_FAILURES_PER_USER: '1000' },
  });
  orgA = await createOrganization(pipeline, 'org-a');
  orgB = await createOrganization(pipeline, 'org-b');
  // Webhooks to the base host are the default organization's; each test organization gets an event by send.
  const a = await seedOrganization(orgA, 'alpha');
  const bb = await seedOrganization(orgB, 'bravo');
  for (const [seeded, name] of [
    [a, 'alpha'],
    [bb, 'bravo'],
  ] as const) {
    const sent = await pipeline.http
      .post('/api/send')
      .set('authorization', `Bearer ${seeded.key}`)
      .send({ provider_id: seeded.rule.id, body: { secret: `${name}-payload` } })
      .expect(202);
    await pipeline.waitForStatus(sent.body.id, 'delivered');
    seeded.event = sent.body.id;
  }
  // B's event has a failed delivery to one of B's destinations (routing): A can neither see nor act on it.
  const destination = await pipeline.store.prisma.destination.create({
    data: {
      organizationId: orgB,
      ruleId: bb.rule.id,
      name: 'bravo-destination',
      targetUrl: `${target.url}/bravo-destination`,
      updatedAt: new Date(),
    },
  });
  // With a transformed body stored (issue 30): its body route must not serve it to A.
  const delivery = await pipeline.store.prisma.delivery.create({
    data: {
      organizationId: orgB,
      eventId: bb.event,
      destinationId: destination.id,
      status: 'failed',
      attemptCount: 1,
      transformedBody: Buffer.from('{"bravo":"bravo-payload"}'),
    },
  });
  await pipeline.store.prisma.event.update({
    where: { id: bb.event },
    data: { transformedBody: Buffer.from('{"bravo":"bravo-payload"}') },
  });
  Object.assign(b, {
    destination: destination.id,
    delivery: delivery.id,
    event: bb.event,
    rule: bb.rule.id,
    hook: bb.hook.id,
    apiKey: bb.apiKey.id,
    personal: bb.personal.id,
    user: bb.viewer.id,
    domain: bb.domain.id,
  });
  const login = await pipeline.http
    .post('/api/auth/login')
    .send({ username: 'alpha-admin', password: 'alpha-password-1' })
    .expect(200);
  const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
  callers.push(
    ['session', { cookie, 'sec-fetch-site': 'same-origin' }],
    ['basic', { authorization: basicAuth('alpha-admin', 'alpha-password-1') }],
    ['personal token', { authorization: `Bearer ${a.token}` }],
    ['API key (every scope)', { authorization: `Bearer ${a.key}` }],
  );
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});

describe('tenant isolation', () => {
  it("walks every route with organization A's credentials against organization B's ids", async () => {
    const before = await snapshotOf(orgB);
    const bValues = [
      b.event!,
      b.rule!,
      b.hook!,
      b.apiKey!,
      b.personal!,
      b.user!,
      b.domain!,
      'bravo-payload',
      'bravo-source',
      'bravo.example.com',
      'bravo@example.com',
    ];
    const served = await listen(pipeline.api.app);
    const outcomes: { route: string; caller: string; status: number; leaked: string[] }[] = [];
    try {
      for (const [route] of Object.entries(ACCESS_TABLE)) {
        const [method, template] = route.split(' ') as [string, string];
        const ids = idsFor(template);
        const path = template.replace(
          /:(\w+)/g,
          (_m, name: string) => ids[name] ?? '00000000-0000-7000-8000-0000000000aa',
        );
        for (const [caller, headers] of callers) {
          if (route === 'GET /events/stream') {
            const stream = await openStream(`${served.url}${path}?last_event_id=1`, headers);
            await new Promise((r) => setTimeout(r, 150));
            stream.close();
            outcomes.push({
              route,
              caller,
              status: stream.status,
              leaked: bValues.filter((v) => JSON.stringify(stream.messages).includes(v)),
            });
            continue;
          }
          const req = (pipeline.http as unknown as Record<string, (p: string) => supertest.Test>)[
            method.toLowerCase()
          ]!(path).set(headers);
          let body: object = bodyFor(route);
          if (route === 'POST /api/send') body = { provider_id: b.rule, body: {} };
          if (route.startsWith('POST /events/bulk/')) body = { ids: [b.event] };
          const res = method === 'GET' || method === 'DELETE' ? await req : await req.send(body);
          outcomes.push({
            route,
            caller,
            status: res.status,
            leaked: bValues.filter((v) => JSON.stringify(res.body).includes(v)),
          });
        }
      }
    } finally {
      await served.close();
    }
    for (const outcome of outcomes) {
      const { route } = outcome;
      const targetsB = route.includes(':');
      // Routes aimed at one of B's resources are refused; the rest answer for A only.
      const bulk = route.startsWith('POST /events/bulk/');
      const allowed = targetsB
        ? [403, 404]
        : route.endsWith(' /mcp')
          ? // Bearer tokens only; a JSON-RPC body it cannot take is a 4xx of the MCP transport.
            [400, 401, 405, 406]
          : route.endsWith(' /api/organization/identity-provider')
            ? // A's own rule (no id to aim at B): 404 while A has none, 204 when a DELETE removed it.
              [200, 204, 403, 404]
            : route === 'POST /api/send'
              ? [404]
              : bulk
                ? [200]
                : [200, 201, 202, 400, 403, 409, 422];
      expect({ ...outcome, ok: allowed.includes(outcome.status) }).toEqual({ ...outcome, ok: true, leaked: [] });
    }
    expect(outcomes.filter((o) => o.route.startsWith('POST /events/bulk/')).every((o) => o.status === 200)).toBe(true);
    expect(await snapshotOf(orgB)).toEqual(before);
  });

  it('counts nothing of B in bulk answers', async () => {
    const [, headers] = callers[3]!;
    const res = await pipeline.http
      .post('/events/bulk/delete')
      .set(headers)
      .send({ ids: [b.event] })
      .expect(200);
    expect(res.body).toEqual({ affected: 0, ids: [], truncated: false });
    expect(await pipeline.eventById(b.event!)).not.toBeNull();
  });

  it("refuses B's deliveries to A: no retry, ack, bulk retry, list filter or dry run reaches them", async () => {
    const [, headers] = callers[3]!;
    const before = await snapshotOf(orgB);
    const prisma = pipeline.store.prisma;
    const ownEvent = (await prisma.event.findFirstOrThrow({ where: { organizationId: orgA } })).id;
    const ownRule = (await prisma.rule.findFirstOrThrow({ where: { organizationId: orgA } })).id;
    const theirs = { destination_id: b.destination };
    for (const action of ['retry', 'ack']) {
      const res = await pipeline.http.post(`/events/${b.event}/${action}`).set(headers).send(theirs).expect(404);
      expect(res.body.code).toBe('not_found');
      // A's own event and B's destination: A's event has no delivery there.
      const own = await pipeline.http.post(`/events/${ownEvent}/${action}`).set(headers).send(theirs).expect(404);
      expect(own.body.code).toBe('delivery_not_found');
    }
    const bulk = await pipeline.http
      .post('/events/bulk/retry')
      .set(headers)
      .send({ ids: [b.event, ownEvent], ...theirs })
      .expect(200);
    expect(bulk.body).toEqual({ affected: 0, ids: [], truncated: false });
    const listed = await pipeline.http.get(`/events?destination_id=${b.destination}`).set(headers).expect(200);
    expect(listed.body.total).toBe(0);
    const failed = await pipeline.http.get('/events?delivery_status=failed').set(headers).expect(200);
    expect(JSON.stringify(failed.body)).not.toContain(b.event);
    await pipeline.http.post(`/rules/${ownRule}/dry-run`).set(headers).send(theirs).expect(404);
    expect(await snapshotOf(orgB)).toEqual(before);
  });

  it("refuses A's rule path with B's hook id", async () => {
    const [, headers] = callers[3]!;
    const ownRule = (await pipeline.store.prisma.rule.findFirstOrThrow({ where: { organizationId: orgA } })).id;
    await pipeline.http.patch(`/rules/${ownRule}/hooks/${b.hook}`).set(headers).send({ active: false }).expect(404);
    await pipeline.http.delete(`/rules/${ownRule}/hooks/${b.hook}`).set(headers).expect(404);
    expect((await pipeline.store.prisma.hook.findUniqueOrThrow({ where: { id: b.hook! } })).active).toBe(true);
  });
});
