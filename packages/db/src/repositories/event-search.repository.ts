import { DEFAULT_SENSITIVE_HEADERS } from '@relay/core';
import type pg from 'pg';
import { SEARCH_HEADERS, SEARCH_TEXT } from './event.sql';

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
SELECT e.id, e.organization_id, ${SEARCH_TEXT('e', '$2')} FROM events e JOIN batch b ON b.event_id = e.id
ON CONFLICT (event_id) DO NOTHING`;

const indexOne = (text: string) => `
WITH one AS (DELETE FROM event_search_pending WHERE event_id = $1 RETURNING event_id)
INSERT INTO event_search (event_id, organization_id, search_text)
SELECT e.id, e.organization_id, ${text} FROM events e JOIN one ON one.event_id = e.id
ON CONFLICT (event_id) DO NOTHING`;

// A body Postgres cannot read as UTF-8 (stored around the api, which refuses such bodies) is indexed by its
// escaped bytes: searchable by its ASCII parts, and never holding back the events after it.
const ESCAPED_TEXT = `e.source || ' ' || encode(e.body, 'escape') || ' ' || ${SEARCH_HEADERS('e', '$2')}`;

// SQLSTATE class 22: data exceptions (22021: bytes that are not valid UTF-8).
const isDataError = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
};

/** `sensitiveHeaders`: header names left out of the search text (SENSITIVE_HEADERS). */
export function createEventSearchRepository(
  pool: pg.Pool,
  sensitiveHeaders: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
) {
  const hidden = [...sensitiveHeaders];
  async function indexOneByOne(limit: number): Promise<number> {
    const { rows } = await pool.query<{ event_id: string }>(
      'SELECT event_id FROM event_search_pending ORDER BY event_id LIMIT $1',
      [limit],
    );
    let indexed = 0;
    for (const { event_id: id } of rows) {
      const result = await pool.query(indexOne(SEARCH_TEXT('e', '$2')), [id, hidden]).catch((err: unknown) => {
        if (!isDataError(err)) throw err;
        return pool.query(indexOne(ESCAPED_TEXT), [id, hidden]);
      });
      indexed += result.rowCount ?? 0;
    }
    return indexed;
  }

  return {
    /** Indexes up to `limit` pending events; returns how many were indexed. */
    async indexPending(limit: number): Promise<number> {
      try {
        return (await pool.query(INDEX_PENDING, [limit, hidden])).rowCount ?? 0;
      } catch (err) {
        // One event of the batch cannot be read as text: the batch goes one event at a time.
        if (!isDataError(err)) throw err;
        return indexOneByOne(limit);
      }
    },
    /** Pending events, counted up to `cap` (the indexer only needs to know whether the bound is reached). */
    async countPending(cap: number): Promise<number> {
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM (SELECT 1 FROM event_search_pending LIMIT $1) capped',
        [cap],
      );
      return rows[0]!.n;
    },
  };
}

export type EventSearchRepository = ReturnType<typeof createEventSearchRepository>;
