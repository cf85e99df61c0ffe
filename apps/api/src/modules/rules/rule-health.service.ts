import { AppError, type Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import { auditEntry } from '../audit-entry';
import { createEventNotices } from '../events/event-notices';
import { ruleView } from './rule.views';

export interface RuleHealthServiceDeps {
  repositories: Pick<Repositories, 'ruleHealth' | 'rules'>;
  queue: Pick<DeliveryQueue, 'enqueue'>;
  feed: FeedPublisher;
  logger: Logger;
  /** DEFAULT_SIGNING_SECRET is set (shown as `signing: "default"`); unset: false. */
  defaultSigning?: boolean;
}

// Endpoint health (docs/rules.md, "Endpoint health"): the worker turns a rule unhealthy and pauses its
// events; an admin resumes it here. The resume and its audit entry commit together; the released events
// are enqueued after the commit (a lost enqueue is found by the worker's sweeper, as for a retry).
export function createRuleHealthService(deps: RuleHealthServiceDeps) {
  const defaultSigns = deps.defaultSigning ?? false;
  const notices = createEventNotices({ queue: deps.queue, feed: deps.feed, logger: deps.logger });
  return {
    /** Healthy again, failing run cleared, paused events queued with a fresh run. Resuming a healthy rule is allowed. */
    async resume(principal: Principal, id: string) {
      const result = await deps.repositories.ruleHealth.resume(principal.orgId, id, (ids) =>
        auditEntry(principal, {
          action: 'rule.resumed',
          resourceType: 'rule',
          resourceId: id,
          metadata: { resumed_events: ids.length },
        }),
      );
      if (!result) throw new AppError('not_found', 'No such rule.');
      const { resumedIds } = result;
      await notices.enqueue(principal.orgId, resumedIds, id);
      await notices.statusChanged(
        principal.orgId,
        resumedIds.map((eventId) => ({ id: eventId, status: 'queued', failure_reason: null, acknowledged: false })),
      );
      const rule = await deps.repositories.rules.findById(principal.orgId, id);
      if (!rule) throw new AppError('not_found', 'No such rule.'); // deleted right after the resume
      return { rule: ruleView(rule, defaultSigns), resumed_events: resumedIds.length };
    },
  };
}
