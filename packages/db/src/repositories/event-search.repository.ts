import type pg from 'pg';
import { SEARCH_TEXT } from './event.sql';

// Moves up to `limit` pending events into event_search in one statement. SKIP LOCKED lets every
// worker run the indexer at once without waiting for, or duplicating, another's batch, and a search
// sees each event in exactly one of the two tables (the move is one transaction).
const INDEX_PENDING = `
WITH batch AS (
  DELETE FROM event_search_pending WHERE event_id IN (
    SELECT event_id FROM event_search_pending ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING event_id
)
INSERT INTO event_search (event_id, organization_id, search_text)
SELECT e.id, e.organization_id, ${SEARCH_TEXT('e')} FROM events e JOIN batch b ON b.event_id = e.id
ON CONFLICT (event_id) DO NOTHING`;

export function createEventSearchRepository(pool: pg.Pool) {
  return {
    /** Indexes up to `limit` pending events; returns how many were indexed. */
    async indexPending(limit: number): Promise<number> {
      const result = await pool.query(INDEX_PENDING, [limit]);
      return result.rowCount ?? 0;
    },
    /** Pending events, counted up to `cap` (all of them when no cap is given). */
    async countPending(cap?: number): Promise<number> {
      const { rows } = await pool.query<{ n: number }>(
        cap === undefined
          ? 'SELECT count(*)::int AS n FROM event_search_pending'
          : 'SELECT count(*)::int AS n FROM (SELECT 1 FROM event_search_pending LIMIT $1) capped',
        cap === undefined ? [] : [cap],
      );
      return rows[0]!.n;
    },
  };
}

export type EventSearchRepository = ReturnType<typeof createEventSearchRepository>;
