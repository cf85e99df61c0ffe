import { partitionsToEnsure } from '@relay/core';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';
import { createPartitionRepository, PARTITIONED_TABLES } from './partition.repository';

const DAY = 86_400_000;
const ORG = '00000000-0000-7000-8000-000000000001'; // the default organization
const utcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const suffix = (at: Date) => at.toISOString().slice(0, 10).replaceAll('-', '');

// Partitions ahead (docs/partitioning.md) on the migrated schema: what the migration leaves a fresh install, what
// the maintenance job adds for an injected clock (across a day's boundary), and the period changed underway.
describe('partition repository', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  const repo = () => createPartitionRepository(pool);
  const names = async (table: string) => (await repo().list()).filter((p) => p.table === table).map((p) => p.name);

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('a migrated database has no legacy partition, and today and 7 days ahead for every table', async () => {
    const today = utcDay(new Date());
    for (const table of PARTITIONED_TABLES) {
      const list = await names(table);
      // A fresh install's legacy partitions are empty: the migration drops them.
      expect(list).not.toContain(`${table}_legacy`);
      expect(list).toContain(`${table}_p${suffix(today)}`);
      expect(list).toContain(`${table}_p${suffix(new Date(today.getTime() + 7 * DAY))}`);
    }
    expect((await repo().coveredUntil())!.getTime()).toBe(today.getTime() + 8 * DAY);
  });

  it('creates the partitions ahead of an injected clock, once, and a row at a day boundary finds its own', async () => {
    // One millisecond before midnight, 20 days on: the plan holds that day and the next 2 (ahead 2 days).
    const start = utcDay(new Date(Date.now() + 20 * DAY));
    const now = () => new Date(start.getTime() + DAY - 1);
    const plan = partitionsToEnsure('day', now, 2 * DAY);
    expect(plan.map((r) => r.suffix)).toEqual([0, 1, 2].map((n) => suffix(new Date(start.getTime() + n * DAY))));

    const { created } = await repo().ensure(plan);
    expect(created).toHaveLength(3 * PARTITIONED_TABLES.length);
    expect(created).toContain(`events_p${suffix(start)}`);
    expect(created).toContain(`event_search_p${suffix(new Date(start.getTime() + 2 * DAY))}`);
    expect((await repo().ensure(plan)).created).toEqual([]);
    expect((await repo().coveredUntil())!.getTime()).toBe(start.getTime() + 3 * DAY);

    // The last millisecond of the day and the first of the next go to two partitions, with their children.
    const ids: string[] = [];
    for (const at of [new Date(start.getTime() + DAY - 1), new Date(start.getTime() + DAY)]) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO events (id, organization_id, source, body, headers, partition_at, created_at)
         VALUES (gen_random_uuid(), $1, 'boundary', '\\x7b7d', '{}', $2::timestamptz AT TIME ZONE 'UTC', now())
         RETURNING id`,
        [ORG, at.toISOString()],
      );
      ids.push(rows[0]!.id);
      await pool.query(
        `INSERT INTO event_search (event_id, organization_id, search_text, partition_at)
         SELECT id, organization_id, 'boundary', partition_at FROM events WHERE id = $1`,
        [rows[0]!.id],
      );
    }
    const where = async (table: string, column: string) =>
      (
        await pool.query<{ p: string }>(
          `SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${column} = ANY($1::uuid[]) ORDER BY partition_at`,
          [ids],
        )
      ).rows.map((r) => r.p);
    const expected = [suffix(start), suffix(new Date(start.getTime() + DAY))];
    expect(await where('events', 'id')).toEqual(expected.map((s) => `events_p${s}`));
    expect(await where('event_search', 'event_id')).toEqual(expected.map((s) => `event_search_p${s}`));
  });

  it('refuses a row outside every partition (no DEFAULT partition): the 23514 ingest answers with a 503', async () => {
    const far = new Date(Date.now() + 400 * DAY);
    await expect(
      pool.query(
        `INSERT INTO events (id, organization_id, source, body, headers, partition_at)
         VALUES (gen_random_uuid(), $1, 'far', '\\x7b7d', '{}', $2::timestamptz AT TIME ZONE 'UTC')`,
        [ORG, far.toISOString()],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('a changed period starts after the partitions that exist: ranges never overlap', async () => {
    // Days exist through today + 7 (the migration's); weeks from now on begin where the last day ends.
    const plan = partitionsToEnsure('week', () => new Date(), 21 * DAY);
    const before = await repo().list();
    const { created } = await repo().ensure(plan);
    expect(created.length).toBeGreaterThan(0);
    const after = (await repo().list()).filter((p) => p.table === 'events' && p.from !== null);
    const added = after.filter((p) => !before.some((b) => b.name === p.name));
    const sorted = [...after].sort((a, b) => a.from!.getTime() - b.from!.getTime());
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]!.from!.getTime()).toBeGreaterThanOrEqual(sorted[i - 1]!.to.getTime());
    expect(added.every((p) => /^events_p\d{4}w\d{2}$/.test(p.name))).toBe(true);
  });

  it('analyses the parents: their statistics exist afterwards', async () => {
    await repo().analyzeParents();
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT tablename)::int AS n FROM pg_stats WHERE inherited AND tablename = ANY($1::text[])`,
      [PARTITIONED_TABLES],
    );
    // event_search may be empty (no statistics for an empty table); events and its boundary rows are not.
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
  });
});
