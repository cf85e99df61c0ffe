import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_ORGANIZATION_ID, termSearchKeys } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from './database';
import { createEventSearchRepository } from './repositories/event-search.repository';

const MIGRATION = path.join(__dirname, '../../../prisma/migrations/20261204050000_search_chunks/migration.sql');
const ORG = DEFAULT_ORGANIZATION_ID;

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
let db: Database;

beforeAll(async () => {
  db = database();
  // Back to the schema before the migration: one trigram search row per event.
  await db.pool.query(`
    DROP TRIGGER events_unindex_deleted ON events;
    DROP FUNCTION relay_unindex_deleted_events();
    DROP FUNCTION relay_search_candidates(uuid, integer[], integer[]);
    DROP FUNCTION relay_search_key_shares(name, integer[]);
    DROP TABLE event_search_chunks, event_search_keys, event_search_escaped;
    CREATE TABLE event_search (
      event_id uuid PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL,
      search_text text NOT NULL);`);
});

// The upgrade sends every indexed event back to the indexer, which builds the chunks in the background;
// what an old row held (a text written before sensitive headers were left out) is gone with its table.
describe('migration: search in chunks', () => {
  it('moves indexed events back to pending, and the indexer puts them in chunks', async () => {
    const indexed = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 3,
      status: 'delivered',
      changedAt: new Date(),
      body: '{"note":"upgrade-needle"}',
    });
    const pending = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 1,
      status: 'queued',
      changedAt: new Date(),
      body: '{"note":"upgrade-needle"}',
      search: 'pending',
    });
    await db.pool.query(
      `INSERT INTO event_search (event_id, organization_id, search_text)
       SELECT id, organization_id, 'seed {"note":"upgrade-needle"} {"x-api-key":"secret123"}' FROM events
       WHERE id = ANY($1::uuid[])`,
      [indexed],
    );

    await db.pool.query(readFileSync(MIGRATION, 'utf8'));

    const { rows: tables } = await db.pool.query("SELECT 1 FROM pg_tables WHERE tablename = 'event_search'");
    expect(tables).toEqual([]);
    const { rows } = await db.pool.query<{ event_id: string }>('SELECT event_id FROM event_search_pending');
    expect(rows.map((r) => r.event_id).sort()).toEqual([...indexed, ...pending].sort());

    expect(await createEventSearchRepository(db.pool).indexPending(100)).toBe(4);
    const { rows: chunks } = await db.pool.query<{ n: number; needle: boolean; secret: boolean }>(
      `SELECT cardinality(event_ids) AS n, keys @> $1::int[] AS needle, keys @> $2::int[] AS secret
       FROM event_search_chunks`,
      [termSearchKeys('upgrade-needle').chunk, termSearchKeys('secret123').chunk],
    );
    expect(chunks).toEqual([{ n: 4, needle: true, secret: false }]);
    // The four texts hold the same own keys: they are the chunk's (shareCommonKeys), and no event has a row.
    const { rows: own } = await db.pool.query('SELECT count(*)::int AS n FROM event_search_keys');
    expect(own).toEqual([{ n: 0 }]);
  });
});
