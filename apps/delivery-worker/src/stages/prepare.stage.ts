import { isUuid, targetOrigin, type OrgId } from '@relay/core';
import type { TargetResolver } from '@relay/db';
import type { Logger } from 'pino';
import type { DeliveryStore } from '../delivery-store';
import type { FanOut } from '../destination-fan-out';
import type { FairGate } from '../fair-gate';
import type { OrderGate } from '../ordered-delivery';
import type { RuleHealth } from '../rule-health';
import type { RuleLookup } from '../rule-lookup';
import { filterSubjectOf, type RuleFilterCheck } from '../rule-filter';
import type { RulePolicyLookup } from '../rule-policy';
import { rulePacingKey } from '@relay/queue';
import type { NewTransform, StoredTransform } from '@relay/db';
import type { DeliveryPacing } from '../delivery-pacing';
import { transformsNow, type DeliveryTransform } from '../delivery-transform';
import type { PacingTicket } from '../delivery-pacing';
import { childSpan, inSpan, NOOP_SPAN, NOOP_TRACER, type TraceSpan, type Tracer } from '@relay/service-kit';
import type { Prepared } from './delivery';

export interface PrepareDeps {
  store: Pick<DeliveryStore, 'load'>;
  /** Ordered delivery (ordered-delivery.ts): an event behind its key's head waits; absent: no ordering. */
  order?: OrderGate | undefined;
  targets: TargetResolver;
  /** The event's rule (cached briefly): health, ordering and delivery policy apply per rule. */
  rules: RuleLookup;
  /** Endpoint health (rule-health.ts): an unhealthy rule's events wait as `paused`; absent: not tracked. */
  health?: RuleHealth | undefined;
  policyOf: RulePolicyLookup;
  /** The rule's routing filter (rule-filter.ts): a webhook it does not match ends `ignored`. */
  passes: RuleFilterCheck;
  /** Shares the pool between target origins; without it, first come first served. */
  fairGate?: FairGate | undefined;
  /** Routing's destination deliveries (destination-fan-out.ts), made on the event's first pass; absent: none. */
  fanOut?: FanOut | undefined;
  /** Transforms (delivery-transform.ts): run at a run's first attempt and stored with the event; absent: none run. */
  transforms?:
    | {
        run: DeliveryTransform;
        store: (orgId: OrgId, id: string, output: NewTransform) => Promise<StoredTransform | null>;
      }
    | undefined;
  /** Pacing per rule (delivery-pacing.ts); absent: unpaced. */
  pacing?: DeliveryPacing | undefined;
  logger: Logger;
  now: () => number;
  /** Traces: the load and the transform are spans of the job's (docs/observability.md); absent: off. */
  tracer?: Tracer | undefined;
}

// Everything decided before a request goes out, in the order that costs least: the event (batched loads),
// its ordering key, its target, its rule's health and policy, and last the fair share's slot, which a
// delivery returned here holds until send releases it. Only an ordered rule's events and an unhealthy
// rule's events cost a query beyond the load (the rule and the target are cached or stored).
export function createPrepare(deps: PrepareDeps) {
  const tracer = deps.tracer ?? NOOP_TRACER;
  return async function prepare(orgId: OrgId, eventId: string, span: TraceSpan = NOOP_SPAN): Promise<Prepared> {
    // A job that cannot name an event would fail every load it joins, forever: nothing to deliver.
    if (!isUuid(orgId) || !isUuid(eventId)) {
      deps.logger.error({ orgId, eventId }, 'delivery job without a valid event id dropped');
      return { result: 'skipped' };
    }
    const loaded = await inSpan(childSpan(tracer, span, 'load event'), () => deps.store.load({ orgId, id: eventId }));
    if (!loaded || loaded.status !== 'queued') return { result: 'skipped' };
    let event = loaded;
    // Before anything decides the primary (its filter, order, health): destinations are independent of it. Until
    // the primary's first attempt every pass fans out again, which adds nothing (idempotent) but costs a statement.
    if (deps.fanOut && event.attemptCount === 0) await deps.fanOut(orgId, event, span.traceparent);
    // A job that arrives before the event's time (a duplicate enqueue) waits for it.
    const early = (event.nextAttemptAt?.getTime() ?? 0) - deps.now();
    if (early > 1_000) return { result: 'rescheduled', delayMs: early };
    // Ordered delivery: only its key's head is attempted; a final outcome releases the key.
    const order = deps.order ? await deps.order.check(orgId, event) : 'unordered';
    if (order === 'wait') return { result: 'waiting_order' };
    const ordered = order === 'ordered';
    // An event stored without a target asks again: a rule or default configured since rescues it.
    const target =
      event.targetUrl !== null
        ? { targetUrl: event.targetUrl, ruleId: event.ruleId }
        : await deps.targets.resolve(orgId, event.source);
    const { targetUrl, ruleId } = target;
    if (targetUrl === null) return { unroutable: { orgId, eventId, ordered } };
    // The event's rule, read once here (cached): its health and delivery policy apply to this attempt.
    const rule = await deps.rules(orgId, ruleId);
    // The rule owns its source: a webhook its filter turns away is ignored, never sent to the default target.
    if (rule && !deps.passes(rule, () => filterSubjectOf(loaded))) return { ignored: { orgId, eventId, ordered } };
    // An unhealthy rule's events wait as `paused` instead of burning attempts (rule-health.ts).
    const checked = deps.health ? await deps.health.beforeAttempt(orgId, eventId, rule) : { rule: null };
    if ('stop' in checked) return { result: checked.stop };
    const policy = deps.policyOf(rule);
    // The transform runs on the webhook as received (the filter above read it so), once per run: its output is
    // stored before anything is sent, and every automatic retry sends it.
    if (deps.transforms && rule && transformsNow(rule.transform, event)) {
      const { transforms } = deps;
      const run = { code: rule.transform, event, ruleId: rule.id };
      const result = await inSpan(childSpan(tracer, span, 'transform'), () => transforms.run(run));
      if (!result.ok) {
        const { failure, logs } = result;
        return { transformFailed: { orgId, event, targetUrl, ruleId, ordered, failure, logs } };
      }
      const stored = await deps.transforms.store(orgId, eventId, result.output);
      if (!stored) return { result: 'skipped' };
      event = { ...event, transformed: stored };
    }
    // Pacing before the fair share: a paced wait holds no slot of the pool.
    let pacing: PacingTicket | undefined;
    if (deps.pacing && rule) {
      const asked = await deps.pacing.ask(rulePacingKey(rule.id), rule, eventId);
      if ('waitMs' in asked) return { result: 'paced', delayMs: asked.waitMs };
      pacing = asked.ticket;
    }
    // A slow or hanging target holds at most its share of the pool while other targets wait.
    const origin = targetOrigin(targetUrl);
    if (deps.fairGate && !(await deps.fairGate.acquire(origin))) {
      // The rate's grant is spent (a rare case: the origin already holds its share); the concurrency slot is not.
      if (pacing) await deps.pacing?.release(pacing);
      const delayMs = deps.fairGate.waitFor(origin);
      deps.logger.debug({ eventId, origin, delayMs }, "delivery waits for its target's turn");
      return { result: 'waiting_turn', delayMs };
    }
    // Nothing may throw from here on: the slot and the pacing grant are released by send.
    const forwardPathQuery = rule?.forwardPathQuery ?? false;
    const delivery = { orgId, event, targetUrl, ruleId, rule: checked.rule, policy, ordered, origin, forwardPathQuery };
    return { delivery: { ...delivery, pacing, ...(tracer.enabled ? { span } : {}) } };
  };
}
