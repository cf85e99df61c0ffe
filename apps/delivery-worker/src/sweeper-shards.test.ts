import { randomUUID } from 'node:crypto';
import { queueShardOf } from '@relay/core';
import { createEventSweepRepository, type Database } from '@relay/db';
import { createDeliveryQueue, createRedisConnection, QUEUES } from '@relay/queue';
import { Queue } from 'bullmq';
import { useRuleTestDatabase } from './rule-test-database';
import { newEvent, newRule, ORG, quiet } from './stages/stage-test-kit';
import { createSweeper } from './sweeper';

let db: Database;
useRuleTestDatabase((opened) => (db = opened));

const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'producer');
afterAll(() => redis.disconnect());

// REDIS_QUEUE_SHARDS went from 3 to 2: an event's job left in shard 2 has no worker any more (unless one lists it in
// WORKER_QUEUE_SHARDS). The sweeper counts only the current shards, finds the job missing and, once the event is
// overdue, enqueues it on the shard its rule has now: nothing is stranded. Postgres is the truth.
it('re-enqueues on its current shard an overdue event whose job a larger shard count left behind', async () => {
  const prefix = `test-shards-${randomUUID()}`;
  const before = createDeliveryQueue({ connection: redis, prefix, shards: 3 });
  const after = createDeliveryQueue({ connection: redis, prefix, shards: 2 });
  try {
    const sweeper = createSweeper({
      sweep: createEventSweepRepository(db.prisma),
      queue: after,
      redis,
      prefix,
      graceMs: 0,
      logger: quiet,
    });
    await sweeper.runOnce(); // the first (full) sweep of a new epoch, with nothing queued yet
    // A rule whose events were on shard 2 of 3 (rule ids are random: a few tries find one).
    let rule = await newRule(db, { source: 'shop' });
    while (queueShardOf(rule.id, 3) !== 2) rule = await newRule(db, { source: `shop${randomUUID().slice(0, 8)}` });
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id, nextAttemptAt: new Date(Date.now() - 1_000) });
    await before.enqueue([{ orgId: ORG, eventId: event.id, ruleId: rule.id }]);
    expect(await before.queues[2]!.getJob(event.id)).toBeDefined();
    expect(await after.countPendingJobs()).toBe(0);

    expect(await sweeper.runOnce()).toEqual({ full: false, enqueued: 1 });
    const job = await after.queues[queueShardOf(rule.id, 2)]!.getJob(event.id);
    expect(job?.data).toEqual({ orgId: ORG, eventId: event.id });
    // Its job is counted now: the next sweep leaves it be.
    expect(await sweeper.runOnce()).toEqual({ full: false, enqueued: 0 });
  } finally {
    for (const queue of [...before.queues]) await queue.obliterate({ force: true });
    await before.close();
    await after.close();
  }
});

// The upgrade to hash-tagged queue keys: a job still waiting under the untagged keys of the release before
// (`<prefix>:deliveries:*`) has no worker any more. The sweeper gives its event a job in the tagged queue.
it('re-enqueues an overdue event whose job waits under the untagged keys of the release before', async () => {
  const prefix = `test-legacy-${randomUUID()}`;
  const legacy = new Queue(QUEUES.delivery, { connection: redis, prefix });
  const queue = createDeliveryQueue({ connection: redis, prefix });
  try {
    const sweeper = createSweeper({
      sweep: createEventSweepRepository(db.prisma),
      queue,
      redis,
      prefix,
      graceMs: 0,
      logger: quiet,
    });
    await sweeper.runOnce();
    const rule = await newRule(db, { source: `legacy${randomUUID().slice(0, 8)}` });
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id, nextAttemptAt: new Date(Date.now() - 1_000) });
    await legacy.add('deliver', { orgId: ORG, eventId: event.id }, { jobId: event.id });
    expect(await queue.countPendingJobs()).toBe(0);
    expect(await sweeper.runOnce()).toEqual({ full: false, enqueued: 1 });
    expect(await queue.queues[0]!.getJob(event.id)).toBeDefined();
  } finally {
    await legacy.obliterate({ force: true });
    await queue.queues[0]!.obliterate({ force: true });
    await legacy.close();
    await queue.close();
  }
});
