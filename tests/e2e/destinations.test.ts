import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { createRedisConnection } from '@relay/queue';
import { createOrganization, REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

// Routing's destinations end to end (docs/routing.md, "Destinations"): the API, and what the worker makes of
// it against real target servers. Deliveries are read from the database (the event view shows them later).

// Waits are generous (a loaded 2-core machine runs four suites at once); nothing here bounds how fast it goes.
const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

let pipeline: Pipeline;
let admin: string;
let primary: TargetServer;
const targets: TargetServer[] = [];
beforeAll(async () => {
  primary = await startTargetServer();
  for (let i = 0; i < 3; i++) targets.push(await startTargetServer());
  pipeline = await startPipeline();
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await Promise.all([primary, ...targets].map((t) => t.close()));
});
beforeEach(() => [primary, ...targets].forEach((t) => t.replyWith(200)));

const prisma = () => pipeline.store.prisma;
const createRule = async (source: string) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${primary.url}/${source}` })
      .expect(201)
  ).body.id as string;
const addDestination = async (ruleId: string, body: object) =>
  (await pipeline.http.post(`/rules/${ruleId}/destinations`).set('authorization', admin).send(body).expect(201)).body;
const ingest = async (source: string, body: object = { n: 1 }) =>
  (
    await pipeline.http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify(body))
      .expect(202)
  ).body.id as string;
const deliveriesOf = (eventId: string) => prisma().delivery.findMany({ where: { eventId } });
const deliveryTo = async (eventId: string, destinationId: string) =>
  prisma().delivery.findUnique({ where: { eventId_destinationId: { eventId, destinationId } } });
const waitForDelivery = (eventId: string, destinationId: string, status: string) =>
  waitFor(
    async () => {
      const delivery = await deliveryTo(eventId, destinationId);
      return delivery?.status === status ? delivery : undefined;
    },
    PATIENCE,
    `delivery of ${eventId} to ${destinationId} to be ${status}`,
  );
const requestsAt = (target: TargetServer, source: string) => target.requests.filter((r) => r.url === `/${source}`);

describe('fan-out', () => {
  it('one failing destination retries alone; the event stays delivered and the others get one attempt', async () => {
    const ruleId = await createRule('fan');
    const [ok1, failing, ok2] = [
      await addDestination(ruleId, { target_url: `${targets[0]!.url}/fan` }),
      await addDestination(ruleId, { target_url: `${targets[1]!.url}/fan` }),
      await addDestination(ruleId, { target_url: `${targets[2]!.url}/fan` }),
    ];
    targets[1]!.replyWith(503);
    const eventId = await ingest('fan');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    const failed = await waitForDelivery(eventId, failing.id, 'failed');
    expect(failed).toMatchObject({ attemptCount: 3, failureReason: 'retries_exhausted' });
    for (const d of [ok1, ok2])
      expect(await waitForDelivery(eventId, d.id, 'delivered')).toMatchObject({ attemptCount: 1 });
    // The destination's failure never touches the event: still delivered, one attempt on the primary.
    expect(await pipeline.eventById(eventId)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    const attempts = await pipeline.attemptsOf(eventId);
    expect(attempts.filter((a) => a.destinationId === null)).toHaveLength(1);
    expect(attempts.filter((a) => a.destinationId === failing.id)).toHaveLength(3);
    expect(requestsAt(targets[0]!, 'fan')).toHaveLength(1);
    expect(requestsAt(targets[1]!, 'fan')).toHaveLength(3);
    expect(requestsAt(targets[2]!, 'fan')).toHaveLength(1);
    // Each delivery is its own message: its own webhook-id, never the event's.
    const ids = [primary, ...targets].map((t) => requestsAt(t, 'fan')[0]!.headers['webhook-id']);
    expect(new Set(ids).size).toBe(4);
    // The worker's metrics tell the destinations' outcomes from the primary's (`delivery` label).
    const counted = async (delivery: string, outcome: string) =>
      ((await pipeline.worker!.metrics.registry.getSingleMetric('relay_deliveries_total')?.get())?.values ?? [])
        .filter((v) => v.labels.delivery === delivery && v.labels.outcome === outcome)
        .reduce((sum, v) => sum + v.value, 0);
    expect(await counted('destination', 'delivered')).toBe(2);
    expect(await counted('destination', 'retry')).toBe(2);
    expect(await counted('destination', 'failed')).toBe(1);
    expect(await counted('primary', 'delivered')).toBe(1);
    // The event's detail shows each delivery beside its own status.
    const detail = (await pipeline.http.get(`/events/${eventId}`).set('authorization', admin).expect(200)).body;
    expect(detail.status).toBe('delivered');
    expect(detail.deliveries).toHaveLength(3);
    expect(detail.deliveries).toEqual(
      expect.arrayContaining([
        {
          id: expect.any(String),
          destination_id: failing.id,
          target_url: `${targets[1]!.url}/fan`,
          status: 'failed',
          attempt_count: 3,
          failure_reason: 'retries_exhausted',
          last_error: expect.stringContaining('503'),
          acknowledged: false,
          next_attempt_at: null,
          delivered_at: null,
        },
        expect.objectContaining({ destination_id: ok1.id, status: 'delivered', delivered_at: expect.any(String) }),
        expect.objectContaining({ destination_id: ok2.id, status: 'delivered', attempt_count: 1 }),
      ]),
    );
    const noDeliveries = await ingest('no-rule-here');
    expect(
      (await pipeline.http.get(`/events/${noDeliveries}`).set('authorization', admin).expect(200)).body.deliveries,
    ).toEqual([]);
  });

  it('a destination whose filter does not match gets no delivery', async () => {
    const ruleId = await createRule('filtered');
    const orders = await addDestination(ruleId, {
      target_url: `${targets[0]!.url}/filtered`,
      filter: { body: { type: 'order' } },
    });
    const refunds = await addDestination(ruleId, {
      target_url: `${targets[1]!.url}/filtered`,
      filter: { body: { type: 'refund' } },
    });
    const eventId = await ingest('filtered', { type: 'order' });
    await waitForDelivery(eventId, orders.id, 'delivered');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    expect((await deliveriesOf(eventId)).map((d) => d.destinationId)).toEqual([orders.id]);
    expect(await deliveryTo(eventId, refunds.id)).toBeNull();
    expect(requestsAt(targets[1]!, 'filtered')).toHaveLength(0);
  });

  it('POST /api/send in rule mode fans out the same way, each destination by its own filter', async () => {
    const ruleId = await createRule('sent-fan');
    const orders = await addDestination(ruleId, {
      target_url: `${targets[0]!.url}/sent-fan`,
      filter: { body: { type: 'order' } },
    });
    const refunds = await addDestination(ruleId, {
      target_url: `${targets[1]!.url}/sent-fan`,
      filter: { body: { type: 'refund' } },
    });
    const eventId = (
      await pipeline.http
        .post('/api/send')
        .set('authorization', admin)
        .send({ provider_id: ruleId, body: { type: 'order' } })
        .expect(202)
    ).body.id as string;
    await waitForDelivery(eventId, orders.id, 'delivered');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    expect(await deliveryTo(eventId, refunds.id)).toBeNull();
    expect(requestsAt(targets[0]!, 'sent-fan')).toHaveLength(1);
  });

  it('a destination answering 410 pauses only its own deliveries; resume sends them', async () => {
    const ruleId = await createRule('gone');
    const gone = await addDestination(ruleId, { target_url: `${targets[0]!.url}/gone` });
    const fine = await addDestination(ruleId, { target_url: `${targets[1]!.url}/gone` });
    targets[0]!.replyWith(410);
    const first = await ingest('gone');
    expect(await waitForDelivery(first, gone.id, 'failed')).toMatchObject({ attemptCount: 1 });
    const view = async () =>
      (await pipeline.http.get(`/rules/${ruleId}/destinations/${gone.id}`).set('authorization', admin).expect(200))
        .body;
    expect((await view()).health).toMatchObject({ status: 'unhealthy', reason: 'gone', since: expect.any(String) });

    const later = [await ingest('gone'), await ingest('gone')];
    for (const id of later) {
      await pipeline.waitForStatus(id, 'delivered', PATIENCE);
      await waitForDelivery(id, fine.id, 'delivered');
      expect(await waitForDelivery(id, gone.id, 'paused')).toMatchObject({ attemptCount: 0 });
    }
    expect(requestsAt(targets[0]!, 'gone')).toHaveLength(1);

    targets[0]!.replyWith(200);
    const resumed = await pipeline.http
      .post(`/rules/${ruleId}/destinations/${gone.id}/resume`)
      .set('authorization', admin)
      .expect(200);
    expect(resumed.body).toMatchObject({
      resumed_deliveries: 2,
      destination: { id: gone.id, health: { status: 'healthy', reason: null, since: null, failing_since: null } },
    });
    for (const id of later) await waitForDelivery(id, gone.id, 'delivered');
    expect(requestsAt(targets[0]!, 'gone')).toHaveLength(3);
    // A resume releases paused deliveries only: the one the 410 answered stays failed.
    expect((await deliveryTo(first, gone.id))?.status).toBe('failed');
    const entry = await prisma().auditEntry.findFirstOrThrow({
      where: { action: 'destination.resumed', resourceId: gone.id },
    });
    expect(entry.metadata).toMatchObject({ rule_id: ruleId, resumed_deliveries: 2 });
  });
});

describe('destination health', () => {
  it('a destination turning unhealthy sends the destination.unhealthy notice to the notification URL', async () => {
    const notices = await startTargetServer();
    try {
      await pipeline.http
        .put('/api/organization/notifications')
        .set('authorization', admin)
        .send({ url: `${notices.url}/notices` })
        .expect(200);
      const ruleId = await createRule('noticed');
      const sick = await addDestination(ruleId, { name: 'archive', target_url: `${targets[0]!.url}/noticed` });
      targets[0]!.replyWith(410);
      await waitForDelivery(await ingest('noticed'), sick.id, 'failed');
      const [notice] = await notices.waitForRequests(1, PATIENCE);
      expect(notice!.headers['x-relay-notice-type']).toBe('destination.unhealthy');
      expect(JSON.parse(notice!.body.toString())).toMatchObject({
        type: 'destination.unhealthy',
        data: {
          destination: { id: sick.id, name: 'archive', rule_id: ruleId, target_url: `${targets[0]!.url}/noticed` },
          reason: 'gone',
          since: expect.any(String),
        },
      });
      const entry = await prisma().auditEntry.findFirstOrThrow({
        where: { action: 'destination.unhealthy', resourceId: sick.id },
      });
      expect(entry.metadata).toMatchObject({ rule_id: ruleId, reason: 'gone', response_status: 410 });
    } finally {
      await pipeline.http
        .put('/api/organization/notifications')
        .set('authorization', admin)
        .send({ url: null })
        .expect(200);
      await notices.close();
    }
  });
});

describe('a resumed delivery', () => {
  it('that used up its attempts before it was paused gets a full budget again (DELIVERY_MAX_ATTEMPTS 3)', async () => {
    const ruleId = await createRule('budget');
    const flaky = await addDestination(ruleId, { target_url: `${targets[1]!.url}/budget` });
    targets[1]!.replyWith(503);
    const eventId = await ingest('budget');
    const spent = await waitForDelivery(eventId, flaky.id, 'failed');
    expect(spent).toMatchObject({ attemptCount: 3, runStartAttempt: 0 });
    // Held back with its attempts spent, as a delivery paused late in its run is: its destination unhealthy.
    await prisma().destination.update({
      where: { id: flaky.id },
      data: { health: 'unhealthy', unhealthyReason: 'failing', unhealthySince: new Date() },
    });
    await prisma().delivery.updateMany({ where: { id: spent.id }, data: { status: 'paused' } });

    await pipeline.http
      .post(`/rules/${ruleId}/destinations/${flaky.id}/resume`)
      .set('authorization', admin)
      .expect(200);
    // Three more attempts, not none: the retry policy counts from the resume (run_start_attempt).
    const failed = await waitForDelivery(eventId, flaky.id, 'failed');
    expect(failed).toMatchObject({ attemptCount: 6, runStartAttempt: 3, failureReason: 'retries_exhausted' });
    expect(requestsAt(targets[1]!, 'budget')).toHaveLength(6);
  });
});

describe('Redis queue keys emptied mid-fan-out', () => {
  it('loses no delivery and duplicates none: the sweeper gives the queued ones their jobs again', async () => {
    const ruleId = await createRule('wiped');
    const destinations = [];
    for (const t of targets) destinations.push(await addDestination(ruleId, { target_url: `${t.url}/wiped` }));
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await ingest('wiped', { i }));
    await waitFor(async () => (await prisma().delivery.count({ where: { eventId: { in: ids } } })) > 0, PATIENCE);
    // Mid-fan-out: some events fanned out (their delivery jobs in Redis), others not yet. The worker stops
    // (its jobs in flight finish), every key of the relay's queues goes, and a new worker's sweeper finds the
    // epoch gone and gives every queued event and delivery its job again.
    await pipeline.worker!.close();
    const redis = createRedisConnection(REDIS_URL, 'producer');
    try {
      await waitFor(() => redis.status === 'ready', PATIENCE);
      // The queues' keys are under hash tags, `{<prefix>:dlv:0}:…` (queue-shards.ts).
      const keys = [...(await redis.keys(`${pipeline.prefix}:*`)), ...(await redis.keys(`{${pipeline.prefix}:*`))];
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    pipeline.startWorker();
    for (const id of ids) await pipeline.waitForStatus(id, 'delivered', PATIENCE);
    for (const id of ids) for (const d of destinations) await waitForDelivery(id, d.id, 'delivered');
    expect(await prisma().delivery.count({ where: { eventId: { in: ids } } })).toBe(ids.length * 3);
    // Each delivery reached its target exactly once: one request per delivery, and none unrecorded.
    for (const [i, t] of targets.entries()) {
      const got = requestsAt(t, 'wiped').map((r) => String(r.headers['webhook-id']));
      const rows = await prisma().delivery.findMany({ where: { destinationId: destinations[i]!.id } });
      expect(new Set(got)).toEqual(new Set(rows.map((r) => r.id)));
      expect(got).toHaveLength(rows.length);
      expect(rows.every((r) => r.attemptCount === 1)).toBe(true);
    }
  });
});

describe('destinations API', () => {
  it('creates, lists, reads, changes and deletes, with defaults, a sealed secret and audit entries', async () => {
    const ruleId = await createRule('crud');
    const first = await addDestination(ruleId, { target_url: `${targets[0]!.url}/a`, signing_secret: 'x'.repeat(32) });
    expect(first).toMatchObject({
      rule_id: ruleId,
      name: '127.0.0.1',
      active: true,
      filter: null,
      has_signing_secret: true,
      signing: 'own',
      delivery_policy: null,
      outbound_headers: { forward: [], set: {}, remove: [] },
      health: { status: 'healthy', reason: null, unhealthy_after_seconds: null },
    });
    expect(first).not.toHaveProperty('signing_secret');
    const stored = await prisma().destination.findUniqueOrThrow({ where: { id: first.id } });
    expect(stored.signingSecret).not.toContain('x'.repeat(32));
    // The default name is the target's host, suffixed when taken.
    const second = await addDestination(ruleId, {
      target_url: `${targets[1]!.url}/b`,
      filter: { body: { amount: { $gte: 100 } } },
      delivery_policy: { max_attempts: 5 },
      unhealthy_after_seconds: 7_200,
      outbound_headers: { set: { 'x-team': 'billing' } },
      description: 'billing',
    });
    expect(second).toMatchObject({
      name: '127.0.0.1-2',
      has_signing_secret: false,
      // No DEFAULT_SIGNING_SECRET on this relay (tests/cli/rule-signing.test.ts covers one with it): unsigned.
      signing: 'none',
      filter: { body: { amount: { $gte: 100 } } },
      delivery_policy: { max_attempts: 5 },
      health: { unhealthy_after_seconds: 7_200 },
      outbound_headers: { set: { 'x-team': 'billing' } },
      description: 'billing',
    });

    const listed = await pipeline.http.get(`/rules/${ruleId}/destinations`).set('authorization', admin).expect(200);
    expect(listed.body.destinations.map((d: { id: string }) => d.id)).toEqual([first.id, second.id]);

    const patched = await pipeline.http
      .patch(`/rules/${ruleId}/destinations/${second.id}`)
      .set('authorization', admin)
      .send({ name: 'billing', filter: null, active: false, signing_secret: 'y'.repeat(20) })
      .expect(200);
    expect(patched.body).toMatchObject({ name: 'billing', filter: null, active: false, has_signing_secret: true });
    const clash = await pipeline.http
      .patch(`/rules/${ruleId}/destinations/${first.id}`)
      .set('authorization', admin)
      .send({ name: 'billing' })
      .expect(409);
    expect(clash.body).toMatchObject({ code: 'destination_name_taken', status: 409 });
    const clashOnCreate = await pipeline.http
      .post(`/rules/${ruleId}/destinations`)
      .set('authorization', admin)
      .send({ name: 'billing', target_url: `${targets[2]!.url}/c` })
      .expect(409);
    expect(clashOnCreate.body.code).toBe('destination_name_taken');

    await pipeline.http.delete(`/rules/${ruleId}/destinations/${first.id}`).set('authorization', admin).expect(204);
    await pipeline.http.get(`/rules/${ruleId}/destinations/${first.id}`).set('authorization', admin).expect(404);
    await pipeline.http.delete(`/rules/${ruleId}/destinations/${first.id}`).set('authorization', admin).expect(404);

    const actions = async (id: string) =>
      (await prisma().auditEntry.findMany({ where: { resourceId: id }, orderBy: { createdAt: 'asc' } })).map((e) => ({
        action: e.action,
        resourceType: e.resourceType,
        metadata: e.metadata,
      }));
    expect(await actions(first.id)).toEqual([
      expect.objectContaining({ action: 'destination.created', resourceType: 'destination' }),
      expect.objectContaining({
        action: 'destination.deleted',
        metadata: expect.objectContaining({ rule_id: ruleId }),
      }),
    ]);
    const secondEntries = await actions(second.id);
    expect(secondEntries.map((e) => e.action)).toEqual(['destination.created', 'destination.updated']);
    expect(secondEntries[1]!.metadata).toMatchObject({
      changed: expect.arrayContaining(['name', 'filter', 'active', 'signing_secret']),
    });
    // The secret is named as changed, never written down.
    expect(JSON.stringify(secondEntries)).not.toContain('y'.repeat(20));
  });

  it('refuses the 21st destination, a target the policy refuses, and an invalid filter naming its path', async () => {
    const ruleId = await createRule('limits');
    for (let i = 0; i < 20; i++) await addDestination(ruleId, { target_url: `${targets[0]!.url}/${i}` });
    const full = await pipeline.http
      .post(`/rules/${ruleId}/destinations`)
      .set('authorization', admin)
      .send({ target_url: `${targets[0]!.url}/21` })
      .expect(409);
    expect(full.body).toMatchObject({ code: 'destination_limit_reached', status: 409 });
    expect(await prisma().destination.count({ where: { ruleId } })).toBe(20);

    const other = await createRule('limits-2');
    const refused = await pipeline.http
      .post(`/rules/${other}/destinations`)
      .set('authorization', admin)
      .send({ target_url: 'https://example.com:22/in' })
      .expect(422);
    expect(refused.body).toMatchObject({ code: 'target_url_rejected', reason: 'blocked_port' });
    const ok = await addDestination(other, { target_url: `${targets[0]!.url}/ok` });
    await pipeline.http
      .patch(`/rules/${other}/destinations/${ok.id}`)
      .set('authorization', admin)
      .send({ target_url: 'https://example.com:22/in' })
      .expect(422);

    const bad = await pipeline.http
      .post(`/rules/${other}/destinations`)
      .set('authorization', admin)
      .send({ target_url: `${targets[0]!.url}/bad`, filter: { body: { amount: { $gtt: 5 } } } })
      .expect(400);
    expect(bad.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'filter.body.amount.$gtt', message: expect.stringContaining('unknown operator') }],
    });
    expect(await prisma().destination.count({ where: { ruleId: other } })).toBe(1);
    // Refusals leave no audit entry behind.
    expect(
      await prisma().auditEntry.count({
        where: { action: 'destination.created', metadata: { path: ['rule_id'], equals: other } },
      }),
    ).toBe(1);
  });

  it("another organization's rule is a 404; viewers read and cannot write", async () => {
    const ruleId = await createRule('tenancy');
    const destination = await addDestination(ruleId, { target_url: `${targets[0]!.url}/t` });
    const orgB = await createOrganization(pipeline, 'dest-org-b');
    const outsider = (await userCredential(pipeline, 'admin', orgB)).authorization;
    const base = `/rules/${ruleId}/destinations`;
    await pipeline.http.get(base).set('authorization', outsider).expect(404);
    await pipeline.http
      .post(base)
      .set('authorization', outsider)
      .send({ target_url: `${targets[0]!.url}/x` })
      .expect(404);
    await pipeline.http.get(`${base}/${destination.id}`).set('authorization', outsider).expect(404);
    await pipeline.http
      .patch(`${base}/${destination.id}`)
      .set('authorization', outsider)
      .send({ active: false })
      .expect(404);
    await pipeline.http.post(`${base}/${destination.id}/resume`).set('authorization', outsider).expect(404);
    await pipeline.http.delete(`${base}/${destination.id}`).set('authorization', outsider).expect(404);

    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    await pipeline.http.get(base).set('authorization', viewer).expect(200);
    await pipeline.http.get(`${base}/${destination.id}`).set('authorization', viewer).expect(200);
    await pipeline.http
      .post(base)
      .set('authorization', viewer)
      .send({ target_url: `${targets[0]!.url}/x` })
      .expect(403);
    await pipeline.http
      .patch(`${base}/${destination.id}`)
      .set('authorization', viewer)
      .send({ active: false })
      .expect(403);
    await pipeline.http.post(`${base}/${destination.id}/resume`).set('authorization', viewer).expect(403);
    await pipeline.http.delete(`${base}/${destination.id}`).set('authorization', viewer).expect(403);
    expect((await prisma().destination.findUniqueOrThrow({ where: { id: destination.id } })).active).toBe(true);
  });
});

describe('a destination change reaches the workers at once', () => {
  it('a worker that caches rules for a minute fans out to a destination added after its first event', async () => {
    const cached = await startPipeline({ worker: { RULE_CACHE_MS: '60000' } });
    try {
      const auth = (await userCredential(cached, 'admin')).authorization;
      const ruleId = (
        await cached.http
          .post('/rules')
          .set('authorization', auth)
          .send({ source: 'cached', target_url: `${primary.url}/cached` })
          .expect(201)
      ).body.id as string;
      const send = async () =>
        (await cached.http.post('/cached').set('content-type', 'application/json').send('{}').expect(202)).body
          .id as string;
      // The worker now remembers the rule as having no destinations.
      await cached.waitForStatus(await send(), 'delivered', PATIENCE);
      const added = (
        await cached.http
          .post(`/rules/${ruleId}/destinations`)
          .set('authorization', auth)
          .send({ target_url: `${targets[2]!.url}/cached` })
          .expect(201)
      ).body;
      const eventId = await send();
      await cached.waitForStatus(eventId, 'delivered', PATIENCE);
      await waitFor(async () => {
        const d = await cached.store.prisma.delivery.findFirst({ where: { eventId, destinationId: added.id } });
        return d?.status === 'delivered';
      }, PATIENCE);
    } finally {
      await cached.close();
    }
  });
});
