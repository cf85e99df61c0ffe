import type { FeedStatus, OrgId } from '@relay/core';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';

export interface EventNoticeDeps {
  queue: Pick<DeliveryQueue, 'enqueue'>;
  feed: FeedPublisher;
  logger: Logger;
  now?: () => number;
}

// What follows a committed event action: the delivery queue and the live feed hear of it. Neither
// can undo the action, so neither fails it: a lost enqueue is found by the worker's sweeper, and
// the feed publisher never throws.
export function createEventNotices(deps: EventNoticeDeps) {
  const now = deps.now ?? Date.now;
  return {
    async enqueue(orgId: OrgId, ids: readonly string[]): Promise<void> {
      await deps.queue.enqueue(ids.map((eventId) => ({ orgId, eventId }))).catch((err: unknown) => {
        deps.logger.warn(
          { err, events: ids.length },
          'enqueue after retry failed; the sweeper will enqueue these events',
        );
      });
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
