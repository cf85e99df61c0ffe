import type { OrgId } from '@relay/core';
import type pg from 'pg';

/** An organization and its own retention override (null: the install-wide setting applies). */
export interface RetentionOrganization {
  id: OrgId;
  slug: string;
  retentionDays: number | null;
}

/** What one organization's retention deletes: events last changed before these moments. */
export interface EventCutoffs {
  /** Delivered events and acknowledged failures last changed before this are deleted. */
  before: Date;
  /** Failures nobody acknowledged are kept until this hard maximum (never later than `before`). */
  unacknowledgedBefore: Date;
}

/** Rows one batch deleted, per table. */
export interface EventBatchResult {
  events: number;
  attempts: number;
  searchPending: number;
  /** The creation time of the batch's newest event: the next batch starts there (null: none deleted). */
  reached: Date | null;
}

export interface DueCounts {
  events: number;
  attempts: number;
}

const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

// The statuses that may be deleted, as an allow-list: delivered and ignored events (an ignored one is
// kept and deleted like a delivered one), and failures that were acknowledged or passed the hard maximum.
// Queued events (and any status added later, such as paused) are never deleted by retention, however old.
// Its destination deliveries (routing) go with an event (the trigger relay_delete_event_rows), so an event is kept as long as
// one of them is unfinished (queued, paused) or failed unacknowledged within the hard maximum, as events are.
const DELETABLE = `((e.status IN ('delivered', 'ignored')
  OR (e.status = 'failed' AND (e.acknowledged_at IS NOT NULL OR e.updated_at < ${at(4)})))
  AND NOT EXISTS (SELECT 1 FROM deliveries v WHERE v.event_id = e.id AND (v.status IN ('queued', 'paused')
    OR (v.status = 'failed' AND v.acknowledged_at IS NULL AND v.updated_at >= ${at(4)}))))`;

// One organization's due events, walking its (organization_id, created_at) index from where the previous batch stopped
// ($2, a creation time), so kept rows (queued, unacknowledged failures, and those changed since the cutoff) are read
// once per run rather than once per batch. events has no index on updated_at (an outcome's update changes no indexed
// column, migration 20261207100000_hot_outcomes), and needs none here: every write keeps updated_at >= created_at
// (ingest sets both to now(), every later change sets updated_at to now(); the live feed's replay relies on it too), so
// an event last changed before the cutoff was created before it, and `created_at < before` bounds the walk while
// `updated_at < before` stays the condition.
const DUE = `e.organization_id = $1 AND e.created_at >= ${at(2)} AND e.created_at < ${at(3)}
  AND e.updated_at < ${at(3)} AND ${DELETABLE}`;

// One batch in one statement (its own short transaction): lock up to $5 due events, oldest first, skipping rows
// another transaction holds (a delivery outcome, an admin's retry: they are looked at again next run), delete their
// children explicitly (to count them; the trigger relay_delete_event_rows then finds none of them, and deletes the
// rest, their event_open rows among them) and the events.
export const DELETE_EVENT_BATCH = `
WITH batch AS (
  SELECT e.id FROM events e WHERE ${DUE} ORDER BY e.created_at LIMIT $5 FOR UPDATE SKIP LOCKED
),
attempts AS (DELETE FROM delivery_attempts WHERE event_id IN (SELECT id FROM batch) RETURNING 1),
pending AS (DELETE FROM event_search_pending WHERE event_id IN (SELECT id FROM batch) RETURNING 1),
gone AS (DELETE FROM events WHERE id IN (SELECT id FROM batch) RETURNING created_at)
SELECT (SELECT count(*) FROM gone)::int AS events, (SELECT count(*) FROM attempts)::int AS attempts,
  (SELECT count(*) FROM pending)::int AS search_pending,
  (SELECT max(created_at) FROM gone) AS reached`;

