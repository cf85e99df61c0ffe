import { parsePortPolicy, type TargetPolicy } from '@relay/core';
import {
  createDeliveryRepository,
  createDestinationRepository,
  createEventRepository,
  type Database,
  type StoredEvent,
} from '@relay/db';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { createFanOut } from './destination-fan-out';
import { createDestinationProcessor } from './destination.processor';
import { useRuleTestDatabase } from './rule-test-database';
import { createSender } from './sender';
import { newEvent, newRule, ORG, quiet, RETRY } from './stages/stage-test-kit';

// Ordered delivery per destination (delivery-ordering.sql.ts) over the real database and a real local target: the
// worker's side of each step, driven by hand so every interleaving is the one the test names.

let db: Database;
useRuleTestDatabase((opened) => (db = opened));
const open: TargetPolicy = { allowPrivate: true, allowlist: [], allowedPorts: parsePortPolicy('1-65535') };

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
beforeEach(() => {
  target.requests.length = 0;
  target.replyWith(200);
});

async function setup(ordering: object | undefined = {}) {
  const handedOff: string[] = [];
  const handOff = (heads: readonly { id: string }[]) => void handedOff.push(...heads.map((h) => h.id));
  const deliveries = createDeliveryRepository(db.pool);
  const destinations = createDestinationRepository(db.prisma);
  const fanOut = createFanOut({
    destinations,
    deliveries,
    enqueue: async () => {},
    handOff,
    cacheMs: 0,
    logger: quiet,
  });
  const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
  const processor = createDestinationProcessor({
    deliveries,
    loadEvent: (orgId, id) => events.findById(orgId, id),
    sender: createSender({ timeoutMs: 5_000, policy: open }),
    targetPolicy: open,
    retry: RETRY,
    defaultSecret: undefined,
    keys: undefined,
    unhealthyAfterSeconds: 3_600,
    handOff,
    logger: quiet,
  });
  const rule = await newRule(db, { source: 'shop', ...(ordering ? { ordering } : {}) });
  const add = async (name: string, filter?: Record<string, unknown>) => {
    const created = await destinations.create(ORG, rule.id, { name, targetUrl: `${target.url}/${name}`, filter });
    if (!created.ok) throw new Error('not created');
    return created.destination.id;
  };
  // Events of one key, stored in this order (ids are time-ordered): the ordering key's order. Ingest gives an
  // event a key only when its rule orders delivery.
  const store = async (count: number, key: string | null = 'k'): Promise<StoredEvent[]> => {
    const stored: StoredEvent[] = [];
    for (let i = 0; i < count; i++)
      stored.push(
        await newEvent(db, {
          source: 'shop',
          ruleId: rule.id,
          body: JSON.stringify({ key, n: i }),
          ...(key ? { orderingKey: key } : {}),
        }),
      );
    return stored;
  };
  const deliveryOf = async (event: StoredEvent, destinationId: string) =>
    (await db.prisma.delivery.findFirstOrThrow({ where: { eventId: event.id, destinationId } })).id;
  const attempt = async (deliveryId: string) => (await processor.attempt(ORG, deliveryId)).result;
  const due = (deliveryId: string) =>
    db.prisma.delivery.updateMany({ where: { id: deliveryId }, data: { nextAttemptAt: new Date(0) } });
  return { rule, add, store, fanOut, deliveryOf, attempt, due, handedOff };
}

