import { queueShardOf, type OrgId } from '@relay/core';
import { startRedisCluster, waitFor, type RedisCluster } from '@relay/test-support';
import { Worker, type Job } from 'bullmq';
import { Cluster } from 'ioredis';
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue';
import { createHookQueue } from './hook-queue';
import type { DeliverJobData, DestinationJobData } from './job-catalog';
import { createNotificationQueue } from './notification-queue';
import { deliveryQueuePrefix, hookQueuePrefix } from './queue-shards';

// Issue 33, items 1 and 2 on a real Redis Cluster (3 primaries + 3 replicas): the relay's queues, each shard under
// its own hash tag, add and run jobs with no CROSSSLOT; a rule's jobs stay on its shard; the shards spread over the
// primaries; after the shard count shrinks, what the old shards hold is not counted (the sweeper re-enqueues it)
// and a worker that lists an old shard (WORKER_QUEUE_SHARDS) drains it.

jest.setTimeout(180_000);

// The cluster is this file's own, so a fixed prefix: the slots below are the same on every run.
const PREFIX = 'relay';
const ORG = '00000000-0000-7000-8000-000000000001' as OrgId;

let cluster: RedisCluster;
const clients: Cluster[] = [];
const closers: Array<() => Promise<unknown>> = [];

// BullMQ's workers need maxRetriesPerRequest null (blocking commands wait forever); no keyPrefix (bullmq#1232).
const connect = () => {
  const client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
  client.on('error', () => {});
  clients.push(client);
  return client;
};

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const client of clients) client.disconnect();
  await cluster?.close();
});

/** A worker on one delivery shard, as the worker runtime starts one per consumed shard; records what it ran. */
function shardWorker(prefix: string, shard: number, ran: Array<{ shard: number; job: Job }>) {
  const worker = new Worker<DeliverJobData | DestinationJobData>(
    'deliveries',
    async (job) => {
      ran.push({ shard, job });
      return 'delivered';
    },
    { connection: connect(), prefix: deliveryQueuePrefix(prefix, shard), concurrency: 4 },
  );
  worker.on('error', () => {});
  closers.push(() => worker.close());
  return worker;
}

/** The primary (by port) that serves a key's slot. */
async function primaryOf(client: Cluster, key: string): Promise<number> {
  const slot = await client.cluster('KEYSLOT', key);
  const range = (await client.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to);
  return range![2]![1];
}

const pendingOf = async (queue: DeliveryQueue, shard: number) =>
  Object.values(await queue.queues[shard]!.getJobCounts('waiting', 'delayed', 'active', 'prioritized')).reduce(
    (a, b) => a + b,
    0,
  );

it('runs events and destination deliveries over 6 shards, each rule and destination on its own shard', async () => {
  const shards = 6;
  const client = connect();
  const queue = createDeliveryQueue({ connection: client, prefix: PREFIX, shards });
  closers.push(() => queue.close());
  const ran: Array<{ shard: number; job: Job }> = [];
  for (let shard = 0; shard < shards; shard++) shardWorker(PREFIX, shard, ran);

  const rules = Array.from({ length: 12 }, (_, i) => `rul_${i}`);
  const events = rules.flatMap((ruleId) =>
    Array.from({ length: 5 }, (_, n) => ({ orgId: ORG, eventId: `evt-${ruleId}-${n}`, ruleId })),
  );
  // One bulk over every shard (grouped per shard underneath: a bulk add is one slot's script).
  await queue.enqueue(events);
  await queue.enqueueDestinations([{ orgId: ORG, deliveryId: 'd1', eventId: 'evt-d1', destinationId: 'dst_a' }]);
  await queue.enqueue([{ orgId: ORG, eventId: 'evt-default', ruleId: null }]);
  await waitFor(() => ran.length === events.length + 2, 60_000, 'every job to run');

  // Each job ran on its rule's (or destination's) shard, never elsewhere.
  const shardOfJob = new Map(ran.map(({ shard, job }) => [job.id!, shard]));
  for (const { eventId, ruleId } of events) expect(shardOfJob.get(eventId)).toBe(queueShardOf(ruleId, shards));
  expect(shardOfJob.get('dest-d1')).toBe(queueShardOf('dst_a', shards));
  expect(shardOfJob.get('evt-default')).toBe(0);
  // The rules spread over more than one shard, and the shards over every primary (the tags' slots, fixed prefix).
  expect(new Set(ran.map((r) => r.shard)).size).toBeGreaterThan(1);
  const primaries = await Promise.all(
    Array.from({ length: shards }, (_, shard) => primaryOf(client, `${deliveryQueuePrefix(PREFIX, shard)}:x`)),
  );
  expect(new Set(primaries).size).toBe(3);
  // Each shard's keys are all on its tag's primary.
  for (let shard = 0; shard < shards; shard++) {
    const node = client.nodes('master').find((n) => n.options.port === primaries[shard]);
    expect((await node!.keys(`${deliveryQueuePrefix(PREFIX, shard)}:*`)).length).toBeGreaterThan(0);
  }
  expect(await queue.countPendingJobs()).toBe(0);
});

