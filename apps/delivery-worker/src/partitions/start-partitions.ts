import { createPartitionRepository, type Database } from '@relay/db';
import { JOBS, type RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { startMaintenanceSchedule } from '../maintenance-schedule';
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

// Wires the `partitions` job into a worker process: the job over the database, and its hourly maintenance schedule
// (maintenance-schedule.ts). The maintenance worker (maintenance-worker.ts) runs the jobs through `runNow`.
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
  const schedule = startMaintenanceSchedule({
    producer: deps.producer,
    prefix: config.QUEUE_PREFIX,
    id: PARTITIONS_SCHEDULER_ID,
    job: JOBS.partitions,
    pattern: PARTITIONS_SCHEDULE,
    logger: deps.logger,
  });

  return {
    runNow: (options) => job.run(options),
    registered: () => schedule.registered(),
    close: () => schedule.close(),
  };
}
