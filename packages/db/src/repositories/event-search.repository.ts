import { addSearchKeys, DEFAULT_SENSITIVE_HEADERS, SEARCH_CHUNK_EVENTS, shareCommonKeys } from '@relay/core';
import type pg from 'pg';
import { PAYLOAD, PAYLOAD_JOIN, SEARCH_HEADERS } from './event.sql';

// The pending events of one batch: SKIP LOCKED lets every worker index at once without waiting for, or
// duplicating, another's batch. A deletion takes the pending row before the event (event actions, retention and
// offboarding delete it first), so it waits for this transaction, and its trigger then sees the chunk written here.
const TAKE_PENDING = `
SELECT event_id FROM event_search_pending ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED`;

// What the search matches (SEARCH_TEXT in event.sql), with the body as bytes: the worker decodes it, so a body
// that is not UTF-8 (a row written around the api) is found here instead of failing the batch.
const LOAD_TEXTS = `
SELECT e.id, e.organization_id, e.source, ${PAYLOAD('body', 'e', 'pl')} AS body,
  ${SEARCH_HEADERS(PAYLOAD('headers', 'e', 'pl'), '$2')} AS headers
FROM events e ${PAYLOAD_JOIN('e', 'pl')} WHERE e.id = ANY($1::uuid[]) ORDER BY e.id`;

const ESCAPED_BODIES = `SELECT e.id, encode(${PAYLOAD('body', 'e', 'pl')}, 'escape') AS body
FROM events e ${PAYLOAD_JOIN('e', 'pl')} WHERE e.id = ANY($1::uuid[])`;

// The chunks' ids are taken first, so each event's own row can name its chunk.
const CHUNK_IDS = `SELECT nextval(pg_get_serial_sequence('event_search_chunks', 'id'))::text AS id FROM generate_series(1, $1)`;

// One row per chunk, its arrays as parameters (a batch of one organization's events is one or a few chunks).
const insertChunks = (count: number) =>
  `INSERT INTO event_search_chunks (id, organization_id, event_ids, keys) VALUES ${Array.from(
    { length: count },
    (_, i) => `($${4 * i + 1}::bigint, $${4 * i + 2}::uuid, $${4 * i + 3}::uuid[], $${4 * i + 4}::int[])`,
  ).join(', ')}`;

// One row per event with its own keys (windows of digits) and its chunk (a statement per SEARCH_CHUNK_EVENTS rows).
const insertEventKeys = (count: number) =>
  `INSERT INTO event_search_keys (event_id, organization_id, chunk_id, keys) VALUES ${Array.from(
    { length: count },
    (_, i) => `($${4 * i + 1}::uuid, $${4 * i + 2}::uuid, $${4 * i + 3}::bigint, $${4 * i + 4}::int[])`,
  ).join(', ')} ON CONFLICT (event_id) DO NOTHING`;

const STORED_OWN_KEYS = 'SELECT event_id, keys FROM event_search_keys WHERE event_id = ANY($1::uuid[])';

const TAKE_STALE = `SELECT id, event_ids FROM event_search_chunks WHERE stale ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`;

