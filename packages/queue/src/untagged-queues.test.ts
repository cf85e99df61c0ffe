import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import { createHookQueue } from './hook-queue';
import { JOBS, QUEUES } from './job-catalog';
import { maintenanceQueuePrefix } from './queue-shards';
import { createRedisConnection } from './redis-connection';
import { moveUntaggedJobs, queueTarget } from './untagged-queues';

// Issue 33: hook jobs and notices waiting under the untagged keys of a release before the queue shards are run after
// the upgrade (they have no queued row in Postgres for the sweeper to find).

const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  redis.disconnect();
});

function queue(name: string, prefix: string) {
  const q = new Queue(name, { connection: redis, prefix });
  closers.push(() => q.close());
  return q;
}

it('moves waiting and delayed hook jobs and notices to the tagged queues, with their ids, options and delay', async () => {
  const prefix = uniqueQueuePrefix();
  const oldHooks = queue(QUEUES.hooks, prefix);
  const oldMaintenance = queue(QUEUES.maintenance, prefix);
  const hook = { orgId: 'o', eventId: 'e1', run: 0, hookId: 'h1', deliveryStatus: 'delivered', responseStatus: 200 };
  await oldHooks.add(JOBS.hook, hook, { jobId: 'e1-0-h1', removeOnComplete: { age: 3_600 } });
  const added = await oldHooks.add(JOBS.hook, { ...hook, hookId: 'h2' }, { jobId: 'e1-0-h2', delay: 60_000 });
  await oldMaintenance.add(JOBS.notice, { id: 'n1' }, { jobId: 'n1', attempts: 7 });
  // A scheduler's next run stays behind: the new worker schedules its own.
  await oldMaintenance.upsertJobScheduler('digest', { every: 60_000 }, { name: JOBS.failureDigest, data: {} });

  const hooks = createHookQueue({ connection: redis, prefix, shards: 3 });
  closers.push(() => hooks.close());
  const maintenance = queue(QUEUES.maintenance, maintenanceQueuePrefix(prefix));
  const now = Date.now();
  const moved = await moveUntaggedJobs({
    connection: redis,
    prefix,
    targets: { hooks: queueTarget(hooks.queues[0]!), maintenance: queueTarget(maintenance) },
    now: () => now,
  });

  expect(moved).toEqual({ hooks: 2, maintenance: 1 });
  const first = await hooks.queues[0]!.getJob('e1-0-h1');
  expect(first?.data).toEqual(hook);
  expect(await first?.getState()).toBe('waiting');
  expect(first?.opts.removeOnComplete).toEqual({ age: 3_600 });
  const delayed = await hooks.queues[0]!.getJob('e1-0-h2');
  expect(await delayed?.getState()).toBe('delayed');
  // What was left of its minute at the move's (injected) clock, however long the machine took in between.
  expect(delayed?.opts.delay).toBe(Math.max(0, added.timestamp + 60_000 - now));
  const notice = await maintenance.getJob('n1');
  expect(notice?.data).toEqual({ id: 'n1' });
  expect(notice?.opts.attempts).toBe(7);
  expect(await oldHooks.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
  // Only the scheduler's run is left there.
  const left = await oldMaintenance.getJobs(['waiting', 'delayed']);
  expect(left.map((j) => j.name)).toEqual([JOBS.failureDigest]);

  // A second start finds nothing more to move.
  expect(
    await moveUntaggedJobs({
      connection: redis,
      prefix,
      targets: { hooks: queueTarget(hooks.queues[0]!), maintenance: queueTarget(maintenance) },
    }),
  ).toEqual({ hooks: 0, maintenance: 0 });
});

it('leaves a job an old worker holds where it is, and adds nothing for it', async () => {
  const prefix = uniqueQueuePrefix();
  const oldHooks = queue(QUEUES.hooks, prefix);
  await oldHooks.add(JOBS.hook, { eventId: 'e2' }, { jobId: 'e2-0-h1' });
  const job = (await oldHooks.getJob('e2-0-h1'))!;
  // Held as an old worker holds a job it runs: its lock taken with a token.
  const added: string[] = [];
  const held = await redis.set(`${prefix}:${QUEUES.hooks}:e2-0-h1:lock`, 'old-worker', 'PX', 60_000);
  expect(held).toBe('OK');
  const moved = await moveUntaggedJobs({
    connection: redis,
    prefix,
    targets: {
      hooks: { add: async (j) => added.push(String(j.id)) },
      maintenance: { add: async (j) => added.push(String(j.id)) },
    },
  });
  expect(moved.hooks).toBe(0);
  expect(added).toEqual([]);
  expect(await job.getState()).toBe('waiting');
});

it('does nothing on a Redis Cluster, which never had untagged queues', async () => {
  const cluster = Object.create(Cluster.prototype) as Cluster;
  const fail = async () => {
    throw new Error('no target is used on a cluster');
  };
  expect(
    await moveUntaggedJobs({
      connection: cluster,
      prefix: 'p',
      targets: { hooks: { add: fail }, maintenance: { add: fail } },
    }),
  ).toEqual({ hooks: 0, maintenance: 0 });
});
