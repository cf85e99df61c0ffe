import type { Job } from 'bullmq';
import type { Logger } from 'pino';

/** How the worker treats its own failures (database or Redis errors, an outcome it cannot record). */
export interface FaultBound {
  /** Consecutive defers of one job before it is recorded failed (DELIVERY_FAULT_MAX_DEFERS). */
  maxDefers: number;
  /** Wait before trying again after a fault (DELIVERY_FAULT_DEFER_MS). */
  deferMs: number;
}

export const DEFAULT_FAULT_BOUND: FaultBound = { maxDefers: 5, deferMs: 5_000 };

/** The error text stored with a give-up: the fault's message, short, marked as the relay's own. */
export function relayErrorText(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return `relay_error: ${message.length > 500 ? `${message.slice(0, 500)}…` : message}`;
}

/** The fields of a give-up attempt: no response, the fault as its error, no time spent. */
export function relayErrorAttempt(cause: unknown, at: Date) {
  return {
    responseStatus: null,
    responseBody: null,
    error: relayErrorText(cause),
    durationMs: 0,
    startedAt: at,
    finishedAt: at,
  } as const;
}

// A fault defers the job without counting an attempt, as before, but no longer forever: the job's
// own data counts consecutive defers (it lives where the job lives, so it survives worker restarts),
// and past the bound `giveUp` records a failed attempt with the reason, logged at error level. If
// even that cannot be written (the database is down), the job keeps being deferred: the event stays
// queued in the database and is never lost, and every further try is logged at error level.
export async function deferOrGiveUp<R>(options: {
  job: Job<{ defers?: number }>;
  cause: unknown;
  bound: FaultBound;
  logger: Logger;
  context: Record<string, unknown>;
  giveUp: () => Promise<R>;
}): Promise<{ result: R } | { result: 'deferred'; delayMs: number }> {
  const { job, cause, bound, logger, context } = options;
  const defers = job.data.defers ?? 0;
  if (defers >= bound.maxDefers) {
    try {
      const result = await options.giveUp();
      logger.error({ ...context, err: cause, defers }, 'relay fault persisted: recorded as failed (relay_error)');
      return { result };
    } catch (err) {
      logger.error({ ...context, err, cause, defers }, 'relay fault persisted and the failure cannot be recorded');
    }
  } else {
    logger.warn({ ...context, err: cause, defers }, 'deferred: the relay could not complete the attempt');
  }
  await job.updateData({ ...job.data, defers: defers + 1 });
  return { result: 'deferred', delayMs: bound.deferMs };
}

/** A job that got a real outcome starts counting again from zero (only "consecutive" faults count). */
export async function resetDefers(job: Job<{ defers?: number }>): Promise<void> {
  if (job.data.defers === undefined) return;
  // A reset that fails (Redis away) leaves the count a little high: harmless, so not worth a fault.
  await job.updateData({ ...job.data, defers: undefined }).catch(() => {});
}
