import type { Decision } from '@relay/core';
import { DelayedError, type Job } from 'bullmq';
import type { TraceSpan } from '@relay/service-kit';
import type { Logger } from 'pino';
import { deferOrGiveUp, type FaultBound } from '../relay-faults';
import type { SentRequest } from '../signed-request';

/** What a stage hands back to its job: the result (for logs and tests), and a delay when the job waits. */
export interface Step<R extends string> {
  result: R;
  delayMs?: number;
}

/** The retry policy's decision as a step: delivered, tried again after the policy's delay, or failed. */
export function stepOf(decision: Decision): Step<'delivered' | 'retry_scheduled' | 'failed'> {
  if (decision.action === 'delivered') return { result: 'delivered' };
  if (decision.action === 'retry') return { result: 'retry_scheduled', delayMs: decision.delayMs };
  return { result: 'failed' };
}

/** The stored fields of a sent request, main delivery or hook alike, with the error text the caller chose. */
export function attemptFields(sent: SentRequest, error: string | null) {
  return {
    responseStatus: sent.outcome.kind === 'response' ? sent.outcome.status : null,
    responseBody: sent.responseBody,
    error,
    durationMs: sent.durationMs,
    startedAt: sent.startedAt,
    finishedAt: sent.finishedAt,
  };
}

export interface JobRun<R extends string> {
  /** The job's stages, from loading to the stored outcome. */
  stages: () => Promise<Step<R>>;
  /** Past the fault bound: record the attempt failed (relay_error) so the job stops coming back. */
  giveUp: (cause: unknown) => Promise<R>;
  bound: FaultBound;
  logger: Logger;
  /** Logged with a fault (event and hook ids). */
  context: Record<string, unknown>;
  /** Hears the step before the job is handed back (reset the defer count, count the result). */
  settled?: (step: Step<R | 'deferred'>) => Promise<void> | void;
  now: () => number;
  /** This run's span (tracing on): a job that comes back later carries it, so the next run links to it. */
  span?: TraceSpan | undefined;
}

// The end every delivery kind shares (main deliveries and hooks): a fault in the relay itself defers the
// job without counting an attempt, a bounded number of times in a row (relay-faults.ts); a step with a
// delay hands the job back to BullMQ's delayed set, and DelayedError tells BullMQ the job is not done.
export async function runJob<R extends string>(
  job: Job<{ defers?: number; traceLink?: string }>,
  token: string | undefined,
  run: JobRun<R>,
): Promise<R | 'deferred'> {
  let step: Step<R | 'deferred'>;
  try {
    step = await run.stages();
  } catch (cause) {
    step = await deferOrGiveUp({
      job,
      cause,
      bound: run.bound,
      logger: run.logger,
      context: run.context,
      giveUp: () => run.giveUp(cause),
    });
  }
  await run.settled?.(step);
  if (step.delayMs !== undefined) {
    // Traced only: one more write of the job's data, so the next run's span links to this one.
    const traceLink = run.span?.traceparent;
    if (traceLink !== undefined) await job.updateData({ ...job.data, traceLink });
    await job.moveToDelayed(run.now() + step.delayMs, token);
    throw new DelayedError();
  }
  return step.result;
}
