import { DEFAULT_SENSITIVE_HEADERS, type EventStatus, type OrgId } from '@relay/core';
import type pg from 'pg';
import { eventWhere, type EventFilter, type EventRows } from './event-filter.sql';
import { SEARCH_WALK, walkNewest } from './event-search-page';
import type { NewAttempt } from './event.repository';
import { PAYLOAD, PAYLOAD_JOIN } from './event.sql';

export interface EventSummary {
  id: string;
  source: string;
  status: EventStatus;
  ruleId: string | null;
  targetUrl: string | null;
  attemptCount: number;
  failureReason: string | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  acknowledgedAt: Date | null;
}

export interface EventDetail extends EventSummary {
  body: Buffer;
  headers: Record<string, string>;
  /** The request path after the source segment ("" if none) and its query, as received. */
  path: string;
  query: Record<string, string | string[]>;
  nextAttemptAt: Date | null;
  updatedAt: Date;
}

/** An event's destination deliveries by status (routing); all 0 when it has none. */
export interface DeliveryCounts {
  total: number;
  queued: number;
  delivered: number;
  failed: number;
  paused: number;
}

export const NO_DELIVERIES: Readonly<DeliveryCounts> = Object.freeze({
  total: 0,
  queued: 0,
  delivered: 0,
  failed: 0,
  paused: 0,
});

// One grouped statement for a page of events, over the (event_id, destination_id) unique index.
const DELIVERY_COUNTS = `
SELECT event_id, count(*)::int AS total,
  count(*) FILTER (WHERE status = 'queued')::int AS queued,
  count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE status = 'failed')::int AS failed,
  count(*) FILTER (WHERE status = 'paused')::int AS paused
FROM deliveries WHERE organization_id = $1 AND event_id = ANY($2::uuid[]) GROUP BY event_id`;

/** The destination deliveries of these events by status, in one query; an event without any is absent. */
export async function deliveryCountsOf(
  pool: pg.Pool,
  orgId: OrgId,
  eventIds: readonly string[],
): Promise<Map<string, DeliveryCounts>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await pool.query<DeliveryCounts & { event_id: string }>(DELIVERY_COUNTS, [orgId, eventIds]);
  return new Map(rows.map(({ event_id, ...counts }) => [event_id, counts]));
}

/** What a dry run reads of a stored webhook (the filter's subject). */
export interface StoredRequestRow {
  id: string;
  source: string;
  body: Buffer;
  headers: Record<string, string>;
  path: string;
  query: Record<string, string | string[]>;
}

/** A stored attempt, main or hook. */
export type AttemptRecord = Omit<NewAttempt, 'kind'> & {
  id: string;
  kind: NewAttempt['kind'] | 'destination';
  hookId: string | null;
  destinationId: string | null;
};

const SUMMARY = `id, source, status, provider_id AS "ruleId", target_url AS "targetUrl",
  attempt_count AS "attemptCount", failure_reason AS "failureReason", last_error AS "lastError",
  created_at AS "createdAt",
  delivered_at AS "deliveredAt", acknowledged_at AS "acknowledgedAt"`;

/** Up to this many matches, a page's `total` is an exact count; above, the planner's estimate. */
export const EXACT_COUNT_CAP = 10_000;

