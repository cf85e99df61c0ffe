import { createPartitionCopyRepository, createPartitionRepository, type Database } from '@relay/db';
import { JOBS, maintenanceQueuePrefix, QUEUES, type RedisConnection } from '@relay/queue';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { createLegacyCopy, type LegacyCopy, type LegacyCopyMetrics } from './legacy-copy';
import { createPartitionJob, type PartitionJob, type PartitionJobMetrics } from './partition-job';

/** The job schedulers' ids: every worker upserts the same ones, so Redis holds one schedule of each. */
export const PARTITIONS_SCHEDULER_ID = 'partitions';
export const PARTITIONS_ANALYZE_SCHEDULER_ID = 'partitions-analyze';

export interface PartitionsJobData {
  /** The daily run also analyses the partitioned parents. */
  analyze?: boolean;
}

export interface PartitionsHandle {
  job: PartitionJob;
  /** The upgrade's background copy out of the legacy partitions (a no-op once they are gone). */
  copy: LegacyCopy;
  /** Resolves once the schedules' registration attempt settled. */
  registered(): Promise<void>;
  close(): Promise<void>;
}

// Two BullMQ job schedulers run the same `partitions` job (one per slot across workers, as retention's): hourly
// (PARTITION_SCHEDULE) to create partitions ahead, and daily (PARTITION_ANALYZE_SCHEDULE) with `analyze`. The
// worker also runs the job once at start (runtime.ts), so a fresh install or a long outage is caught up at once.
export function startPartitions(
  config: Pick<
    WorkerConfig,
    | 'PARTITION_PERIOD'
    | 'PARTITION_AHEAD_DAYS'
    | 'PARTITION_SCHEDULE'
    | 'PARTITION_ANALYZE_SCHEDULE'
    | 'PARTITION_COPY_BATCH_SIZE'
    | 'PARTITION_COPY_MAX_RUN_SECONDS'
    | 'QUEUE_PREFIX'
  >,
  deps: {
    db: Database;
    producer: RedisConnection;
    logger: Logger;
    metrics?: PartitionJobMetrics & LegacyCopyMetrics;
  },
): PartitionsHandle {
  const job = createPartitionJob({
    repository: createPartitionRepository(deps.db.pool),
    period: config.PARTITION_PERIOD,
    aheadDays: config.PARTITION_AHEAD_DAYS,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const copy = createLegacyCopy({
    repository: createPartitionCopyRepository(deps.db.pool),
    partitions: createPartitionRepository(deps.db.pool),
    period: config.PARTITION_PERIOD,
    batchSize: config.PARTITION_COPY_BATCH_SIZE,
    maxRunMs: config.PARTITION_COPY_MAX_RUN_SECONDS * 1_000,
    pauseMs: 20,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const queue = new Queue(QUEUES.maintenance, {
    connection: deps.producer,
    prefix: maintenanceQueuePrefix(config.QUEUE_PREFIX),
  });
  queue.on('error', () => {});
  const schedule = (id: string, pattern: string, data: PartitionsJobData) =>
    queue.upsertJobScheduler(
      id,
      { pattern, tz: 'UTC' },
      { name: JOBS.partitions, data, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  let upserting: Promise<void> = Promise.resolve();
  const upsert = () => {
    upserting = Promise.all([
      schedule(PARTITIONS_SCHEDULER_ID, config.PARTITION_SCHEDULE, {}),
      schedule(PARTITIONS_ANALYZE_SCHEDULER_ID, config.PARTITION_ANALYZE_SCHEDULE, { analyze: true }),
    ])
      .then(() => deps.logger.debug('partition schedules registered'))
      .catch((err: unknown) =>
        deps.logger.warn({ err }, 'partition schedules not registered; trying again when Redis reconnects'),
      );
    return upserting;
  };
  const onReady = () => void upsert();
  if (deps.producer.status === 'ready') onReady();
  deps.producer.on('ready', onReady);
  return {
    job,
    copy,
    registered: () => upserting,
    async close() {
      deps.producer.off('ready', onReady);
      copy.stop();
      await queue.close().catch(() => {});
    },
  };
}
