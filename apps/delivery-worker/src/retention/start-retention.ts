import { createRetentionRepository, type Database } from '@relay/db';
import { createRedisConnection } from '@relay/queue';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { retentionSettings } from './retention-plan';
import { createRetentionRun, type RetentionMetrics, type RetentionTotals } from './retention-run';
import { startRetentionScheduler } from './retention-scheduler';

export interface RetentionHandle {
  /** One retention run now; `at` stands in for the clock (what counts as old). */
  runNow(at?: Date): Promise<RetentionTotals>;
  /** Resolves once the schedule's registration attempt settled. */
  registered(): Promise<void>;
  close(): Promise<void>;
}

/** Wires retention into a worker process: the run over the database and its BullMQ job scheduler. */
export function startRetention(
  config: WorkerConfig,
  deps: {
    db: Database;
    producer: Redis;
    logger: Logger;
    metrics?: RetentionMetrics;
    /** The maintenance queue's other jobs (notices, the failure digest), run by the same worker. */
    otherJobs?: (job: Job) => Promise<unknown>;
  },
): RetentionHandle {
  const run = createRetentionRun({
    repository: createRetentionRepository(deps.db.pool),
    settings: retentionSettings(config),
    logger: deps.logger,
    batchSize: config.RETENTION_BATCH_SIZE,
    maxRunMs: config.RETENTION_MAX_RUN_SECONDS * 1_000,
    metrics: deps.metrics,
  });
  const workerConnection = createRedisConnection(config.REDIS_URL, 'worker');
  const scheduler = startRetentionScheduler({
    producer: deps.producer,
    workerConnection,
    prefix: config.QUEUE_PREFIX,
    pattern: config.RETENTION_SCHEDULE,
    run,
    logger: deps.logger,
    lockDurationMs: config.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS,
    ...(deps.otherJobs ? { otherJobs: deps.otherJobs } : {}),
  });
  return {
    runNow: (at) => run.runOnce(at),
    registered: scheduler.registered,
    async close() {
      await scheduler.close();
      workerConnection.disconnect();
    },
  };
}
