import { AppError, type FeedStatus, type OrgId, type Principal } from '@relay/core';
import type { AuditRepository, EventActionRepository, EventSelection } from '@relay/db';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import { auditEntry } from '../modules/audit-entry';

export interface EventActionDeps {
  actions: EventActionRepository;
  queue: DeliveryQueue;
  audit: AuditRepository;
  logger: Logger;
  bulkCap: number;
  feed: FeedPublisher;
  now?: () => number;
}

// The event actions. A retry is committed before its job is enqueued; if the enqueue fails the
// worker's sweeper finds the queued event and enqueues it, so an accepted retry is never lost.
export function createEventActions(deps: EventActionDeps) {
  const now = deps.now ?? Date.now;
  // The live feed hears of every change; the publisher never throws, so a feed hiccup fails nothing.
  const statusChanged = (orgId: OrgId, states: readonly FeedStatus[]) =>
    deps.feed.publish(
      orgId,
      states.map((data) => ({ type: 'event.status', at: now(), data })),
    );
  const deleted = (orgId: OrgId, ids: readonly string[]) =>
    deps.feed.publish(
      orgId,
      ids.map((id) => ({ type: 'event.deleted', at: now(), data: { id } })),
    );
  async function enqueue(orgId: OrgId, ids: readonly string[]): Promise<void> {
    await deps.queue.enqueue(ids.map((eventId) => ({ orgId, eventId }))).catch((err: unknown) => {
      deps.logger.warn(
        { err, events: ids.length },
        'enqueue after retry failed; the sweeper will enqueue these events',
      );
    });
  }
  const selectionMeta = (s: EventSelection) =>
    'ids' in s ? { by: 'ids', requested: s.ids.length } : { by: 'filter', filter: s.filter };

  return {
    async retry(principal: Principal, id: string): Promise<void> {
      const result = await deps.actions.retry(
        principal.orgId,
        id,
        auditEntry(principal, { action: 'event.retried', resourceType: 'event', resourceId: id }),
      );
      if (result === 'not_found') throw new AppError('not_found', 'No such event.');
      if (result === 'wrong_status') throw new AppError('event_not_retryable');
      await enqueue(principal.orgId, [id]);
      await statusChanged(principal.orgId, [result]);
    },

    async acknowledge(principal: Principal, id: string): Promise<void> {
      const result = await deps.actions.acknowledge(
        principal.orgId,
        id,
        auditEntry(principal, { action: 'event.acknowledged', resourceType: 'event', resourceId: id }),
      );
      if (result === 'not_found') throw new AppError('not_found', 'No such event.');
      if (result === 'wrong_status') throw new AppError('event_not_failed');
      await statusChanged(principal.orgId, [result]);
    },

    async delete(principal: Principal, id: string): Promise<void> {
      const audit = auditEntry(principal, { action: 'event.deleted', resourceType: 'event', resourceId: id });
      if (!(await deps.actions.delete(principal.orgId, id, audit))) throw new AppError('not_found', 'No such event.');
      await deleted(principal.orgId, [id]);
    },

    async bulkRetry(principal: Principal, selection: EventSelection) {
      const result = await deps.actions.bulkRetry(principal.orgId, selection, deps.bulkCap, (done) =>
        auditEntry(principal, {
          action: 'events.bulk_retried',
          resourceType: 'event',
          resourceId: null,
          metadata: { ...selectionMeta(selection), affected: done.ids.length },
        }),
      );
      await enqueue(principal.orgId, result.ids);
      await statusChanged(
        principal.orgId,
        result.ids.map((eventId) => ({ id: eventId, status: 'queued', failure_reason: null, acknowledged: false })),
      );
      return result;
    },

    async bulkDelete(principal: Principal, selection: EventSelection) {
      const result = await deps.actions.bulkDelete(principal.orgId, selection, deps.bulkCap, (done) =>
        auditEntry(principal, {
          action: 'events.bulk_deleted',
          resourceType: 'event',
          resourceId: null,
          metadata: { ...selectionMeta(selection), affected: done.ids.length },
        }),
      );
      await deleted(principal.orgId, result.ids);
      return result;
    },
  };
}

export type EventActions = ReturnType<typeof createEventActions>;
