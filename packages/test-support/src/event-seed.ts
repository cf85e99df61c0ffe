import { v7 as uuidv7 } from 'uuid';
import { addSearchKeys, SEARCH_CHUNK_EVENTS } from '@relay/core';
import type pg from 'pg';

export interface EventSeed {
  organizationId: string;
  count: number;
  status: 'queued' | 'delivered' | 'failed' | 'paused' | 'ignored';
  /** The event's last change (updated_at), which retention measures age from; created an hour earlier. */
  changedAt: Date;
  acknowledged?: boolean;
  /** Attempt rows per event (kind main). */
  attempts?: number;
  /** Where the event's search text is: indexed (chunks of SEARCH_CHUNK_EVENTS), pending (event_search_pending) or neither. */
  search?: 'indexed' | 'pending' | 'none';
  body?: string;
  /** The moment the ids are made of (UUIDv7), so the events fall in that moment's partition; default now. */
  storedAt?: Date;
}

const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

/**
 * Stores `count` events in a given state and age straight into the database, with their open rows (event_open),
 * attempts and search rows, in one statement per table: fixtures for retention tests and sizing. Returns their ids.
 */
export async function seedEvents(db: pg.Pool | pg.Client, seed: EventSeed): Promise<string[]> {
  const changed = seed.changedAt.toISOString();
  const { rows } = await db.query<{ id: string }>(
    `WITH stored AS (
       INSERT INTO events (id, organization_id, source, target_url, body, headers, status, attempt_count,
         created_at, updated_at, delivered_at, acknowledged_at, failure_reason)
       SELECT relay_uuid7(coalesce($8::timestamptz, clock_timestamp())), $1, 'seed', 'http://target.example/hook',
         convert_to($2, 'UTF8'),
         '{"content-type":"application/json"}', $3::"EventStatus", $4, ${at(5)} - interval '1 hour', ${at(5)},
         CASE WHEN $3 = 'delivered' THEN ${at(5)} END, CASE WHEN $6 THEN ${at(5)} END,
         CASE WHEN $3 = 'failed' THEN 'http_status' END
       FROM generate_series(1, $7) RETURNING *
     ), opened AS (
       INSERT INTO event_open (id, organization_id, provider_id, status, acknowledged_at, next_attempt_at,
         created_at, updated_at)
       SELECT id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at, updated_at
       FROM stored WHERE status <> 'delivered'
     )
     SELECT id FROM stored`,
    [
      seed.organizationId,
      seed.body ?? '{"seed":true}',
      seed.status,
      seed.attempts ?? 0,
      changed,
      seed.acknowledged ?? false,
      seed.count,
      seed.storedAt?.toISOString() ?? null,
    ],
  );
  const ids = rows.map((r) => r.id);
  if ((seed.attempts ?? 0) > 0)
    await db.query(
      `INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, response_status,
         duration_ms, started_at, finished_at)
       SELECT gen_random_uuid(), e, $2, n, 'http://target.example/hook', 200, 12, ${at(3)}, ${at(3)}
       FROM unnest($1::uuid[]) e CROSS JOIN generate_series(1, $4) n`,
      [ids, seed.organizationId, changed, seed.attempts],
    );
  if (seed.search === 'indexed') {
    // Chunks of SEARCH_CHUNK_EVENTS events, keyed as the workers' indexer keys them (their text is the search's
    // text). One chunk of thousands would make every deletion's rebuild rehash thousands of texts, which the
    // indexer never has to do.
    const texts = await db.query<{ id: string; text: string }>(
      `SELECT id, source || ' ' || convert_from(body, 'UTF8') || ' ' || headers::text AS text
       FROM events WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const textOf = new Map(texts.rows.map((row) => [row.id, row.text]));
    // The seed's texts are alike: one set of own keys serves every event.
    const own = new Set<number>();
    addSearchKeys(texts.rows[0]?.text ?? '', new Set(), own);
    for (let i = 0; i < ids.length; i += SEARCH_CHUNK_EVENTS) {
      const slice = ids.slice(i, i + SEARCH_CHUNK_EVENTS);
      const keys = new Set<number>();
      for (const id of slice) addSearchKeys(textOf.get(id) ?? '', keys, new Set());
      const chunk = await db.query<{ id: string }>(
        `INSERT INTO event_search_chunks (organization_id, event_ids, keys) VALUES ($1, $2, $3) RETURNING id`,
        [seed.organizationId, slice, [...keys]],
      );
      await db.query(
        `INSERT INTO event_search_keys (event_id, organization_id, chunk_id, keys)
         SELECT unnest($1::uuid[]), $2, $3, $4::int[]`,
        [slice, seed.organizationId, chunk.rows[0]!.id, [...own]],
      );
    }
  }
  if (seed.search === 'pending')
    await db.query(`INSERT INTO event_search_pending (event_id, organization_id) SELECT unnest($1::uuid[]), $2`, [
      ids,
      seed.organizationId,
    ]);
  return ids;
}

/**
 * An id for an event a test writes by hand: a UUIDv7 of now, as ingest makes, so it falls in the partition of its
 * moment (events are partitioned by id ranges, docs/partitioning.md: a random UUID would fit no partition).
 */
export const newEventId = (): string => uuidv7();

/**
 * Brings event_open in step with events for the given events, after a test changed them by hand (SQL or Prisma):
 * the relay's own writes keep it in the same statement (packages/db/src/repositories/event-open.sql.ts).
 */
export async function reopenEvents(db: pg.Pool | pg.Client, ids: readonly string[]): Promise<void> {
  await db.query(
    `WITH current AS (SELECT * FROM events WHERE id = ANY($1::uuid[])),
     opened AS (
       INSERT INTO event_open (id, organization_id, provider_id, status, acknowledged_at, next_attempt_at,
         created_at, updated_at)
       SELECT id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at, updated_at
       FROM current WHERE status <> 'delivered'
       ON CONFLICT (id) DO UPDATE SET organization_id = EXCLUDED.organization_id, provider_id = EXCLUDED.provider_id,
         status = EXCLUDED.status, acknowledged_at = EXCLUDED.acknowledged_at,
         next_attempt_at = EXCLUDED.next_attempt_at, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
     )
     DELETE FROM event_open WHERE id = ANY($1::uuid[])
       AND id NOT IN (SELECT id FROM current WHERE status <> 'delivered')`,
    [ids],
  );
}
