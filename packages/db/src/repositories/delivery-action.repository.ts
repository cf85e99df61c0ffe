import { DEFAULT_SENSITIVE_HEADERS, type OrgId } from '@relay/core';
import type pg from 'pg';
import { insertAuditEntry, type AuditInput } from './audit.repository';
import type { DeliveryStatus } from './delivery.repository';
import { selectEvents, type BulkResult, type EventSelection } from './event-action.repository';
import { CLEAR_TRANSFORMED } from './event.sql';
import { withTransaction } from '../transaction';

// Acting on one destination's delivery of an event (routing, docs/routing.md "Seeing and acting on deliveries"),
// the primary target and the other deliveries untouched. Each write and its audit entry commit together, and each
// is guarded by the status it expects, so a concurrent attempt cannot be overwritten.

const UTC_NOW = `now() AT TIME ZONE 'UTC'`;

// A retry starts a new run of the delivery, as an event's retry does: attempts so far stay, the retry policy
// counts from run_start_attempt (a fresh attempt budget), the delivery id (its webhook-id) is unchanged, and
// delivered_at is set again by the run that delivers. A retried delivery of an ordered rule goes on its own, as a
// retried event does (ordering_key NULL): it neither waits behind its key's older deliveries nor holds newer ones.
const RETRY_SET = `status = 'queued', run_start_attempt = attempt_count, next_attempt_at = ${UTC_NOW},
  failure_reason = NULL, last_error = NULL, acknowledged_at = NULL, delivered_at = NULL, ordering_key = NULL,
  updated_at = ${UTC_NOW}, ${CLEAR_TRANSFORMED}`;
// Queued deliveries have a run going; paused ones wait for their destination's resume.
const RETRYABLE = `status IN ('failed', 'delivered')`;

const ONE = `organization_id = $1 AND event_id = $2 AND destination_id = $3`;
const RETRY_ONE = `UPDATE deliveries SET ${RETRY_SET} WHERE ${ONE} AND ${RETRYABLE} RETURNING id, attempt_count`;
const ACK_ONE = `UPDATE deliveries SET acknowledged_at = coalesce(acknowledged_at, ${UTC_NOW}), updated_at = ${UTC_NOW}
  WHERE ${ONE} AND status = 'failed' RETURNING id, attempt_count`;
// Why nothing was done: the event is not the organization's, it has no delivery to the destination, or the
// delivery's status.
const DIAGNOSE = `
SELECT EXISTS (SELECT 1 FROM events WHERE organization_id = $1 AND id = $2) AS event,
  (SELECT status::text FROM deliveries WHERE ${ONE}) AS status`;

/** The delivery acted on (its id, for its job), or why nothing was done. */
export type DeliveryActionResult =
  | { deliveryId: string; attemptCount: number }
  | { refused: 'event_not_found' | 'delivery_not_found' }
  | { refused: 'wrong_status'; status: DeliveryStatus };

/** A bulk retry of one destination's deliveries: the events (as bulk results name them) and their deliveries. */
export interface DeliveryBulkResult extends BulkResult {
  deliveryIds: string[];
  /** Each delivery queued again, for the live feed. */
  deliveries: { eventId: string; deliveryId: string; attemptCount: number }[];
}

/** `sensitiveHeaders`: header names a filter's search does not match (SENSITIVE_HEADERS). */
export function createDeliveryActionRepository(
  pool: pg.Pool,
  sensitiveHeaders: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
) {
  // The write, then (when it changed a row) its audit entry, in one transaction.
  const single = (sql: string, orgId: OrgId, eventId: string, destinationId: string, audit: AuditInput) =>
    withTransaction(pool, async (client): Promise<DeliveryActionResult> => {
      const params = [orgId, eventId, destinationId];
      const { rows } = await client.query<{ id: string; attempt_count: number }>(sql, params);
      if (rows[0]) {
        await insertAuditEntry(client, orgId, audit);
        return { deliveryId: rows[0].id, attemptCount: rows[0].attempt_count };
      }
      const found = (await client.query<{ event: boolean; status: DeliveryStatus | null }>(DIAGNOSE, params)).rows[0]!;
      if (!found.event) return { refused: 'event_not_found' };
      return found.status === null
        ? { refused: 'delivery_not_found' }
        : { refused: 'wrong_status', status: found.status };
    });

  return {
    /** A new run of the event's delivery to the destination, when it is failed or delivered. */
    retry: (orgId: OrgId, eventId: string, destinationId: string, audit: AuditInput) =>
      single(RETRY_ONE, orgId, eventId, destinationId, audit),

    /** Acknowledges the event's failed delivery to the destination (idempotent). */
    acknowledge: (orgId: OrgId, eventId: string, destinationId: string, audit: AuditInput) =>
      single(ACK_ONE, orgId, eventId, destinationId, audit),

    /**
     * Retries the destination's failed or delivered deliveries of the selected events; events without one are
     * neither chosen nor counted (so the cap counts only events acted on). One audit entry for the call.
     */
    bulkRetry: (
      orgId: OrgId,
      selected: EventSelection,
      destinationId: string,
      cap: number,
      audit: (result: DeliveryBulkResult) => AuditInput,
    ): Promise<DeliveryBulkResult> =>
      withTransaction(pool, async (client) => {
        const { sql, params } = selectEvents(
          orgId,
          selected,
          cap,
          sensitiveHeaders,
          (add) =>
            `EXISTS (SELECT 1 FROM deliveries dv WHERE dv.event_id = events.id AND dv.organization_id = events.organization_id
              AND dv.destination_id = ${add(destinationId)}::uuid AND dv.${RETRYABLE})`,
        );
        const { rows } = await client.query<{ id: string }>(sql, params);
        const chosen = rows.slice(0, cap).map((r) => r.id);
        // The write re-checks organization and status, so a delivery changed in between is skipped.
        const done = await client.query<{ event_id: string; id: string; attempt_count: number }>(
          `UPDATE deliveries SET ${RETRY_SET}
           WHERE organization_id = $1 AND event_id = ANY($2::uuid[]) AND destination_id = $3 AND ${RETRYABLE}
           RETURNING event_id, id, attempt_count`,
          [orgId, chosen, destinationId],
        );
        // In the selection's order (oldest first), as bulk results are; RETURNING's order is the table's.
        const doneEvents = new Set(done.rows.map((r) => r.event_id));
        const result = {
          ids: chosen.filter((id) => doneEvents.has(id)),
          deliveryIds: done.rows.map((r) => r.id),
          deliveries: done.rows.map((r) => ({ eventId: r.event_id, deliveryId: r.id, attemptCount: r.attempt_count })),
          truncated: rows.length > cap,
        };
        await insertAuditEntry(client, orgId, audit(result));
        return result;
      }),
  };
}

export type DeliveryActionRepository = ReturnType<typeof createDeliveryActionRepository>;
