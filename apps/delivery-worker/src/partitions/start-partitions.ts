import { createPartitionRepository, type Database } from '@relay/db';
import { JOBS, maintenanceQueuePrefix, QUEUES, type RedisConnection } from '@relay/queue';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { createPartitionJob, type PartitionJobMetrics, type PartitionRunResult } from './partition-job';

/** The job scheduler's id: every worker upserts the same one, so Redis holds one schedule. */
export const PARTITIONS_SCHEDULER_ID = 'partitions';
// Hourly, UTC, at a minute of its own (retention's is 17): the window is days long, so the hour only bounds how long
// a failed run (a lock timeout) waits for its retry.
export const PARTITIONS_SCHEDULE = '7 * * * *';

export interface PartitionsHandle {
  /** One run of the job now (the scheduled job's handler, and the run at worker start). */
  runNow(options?: { analyzeIfDue?: boolean }): Promise<PartitionRunResult>;
  /** Resolves once the schedule's registration attempt settled. */
  registered(): Promise<void>;
  close(): Promise<void>;
}

// Wires the `partitions` job into a worker process: the job over the database, and its BullMQ job scheduler, which
// every worker upserts (on each Redis (re)connect, so a Redis restarted empty gets it back) so that each hourly slot
// is one job taken by one worker. The maintenance worker (maintenance-worker.ts) runs the jobs through `runNow`.
export function startPartitions(
  config: Pick<WorkerConfig, 'PARTITION_PERIOD' | 'PARTITION_AHEAD_DAYS' | 'QUEUE_PREFIX'>,
  deps: { db: Database; producer: RedisConnection; logger: Logger; metrics?: PartitionJobMetrics },
): PartitionsHandle {
  const job = createPartitionJob({
    repository: createPartitionRepository(deps.db.pool),
    period: config.PARTITION_PERIOD,
    aheadDays: config.PARTITION_AHEAD_DAYS,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const queue = new Queue(QUEUES.maintenance, {
    connection: deps.producer,
    prefix: maintenanceQueuePrefix(config.QUEUE_PREFIX),
  });
  queue.on('error', () => {});

  let upserting: Promise<void> = Promise.resolve();
  const upsert = () => {
    upserting = queue
      .upsertJobScheduler(
        PARTITIONS_SCHEDULER_ID,
        { pattern: PARTITIONS_SCHEDULE, tz: 'UTC' },
        { name: JOBS.partitions, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
      )
      .then(() => deps.logger.debug('partitions schedule registered'))
      .catch((err: unknown) =>
        deps.logger.warn({ err }, 'partitions schedule not registered; trying again when Redis reconnects'),
      );
    return upserting;
  };
  const onReady = () => void upsert();
  if (deps.producer.status === 'ready') onReady();
  deps.producer.on('ready', onReady);

  return {
    runNow: (options) => job.run(options),
    registered: () => upserting,
    async close() {
      deps.producer.off('ready', onReady);
      await queue.close().catch(() => {});
    },
  };
}
