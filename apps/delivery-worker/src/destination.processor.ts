import {
  decide,
  type DeliveryStatus,
  openSecret,
  policyFor,
  targetOrigin,
  type AttemptOutcome,
  type OrgId,
  type RetryPolicy,
  type SecretKeyring,
  type TargetPolicy,
} from '@relay/core';
import type {
  DeliveryRecord,
  DeliveryRepository,
  DeliveryUpdate,
  DestinationRecord,
  NewAttempt,
  OrderingHead,
  StoredEvent,
} from '@relay/db';
import { destinationPacingKey, type DestinationJobData, type FeedPublisher } from '@relay/queue';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DeliveryPacing, PacingTicket } from './delivery-pacing';
import { payloadOf, transformErrorText, transformsNow, type DeliveryTransform } from './delivery-transform';
import type { FairGate } from './fair-gate';
import { createDestinationHealth } from './destination-health';
import { deliveryMessage } from './feed-messages';
import { DEFAULT_FAULT_BOUND, relayErrorAttempt, type FaultBound } from './relay-faults';
import { statusClassOf, type DeliveryMetrics, type DeliveryOutcome } from './metrics/worker-metrics';
import type { Notifier } from './notifications/notifier';
import type { Sender } from './sender';
import { sendSignedRequest } from './signed-request';
import { attemptFields, runJob, stepOf, type Step } from './stages/job-step';
import { childSpan, inSpan, NOOP_SPAN, NOOP_TRACER, type TraceSpan } from '@relay/service-kit';
import { endJobSpan, startJobSpan, type WorkerTracing } from './tracing/job-spans';

export interface DestinationDeps {
  deliveries: Omit<DeliveryRepository, 'fanOut'>;
  /** The event the delivery carries (the delivery store's batched load). */
  loadEvent: (orgId: OrgId, id: string) => Promise<StoredEvent | null>;
  sender: Sender;
  targetPolicy: TargetPolicy;
  retry: RetryPolicy;
  /** DEFAULT_SIGNING_SECRET: signs a destination without a secret of its own; absent: unsigned. */
  defaultSecret: string | undefined;
  keys: SecretKeyring | undefined;
  /** RULE_UNHEALTHY_AFTER_SECONDS: a destination's failing span, unless it sets its own. */
  unhealthyAfterSeconds: number;
  /** Tells the organization's notification URL (destination.unhealthy); absent: no notices. */
  notify?: Notifier | undefined;
  fairGate?: FairGate | undefined;
  /** The live feed: hears of each change of a delivery's status or attempt count, once committed. */
  feed?: FeedPublisher | undefined;
  /** Ordered delivery: gives the next delivery of a released ordering key its job (createOrderHandoff). */
  handOff?: ((heads: readonly OrderingHead[]) => void) | undefined;
  /** Counts outcomes once they are committed, labelled `delivery="destination"`. */
  metrics?: DeliveryMetrics | undefined;
  /** The destination's transform (delivery-transform.ts), stored with the delivery; absent: none run. */
  transform?: DeliveryTransform | undefined;
  /** Pacing per destination (delivery-pacing.ts); absent: unpaced. */
  pacing?: DeliveryPacing | undefined;
  logger: Logger;
  faults?: FaultBound;
  now?: () => number;
  /** Traces (docs/observability.md); absent: off. */
  tracing?: WorkerTracing | undefined;
}

/** An attempt made (or a relay fault given up on: no event, no outcome), to be stored. */
interface Sent {
  delivery: DeliveryRecord;
  event: StoredEvent | null;
  attempt: NewAttempt;
  outcome: AttemptOutcome | null;
}

export type DestinationResult =
  | 'skipped'
  | 'rescheduled'
  /** An older delivery of its ordering key at its destination is unfinished: handed a job when that one finishes. */
  | 'waiting_order'
  | 'paused'
  | 'waiting_turn'
  /** Its destination's pacing makes it wait (docs/rules.md "Pacing"); no attempt counted. */
  | 'paced'
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  | 'deferred';

