import { DEFAULT_SENSITIVE_HEADERS, type FeedStatus, type OrgId } from '@relay/core';
import type pg from 'pg';
import { insertAuditEntry, type AuditInput } from './audit.repository';
import { eventWhere, type EventFilter } from './event-filter.sql';
import { RELEASE_ORDERING } from './event-ordering.sql';
import { keepingOpen } from './event-open.sql';
import { CLEAR_TRANSFORMED } from './event.sql';
import { withTransaction } from '../transaction';

/** Which events a bulk action touches: explicit ids, or the list filters. */
export type EventSelection = { ids: readonly string[] } | { filter: EventFilter };

// A retry starts a new delivery run: attempts so far stay (the run's attempts are appended), the
// retry policy counts from run_start_attempt, and the event id (the webhook-id) is unchanged.
// delivered_at is cleared: it is set again by the run that delivers.
const RETRY_SET = `status = 'queued', run_start_attempt = attempt_count, next_attempt_at = now() AT TIME ZONE 'UTC',
  failure_reason = NULL, last_error = NULL, acknowledged_at = NULL, delivered_at = NULL,
  updated_at = now() AT TIME ZONE 'UTC', ${CLEAR_TRANSFORMED}`;
const RETRYABLE = `status IN ('failed', 'delivered')`;

/** The event's state after the action (what the live feed reports), or why nothing was done. */
export type SingleActionResult = FeedStatus | 'not_found' | 'wrong_status';
export interface BulkResult {
  ids: string[];
  truncated: boolean;
}
const STATE = `id, status, failure_reason, acknowledged_at IS NOT NULL AS acknowledged`;

// The head of an ordered key that has failed in its current run and still retries holds up its key; an
// admin's acknowledge gives up on it (failed, reason `acknowledged`) so the key moves on.
const ACK_BLOCKED_HEAD = keepingOpen(
  `UPDATE events SET status = 'failed', failure_reason = 'acknowledged', next_attempt_at = NULL,
  acknowledged_at = now() AT TIME ZONE 'UTC', updated_at = now() AT TIME ZONE 'UTC'
WHERE organization_id = $1 AND id = $2 AND status = 'queued' AND attempt_count > run_start_attempt
  AND EXISTS (SELECT 1 FROM event_ordering o WHERE o.event_id = events.id AND o.organization_id = $1)`,
  STATE,
);

// Writes of the event actions API. Each statement is scoped to one organization and guarded by
// the status it expects, so a concurrent delivery cannot be overwritten.
// Search-pending rows of events about to be deleted, removed first (lock order: see `delete`).
const UNPEND_EVENTS = `DELETE FROM event_search_pending WHERE organization_id = $1 AND event_id = ANY($2::uuid[])`;

/**
 * The statement choosing a bulk action's events: their ids, oldest first, at most `cap` (+1 to tell whether more
 * matched). `extra` narrows them (a clause over `events`; `add` binds a parameter and answers its placeholder).
 */
export function selectEvents(
  orgId: OrgId,
  selected: EventSelection,
  cap: number,
  hidden: readonly string[],
  extra: (add: (value: unknown) => string) => string,
): { sql: string; params: unknown[] } {
  if ('ids' in selected) {
    const params: unknown[] = [orgId, selected.ids];
    const clause = extra((value) => `$${params.push(value)}`);
    return { sql: `SELECT id FROM events WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND ${clause}`, params };
  }
  // The filter may read event_open too (EventRows): `clause` still names the event's columns bare or as `events.`.
  const { from, where, params, createdAt } = eventWhere(orgId, selected.filter, hidden);
  const clause = extra((value) => `$${params.push(value)}`);
  return {
    sql: `SELECT id FROM ${from} WHERE ${where} AND ${clause} ORDER BY ${createdAt}, id LIMIT ${cap + 1}`,
    params,
  };
}

