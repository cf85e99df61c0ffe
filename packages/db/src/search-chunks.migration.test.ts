import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_ORGANIZATION_ID, termSearchKeys } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase } from './database';
import { createEventSearchRepository } from './repositories/event-search.repository';

const migration = (name: string) =>
  readFileSync(path.join(__dirname, '../../../prisma/migrations', name, 'migration.sql'), 'utf8');
const ORG = DEFAULT_ORGANIZATION_ID;

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
const query = (sql: string, params: unknown[] = []) => database().pool.query(sql, params);

beforeAll(async () => {
  // Back to the schema before both migrations: one trigram search row per event.
  await query(`
    DROP TRIGGER events_unindex_deleted ON events;
    DROP FUNCTION relay_unindex_deleted_events();
    DROP FUNCTION relay_search_candidates(uuid, integer[]);
    DROP TABLE event_search_chunks, event_search_escaped;
    CREATE TABLE event_search (
      event_id uuid PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL,
      search_text text NOT NULL);`);
});

// Each upgrade sends every indexed event back to the indexer, which builds the chunks in the background; what an
// old row held (a text written before sensitive headers were left out, keys of another kind) is gone with it.
describe('migrations: search in chunks', () => {
  const seed = (search?: 'pending') =>
    seedEvents(database().pool, {
      organizationId: ORG,
      count: search ? 1 : 3,
      status: search ? 'queued' : 'delivered',
      changedAt: new Date(),
      body: '{"note":"upgrade-needle","sha":"6113728f27ae82c7"}',
      ...(search ? { search } : {}),
    });
  let all: string[] = [];

  it('search_chunks moves the events of event_search back to pending', async () => {
    const indexed = await seed();
    const pending = await seed('pending');
    all = [...indexed, ...pending].sort();
    await query(
      `INSERT INTO event_search (event_id, organization_id, search_text)
       SELECT id, organization_id, 'seed {"note":"upgrade-needle"} {"x-api-key":"secret123"}' FROM events
       WHERE id = ANY($1::uuid[])`,
      [indexed],
    );

    await query(migration('20261204050000_search_chunks'));

    expect((await query("SELECT 1 FROM pg_tables WHERE tablename = 'event_search'")).rows).toEqual([]);
    const { rows } = await query('SELECT event_id FROM event_search_pending');
    expect(rows.map((r) => r.event_id).sort()).toEqual(all);
  });

  it('search_chunk_keys moves the events of the chunks back to pending and drops the keys kept per event', async () => {
    // An index of that version: two chunks (one stale), their events' own keys, nothing pending.
    await query(
      `
      WITH c AS (
        INSERT INTO event_search_chunks (organization_id, event_ids, keys, stale)
        VALUES ($1, $2::uuid[], '{1,2,3}', false), ($1, $3::uuid[], '{4}', true) RETURNING id, event_ids)
      INSERT INTO event_search_keys (event_id, organization_id, chunk_id, keys)
      SELECT x, $1, c.id, '{5}' FROM c CROSS JOIN LATERAL unnest(c.event_ids) x`,
      [ORG, all.slice(0, 2), all.slice(2)],
    );
    await query('DELETE FROM event_search_pending');

    await query(migration('20261205000000_search_chunk_keys'));

    expect((await query("SELECT 1 FROM pg_tables WHERE tablename = 'event_search_keys'")).rows).toEqual([]);
    expect((await query('SELECT 1 FROM event_search_chunks')).rows).toEqual([]);
    const { rows } = await query('SELECT event_id FROM event_search_pending');
    expect(rows.map((r) => r.event_id).sort()).toEqual(all);
  });

  it('the indexer puts the events in chunks of the new keys, and a search asks them', async () => {
    expect(await createEventSearchRepository(database().pool).indexPending(100)).toBe(4);
    const { rows: chunks } = await query(
      `SELECT cardinality(event_ids) AS n, keys @> $1::int[] AS needle, keys @> $2::int[] AS sha,
         keys @> $3::int[] AS secret
       FROM event_search_chunks`,
      [termSearchKeys('upgrade-needle'), termSearchKeys('13728F27AE'), termSearchKeys('secret123')],
    );
    expect(chunks).toEqual([{ n: 4, needle: true, sha: true, secret: false }]);
    const { rows } = await query('SELECT x.id FROM relay_search_candidates($1, $2::int[]) AS x(id)', [
      ORG,
      termSearchKeys('13728f27ae'),
    ]);
    expect(rows.map((r) => r.id).sort()).toEqual(all);
  });
});