interface TextRow {
  id: string;
  organization_id: string;
  source: string;
  body: Buffer;
  headers: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as Postgres' convert_from reads it, or undefined where it cannot (invalid UTF-8, or a NUL). */
function bodyText(body: Buffer): string | undefined {
  try {
    const text = utf8.decode(body);
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** `sensitiveHeaders`: header names left out of the search text (SENSITIVE_HEADERS). */
export function createEventSearchRepository(
  pool: pg.Pool,
  sensitiveHeaders: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
) {
  const hidden = [...sensitiveHeaders];

  /** Each event's search text; the ids of those whose body is searched by its escaped bytes. */
  async function texts(client: pg.PoolClient, ids: string[]) {
    const { rows } = await client.query<TextRow>(LOAD_TEXTS, [ids, hidden]);
    const escaped: string[] = [];
    const bodies = new Map<string, string>();
    for (const row of rows) {
      const body = bodyText(row.body);
      if (body === undefined) escaped.push(row.id);
      else bodies.set(row.id, body);
    }
    if (escaped.length > 0) {
      const result = await client.query<{ id: string; body: string }>(ESCAPED_BODIES, [escaped]);
      for (const row of result.rows) bodies.set(row.id, row.body);
    }
    const text = (row: TextRow) => `${row.source} ${bodies.get(row.id)} ${row.headers}`;
    return { rows, text, escaped };
  }

  async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    /**
     * Indexes up to `limit` pending events in chunks of up to SEARCH_CHUNK_EVENTS per organization; returns how
     * many pending events were taken (those whose event was deleted meanwhile included).
     */
    indexPending(limit: number): Promise<number> {
      return inTransaction(async (client) => {
        const taken = (await client.query<{ event_id: string }>(TAKE_PENDING, [limit])).rows.map((r) => r.event_id);
        if (taken.length === 0) return 0;
        const { rows, text, escaped } = await texts(client, taken);
        // At most one chunk per organization and SEARCH_CHUNK_EVENTS events, plus one per organization.
        const { rows: ids } = await client.query<{ id: string }>(CHUNK_IDS, [
          Math.ceil(rows.length / SEARCH_CHUNK_EVENTS) + new Set(rows.map((r) => r.organization_id)).size,
        ]);
        const chunks: { id: string; org: string; ids: string[]; keys: Set<number>; own: Set<number>[] }[] = [];
        const open = new Map<string, (typeof chunks)[number]>();
        for (const row of rows) {
          let chunk = open.get(row.organization_id);
          if (!chunk || chunk.ids.length >= SEARCH_CHUNK_EVENTS) {
            chunk = { id: ids[chunks.length]!.id, org: row.organization_id, ids: [], keys: new Set(), own: [] };
            open.set(row.organization_id, chunk);
            chunks.push(chunk);
          }
          chunk.ids.push(row.id);
          const own = new Set<number>();
          addSearchKeys(text(row), chunk.keys, own);
          chunk.own.push(own);
        }
        // An event left with no own keys gets no row: a search reads a missing row as an empty set.
        const eventKeys = chunks.flatMap((chunk) =>
          shareCommonKeys(chunk.own, chunk.keys).flatMap((own, i) =>
            own.length > 0 ? [[chunk.ids[i], chunk.org, chunk.id, own]] : [],
          ),
        );
        const params = chunks.flatMap((c) => [c.id, c.org, c.ids, [...c.keys]]);
        if (chunks.length > 0) await client.query(insertChunks(chunks.length), params);
        for (let i = 0; i < eventKeys.length; i += SEARCH_CHUNK_EVENTS) {
          const slice = eventKeys.slice(i, i + SEARCH_CHUNK_EVENTS);
          await client.query(insertEventKeys(slice.length), slice.flat());
        }
        if (escaped.length > 0)
          await client.query(
            'INSERT INTO event_search_escaped (event_id) SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING',
            [escaped],
          );
        await client.query('DELETE FROM event_search_pending WHERE event_id = ANY($1::uuid[])', [taken]);
        return taken.length;
      });
    },
    /**
     * Recomputes the keys of up to `limit` chunks that lost events to a deletion (marked stale by the trigger
     * on events), so no key of a deleted payload stays; returns how many chunks were rebuilt.
     */
    rebuildStale(limit: number): Promise<number> {
      return inTransaction(async (client) => {
        const { rows: stale } = await client.query<{ id: string; event_ids: string[] }>(TAKE_STALE, [limit]);
        if (stale.length === 0) return 0;
        const eventIds = stale.flatMap((c) => c.event_ids);
        const { rows, text } = await texts(client, eventIds);
        const textOf = new Map(rows.map((row) => [row.id, text(row)]));
        const { rows: stored } = await client.query<{ event_id: string; keys: number[] }>(STORED_OWN_KEYS, [eventIds]);
        const storedOf = new Map(stored.map((row) => [row.event_id, new Set(row.keys)]));
        for (const chunk of stale) {
          const keys = new Set<number>();
          for (const id of chunk.event_ids) {
            const eventText = textOf.get(id);
            if (eventText === undefined) continue;
            // The own keys an event's row does not hold (or all, without a row) were moved to the chunk
            // (shareCommonKeys) and stay there; those of the deleted events go.
            const own = new Set<number>();
            addSearchKeys(eventText, keys, own);
            const kept = storedOf.get(id);
            for (const key of own) if (!kept?.has(key)) keys.add(key);
          }
          await client.query('UPDATE event_search_chunks SET keys = $2::int[], stale = false WHERE id = $1', [
            chunk.id,
            [...keys],
          ]);
        }
        return stale.length;
      });
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
