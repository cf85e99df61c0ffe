import { toStorableText, type DeliveryStatus, type OrgId, type UnhealthyReason } from '@relay/core';
import type pg from 'pg';
import { type AuditInput } from './audit.repository';
import type { DeliveryChange } from './delivery-change';
import { createDeliveryBatches } from './delivery-batch.repository';
import { UTC_NOW } from './delivery-statement.sql';
import { createDeliverySweepReads, type QueuedDeliveryRef } from './delivery-sweep.repository';
import { createHealthTransitions, type HealthTables, type Turned } from './health-transitions';
import { transformOf, type NewTransform, type StoredTransform, type TransformRow } from './stored-event';

// Destination deliveries (routing, docs/routing.md "Destinations"): one row per event and destination,
// with its own attempts, retries and status, never the event's. Raw SQL over the shared pool: these
// statements run once per delivery, on the worker's hot path.

export type { DeliveryChange, DeliveryStatus, QueuedDeliveryRef };
export type {
  DeliveryRecord,
  DeliveryRef,
  DeliveryUpdate,
  FannedOut,
  FanOutItem,
  LoadedDelivery,
  Recorded,
  RecordItem,
} from './delivery-batch.repository';

// A destination's transform output, stored once per run as the event's (STORE_TRANSFORMED in event.sql.ts).
const STORE_TRANSFORMED = `
UPDATE deliveries SET transformed_body = coalesce(transformed_body, $3), transformed_headers =
  CASE WHEN transformed_body IS NULL THEN $4::jsonb ELSE transformed_headers END,
  transformed_path = CASE WHEN transformed_body IS NULL THEN $5 ELSE transformed_path END,
  transform_logs = CASE WHEN transformed_body IS NULL THEN $6 ELSE transform_logs END
WHERE organization_id = $1 AND id = $2 AND event_id = $7 AND status = 'queued'
RETURNING transformed_body, transformed_headers, transformed_path`;

// Pauses one queued delivery while its destination is unhealthy (the destination row read FOR SHARE: see FAN_OUT_BODY).
const PAUSE_ONE = `
WITH dest AS (
  SELECT d.health::text AS health FROM destinations d JOIN deliveries v ON v.destination_id = d.id
  WHERE v.organization_id = $1 AND v.id = $2 AND v.event_id = $3 FOR SHARE OF d
), paused AS (
  UPDATE deliveries SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 AND event_id = $3 AND status = 'queued'
    AND (SELECT health FROM dest) = 'unhealthy'
  RETURNING id
)
SELECT (SELECT health FROM dest) AS health, (SELECT count(*) FROM paused)::int AS paused`;

/** A destination that has just turned unhealthy, and the queued deliveries paused with it. */
export interface DestinationTurned {
  destination: { id: string; ruleId: string; name: string; targetUrl: string };
  since: Date;
  paused: DeliveryChange[];
}

interface TurnedRow {
  id: string;
  provider_id: string;
  name: string;
  target_url: string;
}
interface PausedRow {
  id: string;
  event_id: string;
  destination_id: string;
  attempt_count: number;
}
const DESTINATION_TABLES: HealthTables = {
  owner: 'destinations',
  items: 'deliveries',
  ownerColumn: 'destination_id',
  ownerColumns: 'id, provider_id, name, target_url',
  itemColumns: 'id, event_id, destination_id, attempt_count',
};

// An event's deliveries as its detail shows them, each with its destination's target. Only a queued delivery has a
// next attempt: a paused one waits for its destination's resume, a finished one for nothing.
const FOR_EVENT = `
SELECT v.id, v.destination_id, d.target_url, v.status::text AS status, v.attempt_count, v.failure_reason,
  v.last_error, v.delivered_at, v.acknowledged_at IS NOT NULL AS acknowledged,
  CASE WHEN v.status = 'queued' THEN v.next_attempt_at END AS next_attempt_at
FROM deliveries v JOIN destinations d ON d.id = v.destination_id
WHERE v.organization_id = $1 AND v.event_id = $2 ORDER BY v.created_at, v.id`;

