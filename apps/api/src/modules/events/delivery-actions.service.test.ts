import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, DEFAULT_SENSITIVE_HEADERS, type OrgId } from '@relay/core';
import pino from 'pino';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createEventService } from './event.service';
import { useServiceDatabase } from '../service-test-kit';

// Per-delivery retry and acknowledge (docs/routing.md, "Seeing and acting on deliveries") against the real
// database: only the named delivery changes, each act is audited with it, and its job is asked for after the commit.

const admin = testPrincipal();
const store = useServiceDatabase();
let enqueued: string[];
let enqueuedDeliveries: string[];
let told: { type: string; data: object }[];
type Told = { delivery_id: string; status: string };
const service = (bulkCap = 1000) =>
  createEventService({
    repositories: store.repositories(),
    reads: store.reads(),
    queue: {
      enqueue: async (jobs) => void enqueued.push(...jobs.map((j) => j.eventId)),
      enqueueDestinations: async (jobs) => void enqueuedDeliveries.push(...jobs.map((j) => j.deliveryId)),
    },
    feed: { publish: async (_org, messages) => void told.push(...messages) },
    logger: pino({ enabled: false }),
    bulkCap,
    sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
  });
const prisma = () => store.db.prisma;

beforeEach(() => {
  enqueued = [];
  enqueuedDeliveries = [];
  told = [];
});

type Status = 'queued' | 'delivered' | 'failed' | 'paused';
const T0 = Date.now() - 3_600_000;
let created = 0;

async function ruleWithDestinations(count: number, orgId: OrgId = DEFAULT_ORGANIZATION_ID) {
  const source = `dl-${randomUUID().slice(0, 8)}`;
  const rule = await prisma().rule.create({
    data: { organizationId: orgId, name: source, source, targetUrl: 'https://primary.example.com/' },
  });
  const destinations = [];
  for (let i = 0; i < count; i++)
    destinations.push(
      await prisma().destination.create({
        data: {
          organizationId: orgId,
          ruleId: rule.id,
          name: `d${i}`,
          targetUrl: `https://d${i}.example.com/`,
          updatedAt: new Date(),
        },
      }),
    );
  return { rule, destinations, source };
}

/** An event of the rule (primary `eventStatus`) with one delivery per given destination and status. */
async function eventWith(
  source: string,
  ruleId: string,
  deliveries: [destinationId: string, status: Status][],
  eventStatus: 'delivered' | 'failed' = 'delivered',
) {
  // A second apart, so the list's order (newest first) and a filter's (oldest first) are certain.
  const id = await store.event(eventStatus, {
    source,
    createdAt: new Date(T0 + ++created * 1000),
    ruleId,
    attemptCount: 1,
  });
  const ids: string[] = [];
  for (const [destinationId, status] of deliveries) {
    const finished = status === 'failed' || status === 'delivered';
    const row = await prisma().delivery.create({
      data: {
        organizationId: DEFAULT_ORGANIZATION_ID,
        eventId: id,
        destinationId,
        status,
        attemptCount: finished ? 3 : 0,
        failureReason: status === 'failed' ? 'retries_exhausted' : null,
        lastError: status === 'failed' ? 'HTTP 503' : null,
        deliveredAt: status === 'delivered' ? new Date() : null,
        nextAttemptAt: status === 'queued' ? new Date() : null,
      },
    });
    ids.push(row.id);
  }
  return { id, deliveryIds: ids };
}

const deliveryRow = (id: string) => prisma().delivery.findFirstOrThrow({ where: { id } });

