import { createPartitionCopyRepository, createPartitionRepository } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';
import { pino } from 'pino';
import { createLegacyCopy } from './legacy-copy';

const ORG = '00000000-0000-7000-8000-000000000001'; // the default organization

// The upgrade's copy out of the legacy partition, on the migrated schema with legacy partitions attached as an
// upgraded install has them: rows written into the legacy range are moved, in batches, to the partitions of their
// created_at with their rows; a run stopped by its budget is resumed by the next; the lock retention's drops take
// keeps it out; once empty, the legacy partitions are dropped and the metric reads 0.
describe('the legacy partition copy', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  const remaining: number[] = [];
  const copy = (maxRunMs: number) =>
    createLegacyCopy({
      repository: createPartitionCopyRepository(pool),
      partitions: createPartitionRepository(pool),
      period: 'day',
      batchSize: 2,
      maxRunMs,
      logger: pino({ level: 'silent' }),
      metrics: { setRemaining: (n) => remaining.push(n) },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // An upgraded install's legacy partitions (a fresh one's migration drops them, being empty).
    for (const table of ['events', 'deliveries', 'delivery_attempts', 'event_search']) {
      await pool.query(`CREATE TABLE ${table}_legacy (LIKE ${table} INCLUDING DEFAULTS)`);
      await pool.query(
        `ALTER TABLE ${table} ATTACH PARTITION ${table}_legacy FOR VALUES FROM (MINVALUE) TO ('2000-01-02 00:00:00')`,
      );
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('moves the legacy rows to their days in batches, resumes where a run stopped, then drops the legacy tables', async () => {
    // Five events of the previous release, 3 to 7 days old, each with an attempt and a search row.
    await pool.query(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, body, headers, created_at, updated_at, partition_at)
         SELECT gen_random_uuid(), $1, 'old', '\\x7b7d', '{}', now() AT TIME ZONE 'UTC' - make_interval(days => n + 2),
           now() AT TIME ZONE 'UTC', '2000-01-01 00:00:00'
         FROM generate_series(1, 5) n RETURNING id, organization_id, created_at, partition_at),
       a AS (INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms,
         started_at, finished_at, partition_at)
         SELECT gen_random_uuid(), id, organization_id, 1, 'http://t/', 1, created_at, created_at, partition_at FROM e)
       INSERT INTO event_search (event_id, organization_id, search_text, partition_at)
       SELECT id, organization_id, 'old', partition_at FROM e`,
      [ORG],
    );
    const legacy = async () =>
      (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events_legacy')).rows[0]!.n;
    expect(await legacy()).toBe(5);

    // Another process holds the partition maintenance lock (retention dropping a partition): the copy waits.
    const holder = await pool.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [0x72_70_61_72]);
    expect((await copy(1).run()).state).toBe('busy');
    await holder.query('SELECT pg_advisory_unlock($1)', [0x72_70_61_72]);
    holder.release();

    // A budget of 1 ms: each run moves one batch of 2 and leaves the rest to the next.
    expect(await copy(1).run()).toMatchObject({ state: 'copying', moved: 2, remaining: 3 });
    expect(await legacy()).toBe(3);
    expect(await copy(1).run()).toMatchObject({ state: 'copying', moved: 2, remaining: 1 });
    expect(await copy(1).run()).toMatchObject({ state: 'done', moved: 1, remaining: 0 });
    expect(remaining.at(-1)).toBe(0);

    // Every event in its created_at's day partition, its attempt and search row with it; the legacy tables gone.
    const { rows } = await pool.query<{ p: string; day: string; a: string; s: string }>(
      `SELECT e.tableoid::regclass::text AS p, to_char(e.created_at, 'YYYYMMDD') AS day,
         a.tableoid::regclass::text AS a, s.tableoid::regclass::text AS s
       FROM events e JOIN delivery_attempts a ON a.event_id = e.id JOIN event_search s ON s.event_id = e.id
       WHERE e.source = 'old'`,
    );
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      expect(r.p).toBe(`events_p${r.day}`);
      expect(r.a).toBe(`delivery_attempts_p${r.day}`);
      expect(r.s).toBe(`event_search_p${r.day}`);
    }
    const { rows: gone } = await pool.query(
      `SELECT to_regclass('events_legacy') AS e, to_regclass('deliveries_legacy') AS d,
         to_regclass('delivery_attempts_legacy') AS a, to_regclass('event_search_legacy') AS s`,
    );
    expect(gone[0]).toEqual({ e: null, d: null, a: null, s: null });
    expect((await copy(1).run()).state).toBe('absent');
  });
});
