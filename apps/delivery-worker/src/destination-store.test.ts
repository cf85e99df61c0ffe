import { createDeliveryRepository, createDestinationRepository, type Database, type NewAttempt } from '@relay/db';
import { createDestinationStore } from './destination-store';
import { useRuleTestDatabase } from './rule-test-database';
import { newEvent, newRule, ORG } from './stages/stage-test-kit';

let db: Database;
useRuleTestDatabase((opened) => (db = opened));

// Three deliveries of one event, to three destinations, and the repository with its batch calls counted.
async function threeDeliveries() {
  const deliveries = createDeliveryRepository(db.pool);
  const destinations = createDestinationRepository(db.prisma);
  const rule = await newRule(db, { source: 'shop' });
  const ids: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    const created = await destinations.create(ORG, rule.id, { targetUrl: `http://${name}.example/` });
    if (!created.ok) throw new Error('not created');
    ids.push(created.destination.id);
  }
  const event = await newEvent(db, { source: 'shop', ruleId: rule.id });
  const { queued } = await deliveries.fanOut(ORG, event.id, ids);
  const calls = { fanOuts: [] as number[], loads: [] as number[], records: [] as number[] };
  const counted = {
    fanOutMany: (items: Parameters<typeof deliveries.fanOutMany>[0]) => {
      calls.fanOuts.push(items.length);
      return deliveries.fanOutMany(items);
    },
    loadMany: (refs: Parameters<typeof deliveries.loadMany>[0]) => {
      calls.loads.push(refs.length);
      return deliveries.loadMany(refs);
    },
    recordMany: (items: Parameters<typeof deliveries.recordMany>[0]) => {
      calls.records.push(items.length);
      return deliveries.recordMany(items);
    },
  };
  return {
    deliveryIds: queued.map((q) => q.id).sort(),
    destinationIds: ids,
    rule,
    calls,
    store: createDestinationStore(counted),
    event,
  };
}

const attempt = (durationMs = 5): NewAttempt => ({
  attemptNumber: 1,
  kind: 'main',
  targetUrl: 'http://a.example/',
  responseStatus: 200,
  responseBody: 'ok',
  error: null,
  durationMs,
  startedAt: new Date(),
  finishedAt: new Date(),
});
const delivered = () => ({ status: 'delivered' as const, at: new Date() });

