import { decide, type AttemptOutcome, type OrgId, type RetryPolicy, type TargetPolicy } from '@relay/core';
import type { NewAttempt, ResolvedTarget, StoredEvent, TargetResolver } from '@relay/db';
import type { DeliverJobData } from '@relay/queue';
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DeliveryStore } from './delivery-store';
import type { HookDispatcher } from './hook-dispatch';
import type { SecretLookup } from './signing-secrets';
import type { Sender } from './sender';
import { sendSignedRequest } from './signed-request';

export interface DeliverDeps {
  store: DeliveryStore;
  secretFor: SecretLookup;
  targets: TargetResolver;
  /** Fires the provider's hooks once a final outcome is committed. */
  dispatchHooks: HookDispatcher;
  sender: Sender;
  retry: RetryPolicy;
  targetPolicy: TargetPolicy;
  logger: Logger;
  /** How long to wait before trying again when the relay itself (not the target) failed. */
  deferMs?: number;
  now?: () => number;
}

/** What the processor did with a job; returned for logs and tests. */
export type DeliverResult = 'skipped' | 'delivered' | 'retry_scheduled' | 'failed' | 'rescheduled';

// One delivery attempt of one event. Every outcome is classified by the retry policy: deliver,
// retry (the job is moved to delayed with the policy's delay) or fail. Anything that goes wrong in
// the relay itself defers the job without counting an attempt.
export function createDeliverProcessor(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const deferMs = deps.deferMs ?? 5_000;

  async function attemptDelivery(
    event: StoredEvent,
    target: ResolvedTarget & { targetUrl: string },
  ): Promise<{ attempt: NewAttempt; outcome: AttemptOutcome }> {
    const { targetUrl } = target;
    const attemptNumber = event.attemptCount + 1;
    const { outcome, responseBody, durationMs, startedAt, finishedAt } = await sendSignedRequest(
      deps,
      event,
      { url: targetUrl, providerId: target.providerId },
      now,
    );
    const attempt: NewAttempt = {
      attemptNumber,
      kind: 'main',
      targetUrl,
      responseStatus: outcome.kind === 'response' ? outcome.status : null,
      responseBody,
      error:
        outcome.kind === 'response'
          ? null
          : `${outcome.kind === 'network' ? outcome.code : outcome.kind}: ${outcome.message}`,
      durationMs,
      startedAt,
      finishedAt,
    };
    return { attempt, outcome };
  }

  async function deliver(orgId: OrgId, eventId: string): Promise<{ result: DeliverResult; delayMs?: number }> {
    const event = await deps.store.load({ orgId, id: eventId });
    if (!event || event.status !== 'queued') return { result: 'skipped' };
    // A job that arrives before the event's time (a duplicate enqueue) waits for it.
    const early = (event.nextAttemptAt?.getTime() ?? 0) - now();
    if (early > 1_000) return { result: 'rescheduled', delayMs: early };

    // An event stored without a target asks again: a provider or default configured since rescues it.
    const target =
      event.targetUrl !== null
        ? { targetUrl: event.targetUrl, providerId: event.providerId }
        : await deps.targets.resolve(orgId, event.source);
    if (target.targetUrl === null) {
      await deps.store.record({
        orgId,
        id: eventId,
        attempt: null,
        update: { status: 'failed', reason: 'no_target', error: 'No provider for this source and no default target.' },
      });
      return { result: 'failed' };
    }
    const { attempt, outcome } = await attemptDelivery(event, { ...target, targetUrl: target.targetUrl });
    // The policy counts the attempts of the current run: a retried event gets a full run again.
    const decision = decide(outcome, attempt.attemptNumber - event.runStartAttempt, deps.retry, Math.random, now());
    const hooksFor = (deliveryStatus: 'delivered' | 'failed') =>
      deps.dispatchHooks({
        orgId,
        eventId,
        providerId: target.providerId,
        run: event.runStartAttempt,
        deliveryStatus,
        responseStatus: attempt.responseStatus,
      });
    if (decision.action === 'delivered') {
      await deps.store.record({ orgId, id: eventId, attempt, update: { status: 'delivered', at: attempt.finishedAt } });
      await hooksFor('delivered');
      return { result: 'delivered' };
    }
    if (decision.action === 'retry') {
      const nextAttemptAt = new Date(now() + decision.delayMs);
      await deps.store.record({
        orgId,
        id: eventId,
        attempt,
        update: { status: 'queued', nextAttemptAt, error: decision.error },
      });
      return { result: 'retry_scheduled', delayMs: decision.delayMs };
    }
    await deps.store.record({
      orgId,
      id: eventId,
      attempt,
      update: { status: 'failed', reason: decision.reason, error: decision.error },
    });
    await hooksFor('failed');
    deps.logger.info({ eventId, reason: decision.reason, error: decision.error }, 'delivery failed');
    return { result: 'failed' };
  }

  /** The BullMQ processor. */
  return async function process(job: Job<DeliverJobData>, token?: string): Promise<DeliverResult> {
    let outcome: { result: DeliverResult; delayMs?: number };
    try {
      outcome = await deliver(job.data.orgId, job.data.eventId);
    } catch (err) {
      deps.logger.warn(
        { err, eventId: job.data.eventId },
        'delivery deferred: the relay could not complete the attempt',
      );
      outcome = { result: 'rescheduled', delayMs: deferMs };
    }
    if (outcome.delayMs !== undefined) {
      await job.moveToDelayed(now() + outcome.delayMs, token);
      throw new DelayedError();
    }
    return outcome.result;
  };
}
