import { maintenanceQueuePrefix, QUEUES, type RedisConnection } from '@relay/queue';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';

export interface MaintenanceScheduleDeps {
  /** A producer connection (fails fast while Redis is down): the queue and the scheduler upsert. */
  producer: RedisConnection;
  prefix: string;
  /** The scheduler's id, the same in every worker, so Redis holds one schedule. */
  id: string;
  /** The job's name on the maintenance queue (JOBS). */
  job: string;
  /** A cron pattern, UTC. */
  pattern: string;
  logger: Logger;
}

export interface MaintenanceSchedule {
  /** Resolves once the latest upsert attempt settled (tests wait for the registration). */
  registered(): Promise<void>;
  close(): Promise<void>;
}

// A BullMQ job scheduler on the maintenance queue: each worker process upserts the same scheduler id, so however many
// workers run there is one schedule, and each of its jobs (one per cron slot) is taken by one worker. Upserting on
// every (re)connect puts the schedule back after Redis restarted empty, and replaces a changed pattern. The
// maintenance worker (maintenance-worker.ts) runs the jobs.
export function startMaintenanceSchedule(deps: MaintenanceScheduleDeps): MaintenanceSchedule {
  const queue = new Queue(QUEUES.maintenance, {
    connection: deps.producer,
    prefix: maintenanceQueuePrefix(deps.prefix),
  });
  queue.on('error', () => {});

  let upserting: Promise<void> = Promise.resolve();
  const upsert = () => {
    upserting = queue
      .upsertJobScheduler(
        deps.id,
        { pattern: deps.pattern, tz: 'UTC' },
        { name: deps.job, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
      )
      .then(() => deps.logger.debug({ pattern: deps.pattern }, `${deps.id} schedule registered`))
      .catch((err: unknown) =>
        deps.logger.warn({ err }, `${deps.id} schedule not registered; trying again when Redis reconnects`),
      );
    return upserting;
  };
  const onReady = () => void upsert();
  if (deps.producer.status === 'ready') onReady();
  deps.producer.on('ready', onReady);

  return {
    registered: () => upserting,
    async close(): Promise<void> {
      deps.producer.off('ready', onReady);
      await queue.close().catch(() => {});
    },
  };
}
