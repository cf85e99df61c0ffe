import type { FeedStatus, OrgId } from '@relay/core';
import type { EventQueryRepository } from '@relay/db';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';

export interface EventNoticeDeps {
  queue: Pick<DeliveryQueue, 'enqueue'>;
  /** The events' rules pick their queue shards: read after the action, one query for the batch (not needed when
   * every call names the rule). */
  repositories?: { eventQueries: Pick<EventQueryRepository, 'ruleIdsOf'> };
  feed: FeedPublisher;
  logger: Logger;
  now?: () => number;
}

// What follows a committed event action: the delivery queue and the live feed hear of it. Neither
// can undo the action, so neither fails it: a lost enqueue is found by the worker's sweeper, and
// the feed publisher never throws.
export function createEventNotices(deps: EventNoticeDeps) {
  const now = deps.now ?? Date.now;
  const ruleIdsOf = (orgId: OrgId, ids: readonly string[]) => {
    if (!deps.repositories) throw new Error('event notices without event queries must name the rule');
    return deps.repositories.eventQueries.ruleIdsOf(orgId, ids);
  };
  return {
    /** `ruleId`: when the caller knows every event's rule (a rule's resume), else each event's is read. */
    async enqueue(orgId: OrgId, ids: readonly string[], ruleId?: string): Promise<void> {
      try {
        const ruleIds = ruleId === undefined ? await ruleIdsOf(orgId, ids) : undefined;
        const ruleOf = (eventId: string) => (ruleIds ? (ruleIds.get(eventId) ?? null) : (ruleId ?? null));
        await deps.queue.enqueue(ids.map((eventId) => ({ orgId, eventId, ruleId: ruleOf(eventId) })));
      } catch (err) {
        deps.logger.warn(
          { err, events: ids.length },
          'enqueue after retry failed; the sweeper will enqueue these events',
        );
      }
    },
    statusChanged: (orgId: OrgId, states: readonly FeedStatus[]) =>
      deps.feed.publish(
        orgId,
        states.map((data) => ({ type: 'event.status', at: now(), data })),
      ),
    deleted: (orgId: OrgId, ids: readonly string[]) =>
      deps.feed.publish(
        orgId,
        ids.map((id) => ({ type: 'event.deleted', at: now(), data: { id } })),
      ),
  };
}