it('adds hook and maintenance jobs on the cluster (no CROSSSLOT), hooks on their rule shard', async () => {
  const client = connect();
  const hooks = createHookQueue({ connection: client, prefix: 'hk', shards: 3 });
  const maintenance = createNotificationQueue({ connection: client, prefix: 'hk', attempts: 3, backoffMs: 1_000 });
  closers.push(
    () => hooks.close(),
    () => maintenance.close(),
  );
  const hook = { orgId: ORG, eventId: 'e1', hookId: 'h1', run: 0, deliveryStatus: 'delivered' as const };
  await hooks.enqueue([
    { ...hook, ruleId: 'rul_1', responseStatus: 200 },
    { ...hook, hookId: 'h2', ruleId: 'rul_2', responseStatus: 200 },
  ]);
  const job = await hooks.queues[queueShardOf('rul_1', 3)]!.getJob('e1-0-h1');
  expect(job?.data).toEqual({ ...hook, responseStatus: 200 });
  expect(await hooks.queues[queueShardOf('rul_2', 3)]!.getJob('e1-0-h2')).toBeDefined();
  expect(hookQueuePrefix('hk', 1)).toBe('{hk:hook:1}');
  await maintenance.enqueue({ orgId: ORG, id: 'n1', type: 'rule.unhealthy', at: new Date(0).toISOString(), data: {} });
  await maintenance.scheduleDigest('digest', 60_000);
  expect(await maintenance.queue.getJob('n1')).toBeDefined();
});

it('after the shard count shrinks, old shards are not counted and a worker listing them drains them', async () => {
  const prefix = 'shrink';
  const client = connect();
  const before = createDeliveryQueue({ connection: client, prefix, shards: 3 });
  const after = createDeliveryQueue({ connection: client, prefix, shards: 2 });
  closers.push(
    () => before.close(),
    () => after.close(),
  );
  // Rules whose events were on shard 2 of 3: no shard of 2 consumes that queue any more.
  const rules = Array.from({ length: 60 }, (_, i) => `rul_s${i}`).filter((r) => queueShardOf(r, 3) === 2);
  expect(rules.length).toBeGreaterThan(3);
  await before.enqueue(rules.map((ruleId) => ({ orgId: ORG, eventId: `old-${ruleId}`, ruleId })));
  expect(await pendingOf(before, 2)).toBe(rules.length);
  // The 2-shard count does not see them, so the sweeper finds fewer jobs than queued events and re-enqueues the
  // overdue ones on their new shard (sweeper-shards.test.ts); the same enqueue lands where a 2-shard worker looks.
  expect(await after.countPendingJobs()).toBe(0);
  await after.enqueue(rules.map((ruleId) => ({ orgId: ORG, eventId: `old-${ruleId}`, ruleId })));
  expect(await after.countPendingJobs()).toBe(rules.length);

  // WORKER_QUEUE_SHARDS=2 with REDIS_QUEUE_SHARDS=2: a worker on shard 2 drains what the old count left there.
  const ran: Array<{ shard: number; job: Job }> = [];
  shardWorker(prefix, 2, ran);
  await waitFor(() => ran.length === rules.length, 60_000, 'the old shard to drain');
  expect(await pendingOf(before, 2)).toBe(0);
  expect(new Set(ran.map((r) => r.shard))).toEqual(new Set([2]));
});