// Reads for the event history API. Every statement is scoped to one organization.
/** `sensitiveHeaders`: header names a search does not match (SENSITIVE_HEADERS). */
export function createEventQueryRepository(
  pool: pg.Pool,
  sensitiveHeaders: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
) {
  // Counted up to the cap only: past it, the exact number is not worth a scan of every match, and the planner's
  // estimate of the same statement answers. `capped`: a cheaper statement counting the same matches (see
  // destinationCount).
  async function countOrEstimate(
    { matches, params }: EventRows,
    capped?: { sql: string; params: unknown[] },
  ): Promise<{ total: number; exact: boolean }> {
    const { rows } = await pool.query<{ n: number }>(
      capped?.sql ?? `SELECT count(*)::int AS n FROM (${matches} LIMIT ${EXACT_COUNT_CAP + 1}) capped`,
      capped?.params ?? params,
    );
    if (rows[0]!.n <= EXACT_COUNT_CAP) return { total: rows[0]!.n, exact: true };
    const { rows: plan } = await pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      `EXPLAIN (FORMAT JSON) ${matches}`,
      params,
    );
    return {
      total: Math.max(Math.round(plan[0]!['QUERY PLAN'][0].Plan['Plan Rows']), EXACT_COUNT_CAP + 1),
      exact: false,
    };
  }

  // A list filtered by destination alone (the dashboard's per-destination view): its events are its deliveries'
  // (one per event and destination, of the event's organization), counted on the index led by (destination_id, status)
  // rather than joined to events one by one (5 ms instead of 150 ms for 100,000 matches among 500,000 events).
  function destinationCount(orgId: OrgId, filter: EventFilter) {
    const { destinationId, deliveryStatus, ...rest } = filter;
    if (destinationId === undefined || Object.values(rest).some((v) => v !== undefined)) return undefined;
    const status = deliveryStatus === undefined ? '' : `AND status = $3::"DeliveryStatus"`;
    return {
      sql: `SELECT count(*)::int AS n FROM (SELECT 1 FROM deliveries
              WHERE destination_id = $2::uuid AND organization_id = $1 ${status} LIMIT ${EXACT_COUNT_CAP + 1}) capped`,
      params: deliveryStatus === undefined ? [orgId, destinationId] : [orgId, destinationId, deliveryStatus],
    };
  }

  // A search whose page is among the newest events (event-search-page.ts); undefined: ask the index.
  async function fromNewest(orgId: OrgId, filter: EventFilter, page: number, perPage: number) {
    const walk = await walkNewest(pool, orgId, filter, sensitiveHeaders);
    const complete = walk.examined < SEARCH_WALK;
    if (!complete && walk.ids.length < page * perPage) return undefined;
    const ids = walk.ids.slice((page - 1) * perPage, page * perPage);
    const { rows: events } = await pool.query<EventSummary>(
      `SELECT ${SUMMARY} FROM events WHERE organization_id = $1 AND id = ANY($2::uuid[])
       ORDER BY created_at DESC, id DESC`,
      [orgId, ids],
    );
    if (complete) return { events, total: walk.ids.length, totalExact: true };
    // Many matches: their share among the newest events, times the events under the other filters.
    const base = await countOrEstimate(eventWhere(orgId, { ...filter, search: undefined }, sensitiveHeaders));
    const estimate = Math.round((walk.ids.length / walk.examined) * base.total);
    return { events, total: Math.max(estimate, walk.ids.length), totalExact: false };
  }

  // A search the newest events do not answer: its matches (the index's candidates, each checked by its text) are
  // found once for both the page and the total, which a page and a count statement would each compute. So the total
  // is exact at any size: counting what is already found costs little.
  async function fromIndex(orgId: OrgId, filter: EventFilter, page: number, perPage: number) {
    const { from, where, params } = eventWhere(orgId, filter, sensitiveHeaders);
    const { rows } = await pool.query<{ total: number; ids: string[] }>(
      `WITH hit AS MATERIALIZED (SELECT id, created_at FROM ${from} WHERE ${where})
       SELECT (SELECT count(*)::int FROM hit) AS total,
         coalesce((SELECT array_agg(p.id ORDER BY p.created_at DESC, p.id DESC) FROM (
           SELECT id, created_at FROM hit ORDER BY created_at DESC, id DESC
           LIMIT ${perPage} OFFSET ${(page - 1) * perPage}) p), '{}') AS ids`,
      params,
    );
    const { rows: events } = await pool.query<EventSummary>(
      `SELECT ${SUMMARY} FROM events WHERE organization_id = $1 AND id = ANY($2::uuid[])
       ORDER BY created_at DESC, id DESC`,
      [orgId, rows[0]!.ids],
    );
    return { events, total: rows[0]!.total, totalExact: true };
  }

  return {
    async page(
      orgId: OrgId,
      filter: EventFilter,
      page: number,
      perPage: number,
    ): Promise<{ events: EventSummary[]; total: number; totalExact: boolean }> {
      if (filter.search)
        return (await fromNewest(orgId, filter, page, perPage)) ?? fromIndex(orgId, filter, page, perPage);
      const selection = eventWhere(orgId, filter, sensitiveHeaders);
      const { from, where, params, createdAt } = selection;
      const [rows, count] = await Promise.all([
        pool.query<EventSummary>(
          `SELECT ${SUMMARY} FROM ${from} WHERE ${where}
           ORDER BY ${createdAt} DESC, id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
          params,
        ),
        countOrEstimate(selection, destinationCount(orgId, filter)),
      ]);
      // Never below what is known to exist, nor below the pages already seen.
      const seen = (page - 1) * perPage + rows.rows.length;
      return { events: rows.rows, total: Math.max(count.total, seen), totalExact: count.exact };
    },

    async findById(orgId: OrgId, id: string): Promise<EventDetail | null> {
      const { rows } = await pool.query<EventDetail>(
        `SELECT ${SUMMARY}, ${PAYLOAD('body', 'events', 'pl')} AS body,
           ${PAYLOAD('headers', 'events', 'pl')} AS headers, path, query, next_attempt_at AS "nextAttemptAt",
           updated_at AS "updatedAt"
         FROM events ${PAYLOAD_JOIN('events', 'pl')} WHERE organization_id = $1 AND id = $2`,
        [orgId, id],
      );
      return rows[0] ?? null;
    },

    /** Attempts in the order they were made (main and hook kinds), or null when the event is not the organization's. */
    async attempts(orgId: OrgId, eventId: string): Promise<AttemptRecord[] | null> {
      const { rows } = await pool.query<AttemptRecord & { exists: boolean }>(
        `SELECT a.id, a.attempt_number AS "attemptNumber", a.kind, a.hook_id AS "hookId",
           a.destination_id AS "destinationId", a.target_url AS "targetUrl",
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

    /**
     * A rule's stored webhooks for a dry run: its `newest` ones (newest first), or those of `ids` that are its
     * own (in no particular order; the caller names the ones missing).
     */
    async ruleRequests(
      orgId: OrgId,
      ruleId: string,
      pick: { newest: number } | { ids: string[] },
    ): Promise<StoredRequestRow[]> {
      const columns = `id, source, ${PAYLOAD('body', 'events', 'pl')} AS body,
        ${PAYLOAD('headers', 'events', 'pl')} AS headers, path, query`;
      const from = `events ${PAYLOAD_JOIN('events', 'pl')}`;
      const { rows } =
        'ids' in pick
          ? await pool.query<StoredRequestRow>(
              `SELECT ${columns} FROM ${from}
               WHERE organization_id = $1 AND provider_id = $2 AND id = ANY($3::uuid[])`,
              [orgId, ruleId, pick.ids],
            )
          : await pool.query<StoredRequestRow>(
              `SELECT ${columns} FROM ${from} WHERE organization_id = $1 AND provider_id = $2
               ORDER BY created_at DESC, id DESC LIMIT $3`,
              [orgId, ruleId, pick.newest],
            );
      return rows;
    },

    /** The destination deliveries of these events by status, in one query; an event without any is absent. */
    deliveryCounts: (orgId: OrgId, eventIds: readonly string[]) => deliveryCountsOf(pool, orgId, eventIds),

    async sources(orgId: OrgId): Promise<{ source: string; count: number }[]> {
      const { rows } = await pool.query<{ source: string; count: number }>(
        `SELECT source, count(*)::int AS count FROM events WHERE organization_id = $1
         GROUP BY source ORDER BY count DESC, source`,
        [orgId],
      );
      return rows;
    },

    /** These events' rules (null: the default target), which pick their queue shards; an unknown id is absent. */
    async ruleIdsOf(orgId: OrgId, ids: readonly string[]): Promise<Map<string, string | null>> {
      if (ids.length === 0) return new Map();
      const { rows } = await pool.query<{ id: string; rule_id: string | null }>(
        'SELECT id, provider_id AS rule_id FROM events WHERE organization_id = $1 AND id = ANY($2::uuid[])',
        [orgId, ids],
      );
      return new Map(rows.map((row) => [row.id, row.rule_id]));
    },
  };
}

export type EventQueryRepository = ReturnType<typeof createEventQueryRepository>;
