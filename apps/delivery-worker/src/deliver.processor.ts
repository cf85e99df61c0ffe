import {
  decide,
  isUuid,
  targetOrigin,
  type AttemptOutcome,
  type OrgId,
  type RetryPolicy,
  type TargetPolicy,
} from '@relay/core';
import type { NewAttempt, Outcome, ResolvedTarget, StoredEvent, TargetResolver } from '@relay/db';
import type { DeliverJobData } from '@relay/queue';
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DeliveryStore } from './delivery-store';
import type { FairGate } from './fair-gate';
import { statusClassOf, type DeliveryMetrics, type DeliveryOutcome } from './metrics/worker-metrics';
import type { HookDispatcher } from './hook-dispatch';
import { DEFAULT_FAULT_BOUND, deferOrGiveUp, relayErrorAttempt, resetDefers, type FaultBound } from './relay-faults';
import type { Notifier } from './notifications/notifier';
import type { OrderGate } from './ordered-delivery';
import type { RuleHealth } from './rule-health';
import type { RuleLookup } from './rule-lookup';
import { createRulePolicies } from './rule-policy';
import type { SecretLookup } from './signing-secrets';
import type { Sender } from './sender';
import { sendSignedRequest } from './signed-request';

export interface DeliverDeps {
  store: DeliveryStore;
  secretFor: SecretLookup;
  /** The event's rule (cached briefly): health, ordering and delivery policy apply per rule. */
  rules: RuleLookup;
  /** Tells the organization's notification URL (rule.unhealthy); absent: no notices. */
  notify?: Notifier;
  /** Ordered delivery (ordered-delivery.ts): an event behind its key's head waits; absent: no ordering. */
  order?: OrderGate;
  /** Endpoint health (rule-health.ts): pauses an unhealthy rule's events, tracks failures and 410s. */
  health?: RuleHealth;
  targets: TargetResolver;
  /** Fires the provider's hooks once a final outcome is committed. */
  dispatchHooks: HookDispatcher;
  sender: Sender;
  retry: RetryPolicy;
  targetPolicy: TargetPolicy;
  logger: Logger;
  /** What happens when the relay itself (not the target) fails: defer, and after a few defers, fail. */
  faults?: FaultBound;
  /** Shares the pool between target origins; without it, first come first served. */
  fairGate?: FairGate;
  /** Counts outcomes once they are committed (relay_deliveries_total and the latency histograms). */
  metrics?: DeliveryMetrics;
  now?: () => number;
}

/** What the processor did with a job; returned for logs and tests. */
export type DeliverResult =
  | 'skipped'
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  /** Arrived before its time (a duplicate enqueue): waits for it. */
  | 'rescheduled'
  /** Its target origin holds its share of the pool: waits its turn, no attempt counted. */
  | 'waiting_turn'
  /** The relay itself failed: tried again later, no attempt counted. */
  | 'deferred'
  /** An older event of its ordering key is unfinished: enqueued again when that one finishes, no attempt counted. */
  | 'waiting_order'
  /** Its rule is unhealthy: the event waits (status paused) until the rule is resumed, no attempt counted. */
  | 'paused';

