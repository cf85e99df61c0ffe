import { AppError, type OrgId, type Principal } from '@relay/core';
import type { AuditRepository, EventActionRepository, EventSelection } from '@relay/db';
import type { DeliveryQueue } from '@relay/queue';
import type { Logger } from 'pino';
import { recordAudit } from '../auth/audit-actor';

export interface EventActionDeps {
  actions: EventActionRepository;
  queue: DeliveryQueue;
  audit: AuditRepository;
  logger: Logger;
  bulkCap: number;
}

// The event actions. A retry is committed before its job is enqueued; if the enqueue fails the
// worker's sweeper finds the queued event and enqueues it, so an accepted retry is never lost.
export function createEventActions(deps: EventActionDeps) {
  async function enqueue(orgId: OrgId, ids: readonly string[]): Promise<void> {
    await deps.queue.enqueue(ids.map((eventId) => ({ orgId, eventId }))).catch((err: unknown) => {
      deps.logger.warn({ err, events: ids.length }, 'enqueue after retry failed; the sweeper will enqueue these events');
    });
  }
  const selectionMeta = (s: EventSelection) => ('ids' in s ? { by: 'ids', requested: s.ids.length } : { by: 'filter', filter: s.filter });

  return {
    async retry(principal: Principal, id: string): Promise<void> {
      const result = await deps.actions.retry(principal.orgId, id);
      if (result === 'not_found') throw new AppError('not_found', 'No such event.');
      if (result === 'wrong_status') throw new AppError('event_not_retryable');
      await enqueue(principal.orgId, [id]);
      await recordAudit(deps.audit, principal, { action: 'event.retried', resourceType: 'event', resourceId: id });
    },

    async acknowledge(principal: Principal, id: string): Promise<void> {
      const result = await deps.actions.acknowledge(principal.orgId, id);
      if (result === 'not_found') throw new AppError('not_found', 'No such event.');
      if (result === 'wrong_status') throw new AppError('event_not_failed');
      await recordAudit(deps.audit, principal, { action: 'event.acknowledged', resourceType: 'event', resourceId: id });
    },

    async delete(principal: Principal, id: string): Promise<void> {
      if (!(await deps.actions.delete(principal.orgId, id))) throw new AppError('not_found', 'No such event.');
      await recordAudit(deps.audit, principal, { action: 'event.deleted', resourceType: 'event', resourceId: id });
    },

    async bulkRetry(principal: Principal, selection: EventSelection) {
      const result = await deps.actions.bulkRetry(principal.orgId, selection, deps.bulkCap);
      await enqueue(principal.orgId, result.ids);
      await recordAudit(deps.audit, principal, { action: 'events.bulk_retried', resourceType: 'event', resourceId: null, metadata: { ...selectionMeta(selection), affected: result.ids.length } });
      return result;
    },

    async bulkDelete(principal: Principal, selection: EventSelection) {
      const result = await deps.actions.bulkDelete(principal.orgId, selection, deps.bulkCap);
      await recordAudit(deps.audit, principal, { action: 'events.bulk_deleted', resourceType: 'event', resourceId: null, metadata: { ...selectionMeta(selection), affected: result.ids.length } });
      return result;
    },
  };
}

export type EventActions = ReturnType<typeof createEventActions>;