/** `sensitiveHeaders`: header names a filter's search does not match (SENSITIVE_HEADERS). */
export function createEventActionRepository(
  pool: pg.Pool,
  sensitiveHeaders: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
) {
  // The action and its audit entry commit together; an action that changed nothing is not audited.
  async function audited<T>(
    orgId: OrgId,
    work: (client: pg.PoolClient) => Promise<T>,
    auditOf: (result: T) => AuditInput | null,
  ): Promise<T> {
    return withTransaction(pool, async (client) => {
      const result = await work(client);
      const entry = auditOf(result);
      if (entry) await insertAuditEntry(client, orgId, entry);
      return result;
    });
  }

  async function exists(client: pg.ClientBase, orgId: OrgId, id: string): Promise<boolean> {
    const { rowCount } = await client.query('SELECT 1 FROM events WHERE organization_id = $1 AND id = $2', [orgId, id]);
    return (rowCount ?? 0) > 0;
  }

  async function bulk(
    client: pg.ClientBase,
    statement: (ids: string) => string,
    orgId: OrgId,
    selected: EventSelection,
    cap: number,
    extra?: string,
    before?: string,
  ): Promise<BulkResult> {
    const { sql, params } = selectEvents(orgId, selected, cap, sensitiveHeaders, () => extra ?? 'TRUE');
    const { rows } = await client.query<{ id: string }>(sql, params);
    const chosen = rows.slice(0, cap).map((r) => r.id);
    if (before) await client.query(before, [orgId, chosen]);
    // The write re-checks organization and status, so an event changed in between is skipped.
    const done = await client.query<{ id: string }>(statement('$2::uuid[]'), [orgId, chosen]);
    return { ids: done.rows.map((r) => r.id), truncated: rows.length > cap };
  }

  const single = (orgId: OrgId, id: string, sql: string, audit: AuditInput) =>
    audited(
      orgId,
      async (client): Promise<SingleActionResult> => {
        const { rows } = await client.query<FeedStatus>(sql, [orgId, id]);
        if (rows[0]) return rows[0];
        return (await exists(client, orgId, id)) ? 'wrong_status' : 'not_found';
      },
      (result) => (typeof result === 'object' ? audit : null),
    );

  // Each action writes its audit entry (given by the caller) in the same transaction.
  return {
    retry: (orgId: OrgId, id: string, audit: AuditInput) =>
      single(
        orgId,
        id,
        keepingOpen(`UPDATE events SET ${RETRY_SET} WHERE organization_id = $1 AND id = $2 AND ${RETRYABLE}`, STATE),
        audit,
      ),

    acknowledge: (orgId: OrgId, id: string, audit: AuditInput) =>
      single(
        orgId,
        id,
        keepingOpen(
          `UPDATE events SET acknowledged_at = coalesce(acknowledged_at, now() AT TIME ZONE 'UTC'),
             updated_at = now() AT TIME ZONE 'UTC'
           WHERE organization_id = $1 AND id = $2 AND status = 'failed'`,
          STATE,
        ),
        audit,
      ),

    /** Gives up on a retrying ordered head (see ACK_BLOCKED_HEAD); answers its state and its key's next event. */
    acknowledgeBlockedHead: (orgId: OrgId, id: string, audit: AuditInput) =>
      audited(
        orgId,
        async (client): Promise<{ state: FeedStatus; next: string[] } | null> => {
          const { rows } = await client.query<FeedStatus>(ACK_BLOCKED_HEAD, [orgId, id]);
          if (!rows[0]) return null;
          const next = await client.query<{ id: string }>(RELEASE_ORDERING, [[id], [orgId]]);
          return { state: rows[0], next: next.rows.map((r) => r.id) };
        },
        (result) => (result ? audit : null),
      ),

    delete: (orgId: OrgId, id: string, audit: AuditInput): Promise<boolean> =>
      audited(
        orgId,
        async (client) => {
          // The search indexer locks a pending row, then the event (its foreign key): take them in that order
          // too, or the two deadlock and Postgres aborts one (a 500 here).
          await client.query(UNPEND_EVENTS, [orgId, [id]]);
          const { rowCount } = await client.query('DELETE FROM events WHERE organization_id = $1 AND id = $2', [
            orgId,
            id,
          ]);
          return (rowCount ?? 0) > 0;
        },
        (deleted) => (deleted ? audit : null),
      ),

    /** Retries the selected failed or delivered events (queued ones are skipped); returns their ids. */
    bulkRetry: (orgId: OrgId, selected: EventSelection, cap: number, audit: (result: BulkResult) => AuditInput) =>
      audited(
        orgId,
        (client) =>
          bulk(
            client,
            (ids) =>
              keepingOpen(
                `UPDATE events SET ${RETRY_SET} WHERE organization_id = $1 AND id = ANY(${ids}) AND ${RETRYABLE}`,
                'id',
              ),
            orgId,
            selected,
            cap,
            RETRYABLE,
          ),
        audit,
      ),

    bulkDelete: (orgId: OrgId, selected: EventSelection, cap: number, audit: (result: BulkResult) => AuditInput) =>
      audited(
        orgId,
        (client) =>
          bulk(
            client,
            (ids) => `DELETE FROM events WHERE organization_id = $1 AND id = ANY(${ids}) RETURNING id`,
            orgId,
            selected,
            cap,
            undefined,
            UNPEND_EVENTS,
          ),
        audit,
      ),
  };
}

export type EventActionRepository = ReturnType<typeof createEventActionRepository>;