describe('ordered delivery per destination', () => {
  it('holds a key at one destination only: the others, and other keys, go on', async () => {
    const { add, store, fanOut, deliveryOf, attempt, due, handedOff } = await setup();
    const failing = await add('failing');
    const fine = await add('fine');
    const [first, second] = await store(2);
    const [other] = await store(1, 'other-key');
    for (const event of [first!, second!, other!]) await fanOut(ORG, event);
    const rows = await db.prisma.delivery.findMany({ where: { orderingKey: 'k' } });
    expect(rows).toHaveLength(4);

    target.replyWith(503);
    expect(await attempt(await deliveryOf(first!, failing))).toBe('retry_scheduled');
    // Behind its failing head at `failing`: no attempt, no job (the head hands it one when it finishes).
    expect(await attempt(await deliveryOf(second!, failing))).toBe('waiting_order');
    target.replyWith(200);
    // The same key at another destination, and another key at the same one, are not held.
    expect(await attempt(await deliveryOf(first!, fine))).toBe('delivered');
    expect(await attempt(await deliveryOf(second!, fine))).toBe('delivered');
    expect(await attempt(await deliveryOf(other!, failing))).toBe('delivered');
    expect(handedOff).toEqual([await deliveryOf(second!, fine)]);

    // The head delivered: its key's next delivery at `failing` is named and handed its job, and goes.
    const head = await deliveryOf(first!, failing);
    await due(head);
    expect(await attempt(head)).toBe('delivered');
    expect(handedOff.at(-1)).toBe(await deliveryOf(second!, failing));
    expect(await attempt(await deliveryOf(second!, failing))).toBe('delivered');
    const failingRequests = target.requests.filter((r) => r.url === '/failing').map((r) => r.body.toString());
    const sent = (key: string, n: number) => JSON.stringify({ key, n });
    expect(failingRequests).toEqual([sent('k', 0), sent('other-key', 0), sent('k', 0), sent('k', 1)]);
  });

  it('a later event fanned out first waits for the earlier one to be fanned out (two workers at once)', async () => {
    const { add, store, fanOut, deliveryOf, attempt, handedOff } = await setup();
    const all = await add('all');
    const odd = await add('odd', { body: { n: 1 } });
    const [first, second] = await store(2);
    await fanOut(ORG, second!);
    // The first event's fan-out has not run: it may yet make an older delivery at either destination.
    expect(await attempt(await deliveryOf(second!, all))).toBe('waiting_order');
    expect(await attempt(await deliveryOf(second!, odd))).toBe('waiting_order');
    await fanOut(ORG, first!);
    // `odd` took nothing of the first event: its fan-out releases the second's delivery there at once.
    expect(handedOff).toEqual([await deliveryOf(second!, odd)]);
    expect(await attempt(await deliveryOf(second!, odd))).toBe('delivered');
    // At `all`, the first event's own delivery goes first.
    expect(await attempt(await deliveryOf(second!, all))).toBe('waiting_order');
    expect(await attempt(await deliveryOf(first!, all))).toBe('delivered');
    expect(handedOff.at(-1)).toBe(await deliveryOf(second!, all));
    expect(await attempt(await deliveryOf(second!, all))).toBe('delivered');
  });

  it('a failed head releases its key too; a rule that stops ordering frees its waiting deliveries', async () => {
    const { rule, add, store, fanOut, deliveryOf, attempt, due } = await setup();
    const only = await add('only');
    const [first, second, third] = await store(3);
    for (const event of [first!, second!, third!]) await fanOut(ORG, event);
    target.replyWith(400);
    expect(await attempt(await deliveryOf(first!, only))).toBe('failed');
    target.replyWith(503);
    const next = await deliveryOf(second!, only);
    expect(await attempt(next)).toBe('retry_scheduled');
    await due(next);
    expect(await attempt(await deliveryOf(third!, only))).toBe('waiting_order');
    await db.pool.query('UPDATE providers SET ordering = NULL WHERE id = $1', [rule.id]);
    target.replyWith(200);
    expect(await attempt(await deliveryOf(third!, only))).toBe('delivered');
  });

  it('an unordered rule costs its deliveries nothing: no key, never held', async () => {
    const { add, store, fanOut, deliveryOf, attempt } = await setup(undefined);
    const only = await add('only');
    const [first, second] = await store(2, null);
    for (const event of [first!, second!]) await fanOut(ORG, event);
    expect((await db.prisma.delivery.findMany()).map((d) => d.orderingKey)).toEqual([null, null]);
    target.replyWith(503);
    expect(await attempt(await deliveryOf(first!, only))).toBe('retry_scheduled');
    target.replyWith(200);
    expect(await attempt(await deliveryOf(second!, only))).toBe('delivered');
  });
});
