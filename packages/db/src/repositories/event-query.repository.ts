import type { EventStatus, OrgId } from '@relay/core';
import type pg from 'pg';
import { eventWhere, type EventFilter } from './event-filter.sql';
import type { NewAttempt } from './event.repository';

export interface EventSummary {
  id: string;
  source: string;
  status: EventStatus;
  providerId: string | null;
  targetUrl: string | null;
  attemptCount: number;
  failureReason: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  acknowledgedAt: Date | null;
}

export interface EventDetail extends EventSummary {
  body: Buffer;
  headers: Record<string, string>;
  lastError: string | null;
  nextAttemptAt: Date | null;
  updatedAt: Date;
}

/** A stored attempt, main or hook. */
export type AttemptRecord = NewAttempt & { id: string; hookId: string | null };

const SUMMARY = `id, source, status, provider_id AS "providerId", target_url AS "targetUrl",
  attempt_count AS "attemptCount", failure_reason AS "failureReason", created_at AS "createdAt",
  delivered_at AS "deliveredAt", acknowledged_at AS "acknowledgedAt"`;

/** Up to this many matches, a page's `total` is an exact count; above, the planner's estimate. */
export const EXACT_COUNT_CAP = 10_000;

// Reads for the event history API. Every statement is scoped to one organization.
export function createEventQueryRepository(pool: pg.Pool) {
  return {
    async page(
      orgId: OrgId,
      filter: EventFilter,
      page: number,
      perPage: number,
    ): Promise<{ events: EventSummary[]; total: number; totalExact: boolean }> {
      const { where, params } = eventWhere(orgId, filter);
      const [rows, count] = await Promise.all([
        pool.query<EventSummary>(
          `SELECT ${SUMMARY} FROM events WHERE ${where}
           ORDER BY created_at DESC, id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
          params,
        ),
        // Counted up to the cap only: past it, the exact number is not worth a scan of every match.
        pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT 1 FROM events WHERE ${where} LIMIT ${EXACT_COUNT_CAP + 1}) capped`,
          params,
        ),
      ]);
      const counted = count.rows[0]!.n;
      if (counted <= EXACT_COUNT_CAP) return { events: rows.rows, total: counted, totalExact: true };
      const { rows: plan } = await pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM events WHERE ${where}`,
        params,
      );
      const estimate = Math.round(plan[0]!['QUERY PLAN'][0].Plan['Plan Rows']);
      // Never below what is known to exist, nor below the pages already seen.
      const seen = (page - 1) * perPage + rows.rows.length;
      return { events: rows.rows, total: Math.max(estimate, EXACT_COUNT_CAP + 1, seen), totalExact: false };
    },

    async findById(orgId: OrgId, id: string): Promise<EventDetail | null> {
      const { rows } = await pool.query<EventDetail>(
        `SELECT ${SUMMARY}, body, headers, last_error AS "lastError", next_attempt_at AS "nextAttemptAt",
           updated_at AS "updatedAt"
         FROM events WHERE organization_id = $1 AND id = $2`,
        [orgId, id],
      );
      return rows[0] ?? null;
    },

    /** Attempts in the order they were made (main and hook kinds), or null when the event is not the organization's. */
    async attempts(orgId: OrgId, eventId: string): Promise<AttemptRecord[] | null> {
      const { rows } = await pool.query<AttemptRecord & { exists: boolean }>(
        `SELECT a.id, a.attempt_number AS "attemptNumber", a.kind, a.hook_id AS "hookId", a.target_url AS "targetUrl",
           a.response_status AS "responseStatus", a.response_body AS "responseBody", a.error,
           a.duration_ms AS "durationMs",
           a.started_at AS "startedAt", a.finished_at AS "finishedAt"
         FROM events e LEFT JOIN delivery_attempts a ON a.event_id = e.id
         WHERE e.organization_id = $1 AND e.id = $2
         ORDER BY a.started_at, a.attempt_number`,
        [orgId, eventId],
      );
      if (rows.length === 0) return null;
      return rows.filter((r) => r.id !== null);
    },

    async sources(orgId: OrgId): Promise<{ source: string; count: number }[]> {
      const { rows } = await pool.query<{ source: string; count: number }>(
        `SELECT source, count(*)::int AS count FROM events WHERE organization_id = $1
         GROUP BY source ORDER BY count DESC, source`,
        [orgId],
      );
      return rows;
    },
  };
}

export type EventQueryRepository = ReturnType<typeof createEventQueryRepository>;
