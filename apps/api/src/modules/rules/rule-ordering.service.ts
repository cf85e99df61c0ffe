import { AppError, type Principal } from '@relay/core';
import { BLOCKED_KEYS_LIMIT } from '@relay/contracts';
import type { BlockedKey, Repositories } from '@relay/db';

export interface RuleOrderingServiceDeps {
  repositories: Pick<Repositories, 'rules' | 'eventOrdering'>;
}

const blockedKeyView = (k: BlockedKey) => ({
  key: k.key,
  event_id: k.eventId,
  status: k.status,
  attempts: k.attempts,
  blocked_since: k.blockedSince.toISOString(),
  waiting: k.waiting,
});

// Ordered delivery's visibility (docs/rules.md): which keys of a rule are held up by a failing head.
export function createRuleOrderingService(deps: RuleOrderingServiceDeps) {
  return {
    /** The rule's blocked keys; a rule without ordering has none (its events have no ordering rows). */
    async blockedKeys(principal: Principal, id: string) {
      const rule = await deps.repositories.rules.findById(principal.orgId, id);
      if (!rule) throw new AppError('not_found', 'No such rule.');
      const keys = await deps.repositories.eventOrdering.blockedKeys(principal.orgId, id, BLOCKED_KEYS_LIMIT);
      return { blocked_keys: keys.map(blockedKeyView) };
    },
  };
}
