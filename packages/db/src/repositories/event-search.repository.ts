import { DEFAULT_SENSITIVE_HEADERS } from '@relay/core';
import type pg from 'pg';
import { withTransaction } from '../transaction';
import { SEARCH_HEADERS, SEARCH_TEXT } from './event.sql';
import { partitionKey } from './partition-pruning';

// Moves up to `limit` pending events into event_search, in one transaction: SKIP LOCKED lets every worker run the
// indexer at once without waiting for, or duplicating, another's batch, and a search sees each event in exactly one
// of the two tables. Two statements, so that the second names the batch's partition_at range as constants
// (the pending rows carry their events' key): Postgres prunes the events partitions when it plans the read of
// their text instead of joining every partition (docs/partitioning.md "Pruning").
//
// Locks: the pending row, then its event, as every delete of events takes them (event-delete-lock-order.test.ts).
// The events are locked with SKIP LOCKED, so the indexer never waits for one: retention's batches lock the events
// they delete before their pending rows, and a wait here would close the circle. An event locked elsewhere (being
// deleted, or moved to another partition) keeps its pending row for the next batch.
const TAKE_PENDING = `
WITH candidates AS (
  SELECT event_id, partition_at FROM event_search_pending ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED
), lockable AS (
  SELECT e.id FROM events e JOIN candidates c ON c.event_id = e.id AND c.partition_at = e.partition_at
  FOR KEY SHARE OF e SKIP LOCKED
)
DELETE FROM event_search_pending p USING lockable l WHERE p.event_id = l.id
RETURNING p.event_id, p.partition_at`;

export const INDEX_TAKEN = `
INSERT INTO event_search (event_id, organization_id, search_text, partition_at)
SELECT e.id, e.organization_id, ${SEARCH_TEXT('e', '$2')}, e.partition_at FROM events e
WHERE e.id = ANY($1::uuid[]) AND e.partition_at >= $3::timestamp AND e.partition_at <= $4::timestamp
ON CONFLICT (event_id, partition_at) DO NOTHING`;

const indexOne = (text: string) => `
WITH one AS (DELETE FROM event_search_pending WHERE event_id = $1 RETURNING event_id, partition_at)
INSERT INTO event_search (event_id, organization_id, search_text, partition_at)
SELECT e.id, e.organization_id, ${text}, e.partition_at FROM events e
JOIN one ON one.event_id = e.id AND one.partition_at = e.partition_at
ON CONFLICT (event_id, partition_at) DO NOTHING`;

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
        return await withTransaction(pool, async (client) => {
          const { rows } = await client.query<{ event_id: string; partition_at: Date }>(TAKE_PENDING, [limit]);
          if (rows.length === 0) return 0;
          const keys = rows.map((r) => r.partition_at.getTime());
          const range = [keys.reduce((a, b) => Math.min(a, b)), keys.reduce((a, b) => Math.max(a, b))];
          const ids = rows.map((r) => r.event_id);
          const [from, to] = range.map((at) => partitionKey(new Date(at)));
          return (await client.query(INDEX_TAKEN, [ids, hidden, from, to])).rowCount ?? 0;
        });
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
