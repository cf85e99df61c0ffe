import { randomUUID } from 'node:crypto';
import { AppError, type OrgId, type Principal } from '@relay/core';
import type { bulkRetrySchema, bulkSelectionSchema, eventListQuery } from '@relay/contracts';
import { NO_DELIVERIES, type EventSelection, type ReadRepositories, type Repositories } from '@relay/db';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { auditEntry } from '../audit-entry';
import { createDeliveryActions } from './delivery-actions';
import { createEventNotices } from './event-notices';
import { attemptView, detailView, filterOf, selectionOf, storedBodyView, summaryView } from './event.views';

export interface EventServiceDeps {
  /** The primary: actions, and the reads that answer them (an action's answer shows its own write). */
  repositories: Pick<Repositories, 'eventQueries' | 'eventActions' | 'deliveryActions'>;
  /** History reads (lists, search, details, bodies, attempts): a read replica's while it keeps up. */
  reads: Pick<ReadRepositories, 'eventQueries' | 'deliveries' | 'transformedBodies'>;
  queue: Pick<DeliveryQueue, 'enqueue' | 'enqueueDestinations'>;
  feed: FeedPublisher;
  logger: Logger;
  /** Most events one bulk call touches. */
  bulkCap: number;
  /** Header names every reader sees masked (SENSITIVE_HEADERS). */
  sensitiveHeaders: readonly string[];
  now?: () => number;
}

type BulkSelection = z.output<typeof bulkSelectionSchema>;
type BulkRetry = z.output<typeof bulkRetrySchema>;
const noSuchEvent = () => new AppError('not_found', 'No such event.');
const fact = (action: string, id: string) => ({ action, resourceType: 'event', resourceId: id });