describe('per-delivery retry', () => {
  it('starts a new run of that delivery alone, audited, its job enqueued', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(2);
    const [failing, other] = [destinations[0]!, destinations[1]!];
    const event = await eventWith(source, rule.id, [
      [failing.id, 'failed'],
      [other.id, 'failed'],
    ]);
    const primaryBefore = await prisma().event.findUniqueOrThrow({ where: { id: event.id } });

    expect(await service().retry(admin, event.id, failing.id)).toEqual({
      id: event.id,
      status: 'queued',
      destination_id: failing.id,
    });
    expect(await deliveryRow(event.deliveryIds[0]!)).toMatchObject({
      status: 'queued',
      attemptCount: 3,
      runStartAttempt: 3,
      failureReason: null,
      lastError: null,
      deliveredAt: null,
      nextAttemptAt: expect.any(Date),
    });
    // The other delivery and the primary are untouched; no event job was asked for.
    expect(await deliveryRow(event.deliveryIds[1]!)).toMatchObject({ status: 'failed', runStartAttempt: 0 });
    expect(await prisma().event.findUniqueOrThrow({ where: { id: event.id } })).toEqual(primaryBefore);
    expect(enqueuedDeliveries).toEqual([event.deliveryIds[0]]);
    expect(enqueued).toEqual([]);
    // The live feed hears of it, as it does of the worker's changes.
    expect(told).toEqual([
      {
        type: 'delivery.status',
        at: expect.any(Number),
        data: {
          event_id: event.id,
          delivery_id: event.deliveryIds[0],
          destination_id: failing.id,
          status: 'queued',
          attempt_count: 3,
        },
      },
    ]);
    expect(await store.auditOf(event.id)).toMatchObject([
      {
        action: 'delivery.retried',
        resourceType: 'event',
        metadata: { destination_id: failing.id, mechanism: 'session' },
      },
    ]);
  });

  it('a retried delivery of an ordered rule goes on its own: its ordering key is cleared', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const event = await eventWith(source, rule.id, [[destinations[0]!.id, 'failed']]);
    await prisma().delivery.updateMany({ where: { id: event.deliveryIds[0]! }, data: { orderingKey: 'order-1' } });
    await service().retry(admin, event.id, destinations[0]!.id);
    expect(await deliveryRow(event.deliveryIds[0]!)).toMatchObject({ status: 'queued', orderingKey: null });
  });

  it('retries a delivered delivery, clearing its acknowledgement and delivered_at', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const event = await eventWith(source, rule.id, [[destinations[0]!.id, 'delivered']]);
    await service().retry(admin, event.id, destinations[0]!.id);
    expect(await deliveryRow(event.deliveryIds[0]!)).toMatchObject({
      status: 'queued',
      deliveredAt: null,
      acknowledgedAt: null,
    });
  });

  it('refuses a queued, a paused and a missing delivery with their own codes, changing and auditing nothing', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(3);
    const [queued, paused, none] = [destinations[0]!, destinations[1]!, destinations[2]!];
    const event = await eventWith(source, rule.id, [
      [queued.id, 'queued'],
      [paused.id, 'paused'],
    ]);
    await expect(service().retry(admin, event.id, queued.id)).rejects.toMatchObject({ code: 'event_not_retryable' });
    await expect(service().retry(admin, event.id, paused.id)).rejects.toMatchObject({ code: 'delivery_paused' });
    await expect(service().retry(admin, event.id, none.id)).rejects.toMatchObject({ code: 'delivery_not_found' });
    await expect(service().retry(admin, event.id, randomUUID())).rejects.toMatchObject({
      code: 'delivery_not_found',
    });
    await expect(service().retry(admin, randomUUID(), queued.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await deliveryRow(event.deliveryIds[1]!)).status).toBe('paused');
    expect(await store.auditOf(event.id)).toEqual([]);
    expect(enqueuedDeliveries).toEqual([]);
  });

  it("never reaches another organization's delivery", async () => {
    const other = (await prisma().organization.create({ data: { name: 'dl-other', slug: `dl-${randomUUID()}` } }))
      .id as OrgId;
    const theirs = await ruleWithDestinations(1, other);
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const ours = await eventWith(source, rule.id, [[destinations[0]!.id, 'failed']]);
    // Our event, their destination: no delivery of ours goes there.
    await expect(service().retry(admin, ours.id, theirs.destinations[0]!.id)).rejects.toMatchObject({
      code: 'delivery_not_found',
    });
    const intruder = testPrincipal({ orgId: other });
    await expect(service().retry(intruder, ours.id, destinations[0]!.id)).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(service().acknowledge(intruder, ours.id, destinations[0]!.id)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await deliveryRow(ours.deliveryIds[0]!)).status).toBe('failed');
  });

  it('changes nothing when the audit entry cannot be written', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const event = await eventWith(source, rule.id, [[destinations[0]!.id, 'failed']]);
    const broken = unauditable(admin);
    await expect(service().retry(broken, event.id, destinations[0]!.id)).rejects.toThrow();
    await expect(service().acknowledge(broken, event.id, destinations[0]!.id)).rejects.toThrow();
    expect(await deliveryRow(event.deliveryIds[0]!)).toMatchObject({ status: 'failed', acknowledgedAt: null });
    expect(enqueuedDeliveries).toEqual([]);
  });
});

