import { createDatabase } from '@relay/db';
import { createRedisConnection, JOBS, maintenanceQueuePrefix, QUEUES } from '@relay/queue';
import { TEST_REDIS_URL, uniqueQueuePrefix, useTestDatabase, waitFor } from '@relay/test-support';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { PARTITIONS_SCHEDULE, PARTITIONS_SCHEDULER_ID, startPartitions } from './start-partitions';

// The job's wiring over real Redis and Postgres: two workers register one hourly schedule, and runNow (the
// scheduled job's handler) runs the job against the database.
describe('the partitions schedule', () => {
  const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
  const prefix = uniqueQueuePrefix();
  const producer = createRedisConnection(TEST_REDIS_URL, 'producer');
  const queue = new Queue(QUEUES.maintenance, { connection: producer, prefix: maintenanceQueuePrefix(prefix) });
  const config = { PARTITION_PERIOD: 'day', PARTITION_AHEAD_DAYS: 7, QUEUE_PREFIX: prefix } as const;
  const logger = pino({ level: 'silent' });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    producer.disconnect();
  });

  it('is registered once for two workers, hourly in UTC, and runs the job', async () => {
    const workers = [1, 2].map(() => startPartitions(config, { db: database(), producer, logger }));
    try {
      const schedulers = await waitFor(
        async () => {
          const found = await queue.getJobSchedulers();
          return found.length > 0 ? found : undefined;
        },
        10_000,
        'the partitions scheduler',
      );
      await Promise.all(workers.map((worker) => worker.registered()));
      expect(await queue.getJobSchedulers()).toEqual([
        expect.objectContaining({ key: PARTITIONS_SCHEDULER_ID, name: JOBS.partitions, pattern: PARTITIONS_SCHEDULE }),
      ]);
      expect(schedulers[0]).toMatchObject({ tz: 'UTC' });

      const run = await workers[0]!.runNow();
      expect(run.coveredUntil).toBeInstanceOf(Date);
      expect(run.analyzed).toBe(true);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });
});
