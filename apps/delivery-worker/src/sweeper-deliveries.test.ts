import { randomUUID } from 'node:crypto';
import {
  createDeliveryRepository,
  createDestinationRepository,
  createEventSweepRepository,
  type Database,
} from '@relay/db';
import { createDeliveryQueue, createRedisConnection, destinationJobId } from '@relay/queue';
import { useRuleTestDatabase } from './rule-test-database';
import { newEvent, newRule, ORG, quiet } from './stages/stage-test-kit';
import { createSweeper } from './sweeper';

let db: Database;
useRuleTestDatabase((opened) => (db = opened));
const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'producer');
afterAll(() => redis.disconnect());

// A fan-out committed whose jobs Redis lost (emptied, or the enqueue never happened): the sweeper gives each
// queued destination delivery its job again, under the delivery's own job id (no duplicate beside a live one).
it('re-enqueues queued destination deliveries whose jobs Redis lost', async () => {
  const prefix = `test-sweep-${randomUUID()}`;
  const queue = createDeliveryQueue({ connection: redis, prefix });
  try {
    const rule = await newRule(db, { source: 'shop' });
    const created = await createDestinationRepository(db.prisma).create(ORG, rule.id, {
      targetUrl: 'http://dest.example/in',
    });
    if (!created.ok) throw new Error('not created');
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id });
    const deliveries = createDeliveryRepository(db.pool);
    const {
      queued: [queued],
    } = await deliveries.fanOut(ORG, event.id, [created.destination.id]);
    const sweeper = createSweeper({
      sweep: createEventSweepRepository(db.prisma),
      deliveries,
      queue,
      redis,
      prefix,
      graceMs: 0,
      logger: quiet,
    });
    await sweeper.runOnce();
    const job = await queue.queues[0]!.getJob(destinationJobId(queued!.id));
    expect(job?.data).toEqual({ orgId: ORG, deliveryId: queued!.id, eventId: queued!.eventId });
    await sweeper.runOnce();
    await redis.del(`${prefix}:relay:epoch`);
    await sweeper.runOnce();
    expect(await queue.countPendingJobs()).toBe(2); // the event's job and the delivery's, once each
  } finally {
    await queue.queues[0]!.obliterate({ force: true });
    await queue.close();
  }
});

// A delivery waiting behind an older one of its ordering key at its destination has no job on purpose: the sweeper
// leaves it (the one holding the key hands it its job), neither counting it as missing nor enqueuing it.
it('leaves deliveries waiting for their ordering key to the hand-off, and sweeps them once free', async () => {
  const prefix = `test-sweep-${randomUUID()}`;
  const queue = createDeliveryQueue({ connection: redis, prefix });
  try {
    const rule = await newRule(db, { source: 'shop', ordering: {} });
    const created = await createDestinationRepository(db.prisma).create(ORG, rule.id, {
      targetUrl: 'http://dest.example/in',
    });
    if (!created.ok) throw new Error('not created');
    const deliveries = createDeliveryRepository(db.pool);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const event = await newEvent(db, { source: 'shop', ruleId: rule.id, orderingKey: 'k' });
      ids.push((await deliveries.fanOut(ORG, event.id, [created.destination.id])).queued[0]!.id);
    }
    expect(await deliveries.countQueued()).toBe(1);
    const sweeper = createSweeper({
      sweep: createEventSweepRepository(db.prisma),
      deliveries,
      queue,
      redis,
      prefix,
      graceMs: 0,
      logger: quiet,
    });
    await sweeper.runOnce(); // the full sweep (a new epoch): the head only
    expect(await queue.queues[0]!.getJob(destinationJobId(ids[0]!))).toBeDefined();
    expect(await queue.queues[0]!.getJob(destinationJobId(ids[1]!))).toBeUndefined();
    // The head finished without its hand-off (a worker died): the next one is free, so overdue, and swept.
    await db.pool.query(`UPDATE deliveries SET status = 'delivered' WHERE id = $1`, [ids[0]]);
    await queue.queues[0]!.remove(destinationJobId(ids[0]!));
    expect(await deliveries.countQueued()).toBe(1);
    await sweeper.runOnce();
    expect(await queue.queues[0]!.getJob(destinationJobId(ids[1]!))).toBeDefined();
  } finally {
    await queue.queues[0]!.obliterate({ force: true });
    await queue.close();
  }
});