describe('per-delivery acknowledge', () => {
  it('acknowledges a failed delivery and answers the event with its delivery counts', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(2);
    const [failing, fine] = [destinations[0]!, destinations[1]!];
    const event = await eventWith(
      source,
      rule.id,
      [
        [failing.id, 'failed'],
        [fine.id, 'delivered'],
      ],
      'failed',
    );
    const answer = await service().acknowledge(admin, event.id, failing.id);
    // The event itself (the primary) is not acknowledged: only the delivery is.
    expect(answer).toMatchObject({
      id: event.id,
      status: 'failed',
      acknowledged: false,
      delivery_counts: { total: 2, queued: 0, delivered: 1, failed: 1, paused: 0 },
    });
    expect((await deliveryRow(event.deliveryIds[0]!)).acknowledgedAt).toEqual(expect.any(Date));
    expect((await prisma().event.findUniqueOrThrow({ where: { id: event.id } })).acknowledgedAt).toBeNull();
    const detail = await service().find(admin, event.id);
    expect(detail.deliveries.find((d) => d.destination_id === failing.id)).toMatchObject({
      status: 'failed',
      acknowledged: true,
      next_attempt_at: null,
    });
    expect((await store.auditOf(event.id)).map((e) => [e.action, e.metadata])).toEqual([
      ['delivery.acknowledged', expect.objectContaining({ destination_id: failing.id })],
    ]);
    // Idempotent on a failed delivery; refused on any other status.
    await service().acknowledge(admin, event.id, failing.id);
    await expect(service().acknowledge(admin, event.id, fine.id)).rejects.toMatchObject({
      code: 'delivery_not_failed',
    });
    // A retry clears the acknowledgement (a new run).
    await service().retry(admin, event.id, failing.id);
    expect((await deliveryRow(event.deliveryIds[0]!)).acknowledgedAt).toBeNull();
  });
});

describe('bulk retry of one destination', () => {
  it("retries that destination's failed and delivered deliveries, skipping events without one, one audit entry", async () => {
    const { rule, destinations, source } = await ruleWithDestinations(2);
    const [target, other] = [destinations[0]!, destinations[1]!];
    const failed = await eventWith(source, rule.id, [
      [target.id, 'failed'],
      [other.id, 'failed'],
    ]);
    const delivered = await eventWith(source, rule.id, [[target.id, 'delivered']]);
    const queued = await eventWith(source, rule.id, [[target.id, 'queued']]);
    const paused = await eventWith(source, rule.id, [[target.id, 'paused']]);
    const elsewhere = await eventWith(source, rule.id, [[other.id, 'failed']]);
    const ids = [failed, delivered, queued, paused, elsewhere].map((e) => e.id);

    const result = await service().bulkRetry(admin, { ids, destination_id: target.id });
    expect(result).toEqual({ affected: 2, ids: expect.arrayContaining([failed.id, delivered.id]), truncated: false });
    expect(new Set(enqueuedDeliveries)).toEqual(new Set([failed.deliveryIds[0], delivered.deliveryIds[0]]));
    expect(
      new Set(told.map(({ type, data }) => [type, (data as Told).delivery_id, (data as Told).status].join(' '))),
    ).toEqual(
      new Set([
        `delivery.status ${failed.deliveryIds[0]} queued`,
        `delivery.status ${delivered.deliveryIds[0]} queued`,
      ]),
    );
    expect((await deliveryRow(failed.deliveryIds[1]!)).status).toBe('failed');
    expect((await deliveryRow(elsewhere.deliveryIds[0]!)).status).toBe('failed');
    expect((await deliveryRow(paused.deliveryIds[0]!)).status).toBe('paused');
    expect(enqueued).toEqual([]);
    const entries = await prisma().auditEntry.findMany({ where: { action: 'deliveries.bulk_retried' } });
    expect(entries).toHaveLength(1);
    expect(entries[0]!.metadata).toMatchObject({
      destination_id: target.id,
      by: 'ids',
      requested: 5,
      affected: 2,
    });
  });

  it('selects by filter, the cap counting only events it acts on', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(2);
    const [target, other] = [destinations[0]!, destinations[1]!];
    // The oldest event has no delivery to the target: it does not use up the cap.
    await eventWith(source, rule.id, [[other.id, 'failed']]);
    const retried = [
      await eventWith(source, rule.id, [[target.id, 'failed']]),
      await eventWith(source, rule.id, [[target.id, 'failed']]),
    ];
    await eventWith(source, rule.id, [[target.id, 'failed']]);
    const result = await service(2).bulkRetry(admin, { filter: { source }, destination_id: target.id });
    expect(result).toEqual({ affected: 2, ids: retried.map((e) => e.id), truncated: true });
  });
});

