import { decide, type RetryPolicy, type TargetPolicy } from '@relay/core';
import type { AttemptRepository, EventRepository, HookRepository } from '@relay/db';
import type { FeedPublisher, HookJobData } from '@relay/queue';
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { feedAttempt } from './feed-messages';
import { DEFAULT_FAULT_BOUND, deferOrGiveUp, relayErrorAttempt, type FaultBound } from './relay-faults';
import type { Sender } from './sender';
import { sendSignedRequest } from './signed-request';
import type { SecretLookup } from './signing-secrets';

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
}

export type HookResult = 'skipped' | 'delivered' | 'retry_scheduled' | 'failed' | 'deferred';

// One hook request: the original payload, signed like a main delivery, plus the provider's outcome
// (X-Relay-Delivery-Status, and X-Relay-Response-Status when the provider answered over HTTP).
// Transient failures are retried under the same retry policy as deliveries; a final failure is
// stored and logged and goes no further: it never changes the event and never fires a hook.
export function createHookProcessor(deps: HookDeps) {
  const now = deps.now ?? Date.now;
  const faults = deps.faults ?? DEFAULT_FAULT_BOUND;

  async function attempt(data: HookJobData, attemptNumber: number): Promise<{ result: HookResult; delayMs?: number }> {
    const [event, hook] = await Promise.all([
      deps.events.findById(data.orgId, data.eventId),
      deps.hooks.findById(data.orgId, data.hookId),
    ]);
    // A deleted event, or a hook deleted or switched off since, sends nothing.
    if (!event || !hook || !hook.active) return { result: 'skipped' };
    const { outcome, responseBody, durationMs, startedAt, finishedAt } = await sendSignedRequest(
      deps,
      event,
      {
        url: hook.targetUrl,
        providerId: hook.providerId,
        extraHeaders: {
          'x-relay-delivery-status': data.deliveryStatus,
          ...(data.responseStatus !== null ? { 'x-relay-response-status': String(data.responseStatus) } : {}),
          'x-relay-hook-id': hook.id,
        },
      },
      now,
    );
    const decision = decide(outcome, attemptNumber, deps.retry, Math.random, now());
    const error = decision.action === 'delivered' ? null : decision.error;
    const record = {
      eventId: data.eventId,
      hookId: hook.id,
      attemptNumber,
      targetUrl: hook.targetUrl,
      responseStatus: outcome.kind === 'response' ? outcome.status : null,
      responseBody,
      error,
      durationMs,
      startedAt,
      finishedAt,
    };
    await deps.attempts.recordHook(data.orgId, record);
    await deps.feed?.publish(data.orgId, [
      { type: 'attempt', at: record.finishedAt.getTime(), data: feedAttempt('hook', record) },
    ]);
    if (decision.action === 'delivered') return { result: 'delivered' };
    if (decision.action === 'retry') return { result: 'retry_scheduled', delayMs: decision.delayMs };
    deps.logger.warn({ eventId: data.eventId, hookId: hook.id, reason: decision.reason, error }, 'hook failed');
    return { result: 'failed' };
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
    let outcome: { result: HookResult; delayMs?: number };
    try {
      outcome = await attempt(job.data, attemptNumber);
      // A real outcome ends a run of faults: only consecutive defers count.
      if (outcome.result === 'retry_scheduled')
        await job.updateData({ ...job.data, attempt: attemptNumber, defers: undefined });
    } catch (cause) {
      outcome = await deferOrGiveUp({
        job,
        cause,
        bound: faults,
        logger: deps.logger,
        context: { eventId: job.data.eventId, hookId: job.data.hookId },
        giveUp: () => giveUp(job.data, attemptNumber, cause),
      });
    }
    deps.onResult?.(outcome.result);
    if (outcome.delayMs !== undefined) {
      await job.moveToDelayed(now() + outcome.delayMs, token);
      throw new DelayedError();
    }
    return outcome.result;
  };
}
