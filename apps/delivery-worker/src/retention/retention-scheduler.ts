import { JOBS, type RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import { startMaintenanceSchedule } from '../maintenance-schedule';
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

// Retention runs as a maintenance schedule (maintenance-schedule.ts) with RETENTION_SCHEDULE as its pattern.
export function startRetentionScheduler(deps: RetentionSchedulerDeps) {
  const schedule = startMaintenanceSchedule({
    producer: deps.producer,
    prefix: deps.prefix,
    id: RETENTION_SCHEDULER_ID,
    job: JOBS.retention,
    pattern: deps.pattern,
    logger: deps.logger,
  });
  return {
    /** Resolves once the latest upsert attempt settled (tests wait for the registration). */
    registered: () => schedule.registered(),
    async close(): Promise<void> {
      // A run in progress stops starting batches, so the maintenance worker's close does not wait it out.
      await deps.run.stop();
      await schedule.close();
    },
  };
}