// One delivery attempt of one event. Every outcome is classified by the retry policy: deliver,
// retry (the job is moved to delayed with the policy's delay) or fail. Anything that goes wrong in
// the relay itself defers the job without counting an attempt, a bounded number of times in a row.
export function createDeliverProcessor(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const faults = deps.faults ?? DEFAULT_FAULT_BOUND;
  const policyOf = createRulePolicies(deps.retry);

  async function attemptDelivery(
    event: StoredEvent,
    target: ResolvedTarget & { targetUrl: string },
    timeoutMs: number | undefined,
  ): Promise<{ attempt: NewAttempt; outcome: AttemptOutcome }> {
    const { targetUrl } = target;
    const attemptNumber = event.attemptCount + 1;
    const { outcome, responseBody, durationMs, startedAt, finishedAt } = await sendSignedRequest(
      deps,
      event,
      { url: targetUrl, providerId: target.providerId, ruleTarget: true, timeoutMs },
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
    // A job that cannot name an event would fail every load it joins, forever: nothing to deliver.
    if (!isUuid(orgId) || !isUuid(eventId)) {
      deps.logger.error({ orgId, eventId }, 'delivery job without a valid event id dropped');
      return { result: 'skipped' };
    }
    const event = await deps.store.load({ orgId, id: eventId });
    if (!event || event.status !== 'queued') return { result: 'skipped' };
    // A job that arrives before the event's time (a duplicate enqueue) waits for it.
    const early = (event.nextAttemptAt?.getTime() ?? 0) - now();
    if (early > 1_000) return { result: 'rescheduled', delayMs: early };
    // Ordered delivery: only its key's head is attempted; a final outcome releases the key.
    const order = deps.order ? await deps.order.check(orgId, event) : 'unordered';
    if (order === 'wait') return { result: 'waiting_order' };
    const record = (o: Outcome) => deps.store.record(order === 'ordered' ? { ...o, ordered: true } : o);

    // An event stored without a target asks again: a provider or default configured since rescues it.
    const target =
      event.targetUrl !== null
        ? { targetUrl: event.targetUrl, providerId: event.providerId }
        : await deps.targets.resolve(orgId, event.source);
    if (target.targetUrl === null) {
      await record({
        orgId,
        id: eventId,
        attempt: null,
        update: { status: 'failed', reason: 'no_target', error: 'No provider for this source and no default target.' },
      });
      deps.metrics?.delivery(orgId, 'failed', 'none', null);
      return { result: 'failed' };
    }
    // The event's rule, read once here (cached): its health and delivery policy apply to this attempt.
    const rule = await deps.rules(orgId, target.providerId);
    // An unhealthy rule's events wait as `paused` instead of burning attempts (rule-health.ts).
    const checked = deps.health ? await deps.health.beforeAttempt(orgId, eventId, rule) : { rule: null };
    if ('stop' in checked) return { result: checked.stop };
    // The rule's attempts, backoff and time-out over the global ones.
    const policy = policyOf(rule);
    // A slow or hanging target holds at most its share of the pool while other targets wait.
    const origin = targetOrigin(target.targetUrl);
    if (deps.fairGate && !(await deps.fairGate.acquire(origin))) {
      const delayMs = deps.fairGate.waitFor(origin);
      deps.logger.debug({ eventId, origin, delayMs }, "delivery waits for its target's turn");
      return { result: 'waiting_turn', delayMs };
    }
    let sent: Awaited<ReturnType<typeof attemptDelivery>>;
    // A time-out frees the slot but is no sign the origin flows again (its retries must not crowd others out).
    let answered = false;
    try {
      sent = await attemptDelivery(event, { ...target, targetUrl: target.targetUrl }, policy.timeoutMs);
      answered = sent.outcome.kind === 'response';
    } finally {
      deps.fairGate?.release(origin, answered);
    }
    const { attempt, outcome } = sent;
    // Counted after the outcome is committed: an outcome that cannot be stored is deferred and tried again.
    const counted = (result: DeliveryOutcome) =>
      deps.metrics?.delivery(orgId, result, statusClassOf(outcome), attempt.durationMs);
    // The policy counts the attempts of the current run: a retried event gets a full run again.
    const decision = decide(outcome, attempt.attemptNumber - event.runStartAttempt, policy.retry, Math.random, now());
    // After the outcome is committed: a failing run, a 410 or a success may change the rule's health.
    const healthAfter = (delivered: boolean) =>
      deps.health?.afterAttempt(orgId, checked.rule, { outcome, delivered }, deps.notify);
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
      await record({ orgId, id: eventId, attempt, update: { status: 'delivered', at: attempt.finishedAt } });
      counted('delivered');
      await healthAfter(true);
      // A re-run (a manual retry) would measure the operator's wait, not the relay's.
      if (event.runStartAttempt === 0)
        deps.metrics?.deliveredAfter(attempt.finishedAt.getTime() - event.createdAt.getTime());
      await hooksFor('delivered');
      return { result: 'delivered' };
    }
    if (decision.action === 'retry') {
      const nextAttemptAt = new Date(now() + decision.delayMs);
      await record({
        orgId,
        id: eventId,
        attempt,
        update: { status: 'queued', nextAttemptAt, error: decision.error },
      });
      counted('retry');
      await healthAfter(false);
      // The wait the backoff chose, as chosen: the gap between attempts also holds the queue's own latency.
      deps.logger.debug(
        { eventId, attempt: attempt.attemptNumber, delayMs: decision.delayMs },
        'delivery retry scheduled',
      );
      return { result: 'retry_scheduled', delayMs: decision.delayMs };
    }
    // A 410 turns the rule unhealthy first (rule-health.ts). Met on a rule already unhealthy, the attempt is
    // stored and the event paused with the rule's others instead of failed (counted as a retry: not final).
    if (deps.health && checked.rule && outcome.kind === 'response' && outcome.status === 410) {
      if ((await deps.health.gone(orgId, eventId, checked.rule, deps.notify)) === 'pause') {
        await record({
          orgId,
          id: eventId,
          attempt,
          update: { status: 'queued', nextAttemptAt: new Date(now()), error: decision.error },
        });
        counted('retry');
        const paused = await deps.health.pauseGone(orgId, eventId, checked.rule);
        return 'stop' in paused ? { result: paused.stop } : { result: 'retry_scheduled', delayMs: 0 };
      }
    }
    await record({
      orgId,
      id: eventId,
      attempt,
      update: { status: 'failed', reason: decision.reason, error: decision.error },
    });
    counted('failed');
    await healthAfter(false);
    await hooksFor('failed');
    deps.logger.info({ eventId, reason: decision.reason, error: decision.error }, 'delivery failed');
    return { result: 'failed' };
  }

  // Past the fault bound: a failed attempt that says why, so the event stops being redelivered.
  async function giveUp(orgId: OrgId, eventId: string, cause: unknown): Promise<DeliverResult> {
    const event = await deps.store.load({ orgId, id: eventId });
    if (!event || event.status !== 'queued') return 'skipped';
    const fault = relayErrorAttempt(cause, new Date(now()));
    const attempt: NewAttempt = {
      attemptNumber: event.attemptCount + 1,
      kind: 'main',
      targetUrl: event.targetUrl ?? '',
      ...fault,
    };
    await deps.store.record({
      orgId,
      id: eventId,
      attempt,
      update: { status: 'failed', reason: 'relay_error', error: fault.error },
      // The rule may not be readable now (the fault): an event of any rule releases its key, if it has one.
      ordered: deps.order !== undefined && event.providerId !== null,
    });
    deps.metrics?.delivery(orgId, 'failed', 'none', null);
    await deps.dispatchHooks({
      orgId,
      eventId,
      providerId: event.providerId,
      run: event.runStartAttempt,
      deliveryStatus: 'failed',
      responseStatus: null,
    });
    return 'failed';
  }

  /** The BullMQ processor. */
  return async function process(job: Job<DeliverJobData>, token?: string): Promise<DeliverResult> {
    const { orgId, eventId } = job.data;
    let outcome: { result: DeliverResult; delayMs?: number };
    try {
      outcome = await deliver(orgId, eventId);
    } catch (cause) {
      outcome = await deferOrGiveUp({
        job,
        cause,
        bound: faults,
        logger: deps.logger,
        context: { eventId },
        giveUp: () => giveUp(orgId, eventId, cause),
      });
    }
    // Only consecutive faults count: a retry (a real outcome) starts the count again; waits are not outcomes.
    if (outcome.result === 'retry_scheduled') await resetDefers(job);
    if (outcome.delayMs !== undefined) {
      await job.moveToDelayed(now() + outcome.delayMs, token);
      throw new DelayedError();
    }
    return outcome.result;
  };
}
