import { createEventSweepRepository } from '@relay/db';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { waitFor } from '@relay/test-support';
import { pino } from 'pino';
import { createSweeper } from '../../apps/delivery-worker/src/sweeper';
import { REDIS_URL, startPipeline, type Pipeline } from './harness';

describe('sweeper', () => {
  let pipeline: Pipeline;
  const redis = createRedisConnection(REDIS_URL, 'producer');
  beforeAll(async () => {
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: 'https://example.com/hook' }, worker: false });
  });
  afterAll(async () => {
    await pipeline.close();
    redis.disconnect();
  });

  it('leaves a backlog alone while every queued event has its job, and re-enqueues one whose job is gone', async () => {
    const queue = createDeliveryQueue({ connection: redis, prefix: pipeline.prefix });
    const sweeper = createSweeper({
      sweep: createEventSweepRepository(pipeline.store.prisma),
      queue,
      redis,
      prefix: pipeline.prefix,
      graceMs: 0,
      logger: pino({ level: 'silent' }),
    });
    await waitFor(() => redis.status === 'ready');
    expect((await sweeper.runOnce()).full).toBe(true); // a new queue: the epoch is set now

    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await pipeline.http.post('/s').set('content-type', 'application/json').send('{}').expect(202)).body.id);
    await waitFor(async () => (await queue.countPendingJobs()) === 3, 30_000, 'three jobs');
    // Every event is overdue (grace 0), but each has its job: nothing to do.
    expect(await sweeper.runOnce()).toEqual({ full: false, enqueued: 0 });

    await queue.queues[0]!.remove(ids[1]!);
    expect(await queue.queues[0]!.getJob(ids[1]!)).toBeUndefined();
    const swept = await sweeper.runOnce();
    expect(swept.enqueued).toBeGreaterThanOrEqual(1);
    expect(await queue.queues[0]!.getJob(ids[1]!)).toBeDefined();
    expect(await queue.countPendingJobs()).toBe(3);
    await queue.close();
  });
});
