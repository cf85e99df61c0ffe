import { decide, type OrgId } from '@relay/core';
import type { EventUpdate, NewAttempt } from '@relay/db';
import type { Logger } from 'pino';
import type { DeliveryStore } from '../delivery-store';
import type { HookDispatcher } from '../hook-dispatch';
import { statusClassOf, type DeliveryMetrics, type DeliveryOutcome } from '../metrics/worker-metrics';
import type { Notifier } from '../notifications/notifier';
import { relayErrorAttempt } from '../relay-faults';
import type { RuleHealth } from '../rule-health';
import { transformErrorText } from '../delivery-transform';
import type { Delivery, Ignored, Sent, TransformFailed, Unroutable } from './delivery';
import { stepOf, type Step } from './job-step';

export interface SettleDeps {
  store: Pick<DeliveryStore, 'load' | 'record'>;
  /** Endpoint health (rule-health.ts): tracks failing runs and 410s; absent: not tracked. */
  health?: RuleHealth | undefined;
  /** Tells the organization's notification URL (rule.unhealthy); absent: no notices. */
  notify?: Notifier | undefined;
  /** Fires the rule's hooks once a final outcome is committed. */
  dispatchHooks: HookDispatcher;
  /** Counts outcomes once they are committed (relay_deliveries_total and the latency histograms). */
  metrics?: DeliveryMetrics | undefined;
  /** Ordered delivery is on: a give-up releases the key of an event of any rule. */
  ordering: boolean;
  logger: Logger;
  now: () => number;
  random?: () => number;
}

/** How an attempt settled: the stage results of a stored outcome (`paused`, `skipped`: a 410 on an unhealthy rule). */
export type Settled = Step<'delivered' | 'retry_scheduled' | 'failed' | 'paused' | 'skipped'>;