describe('delivery filters and counts in the list', () => {
  it('lists events with a delivery in a status, to a destination, each with its counts', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(2);
    const [a, b] = [destinations[0]!, destinations[1]!];
    const both = await eventWith(source, rule.id, [
      [a.id, 'failed'],
      [b.id, 'delivered'],
    ]);
    const onlyB = await eventWith(source, rule.id, [[b.id, 'failed']]);
    const none = await eventWith(source, rule.id, []);
    const list = async (extra: object) =>
      (await service().list(admin, { page: 1, per_page: 50, source, ...extra })).events.map((e) => e.id);

    expect(await list({ delivery_status: 'failed' })).toEqual([onlyB.id, both.id]);
    expect(await list({ delivery_status: 'failed', destination_id: a.id })).toEqual([both.id]);
    expect(await list({ delivery_status: 'delivered', destination_id: a.id })).toEqual([]);
    expect(await list({ destination_id: b.id })).toEqual([onlyB.id, both.id]);
    expect(await list({ delivery_status: 'queued' })).toEqual([]);
    // A destination alone is counted from its deliveries; with other filters, from the events.
    const total = async (extra: object) => (await service().list(admin, { page: 1, per_page: 1, ...extra })).total;
    expect(await total({ destination_id: b.id })).toBe(2);
    expect(await total({ destination_id: b.id, delivery_status: 'failed' })).toBe(1);
    expect(await total({ destination_id: a.id, delivery_status: 'delivered' })).toBe(0);
    expect(await total({ destination_id: b.id, source })).toBe(2);
    expect(await total({ destination_id: b.id, source: 'elsewhere' })).toBe(0);

    const page = await service().list(admin, { page: 1, per_page: 50, source });
    expect(page.total).toBe(3);
    const countsOf = (id: string) => page.events.find((e) => e.id === id)!.delivery_counts;
    expect(countsOf(both.id)).toEqual({ total: 2, queued: 0, delivered: 1, failed: 1, paused: 0 });
    expect(countsOf(onlyB.id)).toEqual({ total: 1, queued: 0, delivered: 0, failed: 1, paused: 0 });
    expect(countsOf(none.id)).toEqual({ total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 });

    // The same filters select a bulk action's events.
    const bulk = await service().bulkRetry(admin, {
      filter: { source, delivery_status: 'failed', destination_id: a.id },
    });
    expect(bulk.ids).toEqual([both.id]);
  });

  it('shows a queued delivery with its next attempt', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const event = await eventWith(source, rule.id, [[destinations[0]!.id, 'queued']]);
    const detail = await service().find(admin, event.id);
    expect(detail.delivery_counts).toEqual({ total: 1, queued: 1, delivered: 0, failed: 0, paused: 0 });
    expect(detail.deliveries[0]).toMatchObject({ acknowledged: false, next_attempt_at: expect.any(String) });
  });
});

describe('destination resume', () => {
  it('starts a new run of each paused delivery, as a retry does', async () => {
    const { rule, destinations, source } = await ruleWithDestinations(1);
    const event = await eventWith(source, rule.id, [[destinations[0]!.id, 'paused']]);
    await prisma().delivery.updateMany({ where: { id: event.deliveryIds[0]! }, data: { attemptCount: 2 } });
    await store.repositories().destinations.resume(DEFAULT_ORGANIZATION_ID, rule.id, destinations[0]!.id);
    expect(await deliveryRow(event.deliveryIds[0]!)).toMatchObject({ status: 'queued', runStartAttempt: 2 });
  });
});
