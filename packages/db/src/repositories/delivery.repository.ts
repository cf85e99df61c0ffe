import { toStorableText, type FailureReason, type OrgId, type UnhealthyReason } from '@relay/core';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { withTransaction } from '../transaction';
import { toDestinationRecord, type DestinationRecord } from './destination.repository';
import type { NewAttempt } from './event.repository';

// Destination deliveries (routing, docs/routing.md "Destinations"): one row per event and destination,
// with its own attempts, retries and status, never the event's. Raw SQL over the shared pool: these
// statements run once per delivery, on the worker's hot path.

const UTC_NOW = `now() AT TIME ZONE 'UTC'`;
const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

export type DeliveryStatus = 'queued' | 'delivered' | 'failed' | 'paused';

export interface DeliveryRecord {
  id: string;
  organizationId: OrgId;
  eventId: string;
  destinationId: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  lastError: string | null;
  deliveredAt: Date | null;
}

/** A queued delivery that needs a job: its id and when it is due. */
export interface QueuedDeliveryRef {
  id: string;
  organizationId: OrgId;
  nextAttemptAt: Date | null;
}

export type DeliveryUpdate =
  | { status: 'delivered'; at: Date }
  | { status: 'queued'; nextAttemptAt: Date; error: string }
  | { status: 'failed'; reason: FailureReason; error: string };

// One statement: the deliveries of an event's matched destinations, idempotent on (event_id, destination_id)
// so a fan-out run again (a worker killed after the commit, before the enqueue) adds nothing. The destinations
// are read FOR SHARE, so a resume either commits first (the delivery is queued) or waits for this statement
// (and then releases the delivery it paused). Answers every queued delivery of the event, old and new: the
// caller enqueues them all (a job id is the delivery id, so an existing job is not duplicated).
const FAN_OUT = `
WITH dest AS (
  SELECT d.id, d.health::text AS health FROM destinations d
  WHERE d.organization_id = $1 AND d.active AND d.id = ANY($3::uuid[]) FOR SHARE
), added AS (
  INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, next_attempt_at, created_at, updated_at)
  SELECT n.id, $1, $2, dest.id,
    (CASE WHEN dest.health = 'unhealthy' THEN 'paused' ELSE 'queued' END)::"DeliveryStatus",
    ${UTC_NOW}, ${UTC_NOW}, ${UTC_NOW}
  FROM unnest($3::uuid[], $4::uuid[]) AS n(destination_id, id) JOIN dest ON dest.id = n.destination_id
  ON CONFLICT (event_id, destination_id) DO NOTHING
  RETURNING id, status, next_attempt_at
)
SELECT id, next_attempt_at FROM added WHERE status = 'queued'
UNION ALL
SELECT id, next_attempt_at FROM deliveries WHERE organization_id = $1 AND event_id = $2 AND status = 'queued'`;

const LOAD = `
SELECT v.id AS v_id, v.event_id, v.status::text AS v_status, v.attempt_count, v.next_attempt_at AS v_next,
  v.failure_reason AS v_reason, v.last_error AS v_error, v.delivered_at AS v_delivered, d.*
FROM deliveries v JOIN destinations d ON d.id = v.destination_id
WHERE v.organization_id = $1 AND v.id = $2`;

const RECORD = `
WITH attempt AS (
  INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, destination_id, target_url,
    response_status, response_body, error, duration_ms, started_at, finished_at)
  SELECT $3, v.event_id, v.organization_id, $4, 'destination', v.destination_id, $5, $6, $7, $8, $9, ${at(10)}, ${at(11)}
  FROM deliveries v WHERE v.organization_id = $1 AND v.id = $2 AND v.status = 'queued'
  RETURNING 1
)
UPDATE deliveries v SET
  status = $12::"DeliveryStatus",
  attempt_count = v.attempt_count + (SELECT count(*) FROM attempt)::int,
  next_attempt_at = ${at(13)},
  failure_reason = CASE WHEN $12 = 'delivered' THEN NULL ELSE coalesce($14, v.failure_reason) END,
  last_error = $15,
  delivered_at = coalesce(${at(16)}, v.delivered_at),
  updated_at = ${UTC_NOW}
WHERE v.organization_id = $1 AND v.id = $2 AND v.status = 'queued'`;

