import { JOBS, maintenanceQueuePrefix, QUEUES } from '@relay/queue';
import { Queue } from 'bullmq';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import type { RetentionRun } from './retention-run';

/** The job scheduler's id: every worker upserts the same one, so Redis holds one schedule. */
export const RETENTION_SCHEDULER_ID = 'retention';

export interface RetentionSchedulerDeps {
  /** A producer connection (fails fast while Redis is down): the queue and the scheduler upsert. */
  producer: RedisConnection;
  prefix: string;
  /** RETENTION_SCHEDULE, a cron pattern. */
  pattern: string;
  run: RetentionRun;
  logger: Logger;
}

// A BullMQ job scheduler runs retention: each worker process upserts the same scheduler id, so however
// many workers run there is one schedule, and each of its jobs (one per cron slot, with an id of the
// slot) is taken by one worker. Upserting on every (re)connect puts the schedule back after Redis
// restarted empty, and replaces the pattern after RETENTION_SCHEDULE changed. The maintenance worker
// (maintenance-worker.ts) runs the jobs.
export function startRetentionScheduler(deps: RetentionSchedulerDeps) {
  const queue = new Queue(QUEUES.maintenance, {
    connection: deps.producer,
    prefix: maintenanceQueuePrefix(deps.prefix),
  });
  queue.on('error', () => {});

  let upserting: Promise<void> = Promise.resolve();
  const upsert = () => {
    upserting = queue
      .upsertJobScheduler(
        RETENTION_SCHEDULER_ID,
        { pattern: deps.pattern, tz: 'UTC' },
        { name: JOBS.retention, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
      )
      .then(() => deps.logger.debug({ pattern: deps.pattern }, 'retention schedule registered'))
      .catch((err: unknown) =>
        deps.logger.warn({ err }, 'retention schedule not registered; trying again when Redis reconnects'),
      );
    return upserting;
  };
  const onReady = () => void upsert();
  if (deps.producer.status === 'ready') onReady();
  deps.producer.on('ready', onReady);

  return {
    /** Resolves once the latest upsert attempt settled (tests wait for the registration). */
    registered: () => upserting,
    async close(): Promise<void> {
      deps.producer.off('ready', onReady);
      // A run in progress stops starting batches, so the maintenance worker's close does not wait it out.
      await deps.run.stop();
      await queue.close().catch(() => {});
    },
  };
}