// Event history and actions. The event-action repository writes each action and its audit entry in
// its own transaction (raw SQL), so the service hands it the entry rather than opening one itself.
// A retry is committed before its job is enqueued; if the enqueue fails the worker's sweeper finds
// the queued event and enqueues it, so an accepted retry is never lost.
export function createEventService(deps: EventServiceDeps) {
  const { eventQueries: queries, eventActions: actions } = deps.repositories;
  const history = deps.reads.eventQueries;
  const notices = createEventNotices(deps);
  // A bulk action acts on many events: its entry's resource_id is a new id of the operation itself
  // (a UUID, as the spec types it), and the ids it touched are in the metadata.
  const bulkAudit =
    (principal: Principal, action: string, selection: EventSelection, about: Record<string, unknown> = {}) =>
    (done: { ids: string[] }) =>
      auditEntry(principal, {
        action,
        resourceType: 'event',
        resourceId: randomUUID(),
        metadata: {
          ...about,
          ...('ids' in selection
            ? { by: 'ids', requested: selection.ids.length }
            : { by: 'filter', filter: selection.filter }),
          affected: done.ids.length,
          ids: done.ids,
        },
      });
  const bulkView = ({ ids, truncated }: { ids: string[]; truncated: boolean }) => ({
    affected: ids.length,
    ids,
    truncated,
  });
  // An empty filter matches every event: retrying or deleting them all must be said outright.
  const selectionChecked = (body: BulkSelection): EventSelection => {
    if ('filter' in body && body.all !== true && Object.values(body.filter).every((v) => v === undefined))
      throw new AppError('bulk_all_required');
    return selectionOf(body);
  };
  const summaryOf = async (orgId: OrgId, id: string) => {
    const [event, counts] = await Promise.all([queries.findById(orgId, id), queries.deliveryCounts(orgId, [id])]);
    if (!event) throw noSuchEvent();
    return summaryView(event, counts.get(id));
  };
  const deliveries = createDeliveryActions({ ...deps, bulkAudit, selectionChecked, summaryOf });

  return {
    async list(principal: Principal, query: z.output<typeof eventListQuery>) {
      const { page, per_page } = query;
      const { events, total, totalExact } = await history.page(principal.orgId, filterOf(query), page, per_page);
      // One grouped query for the page's deliveries, not one per event.
      const counts = await history.deliveryCounts(
        principal.orgId,
        events.map((e) => e.id),
      );
      return {
        events: events.map((e) => summaryView(e, counts.get(e.id) ?? NO_DELIVERIES)),
        total,
        total_exact: totalExact,
        page,
        per_page,
        pages: Math.ceil(total / per_page),
      };
    },

    async sources(principal: Principal) {
      return { sources: await history.sources(principal.orgId) };
    },

    async find(principal: Principal, id: string) {
      const [event, deliveries] = await Promise.all([
        history.findById(principal.orgId, id),
        deps.reads.deliveries.forEvent(principal.orgId, id),
      ]);
      if (!event) throw noSuchEvent();
      return detailView(event, deps.sensitiveHeaders, deliveries);
    },

    /** The payload exactly as it was received, with the content type it was sent with. */
    async body(principal: Principal, id: string) {
      const event = await history.findById(principal.orgId, id);
      if (!event) throw noSuchEvent();
      return storedBodyView(event);
    },

    /** The primary's transformed body as stored at its first attempt (docs/transformations.md). */
    async transformedBody(principal: Principal, id: string) {
      const stored = await deps.reads.transformedBodies.primary(principal.orgId, id);
      if (stored === undefined) throw noSuchEvent();
      if (stored === null) throw new AppError('transformed_body_not_found');
      return { contentType: 'application/json', bytes: stored, transformed: true };
    },

    /**
     * What one destination's delivery sends: its transformed body as stored at the first attempt, or the payload as
     * received when its destination has no transform. A destination with a transform and nothing stored (not tried
     * yet, or its transform failed) is a 404 `transformed_body_not_found`.
     */
    async deliveryBody(principal: Principal, id: string, deliveryId: string) {
      const row = await deps.reads.transformedBodies.delivery(principal.orgId, id, deliveryId);
      if (row === undefined) throw noSuchEvent();
      if (row === null) throw new AppError('delivery_not_found', 'The event has no such delivery.');
      if (row.transformedBody !== null)
        return { contentType: 'application/json', bytes: row.transformedBody, transformed: true };
      if (row.destinationHasTransform) throw new AppError('transformed_body_not_found');
      return { ...storedBodyView({ body: row.body, headers: row.headers }), transformed: false };
    },

    async attempts(principal: Principal, id: string) {
      const attempts = await history.attempts(principal.orgId, id);
      if (!attempts) throw noSuchEvent();
      return { attempts: attempts.map(attemptView) };
    },

    /** A new run of the event on its primary target, or (`destinationId`) of that delivery alone. */
    async retry(principal: Principal, id: string, destinationId?: string) {
      if (destinationId !== undefined) return deliveries.retry(principal, id, destinationId);
      const result = await actions.retry(principal.orgId, id, auditEntry(principal, fact('event.retried', id)));
      if (result === 'not_found') throw noSuchEvent();
      // A paused event waits for its rule: retrying it alone would send it to the target the rule stopped.
      if (result === 'wrong_status')
        throw new AppError(
          (await queries.findById(principal.orgId, id))?.status === 'paused' ? 'event_paused' : 'event_not_retryable',
        );
      await notices.enqueue(principal.orgId, [id]);
      await notices.statusChanged(principal.orgId, [result]);
      return { id, status: 'queued' as const };
    },

    /**
     * Acknowledges a failed event, or gives up on the retrying head of an ordered key (it fails, reason
     * `acknowledged`, and the key's next event is sent), or (`destinationId`) that failed delivery alone; answers the
     * event as it is now.
     */
    async acknowledge(principal: Principal, id: string, destinationId?: string) {
      if (destinationId !== undefined) return deliveries.acknowledge(principal, id, destinationId);
      const audit = auditEntry(principal, fact('event.acknowledged', id));
      let result = await actions.acknowledge(principal.orgId, id, audit);
      if (result === 'not_found') throw noSuchEvent();
      if (result === 'wrong_status') {
        const head = await actions.acknowledgeBlockedHead(principal.orgId, id, audit);
        if (!head) throw new AppError('event_not_failed');
        await notices.enqueue(principal.orgId, head.next);
        result = head.state;
      }
      await notices.statusChanged(principal.orgId, [result]);
      return summaryOf(principal.orgId, id);
    },

    async delete(principal: Principal, id: string): Promise<void> {
      const audit = auditEntry(principal, fact('event.deleted', id));
      if (!(await actions.delete(principal.orgId, id, audit))) throw noSuchEvent();
      await notices.deleted(principal.orgId, [id]);
    },

    /** Retries the selected events on their primary target, or (`destination_id`) that destination's deliveries. */
    async bulkRetry(principal: Principal, { destination_id: destinationId, ...body }: BulkRetry) {
      if (destinationId !== undefined) return deliveries.bulkRetry(principal, body, destinationId);
      const selection = selectionChecked(body);
      const audit = bulkAudit(principal, 'events.bulk_retried', selection);
      const result = await actions.bulkRetry(principal.orgId, selection, deps.bulkCap, audit);
      await notices.enqueue(principal.orgId, result.ids);
      await notices.statusChanged(
        principal.orgId,
        result.ids.map((eventId) => ({ id: eventId, status: 'queued', failure_reason: null, acknowledged: false })),
      );
      return bulkView(result);
    },

    async bulkDelete(principal: Principal, body: BulkSelection) {
      const selection = selectionChecked(body);
      const audit = bulkAudit(principal, 'events.bulk_deleted', selection);
      const result = await actions.bulkDelete(principal.orgId, selection, deps.bulkCap, audit);
      await notices.deleted(principal.orgId, result.ids);
      return bulkView(result);
    },
  };
}
