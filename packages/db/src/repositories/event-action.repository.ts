import type { FeedStatus, OrgId } from '@relay/core';
import type pg from 'pg';
import { eventWhere, type EventFilter } from './event-filter.sql';

/** Which events a bulk action touches: explicit ids, or the list filters. */
export type EventSelection = { ids: readonly string[] } | { filter: EventFilter };

// A retry starts a new delivery run: attempts so far stay (the run's attempts are appended), the
// retry policy counts from run_start_attempt, and the event id (the webhook-id) is unchanged.
// delivered_at is cleared: it is set again by the run that delivers.
const RETRY_SET = `status = 'queued', run_start_attempt = attempt_count, next_attempt_at = now() AT TIME ZONE 'UTC',
  failure_reason = NULL, last_error = NULL, acknowledged_at = NULL, delivered_at = NULL, updated_at = now() AT TIME ZONE 'UTC'`;
const RETRYABLE = `status IN ('failed', 'delivered')`;

/** The event's state after the action (what the live feed reports), or why nothing was done. */
export type SingleActionResult = FeedStatus | 'not_found' | 'wrong_status';
const STATE = `RETURNING id, status, failure_reason, acknowledged_at IS NOT NULL AS acknowledged`;

// Writes of the event actions API. Each statement is scoped to one organization and guarded by
// the status it expects, so a concurrent delivery cannot be overwritten.
export function createEventActionRepository(pool: pg.Pool) {
  async function exists(orgId: OrgId, id: string): Promise<boolean> {
    const { rowCount } = await pool.query('SELECT 1 FROM events WHERE organization_id = $1 AND id = $2', [orgId, id]);
    return (rowCount ?? 0) > 0;
  }

  /** Selected ids, oldest first, at most `cap` (+1 to tell whether more matched). */
  function selection(
    orgId: OrgId,
    selected: EventSelection,
    cap: number,
    extra = 'TRUE',
  ): { sql: string; params: unknown[] } {
    if ('ids' in selected) {
      return {
        sql: `SELECT id FROM events WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND ${extra}`,
        params: [orgId, selected.ids],
      };
    }
    const { where, params } = eventWhere(orgId, selected.filter);
    return {
      sql: `SELECT id FROM events WHERE ${where} AND ${extra} ORDER BY created_at, id LIMIT ${cap + 1}`,
      params,
    };
  }

  async function bulk(
    statement: (ids: string) => string,
    orgId: OrgId,
    selected: EventSelection,
    cap: number,
    extra?: string,
  ) {
    const { sql, params } = selection(orgId, selected, cap, extra);
    const { rows } = await pool.query<{ id: string }>(sql, params);
    const chosen = rows.slice(0, cap).map((r) => r.id);
    // The write re-checks organization and status, so an event changed in between is skipped.
    const done = await pool.query<{ id: string }>(statement('$2::uuid[]'), [orgId, chosen]);
    return { ids: done.rows.map((r) => r.id), truncated: rows.length > cap };
  }

  return {
    async retry(orgId: OrgId, id: string): Promise<SingleActionResult> {
      const { rows } = await pool.query<FeedStatus>(
        `UPDATE events SET ${RETRY_SET} WHERE organization_id = $1 AND id = $2 AND ${RETRYABLE} ${STATE}`,
        [orgId, id],
      );
      if (rows[0]) return rows[0];
      return (await exists(orgId, id)) ? 'wrong_status' : 'not_found';
    },

    async acknowledge(orgId: OrgId, id: string): Promise<SingleActionResult> {
      const { rows } = await pool.query<FeedStatus>(
        `UPDATE events SET acknowledged_at = coalesce(acknowledged_at, now() AT TIME ZONE 'UTC'), updated_at = now() AT TIME ZONE 'UTC'
         WHERE organization_id = $1 AND id = $2 AND status = 'failed' ${STATE}`,
        [orgId, id],
      );
      if (rows[0]) return rows[0];
      return (await exists(orgId, id)) ? 'wrong_status' : 'not_found';
    },

    async delete(orgId: OrgId, id: string): Promise<boolean> {
      const { rowCount } = await pool.query('DELETE FROM events WHERE organization_id = $1 AND id = $2', [orgId, id]);
      return (rowCount ?? 0) > 0;
    },

    /** Retries the selected failed or delivered events (queued ones are skipped); returns their ids. */
    bulkRetry: (orgId: OrgId, selected: EventSelection, cap: number) =>
      bulk(
        (ids) =>
          `UPDATE events SET ${RETRY_SET} WHERE organization_id = $1 AND id = ANY(${ids}) AND ${RETRYABLE} RETURNING id`,
        orgId,
        selected,
        cap,
        RETRYABLE,
      ),

    bulkDelete: (orgId: OrgId, selected: EventSelection, cap: number) =>
      bulk(
        (ids) => `DELETE FROM events WHERE organization_id = $1 AND id = ANY(${ids}) RETURNING id`,
        orgId,
        selected,
        cap,
      ),
  };
}

export type EventActionRepository = ReturnType<typeof createEventActionRepository>;