describe('the destination store', () => {
  it('fans out the events in flight in one call, each answered with its own deliveries', async () => {
    const { destinationIds, rule, calls, store } = await threeDeliveries();
    const events = [
      await newEvent(db, { source: 'shop', ruleId: rule.id }),
      await newEvent(db, { source: 'shop', ruleId: rule.id }),
      await newEvent(db, { source: 'shop', ruleId: rule.id }),
    ];
    // In another order than the events' ids (the batch runs in id order), and one event's fan-out twice.
    const [a, b, c] = destinationIds as [string, string, string];
    const asked: [string, string[]][] = [
      [events[2]!.id, [a]],
      [events[0]!.id, [b, c]],
      [events[1]!.id, []],
      [events[2]!.id, [a]],
    ];
    const fanned = await Promise.all(asked.map(([eventId, ids]) => store.fanOut(ORG, eventId, ids)));
    expect(calls.fanOuts).toEqual([4]);
    // Each answer is its own event's (the order within one event's is the statement's).
    const added = fanned.map((f) => f.added.map((d) => `${d.eventId} ${d.destinationId}`).sort());
    expect(added).toEqual([
      [`${events[2]!.id} ${a}`],
      [`${events[0]!.id} ${b}`, `${events[0]!.id} ${c}`].sort(),
      [],
      // The second fan-out of the event adds nothing: its delivery is already there, queued.
      [],
    ]);
    expect(fanned[3]!.queued.map((q) => q.id)).toEqual(fanned[0]!.added.map((d) => d.id));
    expect(fanned[1]!.queued.map((q) => q.destinationId).sort()).toEqual([b, c].sort());
    expect(fanned[2]!.queued).toEqual([]);
    // Each queued delivery names its event (deliveries are partitioned by it; its job carries it).
    expect(fanned[1]!.queued.map((q) => q.eventId)).toEqual([events[0]!.id, events[0]!.id]);
  });

  it('loads a delivery named without its event (a job queued before jobs carried it) by its id', async () => {
    const { deliveryIds, store, event } = await threeDeliveries();
    const loaded = await Promise.all([
      store.load(ORG, deliveryIds[0]!),
      store.load(ORG, deliveryIds[1]!, event.id),
      store.load(ORG, crypto.randomUUID()),
    ]);
    expect(loaded.map((l) => l?.delivery.eventId ?? null)).toEqual([event.id, event.id, null]);
  });

  it('does not load a delivery named with another event', async () => {
    const { deliveryIds, store } = await threeDeliveries();
    const other = await newEvent(db, { source: 'shop' });
    expect(await store.load(ORG, deliveryIds[0]!, other.id)).toBeNull();
  });

  it('loads the deliveries in flight in one statement, each with its destination', async () => {
    const { deliveryIds, calls, store, event } = await threeDeliveries();
    const gone = crypto.randomUUID();
    const loaded = await Promise.all([...deliveryIds, gone].map((id) => store.load(ORG, id, event.id)));
    expect(calls.loads).toEqual([4]);
    expect(loaded.map((l) => l?.delivery.id ?? null)).toEqual([...deliveryIds, null]);
    expect(
      loaded
        .slice(0, 3)
        .map((l) => l!.destination.targetUrl)
        .sort(),
    ).toEqual(['http://a.example/', 'http://b.example/', 'http://c.example/']);
    expect(loaded[0]!.delivery).toMatchObject({ status: 'queued', attemptCount: 0, organizationId: ORG });
  });

  it('records the outcomes in flight in one statement; one no longer queued is not recorded', async () => {
    const { deliveryIds, calls, store, event } = await threeDeliveries();
    const [first, second, third] = deliveryIds as [string, string, string];
    await store.record(ORG, { id: first, eventId: event.id }, attempt(), delivered());
    calls.records.length = 0;
    const results = await Promise.all([
      store.record(ORG, { id: first, eventId: event.id }, attempt(), delivered()),
      store.record(ORG, { id: second, eventId: event.id }, attempt(), delivered()),
      store.record(ORG, { id: third, eventId: event.id }, attempt(), {
        status: 'queued',
        nextAttemptAt: new Date(),
        error: 'HTTP 500',
      }),
    ]);
    expect(calls.records).toEqual([3]);
    expect(results.map((r) => r.recorded)).toEqual([false, true, true]);
    const rows = await db.prisma.delivery.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.status, r.attemptCount, r.lastError])).toEqual([
      ['delivered', 1, null],
      ['delivered', 1, null],
      ['queued', 1, 'HTTP 500'],
    ]);
    const attempts = await db.prisma.deliveryAttempt.count({ where: { eventId: event.id } });
    expect(attempts).toBe(3);
  });

  it('stores a failed batch one delivery at a time: the outcome that cannot be stored fails alone', async () => {
    const { deliveryIds, calls, store, event } = await threeDeliveries();
    const [first, second, third] = deliveryIds as [string, string, string];
    const settled = await Promise.allSettled([
      store.record(ORG, { id: first, eventId: event.id }, attempt(), delivered()),
      // A duration Postgres refuses (not an integer): the batch's statement fails as a whole.
      store.record(ORG, { id: second, eventId: event.id }, attempt(Number.NaN), delivered()),
      store.record(ORG, { id: third, eventId: event.id }, attempt(), delivered()),
    ]);
    expect(calls.records).toEqual([3, 1, 1, 1]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await db.prisma.delivery.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'queued', 'delivered']);
  });

  it('drains: an outcome submitted before the drain is committed when it resolves', async () => {
    const { deliveryIds, store, event } = await threeDeliveries();
    const recording = store.record(ORG, { id: deliveryIds[0]!, eventId: event.id }, attempt(), delivered());
    await store.drain();
    const row = await db.prisma.delivery.findFirstOrThrow({ where: { id: deliveryIds[0]! } });
    expect(row.status).toBe('delivered');
    await expect(recording).resolves.toEqual({ recorded: true, head: null });
  });
});
