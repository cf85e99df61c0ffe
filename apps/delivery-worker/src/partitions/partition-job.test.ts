import { createPartitionRepository, PARTITIONED_TABLES } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';
import { pino } from 'pino';
import { createPartitionJob } from './partition-job';

const DAY = 86_400_000;
const suffix = (at: number) => new Date(at).toISOString().slice(0, 10).replaceAll('-', '');

// The `partitions` maintenance job over the migrated schema, its clock injected: a run keeps the ahead window,
// crossing midnight adds the one new day's partitions (all four tables), the metric says how far ahead, and the
// daily run analyses the parents.
describe('the partitions job', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('keeps the window ahead across a day boundary and reports how far ahead it reaches', async () => {
    // 30 days on, past the migration's 7 days, so each run's additions are this test's own.
    const midnight =
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) + 30 * DAY;
    let clock = midnight - 1;
    const ahead: number[] = [];
    const job = createPartitionJob({
      repository: createPartitionRepository(pool),
      period: 'day',
      aheadDays: 3,
      logger,
      metrics: { setAheadSeconds: (s) => ahead.push(s) },
      now: () => new Date(clock),
    });

    // 23:59:59.999: the day ending now and 3 days after it.
    const first = await job.run();
    const days = [-1, 0, 1, 2].map((n) => suffix(midnight + n * DAY));
    expect(first.created.filter((n) => n.startsWith('events_p')).sort()).toEqual(days.map((d) => `events_p${d}`));
    expect(first.created).toHaveLength(days.length * PARTITIONED_TABLES.length);
    expect(first.aheadSeconds).toBe(3 * 86_400); // to the end of the third day after, rounded to the second
    expect(first.analyzed).toBe(false);

    // A millisecond later it is the next day: exactly one new day, for every table.
    clock = midnight;
    const second = await job.run();
    expect(second.created.sort()).toEqual(PARTITIONED_TABLES.map((t) => `${t}_p${suffix(midnight + 3 * DAY)}`).sort());
    expect(second.aheadSeconds).toBe(4 * 86_400);
    expect(ahead).toEqual([first.aheadSeconds, 4 * 86_400]);

    // Run again in the same hour: nothing to do.
    expect((await job.run()).created).toEqual([]);
  });

  it('the daily run analyses the partitioned parents', async () => {
    await pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers)
       SELECT gen_random_uuid(), '00000000-0000-7000-8000-000000000001', 's', '\\x7b7d', '{}' FROM generate_series(1, 20)`,
    );
    const inherited = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stats WHERE inherited AND tablename = 'events'`,
        )
      ).rows[0]!.n;
    expect(await inherited()).toBe(0);
    const job = createPartitionJob({
      repository: createPartitionRepository(pool),
      period: 'day',
      aheadDays: 1,
      logger,
    });
    expect((await job.run({ analyze: true })).analyzed).toBe(true);
    expect(await inherited()).toBeGreaterThan(0);
  });
});
