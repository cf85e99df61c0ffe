import { AppError, type OrgId, type Principal } from '@relay/core';
import type { bulkSelectionSchema } from '@relay/contracts';
import type { AuditInput, DeliveryActionResult, EventSelection, Repositories } from '@relay/db';
import type { DeliveryQueue, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { auditEntry } from '../audit-entry';
import type { summaryView } from './event.views';

type BulkSelection = z.output<typeof bulkSelectionSchema>;
type QueuedAgain = { eventId: string; deliveryId: string; attemptCount: number };

export interface DeliveryActionDeps {
  repositories: Pick<Repositories, 'deliveryActions'>;
  queue: Pick<DeliveryQueue, 'enqueueDestinations'>;
  /** The live feed hears of each delivery queued again (`delivery.status`), as it does from the worker. */
  feed: FeedPublisher;
  now?: () => number;
  logger: Logger;
  bulkCap: number;
  /** The event service's bulk audit entry (its `about` goes into the metadata). */
  bulkAudit: (
    principal: Principal,
    action: string,
    selection: EventSelection,
    about?: Record<string, unknown>,
  ) => (done: { ids: string[] }) => AuditInput;
  selectionChecked: (body: BulkSelection) => EventSelection;
  /** The event as the events API shows it now (the answer of an acknowledge). */
  summaryOf: (orgId: OrgId, id: string) => Promise<ReturnType<typeof summaryView>>;
}

// Retry and acknowledge of one destination's delivery of an event (`destination_id` in the events API's action
// bodies; docs/routing.md, "Seeing and acting on deliveries"). The primary target and the other deliveries are
// untouched. As for events, a retry is committed (with its audit entry) before its job is enqueued; a lost
// enqueue is found by the worker's sweeper, which gives every queued delivery its job.
export function createDeliveryActions(deps: DeliveryActionDeps) {
  const actions = deps.repositories.deliveryActions;
  const fact = (action: string, eventId: string, destinationId: string) =>
    ({ action, resourceType: 'event', resourceId: eventId, metadata: { destination_id: destinationId } }) as const;

  /** The refusal of an action that changed nothing. */
  function refusal(result: Exclude<DeliveryActionResult, { deliveryId: string }>, wrong: () => AppError): AppError {
    if (result.refused === 'event_not_found') return new AppError('not_found', 'No such event.');
    if (result.refused === 'delivery_not_found') return new AppError('delivery_not_found');
    return wrong();
  }

  // Job id `dest-<delivery id>`, as fan-out and the sweeper give it: the delivery's finished job was removed
  // (removeOnComplete), so the id is free again, as an event's is for its retry. Should the finishing job still
  // hold it at this instant, the add is a no-op and the sweeper enqueues the delivery once it is overdue.
  async function enqueue(
    orgId: OrgId,
    destinationId: string,
    deliveries: readonly { deliveryId: string; eventId: string }[],
    context: Record<string, unknown>,
  ) {
    await deps.queue
      .enqueueDestinations(deliveries.map(({ deliveryId, eventId }) => ({ orgId, deliveryId, eventId, destinationId })))
      .catch((err: unknown) =>
        deps.logger.warn({ err, ...context }, 'retried deliveries not enqueued; the sweeper will enqueue them'),
      );
  }

  // After the commit, before the enqueue: a worker's first change of the delivery is told after this one.
  const toldQueued = (orgId: OrgId, destinationId: string, queued: readonly QueuedAgain[]) =>
    deps.feed.publish(
      orgId,
      queued.map((d) => ({
        type: 'delivery.status' as const,
        at: (deps.now ?? Date.now)(),
        data: {
          event_id: d.eventId,
          delivery_id: d.deliveryId,
          destination_id: destinationId,
          status: 'queued' as const,
          attempt_count: d.attemptCount,
        },
      })),
    );

  return {
    async retry(principal: Principal, eventId: string, destinationId: string) {
      const audit = auditEntry(principal, fact('delivery.retried', eventId, destinationId));
      const result = await actions.retry(principal.orgId, eventId, destinationId, audit);
      if (!('deliveryId' in result))
        throw refusal(result, () =>
          // A paused delivery waits for its destination: retrying it alone would send to a target that was stopped.
          result.refused === 'wrong_status' && result.status === 'paused'
            ? new AppError('delivery_paused')
            : new AppError(
                'event_not_retryable',
                'Only a failed or delivered delivery can be retried; this one is still queued.',
              ),
        );
      await toldQueued(principal.orgId, destinationId, [{ eventId, ...result }]);
      await enqueue(principal.orgId, destinationId, [{ deliveryId: result.deliveryId, eventId }], {
        eventId,
        destinationId,
      });
      return { id: eventId, status: 'queued' as const, destination_id: destinationId };
    },

    async acknowledge(principal: Principal, eventId: string, destinationId: string) {
      const audit = auditEntry(principal, fact('delivery.acknowledged', eventId, destinationId));
      const result = await actions.acknowledge(principal.orgId, eventId, destinationId, audit);
      if (!('deliveryId' in result)) throw refusal(result, () => new AppError('delivery_not_failed'));
      return deps.summaryOf(principal.orgId, eventId);
    },

    async bulkRetry(principal: Principal, body: BulkSelection, destinationId: string) {
      const selection = deps.selectionChecked(body);
      const audit = deps.bulkAudit(principal, 'deliveries.bulk_retried', selection, { destination_id: destinationId });
      const result = await actions.bulkRetry(principal.orgId, selection, destinationId, deps.bulkCap, audit);
      await toldQueued(principal.orgId, destinationId, result.deliveries);
      await enqueue(principal.orgId, destinationId, result.deliveries, {
        destinationId,
        deliveries: result.deliveryIds.length,
      });
      return { affected: result.ids.length, ids: result.ids, truncated: result.truncated };
    },
  };
}
