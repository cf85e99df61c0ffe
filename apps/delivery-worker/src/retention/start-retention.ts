import { createRetentionRepository, type Database } from '@relay/db';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { partitionRetirementOf } from './partition-retention';
import { retentionSettings } from './retention-plan';
import { createRetentionRun, type RetentionMetrics, type RetentionTotals } from './retention-run';
import { startRetentionScheduler } from './retention-scheduler';

export interface RetentionHandle {
  /** One retention run now (a scheduled job's handler); `at` stands in for the clock (what counts as old). */
  runNow(at?: Date): Promise<RetentionTotals>;
  /** Resolves once the schedule's registration attempt settled. */
  registered(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Wires retention into a worker process: the run over the database and its BullMQ job scheduler; the
 * maintenance worker (maintenance-worker.ts) runs the scheduled jobs through `runNow`.
 */
export function startRetention(
  config: WorkerConfig,
  deps: {
    db: Database;
    producer: RedisConnection;
    logger: Logger;
    metrics?: RetentionMetrics;
  },
): RetentionHandle {
  const run = createRetentionRun({
    repository: createRetentionRepository(deps.db.pool),
    settings: retentionSettings(config),
    logger: deps.logger,
    batchSize: config.RETENTION_BATCH_SIZE,
    maxRunMs: config.RETENTION_MAX_RUN_SECONDS * 1_000,
    metrics: deps.metrics,
    partitions: partitionRetirementOf(deps.db.pool, deps.logger),
  });
  const scheduler = startRetentionScheduler({
    producer: deps.producer,
    prefix: config.QUEUE_PREFIX,
    pattern: config.RETENTION_SCHEDULE,
    run,
    logger: deps.logger,
  });
  return {
    runNow: (at) => run.runOnce(at),
    registered: scheduler.registered,
    close: () => scheduler.close(),
  };
}
