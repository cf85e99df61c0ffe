import { decide, type RetryPolicy, type TargetPolicy } from '@relay/core';
import type { AttemptRepository, EventRepository, HookRepository } from '@relay/db';
import type { FeedPublisher, HookJobData } from '@relay/queue';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { feedAttempt } from './feed-messages';
import { DEFAULT_FAULT_BOUND, relayErrorAttempt, type FaultBound } from './relay-faults';
import type { Sender } from './sender';
import { sendSignedRequest } from './signed-request';
import type { SecretLookup } from './signing-secrets';
import { attemptFields, runJob, stepOf, type Step } from './stages/job-step';
import { NOOP_SPAN, NOOP_TRACER, type TraceSpan } from '@relay/service-kit';
import { endJobSpan, startJobSpan, type WorkerTracing } from './tracing/job-spans';

export interface HookDeps {
  events: Pick<EventRepository, 'findById'>;
  hooks: Pick<HookRepository, 'findById'>;
  attempts: Pick<AttemptRepository, 'recordHook'>;
  feed?: FeedPublisher;
  sender: Sender;
  secretFor: SecretLookup;
  retry: RetryPolicy;
  targetPolicy: TargetPolicy;
  logger: Logger;
  faults?: FaultBound;
  /** Hears each hook job's result (relay_hook_runs_total). */
  onResult?: (result: HookResult) => void;
  now?: () => number;
  /** Traces (docs/observability.md); absent: off. */
  tracing?: WorkerTracing | undefined;
}

export type HookResult = 'skipped' | 'delivered' | 'retry_scheduled' | 'failed' | 'deferred';

// One hook request: the original payload, signed like a main delivery, plus the rule's outcome
// (X-Relay-Delivery-Status, and X-Relay-Response-Status when the rule answered over HTTP).
// Transient failures are retried under the same retry policy as deliveries; a final failure is
// stored and logged and goes no further: it never changes the event and never fires a hook. A hook settles
// as a delivery does (stages/job-step.ts): the policy's decision is its step, faults defer the job alike.
export function createHookProcessor(deps: HookDeps) {
  const now = deps.now ?? Date.now;
  const faults = deps.faults ?? DEFAULT_FAULT_BOUND;
  const tracer = deps.tracing?.tracer ?? NOOP_TRACER;

  async function attempt(
    data: HookJobData,
    attemptNumber: number,
    span: TraceSpan = NOOP_SPAN,
  ): Promise<Step<HookResult>> {
    const [event, hook] = await Promise.all([
      deps.events.findById(data.orgId, data.eventId),
      deps.hooks.findById(data.orgId, data.hookId),
    ]);
    // A deleted event, or a hook deleted or switched off since, sends nothing.
    if (!event || !hook || !hook.active) return { result: 'skipped' };
    const sent = await sendSignedRequest(
      deps,
      event,
      {
        url: hook.targetUrl,
        ruleId: hook.ruleId,
        extraHeaders: {
          'x-relay-delivery-status': data.deliveryStatus,
          ...(data.responseStatus !== null ? { 'x-relay-response-status': String(data.responseStatus) } : {}),
          'x-relay-hook-id': hook.id,
        },
        span,
        attemptNumber,
      },
      now,
    );
    const decision = decide(sent.outcome, attemptNumber, deps.retry, Math.random, now());
    const error = decision.action === 'delivered' ? null : decision.error;
    const record = {
      eventId: data.eventId,
      hookId: hook.id,
      attemptNumber,
      targetUrl: hook.targetUrl,
      ...attemptFields(sent, error),
    };
    await deps.attempts.recordHook(data.orgId, record);
    await deps.feed?.publish(data.orgId, [
      { type: 'attempt', at: record.finishedAt.getTime(), data: feedAttempt('hook', record) },
    ]);
    if (decision.action === 'fail')
      deps.logger.warn({ eventId: data.eventId, hookId: hook.id, reason: decision.reason, error }, 'hook failed');
    return stepOf(decision);
  }

  // Past the fault bound the hook's attempt is recorded failed with the reason and goes no further.
  async function giveUp(data: HookJobData, attemptNumber: number, cause: unknown): Promise<HookResult> {
    const hook = await deps.hooks.findById(data.orgId, data.hookId);
    if (!hook) return 'skipped';
    await deps.attempts.recordHook(data.orgId, {
      eventId: data.eventId,
      hookId: hook.id,
      attemptNumber,
      targetUrl: hook.targetUrl,
      ...relayErrorAttempt(cause, new Date(now())),
    });
    return 'failed';
  }

  return async function process(job: Job<HookJobData>, token?: string): Promise<HookResult> {
    const attemptNumber = (job.data.attempt ?? 0) + 1;
    const span = startJobSpan(tracer, 'hooks', job);
    if (tracer.enabled) span.setAttributes({ 'relay.event.id': job.data.eventId, 'relay.hook.id': job.data.hookId });
    let result = 'waiting';
    try {
      return (result = await runJob<HookResult>(job, token, {
        stages: async () => {
          const step = await attempt(job.data, attemptNumber, span);
          // A real outcome ends a run of faults: only consecutive defers count.
          if (step.result === 'retry_scheduled')
            await job.updateData({ ...job.data, attempt: attemptNumber, defers: undefined });
          return step;
        },
        giveUp: (cause) => giveUp(job.data, attemptNumber, cause),
        bound: faults,
        logger: deps.logger,
        context: { eventId: job.data.eventId, hookId: job.data.hookId },
        settled: (step) => {
          result = step.result;
          deps.onResult?.(step.result);
        },
        now,
        span,
      }));
    } finally {
      endJobSpan(span, result);
    }
  };
}