/** One destination delivery of an event, as `GET /events/{id}` shows it. */
export interface EventDelivery {
  id: string;
  destinationId: string;
  targetUrl: string;
  status: DeliveryStatus;
  attemptCount: number;
  failureReason: string | null;
  lastError: string | null;
  deliveredAt: Date | null;
  /** A failed delivery an operator acknowledged (cleared by a retry). */
  acknowledged: boolean;
  nextAttemptAt: Date | null;
}

export function createDeliveryRepository(pool: pg.Pool) {
  const transitions = createHealthTransitions<TurnedRow, PausedRow>(pool, DESTINATION_TABLES);
  return {
    /** The event's destination deliveries, oldest first (none: the rule has no destination that took it). */
    async forEvent(orgId: OrgId, eventId: string): Promise<EventDelivery[]> {
      const { rows } = await pool.query<{
        id: string;
        destination_id: string;
        target_url: string;
        status: DeliveryStatus;
        attempt_count: number;
        failure_reason: string | null;
        last_error: string | null;
        delivered_at: Date | null;
        acknowledged: boolean;
        next_attempt_at: Date | null;
      }>(FOR_EVENT, [orgId, eventId]);
      return rows.map((r) => ({
        id: r.id,
        destinationId: r.destination_id,
        targetUrl: r.target_url,
        status: r.status,
        attemptCount: r.attempt_count,
        failureReason: r.failure_reason,
        lastError: r.last_error,
        deliveredAt: r.delivered_at,
        acknowledged: r.acknowledged,
        nextAttemptAt: r.next_attempt_at,
      }));
    },

    /** Stores the delivery's transformed request (see the event's `storeTransformed`); null: no longer queued. */
    async storeTransformed(
      orgId: OrgId,
      { id, eventId }: { id: string; eventId: string },
      output: NewTransform,
    ): Promise<StoredTransform | null> {
      const { rows } = await pool.query<TransformRow>(STORE_TRANSFORMED, [
        orgId,
        id,
        output.body,
        JSON.stringify(output.headers),
        output.path,
        toStorableText(output.logs),
        eventId,
      ]);
      return rows[0] ? transformOf(rows[0]) : null;
    },

    /** Pauses a queued delivery of an unhealthy destination; `health` as committed (null: gone). */
    async pause(
      orgId: OrgId,
      { id, eventId }: { id: string; eventId: string },
    ): Promise<{ health: 'healthy' | 'unhealthy' | null; paused: boolean }> {
      const { rows } = await pool.query<{ health: 'healthy' | 'unhealthy' | null; paused: number }>(PAUSE_ONE, [
        orgId,
        id,
        eventId,
      ]);
      return { health: rows[0]?.health ?? null, paused: (rows[0]?.paused ?? 0) > 0 };
    },

    /** The start of the destination's current failing run (set to `when` if none ran); null: it is gone. */
    markFailing: (orgId: OrgId, destinationId: string, when: Date): Promise<Date | null> =>
      transitions.markFailing(orgId, destinationId, when),

    clearFailing: (orgId: OrgId, destinationId: string): Promise<void> =>
      transitions.clearFailing(orgId, destinationId),

    /**
     * Turns a healthy destination unhealthy, pauses its queued deliveries (all but `causeId`) and writes the
     * audit entry, in one transaction; null: it was unhealthy already (or is gone).
     */
    async markUnhealthy(
      orgId: OrgId,
      destinationId: string,
      reason: UnhealthyReason,
      when: Date,
      audit: (turned: DestinationTurned) => AuditInput,
      causeId: string | null,
    ): Promise<DestinationTurned | null> {
      const turnedOf = (t: Turned<TurnedRow, PausedRow>): DestinationTurned => ({
        destination: { id: t.owner.id, ruleId: t.owner.provider_id, name: t.owner.name, targetUrl: t.owner.target_url },
        since: t.since,
        paused: t.paused.map((r) => ({
          id: r.id,
          eventId: r.event_id,
          destinationId: r.destination_id,
          attemptCount: r.attempt_count,
        })),
      });
      const turned = await transitions.markUnhealthy(
        orgId,
        destinationId,
        reason,
        when,
        (t) => audit(turnedOf(t)),
        causeId,
      );
      return turned && turnedOf(turned);
    },

    ...createDeliverySweepReads(pool),
    ...createDeliveryBatches(pool),
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
