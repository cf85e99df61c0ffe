import type { OrgId } from '@relay/core';
import type { HookRepository } from '@relay/db';
import type { HookQueue } from '@relay/queue';
import type { Logger } from 'pino';

export interface RuleOutcome {
  orgId: OrgId;
  eventId: string;
  ruleId: string | null;
  run: number;
  deliveryStatus: 'delivered' | 'failed';
  responseStatus: number | null;
  /** The delivery job's span (tracing on): each hook job continues its trace. */
  trace?: string;
}

export type HookDispatcher = (outcome: RuleOutcome) => Promise<void>;

// After a rule outcome is committed, the rule's active hooks for that outcome become jobs
// of their own queue: a slow hook never holds a delivery slot. Events without a rule (a
// default target) have no hooks and cost nothing here. Dispatch never fails the delivery.
export function createHookDispatcher(deps: {
  hooks: HookRepository;
  queue: HookQueue;
  logger: Logger;
}): HookDispatcher {
  return async (outcome) => {
    if (outcome.ruleId === null) return;
    try {
      const trigger = outcome.deliveryStatus === 'delivered' ? 'provider_succeeded' : 'provider_failed';
      const hooks = await deps.hooks.active(outcome.orgId, outcome.ruleId, trigger);
      const ruleId = outcome.ruleId;
      await deps.queue.enqueue(
        hooks.map((hook) => ({
          ruleId,
          orgId: outcome.orgId,
          eventId: outcome.eventId,
          hookId: hook.id,
          run: outcome.run,
          deliveryStatus: outcome.deliveryStatus,
          responseStatus: outcome.responseStatus,
          ...(outcome.trace !== undefined ? { trace: outcome.trace } : {}),
        })),
      );
    } catch (err) {
      deps.logger.warn({ err, eventId: outcome.eventId }, 'could not dispatch hooks for this outcome');
    }
  };
}