// One attempt of one destination delivery (routing, docs/routing.md "Destinations"): the destination's target
// through the same guarded send as the primary (the target policy applies again here), signed with the
// destination's own secret, else DEFAULT_SIGNING_SECRET, else unsigned (never the rule's), with its own
// `webhook-id` (the delivery id), attempts and retries under its own delivery policy. Its outcome is the
// delivery's alone: the event's status and the rule's hooks never hear it. Health as the rule's: a 410 or
// the failing span turns the destination unhealthy and its queued deliveries wait `paused` until a resume.
export function createDestinationProcessor(deps: DestinationDeps) {
  const now = deps.now ?? Date.now;
  const health = createDestinationHealth({ ...deps, now });
  const tracer = deps.tracing?.tracer ?? NOOP_TRACER;

  // 410 Gone turns the destination unhealthy first; false: another attempt turned it already. Health is
  // bookkeeping: if the transition cannot be written, the delivery fails as a 410 does and the next 410 tries again.
  async function gone(orgId: OrgId, destination: DestinationRecord, deliveryId: string): Promise<boolean> {
    try {
      return await health.turnUnhealthy(orgId, destination, 'gone', 410, deliveryId);
    } catch (err) {
      deps.logger.warn({ err, destinationId: destination.id }, 'destination health update failed');
      return true;
    }
  }

  function signingOf(destination: DestinationRecord) {
    const secrets =
      destination.signingSecret !== null
        ? [openSecret(deps.keys, destination.signingSecret)]
        : deps.defaultSecret !== undefined
          ? [deps.defaultSecret]
          : [];
    return { secrets, outbound: destination.outboundHeaders };
  }

  const tell = (orgId: OrgId, delivery: DeliveryRecord, status: DeliveryStatus, attemptCount: number) =>
    deps.feed?.publish(orgId, [deliveryMessage({ ...delivery, attemptCount }, status, now())]);

  // Pauses a queued delivery of an unhealthy destination (the statement checks its committed health), and says so.
  async function pause(orgId: OrgId, delivery: DeliveryRecord, attemptCount: number) {
    const paused = await deps.deliveries.pause(orgId, delivery);
    if (paused.paused) await tell(orgId, delivery, 'paused', attemptCount);
    return paused;
  }

  // Stores an attempt's outcome (only while the delivery is queued), then counts it and tells the feed: nothing is
  // told before it is committed, and an outcome another worker stored first is not told twice.
  async function store(orgId: OrgId, sent: Sent, update: DeliveryUpdate, counted: DeliveryOutcome): Promise<boolean> {
    const { delivery, event, attempt, outcome } = sent;
    const { recorded, head } = await deps.deliveries.record(orgId, delivery, attempt, update);
    if (!recorded) return false;
    // A final outcome released the delivery's ordering key at its destination: the next one gets its job.
    if (head) deps.handOff?.([head]);
    await tell(orgId, delivery, update.status, delivery.attemptCount + 1);
    deps.metrics?.delivery(orgId, counted, statusClassOf(outcome), outcome ? attempt.durationMs : null, 'destination');
    // A re-run (a retry or a resume) would measure the operator's wait, not the relay's.
    if (update.status === 'delivered' && event && delivery.runStartAttempt === 0)
      deps.metrics?.deliveredAfter(attempt.finishedAt.getTime() - event.createdAt.getTime(), 'destination');
    return true;
  }

  async function attempt(
    orgId: OrgId,
    deliveryId: string,
    span: TraceSpan = NOOP_SPAN,
    eventId?: string,
  ): Promise<Step<DestinationResult>> {
    const loaded = await inSpan(childSpan(tracer, span, 'load delivery'), () =>
      deps.deliveries.load(orgId, deliveryId, eventId),
    );
    if (!loaded || loaded.delivery.status !== 'queued') return { result: 'skipped' };
    const { delivery, destination } = loaded;
    const early = (delivery.nextAttemptAt?.getTime() ?? 0) - now();
    if (early > 1_000) return { result: 'rescheduled', delayMs: early };
    // Ordered delivery, per destination: only the key's oldest unfinished delivery there is attempted.
    if (delivery.waitsForKey) return { result: 'waiting_order' };
    if (destination.health === 'unhealthy') {
      const paused = await pause(orgId, delivery, delivery.attemptCount);
      if (paused.paused || paused.health !== 'healthy') return { result: paused.paused ? 'paused' : 'skipped' };
    }
    const event = await deps.loadEvent(orgId, delivery.eventId);
    if (!event) return { result: 'skipped' };
    // The destination's transform, once per run, on the webhook as received (the fan-out's filter read it so).
    let transformed = delivery.transformed;
    if (deps.transform && transformsNow(destination.transform, delivery)) {
      const { transform } = deps;
      const run = { code: destination.transform, event, ruleId: destination.ruleId, destinationId: destination.id };
      const ran = await inSpan(childSpan(tracer, span, 'transform'), () => transform(run));
      if (!ran.ok)
        return transformFailed(
          orgId,
          delivery,
          event,
          destination.targetUrl,
          transformErrorText(ran.failure, ran.logs),
        );
      transformed = await deps.deliveries.storeTransformed(orgId, delivery, ran.output);
      if (!transformed) return { result: 'skipped' };
    }
    const retry = policyFor(deps.retry, destination.deliveryPolicy);
    const timeout = destination.deliveryPolicy?.timeout_seconds;
    // Pacing before the fair share: a paced wait holds no slot of the pool.
    let pacing: PacingTicket | undefined;
    if (deps.pacing) {
      const asked = await deps.pacing.ask(destinationPacingKey(destination.id), destination, deliveryId);
      if ('waitMs' in asked) return { result: 'paced', delayMs: asked.waitMs };
      pacing = asked.ticket;
    }
    const origin = targetOrigin(destination.targetUrl);
    if (deps.fairGate && !(await deps.fairGate.acquire(origin))) {
      if (pacing) await deps.pacing?.release(pacing);
      return { result: 'waiting_turn', delayMs: deps.fairGate.waitFor(origin) };
    }
    const payload = payloadOf(event, transformed, destination.targetUrl, destination.forwardPathQuery);
    let answered = false;
    let newAttempt: NewAttempt;
    let outcome: AttemptOutcome;
    try {
      // The destination's signing stands in for the rule's lookup: a destination never signs with the rule's secret.
      const signing = signingOf(destination);
      const signed = {
        sender: deps.sender,
        targetPolicy: deps.targetPolicy,
        secretFor: async () => signing,
        tracing: deps.tracing,
      };
      const sent = await sendSignedRequest(
        signed,
        payload.event,
        {
          url: payload.url,
          ruleId: destination.ruleId,
          ruleTarget: true,
          timeoutMs: timeout !== undefined ? timeout * 1000 : undefined,
          webhookId: delivery.id,
          extraHeaders: { 'x-relay-destination-id': destination.id },
          span,
          attemptNumber: delivery.attemptCount + 1,
        },
        now,
      );
      outcome = sent.outcome;
      answered = outcome.kind === 'response';
      if (pacing) await deps.pacing?.heard(pacing, outcome);
      const error =
        outcome.kind === 'response'
          ? null
          : `${outcome.kind === 'network' ? outcome.code : outcome.kind}: ${outcome.message}`;
      newAttempt = {
        attemptNumber: delivery.attemptCount + 1,
        kind: 'main',
        targetUrl: payload.url,
        ...attemptFields(sent, error),
      };
    } finally {
      deps.fairGate?.release(origin, answered);
      if (pacing) await deps.pacing?.release(pacing);
    }
    // The policy counts the attempts of the current run: a retried or resumed delivery gets a full budget again.
    const attemptInRun = newAttempt.attemptNumber - delivery.runStartAttempt;
    const decision = decide(outcome, attemptInRun, retry, Math.random, now());
    const sent = { delivery, event, attempt: newAttempt, outcome };
    const recording = childSpan(tracer, span, 'record outcome');
    return inSpan(recording, () => settle(orgId, sent, decision, destination, deliveryId));
  }

  // Stores the attempt's outcome as the retry policy decided it (and the destination's health after it).
  async function settle(
    orgId: OrgId,
    sent: Sent & { outcome: AttemptOutcome },
    decision: ReturnType<typeof decide>,
    destination: DestinationRecord,
    deliveryId: string,
  ): Promise<Step<DestinationResult>> {
    const { delivery, attempt: newAttempt } = sent;
    const status = newAttempt.responseStatus;
    if (decision.action === 'delivered') {
      await store(orgId, sent, { status: 'delivered', at: newAttempt.finishedAt }, 'delivered');
      await health.afterAttempt(orgId, destination, true, status);
      return stepOf(decision);
    }
    if (decision.action === 'retry') {
      const nextAttemptAt = new Date(now() + decision.delayMs);
      await store(orgId, sent, { status: 'queued', nextAttemptAt, error: decision.error }, 'retry');
      await health.afterAttempt(orgId, destination, false, status);
      return stepOf(decision);
    }
    // 410 Gone: the destination turns unhealthy at once, its other queued deliveries wait; this one fails as a
    // 410 does. Met on a destination another attempt already turned, the delivery waits with the others
    // (counted as a retry: not final).
    if (status === 410 && destination.health === 'healthy') {
      if (!(await gone(orgId, destination, deliveryId))) {
        await store(orgId, sent, { status: 'queued', nextAttemptAt: new Date(now()), error: decision.error }, 'retry');
        const paused = await pause(orgId, delivery, delivery.attemptCount + 1);
        return paused.paused ? { result: 'paused' } : { result: 'retry_scheduled', delayMs: 0 };
      }
    }
    await store(orgId, sent, { status: 'failed', reason: decision.reason, error: decision.error }, 'failed');
    await health.afterAttempt(orgId, destination, false, status);
    return stepOf(decision);
  }

  // A failed transform ends the delivery failed (transform_error, final) with an attempt that says why and no
  // request made; the destination's health does not hear it (not the target's doing).
  async function transformFailed(
    orgId: OrgId,
    delivery: DeliveryRecord,
    event: StoredEvent,
    targetUrl: string,
    error: string,
  ): Promise<Step<DestinationResult>> {
    const at = new Date(now());
    const failed: NewAttempt = {
      attemptNumber: delivery.attemptCount + 1,
      kind: 'main',
      targetUrl,
      responseStatus: null,
      responseBody: null,
      error,
      durationMs: 0,
      startedAt: at,
      finishedAt: at,
    };
    const update = { status: 'failed' as const, reason: 'transform_error' as const, error };
    await store(orgId, { delivery, event, attempt: failed, outcome: null }, update, 'failed');
    return { result: 'failed' };
  }

  async function giveUp(
    orgId: OrgId,
    deliveryId: string,
    eventId: string | undefined,
    cause: unknown,
  ): Promise<DestinationResult> {
    const loaded = await deps.deliveries.load(orgId, deliveryId, eventId);
    if (!loaded || loaded.delivery.status !== 'queued') return 'skipped';
    const fault = relayErrorAttempt(cause, new Date(now()));
    const failed: NewAttempt = {
      attemptNumber: loaded.delivery.attemptCount + 1,
      kind: 'main',
      targetUrl: loaded.destination.targetUrl,
      ...fault,
    };
    const update = { status: 'failed' as const, reason: 'relay_error' as const, error: fault.error };
    await store(orgId, { delivery: loaded.delivery, event: null, attempt: failed, outcome: null }, update, 'failed');
    return 'failed';
  }

  /** The BullMQ processor of `deliver-destination` jobs (`attempt`: its stages, for tests). */
  const process = async (job: Job<DestinationJobData>, token?: string): Promise<DestinationResult> => {
    const { orgId, deliveryId, eventId } = job.data;
    const span = startJobSpan(tracer, 'deliveries', job);
    if (tracer.enabled) span.setAttributes({ 'relay.delivery.id': deliveryId, 'relay.organization.id': orgId });
    let result = 'waiting';
    try {
      return (result = await runJob<DestinationResult>(job, token, {
        stages: () => attempt(orgId, deliveryId, span, eventId),
        giveUp: (cause) => giveUp(orgId, deliveryId, eventId, cause),
        bound: deps.faults ?? DEFAULT_FAULT_BOUND,
        logger: deps.logger,
        context: { deliveryId },
        settled: async (step) => {
          result = step.result;
          if (step.result === 'retry_scheduled' && job.data.defers !== undefined)
            await job.updateData({ ...job.data, defers: undefined });
        },
        now,
        span,
      }));
    } finally {
      endJobSpan(span, result);
    }
  };
  return Object.assign(process, { attempt });
}
