import { maintenanceQueuePrefix, QUEUES, type MaintenanceJobName } from '@relay/queue';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';

/** One handler for each job of the maintenance queue; the compiler insists none is missing. */
export type MaintenanceHandlers = Record<MaintenanceJobName, (job: Job) => Promise<unknown>>;

/** The worker's processor: the job's name picks its handler; a name without one is refused, not guessed. */
export function routeMaintenanceJob(handlers: MaintenanceHandlers, logger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name as MaintenanceJobName] : undefined;
    if (!handler) {
      // A job of a newer release, or a stray one: failed at once (not retried) and kept for a look.
      logger.error({ job: job.name, jobId: job.id }, 'maintenance job of unknown name refused');
      throw new UnrecoverableError(`unknown maintenance job: ${job.name}`);
    }
    return handler(job);
  };
}

export interface MaintenanceWorkerDeps {
  /** A connection of its own for the blocking worker (role `worker`). */
  connection: RedisConnection;
  /** QUEUE_PREFIX: the maintenance queue's keys are under `{<prefix>:mnt}`. */
  prefix: string;
  handlers: MaintenanceHandlers;
  logger: Logger;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

// The maintenance queue's one owner (packages/queue/src/job-catalog.ts): retention, notices and the failure
// digest each bring a handler, and this worker runs them. One BullMQ worker for the queue: each idle worker
// of its own costs a delivery worker CPU (docs/performance.md). Several jobs at once, so a notice never
// waits for a long retention run; two retention jobs share one run (retention-run.ts).
export function startMaintenanceWorker(deps: MaintenanceWorkerDeps) {
  const worker = new Worker(QUEUES.maintenance, routeMaintenanceJob(deps.handlers, deps.logger), {
    connection: deps.connection,
    prefix: maintenanceQueuePrefix(deps.prefix),
    concurrency: 4,
    lockDuration: deps.lockDurationMs,
    stalledInterval: deps.stalledIntervalMs,
  });
  worker.on('error', (err) => deps.logger.warn({ err }, 'maintenance worker connection error'));
  return { close: () => worker.close() };
}
