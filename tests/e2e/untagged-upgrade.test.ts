import { createHookQueue, createRedisConnection, JOBS, QUEUES } from '@relay/queue';
import { waitFor } from '@relay/test-support';
import { Queue } from 'bullmq';
import { REDIS_URL, startPipeline, type Pipeline } from './harness';

// Issue 33: a worker of this release, started over the queues of a release before the queue shards, moves the hook
// jobs waiting under the untagged keys to the tagged hook queue (packages/queue/src/untagged-queues.ts).

let pipeline: Pipeline;
const redis = createRedisConnection(REDIS_URL, 'producer');
afterAll(async () => {
  await pipeline?.close();
  redis.disconnect();
});

it('moves an untagged hook job to the tagged hook queue when a worker starts', async () => {
  pipeline = await startPipeline({ worker: false });
  const old = new Queue(QUEUES.hooks, { connection: redis, prefix: pipeline.prefix });
  // Due in an hour: it waits in the tagged queue instead of running here.
  await old.add(JOBS.hook, { orgId: 'o', eventId: 'e', run: 0, hookId: 'h' }, { jobId: 'e-0-h', delay: 3_600_000 });
  pipeline.startWorker();
  const hooks = createHookQueue({ connection: redis, prefix: pipeline.prefix });
  await waitFor(async () => ((await hooks.queues[0]!.getJob('e-0-h')) ? true : undefined), 30_000, 'the moved job');
  expect(await old.getJob('e-0-h')).toBeUndefined();
  expect(await (await hooks.queues[0]!.getJob('e-0-h'))!.getState()).toBe('delayed');
  await old.close();
  await hooks.close();
});