// Pauses one queued delivery while its destination is unhealthy (the destination row read FOR SHARE: see FAN_OUT).
const PAUSE_ONE = `
WITH dest AS (
  SELECT d.health::text AS health FROM destinations d JOIN deliveries v ON v.destination_id = d.id
  WHERE v.organization_id = $1 AND v.id = $2 FOR SHARE OF d
), paused AS (
  UPDATE deliveries SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 AND status = 'queued' AND (SELECT health FROM dest) = 'unhealthy'
  RETURNING id
)
SELECT (SELECT health FROM dest) AS health, (SELECT count(*) FROM paused)::int AS paused`;

const MARK_FAILING = `
WITH set AS (
  UPDATE destinations SET failing_since = ${at(3)}
  WHERE organization_id = $1 AND id = $2 AND failing_since IS NULL RETURNING failing_since
)
SELECT coalesce((SELECT failing_since FROM set),
  (SELECT failing_since FROM destinations WHERE organization_id = $1 AND id = $2)) AS failing_since`;

const CLEAR_FAILING = `UPDATE destinations SET failing_since = NULL
  WHERE organization_id = $1 AND id = $2 AND failing_since IS NOT NULL`;

const TURN_UNHEALTHY = `UPDATE destinations
  SET health = 'unhealthy', unhealthy_reason = $3, unhealthy_since = ${at(4)}, updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 AND health = 'healthy' RETURNING id`;

// $3: the delivery whose attempt turned the destination (its own outcome is stored after), or null.
const PAUSE_QUEUED = `UPDATE deliveries SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND destination_id = $2 AND status = 'queued' AND ($3::uuid IS NULL OR id <> $3::uuid)
  RETURNING id`;

// Overdue or (after Redis lost its data) every queued delivery, paged by id, across organizations.
const QUEUED_PAGE = (extra: string) => `
SELECT id, organization_id, next_attempt_at FROM deliveries
WHERE status = 'queued' ${extra} AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $1`;
const FIND_OVERDUE = QUEUED_PAGE(`AND next_attempt_at < ${at(3)}`);
const FIND_QUEUED = QUEUED_PAGE('');

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

interface LoadRow {
  v_id: string;
  event_id: string;
  v_status: DeliveryStatus;
  attempt_count: number;
  v_next: Date | null;
  v_reason: string | null;
  v_error: string | null;
  v_delivered: Date | null;
  [column: string]: unknown;
}

// pg names the destination's columns in snake_case: the record wants Prisma's field names.
function destinationOf(row: LoadRow): DestinationRecord {
  return toDestinationRecord({
    id: row.id as string,
    organizationId: row.organization_id as string,
    ruleId: row.provider_id as string,
    name: row.name as string,
    targetUrl: row.target_url as string,
    filter: row.filter,
    active: row.active as boolean,
    description: row.description as string | null,
    signingSecret: row.signing_secret as string | null,
    outboundHeaders: row.outbound_headers,
    deliveryPolicy: row.delivery_policy,
    unhealthyAfterSeconds: row.unhealthy_after_seconds as number | null,
    health: row.health as DestinationRecord['health'],
    unhealthyReason: row.unhealthy_reason as string | null,
    unhealthySince: row.unhealthy_since as Date | null,
    failingSince: row.failing_since as Date | null,
    transform: row.transform as string | null,
    forwardPathQuery: row.forward_path_query as boolean,
    rateLimit: row.rate_limit,
    maxConcurrency: row.max_concurrency as number | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  });
}

const refOf = (r: { id: string; organization_id: string; next_attempt_at: Date | null }): QueuedDeliveryRef => ({
  id: r.id,
  organizationId: r.organization_id as OrgId,
  nextAttemptAt: r.next_attempt_at,
});

