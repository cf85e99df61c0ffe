import type { RetryPolicy, TargetPolicy } from '@relay/core';
import type { TargetResolver } from '@relay/db';
import type { DeliverJobData } from '@relay/queue';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DeliveryStore } from './delivery-store';
import type { FanOut } from './destination-fan-out';
import type { FairGate } from './fair-gate';
import type { DeliveryMetrics } from './metrics/worker-metrics';
import type { HookDispatcher } from './hook-dispatch';
import { DEFAULT_FAULT_BOUND, resetDefers, type FaultBound } from './relay-faults';
import type { Notifier } from './notifications/notifier';
import type { OrderGate } from './ordered-delivery';
import type { RuleHealth } from './rule-health';
import type { RuleLookup } from './rule-lookup';
import { createRuleFilterCheck } from './rule-filter';
import { createRulePolicies } from './rule-policy';
import type { SecretLookup } from './signing-secrets';
import type { Sender } from './sender';
import type { Waiting } from './stages/delivery';
import { runJob, type Step } from './stages/job-step';
import { createPrepare, type PrepareDeps } from './stages/prepare.stage';
import type { DeliveryPacing } from './delivery-pacing';
import { createSend } from './stages/send.stage';
import { createSettle } from './stages/settle.stage';
import { childSpan, inSpan, NOOP_TRACER, type TraceSpan } from '@relay/service-kit';
import { endJobSpan, startJobSpan, type WorkerTracing } from './tracing/job-spans';

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
  /** Fires the rule's hooks once a final outcome is committed. */
  dispatchHooks: HookDispatcher;
  sender: Sender;
  retry: RetryPolicy;
  targetPolicy: TargetPolicy;
  logger: Logger;
  /** What happens when the relay itself (not the target) fails: defer, and after a few defers, fail. */
  faults?: FaultBound;
  /** Shares the pool between target origins; without it, first come first served. */
  fairGate?: FairGate;
  /** Routing: the event's destination deliveries, made by prepare (destination-fan-out.ts); absent: none. */
  fanOut?: FanOut;
  /** Counts outcomes once they are committed (relay_deliveries_total and the latency histograms). */
  metrics?: DeliveryMetrics;
  /** Transforms (delivery-transform.ts): run at a run's first attempt, stored with the event; absent: none run. */
  transforms?: PrepareDeps['transforms'];
  /** Pacing per rule (delivery-pacing.ts); absent: unpaced. */
  pacing?: DeliveryPacing;
  now?: () => number;
  /** Traces (docs/observability.md); absent: off. */
  tracing?: WorkerTracing | undefined;
}

/** What the processor did with a job; returned for logs and tests. */
export type DeliverResult =
  | Waiting
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  /** Its rule's filter did not match (docs/routing.md): no attempt, no hook. */
  | 'ignored'
  /** The relay itself failed: tried again later, no attempt counted. */
  | 'deferred';

// One delivery attempt of one event, in three stages (CONTRIBUTING.md, "Delivery stages"): prepare
// (stages/prepare.stage.ts) decides whether and where the event goes, send makes the request, settle
// stores and tells the outcome. Anything that goes wrong in the relay itself defers the job without
// counting an attempt, a bounded number of times in a row (runJob, stages/job-step.ts).
export function createDeliverProcessor(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const passes = createRuleFilterCheck(deps.logger);
  const tracer = deps.tracing?.tracer ?? NOOP_TRACER;
  const prepare = createPrepare({ ...deps, policyOf: createRulePolicies(deps.retry), passes, now, tracer });
  const send = createSend({ ...deps, now });
  const settle = createSettle({ ...deps, ordering: deps.order !== undefined, now });

  async function deliver(
    orgId: DeliverJobData['orgId'],
    eventId: string,
    span: TraceSpan,
  ): Promise<Step<DeliverResult>> {
    const prepared = await prepare(orgId, eventId, span);
    if ('unroutable' in prepared) return settle.unroutable(prepared.unroutable);
    if ('ignored' in prepared) return settle.ignored(prepared.ignored);
    if ('transformFailed' in prepared) return settle.transformFailed(prepared.transformFailed);
    if (!('delivery' in prepared)) return prepared;
    const sent = await send(prepared.delivery);
    return inSpan(childSpan(tracer, span, 'record outcome'), () => settle.attempted(prepared.delivery, sent));
  }

  /** The BullMQ processor. */
  return async function process(job: Job<DeliverJobData>, token?: string): Promise<DeliverResult> {
    const { orgId, eventId } = job.data;
    const span = startJobSpan(tracer, 'deliveries', job);
    if (tracer.enabled) span.setAttributes({ 'relay.event.id': eventId, 'relay.organization.id': orgId });
    let result = 'waiting';
    try {
      return (result = await runJob<DeliverResult>(job, token, {
        stages: () => deliver(orgId, eventId, span),
        giveUp: (cause) => settle.gaveUp(orgId, eventId, cause),
        bound: deps.faults ?? DEFAULT_FAULT_BOUND,
        logger: deps.logger,
        context: { eventId },
        // Only consecutive faults count: a retry (a real outcome) starts the count again; waits are not outcomes.
        settled: (step) => {
          result = step.result;
          return step.result === 'retry_scheduled' ? resetDefers(job) : undefined;
        },
        now,
        span,
      }));
    } finally {
      endJobSpan(span, result);
    }
  };
}