// The dry run's count of DUE from the start ($2 = EPOCH), with their attempts.
export const COUNT_DUE_EVENTS = `WITH due AS (SELECT e.id FROM events e WHERE ${DUE})
SELECT (SELECT count(*) FROM due)::int AS events,
  (SELECT count(*) FROM delivery_attempts a WHERE a.event_id IN (SELECT id FROM due))::int AS attempts`;

// Audit entries of every organization (platform entries and those of deleted organizations too),
// oldest first over audit_entries_created_at_idx.
const DELETE_AUDIT_BATCH = `
DELETE FROM audit_entries WHERE id IN (
  SELECT id FROM audit_entries WHERE created_at < ${at(1)} ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

// Deduplication keys whose window has passed (all organizations), oldest first over
// event_dedup_expires_at_idx. They are no user data, so they go whatever the retention settings say.
const DELETE_EXPIRED_DEDUP_BATCH = `
DELETE FROM event_dedup WHERE (organization_id, provider_id, dedup_key) IN (
  SELECT organization_id, provider_id, dedup_key FROM event_dedup WHERE expires_at <= ${at(1)}
  ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

const EPOCH = new Date(0);

// Retention is the second reader that works across organizations (after the sweeper): it sees ids and
// times only. Every statement is bounded by a batch size, so no lock is held for long.
export function createRetentionRepository(pool: pg.Pool) {
  return {
    async listOrganizations(): Promise<RetentionOrganization[]> {
      const { rows } = await pool.query<{ id: string; slug: string; retention_days: number | null }>(
        'SELECT id, slug, retention_days FROM organizations ORDER BY slug',
      );
      return rows.map((r) => ({ id: r.id as OrgId, slug: r.slug, retentionDays: r.retention_days }));
    },

    /** Deletes up to `limit` due events of an organization (with their attempts and search rows). */
    async deleteEventBatch(
      orgId: OrgId,
      cutoffs: EventCutoffs,
      limit: number,
      from: Date = EPOCH,
    ): Promise<EventBatchResult> {
      const { rows } = await pool.query<{
        events: number;
        attempts: number;
        search_pending: number;
        reached: Date | null;
      }>(DELETE_EVENT_BATCH, [
        orgId,
        from.toISOString(),
        cutoffs.before.toISOString(),
        cutoffs.unacknowledgedBefore.toISOString(),
        limit,
      ]);
      const row = rows[0]!;
      return {
        events: row.events,
        attempts: row.attempts,
        searchPending: row.search_pending,
        reached: row.reached,
      };
    },

    /** Deletes up to `limit` audit entries created before `before`; returns how many. */
    async deleteAuditBatch(before: Date, limit: number): Promise<number> {
      return (await pool.query(DELETE_AUDIT_BATCH, [before.toISOString(), limit])).rowCount ?? 0;
    },

    /** Deletes up to `limit` deduplication keys that expired at or before `now`; returns how many. */
    async deleteExpiredDedupBatch(now: Date, limit: number): Promise<number> {
      return (await pool.query(DELETE_EXPIRED_DEDUP_BATCH, [now.toISOString(), limit])).rowCount ?? 0;
    },

    /** How many events and attempts of an organization are due now (the dry run; deletes nothing). */
    async countDueEvents(orgId: OrgId, cutoffs: EventCutoffs): Promise<DueCounts> {
      const { rows } = await pool.query<DueCounts>(COUNT_DUE_EVENTS, [
        orgId,
        EPOCH.toISOString(),
        cutoffs.before.toISOString(),
        cutoffs.unacknowledgedBefore.toISOString(),
      ]);
      return rows[0]!;
    },

    /** Audit entries created before `before`, per organization (null: platform entries). */
    async countDueAudit(before: Date): Promise<Map<string | null, number>> {
      const { rows } = await pool.query<{ organization_id: string | null; count: number }>(
        `SELECT organization_id, count(*)::int AS count FROM audit_entries WHERE created_at < ${at(1)}
         GROUP BY organization_id`,
        [before.toISOString()],
      );
      return new Map(rows.map((r) => [r.organization_id, r.count]));
    },
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;