export function createDeliveryRepository(pool: pg.Pool) {
  return {
    /** Creates the event's deliveries to these destinations (idempotently); answers its queued deliveries. */
    async fanOut(orgId: OrgId, eventId: string, destinationIds: readonly string[]): Promise<QueuedDeliveryRef[]> {
      const ids = destinationIds.map(() => uuidv7());
      const { rows } = await pool.query<{ id: string; next_attempt_at: Date | null }>(FAN_OUT, [
        orgId,
        eventId,
        destinationIds,
        ids,
      ]);
      return rows.map((r) => ({ id: r.id, organizationId: orgId, nextAttemptAt: r.next_attempt_at }));
    },

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

    /** A delivery and its destination as they are committed; null: gone (its event or destination deleted). */
    async load(orgId: OrgId, id: string): Promise<{ delivery: DeliveryRecord; destination: DestinationRecord } | null> {
      const { rows } = await pool.query<LoadRow>(LOAD, [orgId, id]);
      const row = rows[0];
      if (!row) return null;
      const destination = destinationOf(row);
      const delivery: DeliveryRecord = {
        id: row.v_id,
        organizationId: orgId,
        eventId: row.event_id,
        destinationId: destination.id,
        status: row.v_status,
        attemptCount: row.attempt_count,
        nextAttemptAt: row.v_next,
        failureReason: row.v_reason,
        lastError: row.v_error,
        deliveredAt: row.v_delivered,
      };
      return { delivery, destination };
    },

    /** Stores an attempt and the delivery's new state, only while the delivery is queued; false: it was not. */
    async record(orgId: OrgId, id: string, attempt: NewAttempt, update: DeliveryUpdate): Promise<boolean> {
      const { rowCount } = await pool.query(RECORD, [
        orgId,
        id,
        uuidv7(),
        attempt.attemptNumber,
        attempt.targetUrl,
        attempt.responseStatus,
        toStorableText(attempt.responseBody),
        toStorableText(attempt.error),
        attempt.durationMs,
        attempt.startedAt,
        attempt.finishedAt,
        update.status,
        update.status === 'queued' ? update.nextAttemptAt : null,
        update.status === 'failed' ? update.reason : null,
        update.status === 'delivered' ? null : update.error,
        update.status === 'delivered' ? update.at : null,
      ]);
      return (rowCount ?? 0) > 0;
    },

    /** Pauses a queued delivery of an unhealthy destination; `health` as committed (null: gone). */
    async pause(orgId: OrgId, id: string): Promise<{ health: 'healthy' | 'unhealthy' | null; paused: boolean }> {
      const { rows } = await pool.query<{ health: 'healthy' | 'unhealthy' | null; paused: number }>(PAUSE_ONE, [
        orgId,
        id,
      ]);
      return { health: rows[0]?.health ?? null, paused: (rows[0]?.paused ?? 0) > 0 };
    },

    async markFailing(orgId: OrgId, destinationId: string, when: Date): Promise<Date | null> {
      const { rows } = await pool.query<{ failing_since: Date | null }>(MARK_FAILING, [orgId, destinationId, when]);
      return rows[0]?.failing_since ?? null;
    },

    async clearFailing(orgId: OrgId, destinationId: string): Promise<void> {
      await pool.query(CLEAR_FAILING, [orgId, destinationId]);
    },

    /**
     * Turns a healthy destination unhealthy and pauses its queued deliveries (all but `causeId`), in one
     * transaction; null: it was unhealthy already (or is gone).
     */
    markUnhealthy(
      orgId: OrgId,
      destinationId: string,
      reason: UnhealthyReason,
      when: Date,
      causeId: string | null,
    ): Promise<{ pausedIds: string[] } | null> {
      return withTransaction(pool, async (client) => {
        const turned = await client.query(TURN_UNHEALTHY, [orgId, destinationId, reason, when]);
        if (turned.rowCount === 0) return null;
        const { rows } = await client.query<{ id: string }>(PAUSE_QUEUED, [orgId, destinationId, causeId]);
        return { pausedIds: rows.map((r) => r.id) };
      });
    },

    /** Queued deliveries due before `dueBefore` (their job may be lost), paged by id. */
    async findOverdue(dueBefore: Date, limit: number, afterId?: string): Promise<QueuedDeliveryRef[]> {
      const { rows } = await pool.query(FIND_OVERDUE, [limit, afterId ?? null, dueBefore]);
      return rows.map(refOf);
    },

    /** Every queued delivery, paged by id: used after Redis lost its data. */
    async findQueuedPage(limit: number, afterId?: string): Promise<QueuedDeliveryRef[]> {
      const { rows } = await pool.query(FIND_QUEUED, [limit, afterId ?? null]);
      return rows.map(refOf);
    },

    async countQueued(): Promise<number> {
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM deliveries WHERE status = 'queued'`);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
