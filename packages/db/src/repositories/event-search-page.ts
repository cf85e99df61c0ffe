import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { eventWhere, searchPattern, type EventFilter } from './event-filter.sql';
import { PAYLOAD_JOIN, SEARCH_TEXT } from './event.sql';

/** Newest events (under the other filters) a search looks through before it asks the search index. */
export const SEARCH_WALK = 500;

export interface SearchWalk {
  /** Ids of the matches among the newest events, newest first. */
  ids: string[];
  /** How many events were looked at (< SEARCH_WALK: every event under the other filters). */
  examined: number;
}

// A term found in many events is answered fastest by looking through the newest events one by one and
// stopping at a page; the chunk index answers a rare term quickly but, for a term in every payload, makes
// every event a candidate to recheck (seconds at a million events). So a search first looks
// through the newest SEARCH_WALK events (about 20 µs each), and only asks the index when they do not
// hold the page. Each event is checked by its own text, indexed or not.
export async function walkNewest(
  pool: pg.Pool,
  orgId: OrgId,
  filter: EventFilter,
  hidden: readonly string[],
): Promise<SearchWalk> {
  const { from, where, params, createdAt } = eventWhere(orgId, { ...filter, search: undefined }, hidden);
  const hiddenParam = `$${params.push(hidden)}`;
  const pattern = searchPattern(filter.search ?? '', params);
  // LATERAL: one primary-key lookup per event (a plain EXISTS may be planned as a hash join
  // over every index match, which is the slow case this walk avoids).
  const { rows } = await pool.query<{ ids: string[]; examined: number }>(
    `WITH recent AS MATERIALIZED (
       SELECT id, created_at FROM ${from} WHERE ${where} ORDER BY ${createdAt} DESC, id DESC LIMIT ${SEARCH_WALK})
     SELECT (SELECT count(*)::int FROM recent) AS examined,
       coalesce((SELECT array_agg(r.id ORDER BY r.created_at DESC, r.id DESC) FROM recent r
         CROSS JOIN LATERAL (
           SELECT 1 FROM events se ${PAYLOAD_JOIN('se', 'sp')}
           WHERE se.id = r.id AND ${SEARCH_TEXT('se', 'sp', hiddenParam)} ILIKE ${pattern}) hit),
         '{}') AS ids`,
    params,
  );
  return { ids: rows[0]!.ids, examined: rows[0]!.examined };
}
