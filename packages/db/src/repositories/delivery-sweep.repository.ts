import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { DELIVERY_BLOCKED } from './delivery-ordering.sql';

/** A queued delivery that needs a job: its id and when it is due. */
export interface QueuedDeliveryRef {
  id: string;
  organizationId: OrgId;
  /** Its event (deliveries are partitioned by it). */
  eventId: string;
  /** The delivery's destination: it picks the delivery's queue shard. */
  destinationId: string;
  nextAttemptAt: Date | null;
}

// Queued deliveries the sweeper may give a job, across organizations, paged by id: not those waiting for their
// ordering key at their destination (delivery-ordering.sql.ts), which have no job on purpose (the delivery that
// holds the key hands the next one its job), so re-enqueuing them would only run jobs that wait again.
const QUEUED_PAGE = (extra: string) => `
SELECT v.id, v.organization_id, v.event_id, v.destination_id, v.next_attempt_at FROM deliveries v
WHERE v.status = 'queued' ${extra} AND ($2::uuid IS NULL OR v.id > $2::uuid) AND NOT ${DELIVERY_BLOCKED('v')}
ORDER BY v.id LIMIT $1`;
const FIND_OVERDUE = QUEUED_PAGE(`AND v.next_attempt_at < ($3::timestamptz AT TIME ZONE 'UTC')`);
const FIND_QUEUED = QUEUED_PAGE('');
// The waiting ones are counted among the ordered only (ordering_key set), so the plain count stays the cheap one. A
// queued delivery always has its next attempt's time (the statements that queue one set it): the condition lets the
// count walk the (next_attempt_at, status) index past the finished deliveries, which have none.
const COUNT_QUEUED = `
SELECT (SELECT count(*) FROM deliveries WHERE next_attempt_at IS NOT NULL AND status = 'queued')
  - (SELECT count(*) FROM deliveries v WHERE v.next_attempt_at IS NOT NULL AND v.status = 'queued'
     AND v.ordering_key IS NOT NULL AND ${DELIVERY_BLOCKED('v')}) AS n`;

interface RefRow {
  id: string;
  organization_id: string;
  event_id: string;
  destination_id: string;
  next_attempt_at: Date | null;
}

const refOf = (r: RefRow): QueuedDeliveryRef => ({
  id: r.id,
  organizationId: r.organization_id as OrgId,
  eventId: r.event_id,
  destinationId: r.destination_id,
  nextAttemptAt: r.next_attempt_at,
});

/** The sweeper's reads of destination deliveries (part of the delivery repository). */
export function createDeliverySweepReads(pool: pg.Pool) {
  return {
    /** Queued deliveries due before `dueBefore` (their job may be lost), paged by id. */
    async findOverdue(dueBefore: Date, limit: number, afterId?: string): Promise<QueuedDeliveryRef[]> {
      const { rows } = await pool.query(FIND_OVERDUE, [limit, afterId ?? null, dueBefore]);
      return rows.map(refOf);
    },

    /** Every queued delivery (but those waiting for their key), paged by id: used after Redis lost its data. */
    async findQueuedPage(limit: number, afterId?: string): Promise<QueuedDeliveryRef[]> {
      const { rows } = await pool.query(FIND_QUEUED, [limit, afterId ?? null]);
      return rows.map(refOf);
    },

    /** Queued deliveries that should have a job (those waiting for their key have none). */
    async countQueued(): Promise<number> {
      const { rows } = await pool.query<{ n: string }>(COUNT_QUEUED);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