// After the request: the retry policy classifies the outcome, the outcome is stored (which releases an
// ordered key and hands its next event a job, delivery-store.ts), then counted, then the rule's health and
// hooks hear it. Each step follows the commit, so a fault before it defers the job with nothing told.
export function createSettle(deps: SettleDeps) {
  const random = deps.random ?? Math.random;
  const record = (d: Delivery, attempt: NewAttempt, update: EventUpdate) =>
    deps.store.record({ orgId: d.orgId, id: d.event.id, attempt, update, ordered: d.ordered });
  const count = (d: Delivery, sent: Sent, result: DeliveryOutcome) =>
    deps.metrics?.delivery(d.orgId, result, statusClassOf(sent.outcome), sent.attempt.durationMs, 'primary');
  // After the outcome is committed: a failing run, a 410 or a success may change the rule's health.
  const healthAfter = (d: Delivery, sent: Sent, delivered: boolean) =>
    deps.health?.afterAttempt(d.orgId, d.rule, { outcome: sent.outcome, delivered }, deps.notify);
  const hooksFor = (d: Delivery, deliveryStatus: 'delivered' | 'failed', responseStatus: number | null) =>
    deps.dispatchHooks({
      orgId: d.orgId,
      eventId: d.event.id,
      ruleId: d.ruleId,
      run: d.event.runStartAttempt,
      deliveryStatus,
      responseStatus,
      ...(d.span?.traceparent !== undefined ? { trace: d.span.traceparent } : {}),
    });

  return {
    /** A sent attempt: classified by the rule's retry policy, stored, counted, told to health and hooks. */
    async attempted(d: Delivery, sent: Sent): Promise<Settled> {
      const { attempt, outcome } = sent;
      // The policy counts the attempts of the current run: a retried event gets a full run again.
      const attemptInRun = attempt.attemptNumber - d.event.runStartAttempt;
      const decision = decide(outcome, attemptInRun, d.policy.retry, random, deps.now());
      if (decision.action === 'delivered') {
        await record(d, attempt, { status: 'delivered', at: attempt.finishedAt });
        count(d, sent, 'delivered');
        await healthAfter(d, sent, true);
        // A re-run (a manual retry) would measure the operator's wait, not the relay's.
        if (d.event.runStartAttempt === 0)
          deps.metrics?.deliveredAfter(attempt.finishedAt.getTime() - d.event.createdAt.getTime(), 'primary');
        await hooksFor(d, 'delivered', attempt.responseStatus);
        return stepOf(decision);
      }
      if (decision.action === 'retry') {
        const nextAttemptAt = new Date(deps.now() + decision.delayMs);
        await record(d, attempt, { status: 'queued', nextAttemptAt, error: decision.error });
        count(d, sent, 'retry');
        await healthAfter(d, sent, false);
        // The wait the backoff chose, as chosen: the gap between attempts also holds the queue's own latency.
        const log = { eventId: d.event.id, attempt: attempt.attemptNumber, delayMs: decision.delayMs };
        deps.logger.debug(log, 'delivery retry scheduled');
        return stepOf(decision);
      }
      // A 410 turns the rule unhealthy first (rule-health.ts). Met on a rule already unhealthy, the attempt is
      // stored and the event paused with the rule's others instead of failed (counted as a retry: not final).
      const gone = outcome.kind === 'response' && outcome.status === 410;
      if (
        gone &&
        deps.health &&
        d.rule &&
        (await deps.health.gone(d.orgId, d.event.id, d.rule, deps.notify)) === 'pause'
      ) {
        await record(d, attempt, { status: 'queued', nextAttemptAt: new Date(deps.now()), error: decision.error });
        count(d, sent, 'retry');
        const paused = await deps.health.pauseGone(d.orgId, d.event.id, d.rule);
        return 'stop' in paused ? { result: paused.stop } : { result: 'retry_scheduled', delayMs: 0 };
      }
      await record(d, attempt, { status: 'failed', reason: decision.reason, error: decision.error });
      count(d, sent, 'failed');
      await healthAfter(d, sent, false);
      await hooksFor(d, 'failed', attempt.responseStatus);
      deps.logger.info({ eventId: d.event.id, reason: decision.reason, error: decision.error }, 'delivery failed');
      return stepOf(decision);
    },

    /** An event with no target: failed (no_target) without an attempt; it has no rule, so no hooks. */
    async unroutable(u: Unroutable): Promise<Step<'failed'>> {
      const error = 'No rule for this source and no default target.';
      const update: EventUpdate = { status: 'failed', reason: 'no_target', error };
      await deps.store.record({ orgId: u.orgId, id: u.eventId, attempt: null, update, ordered: u.ordered });
      deps.metrics?.delivery(u.orgId, 'failed', 'none', null, 'primary');
      return { result: 'failed' };
    },

    /**
     * Its transform failed at the run's first attempt: failed (transform_error, final) with an attempt that says
     * why (cause, message, line, logs) and no request made. Not the target's doing: its health does not hear it.
     */
    async transformFailed(t: TransformFailed): Promise<Step<'failed'>> {
      const at = new Date(deps.now());
      const error = transformErrorText(t.failure, t.logs);
      const attempt: NewAttempt = {
        attemptNumber: t.event.attemptCount + 1,
        kind: 'main',
        targetUrl: t.targetUrl,
        responseStatus: null,
        responseBody: null,
        error,
        durationMs: 0,
        startedAt: at,
        finishedAt: at,
      };
      const update: EventUpdate = { status: 'failed', reason: 'transform_error', error };
      await deps.store.record({ orgId: t.orgId, id: t.event.id, attempt, update, ordered: t.ordered });
      deps.metrics?.delivery(t.orgId, 'failed', 'none', null, 'primary');
      const run = t.event.runStartAttempt;
      const hook = { orgId: t.orgId, eventId: t.event.id, ruleId: t.ruleId, run, responseStatus: null };
      await deps.dispatchHooks({ ...hook, deliveryStatus: 'failed' });
      deps.logger.info({ eventId: t.event.id, cause: t.failure.cause }, 'delivery failed: its transform failed');
      return { result: 'failed' };
    },

    /** Its rule's filter did not match: ignored (final, no failure reason), no attempt, no hooks. */
    async ignored(i: Ignored): Promise<Step<'ignored'>> {
      await deps.store.record({
        orgId: i.orgId,
        id: i.eventId,
        attempt: null,
        update: { status: 'ignored' },
        ordered: i.ordered,
      });
      return { result: 'ignored' };
    },

    /** Past the fault bound: a failed attempt that says why, so the event stops being redelivered. */
    async gaveUp(orgId: OrgId, eventId: string, cause: unknown): Promise<'skipped' | 'failed'> {
      const event = await deps.store.load({ orgId, id: eventId });
      if (!event || event.status !== 'queued') return 'skipped';
      const fault = relayErrorAttempt(cause, new Date(deps.now()));
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
        ordered: deps.ordering && event.ruleId !== null,
      });
      deps.metrics?.delivery(orgId, 'failed', 'none', null, 'primary');
      await deps.dispatchHooks({
        orgId,
        eventId,
        ruleId: event.ruleId,
        run: event.runStartAttempt,
        deliveryStatus: 'failed',
        responseStatus: null,
      });
      return 'failed';
    },
  };
}
