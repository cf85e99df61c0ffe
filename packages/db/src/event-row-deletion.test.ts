import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from './database';

// No table has a foreign key into the partitioned events (migration 20261205600000_unchecked_event_keys): the
// trigger relay_delete_event_rows deletes what the keys' cascades did, for any DELETE of events.
const ORG = DEFAULT_ORGANIZATION_ID;
const TABLES = [
  'event_payloads',
  'delivery_attempts',
  'deliveries',
  'event_search_keys',
  'event_search_pending',
  'event_search_escaped',
  'event_ordering',
  'event_open',
] as const;
// event_open names the event by its own key; the others by event_id.
const keyOf = (table: (typeof TABLES)[number]) => (table === 'event_open' ? 'id' : 'event_id');

let testDb: TestDatabase;
let db: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 2 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

/** One row in every table that names an event, for each of `ids`. */
async function nameEverywhere(ids: string[]): Promise<void> {
  const q = (sql: string) => db.pool.query(sql, [ids, ORG]);
  const { rows } = await db.pool.query<{ rule: string; destination: string }>(
    `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
       VALUES (gen_random_uuid(), $1, 'r-' || gen_random_uuid(), 'routed', 'http://p.example/', now()) RETURNING id)
     INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
     SELECT gen_random_uuid(), $1, rule.id, 'crm', 'http://d.example/', now() FROM rule
     RETURNING provider_id AS rule, id AS destination`,
    [ORG],
  );
  const { rule, destination } = rows[0]!;
  await q(`INSERT INTO event_payloads (event_id, body, headers) SELECT u, '\\x7b7d', '{}' FROM unnest($1::uuid[]) u
    WHERE $2::uuid IS NOT NULL`);
  await q(`INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms,
      started_at, finished_at)
    SELECT relay_uuid7(), u, $2, 1, 'http://t.example/', 1, now(), now() FROM unnest($1::uuid[]) u`);
  await db.pool.query(
    `INSERT INTO deliveries (id, organization_id, event_id, destination_id, updated_at)
     SELECT gen_random_uuid(), $2, u, $3, now() FROM unnest($1::uuid[]) u`,
    [ids, ORG, destination],
  );
  await q(`INSERT INTO event_search_keys (event_id, organization_id, chunk_id, keys)
    SELECT u, $2, 1, '{1}' FROM unnest($1::uuid[]) u`);
  await q('INSERT INTO event_search_pending (event_id, organization_id) SELECT u, $2 FROM unnest($1::uuid[]) u');
  await q('INSERT INTO event_search_escaped (event_id) SELECT u FROM unnest($1::uuid[]) u WHERE $2::uuid IS NOT NULL');
  await db.pool.query(
    `INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key)
     SELECT u, $2, $3, 'k' FROM unnest($1::uuid[]) u`,
    [ids, ORG, rule],
  );
}

const rowsOf = async (ids: string[]) => {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE ${keyOf(table)} = ANY($1::uuid[])`,
      [ids],
    );
    counts[table] = rows[0]!.n;
  }
  return counts;
};
const each = (n: number) => Object.fromEntries(TABLES.map((t) => [t, n]));

describe('rows naming a deleted event', () => {
  it('go with it, by a delete of events or its organization, and the others stay', async () => {
    // Failed: not delivered, so each has its event_open row too (seedEvents writes it).
    const seed = { organizationId: ORG, status: 'failed', changedAt: new Date() } as const;
    const [gone, kept] = [
      await seedEvents(db.pool, { ...seed, count: 3 }),
      await seedEvents(db.pool, { ...seed, count: 1 }),
    ];
    await nameEverywhere([...gone, ...kept]);
    expect(await rowsOf(gone)).toEqual(each(3));

    await db.pool.query('DELETE FROM events WHERE id = ANY($1::uuid[])', [gone]);
    expect(await rowsOf(gone)).toEqual(each(0));
    expect(await rowsOf(kept)).toEqual(each(1));

    // An organization's deletion cascades to its events, whose DELETE fires the trigger.
    const other = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'leaving', 'L', now())
         RETURNING id`,
      )
    ).rows[0]!.id;
    const theirs = await seedEvents(db.pool, { ...seed, organizationId: other, count: 2 });
    await db.pool.query(
      `INSERT INTO event_payloads (event_id, body, headers) SELECT u, '\\x7b7d', '{}' FROM unnest($1::uuid[]) u`,
      [theirs],
    );
    await db.pool.query('DELETE FROM organizations WHERE id = $1', [other]);
    expect(await rowsOf(theirs)).toMatchObject({ event_payloads: 0, event_open: 0 });
    expect(await rowsOf(kept)).toEqual(each(1));
  });

  it('has no foreign key into events left to check on insert', async () => {
    const { rows } = await db.pool.query(
      "SELECT conrelid::regclass::text AS t FROM pg_constraint WHERE contype = 'f' AND confrelid = 'events'::regclass",
    );
    expect(rows).toEqual([]);
  });
});
