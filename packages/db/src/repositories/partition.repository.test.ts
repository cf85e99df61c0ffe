import {
  DEFAULT_ORGANIZATION_ID,
  partitionBoundId,
  partitionBoundTime,
  partitionsCovering,
  partitionsToEnsure,
  type PartitionPeriod,
} from '@relay/core';
import { useTestDatabase } from '@relay/test-support';
import { v7 as uuidv7 } from 'uuid';
import { createDatabase, type Database } from '../database';
import { createPartitionRepository, PARTITIONED_TABLES, type AttachedPartition } from './partition.repository';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
const plan = (period: PartitionPeriod, now: string, aheadDays: number) =>
  partitionsToEnsure(period, () => at(now), aheadDays * DAY);
const names = (created: { name: string }[]) => created.map((p) => p.name);
const bound = (iso: string) => partitionBoundId(at(iso));

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 3 }));
let db: Database;
const repo = () => createPartitionRepository(db.pool);
const partitionsOf = async (table: string) => (await repo().listPartitions()).filter((p) => p.table === table);

beforeAll(() => {
  db = database();
});

// The migration's shape (`<table>_first` below a UTC midnight, then day partitions) at a fixed date instead of the
// day the test template was migrated, so the expectations below are names and bounds, not arithmetic on today.
async function layOut(firstEnd: Date, days: number): Promise<void> {
  // Children first: events' partitions are what their foreign keys reference.
  for (const table of [...PARTITIONED_TABLES].reverse()) {
    for (const p of await partitionsOf(table)) {
      await db.pool.query(`ALTER TABLE ${table} DETACH PARTITION ${p.name}`);
      await db.pool.query(`DROP TABLE ${p.name}`);
    }
  }
  for (const table of PARTITIONED_TABLES) {
    const end = partitionBoundId(firstEnd);
    await db.pool.query(`CREATE TABLE ${table}_first PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ('${end}')`);
  }
  await repo().ensurePartitions(partitionsCovering('day', firstEnd, new Date(firstEnd.getTime() + (days - 1) * DAY)));
}

// Each partition starts where the previous one ended: no gap, no overlap.
const contiguous = (partitions: AttachedPartition[]) =>
  partitions
    .sort((a, b) => (a.from ?? '').localeCompare(b.from ?? ''))
    .every((p, i) => i === 0 || p.from === partitions[i - 1]!.to);

async function insertEvent(id: string): Promise<string> {
  const { rows } = await db.pool.query<{ partition: string }>(
    `INSERT INTO events (id, organization_id, source, body, headers) VALUES ($1, $2, 'partitions', '\\x7b7d', '{}')
     RETURNING tableoid::regclass::text AS partition`,
    [id, DEFAULT_ORGANIZATION_ID],
  );
  return rows[0]!.partition;
}

async function insertAttempt(eventId: string): Promise<string> {
  const { rows } = await db.pool.query<{ partition: string }>(
    `INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms, started_at,
       finished_at)
     VALUES ($1, $2, $3, 1, 'http://target.example/', 5, now(), now()) RETURNING tableoid::regclass::text AS partition`,
    [uuidv7(), eventId, DEFAULT_ORGANIZATION_ID],
  );
  return rows[0]!.partition;
}

describe('partition repository', () => {
  it('lists the migrated layout: a first partition from MINVALUE, then 7 days, the same for every table', async () => {
    const layouts = await Promise.all(PARTITIONED_TABLES.map(partitionsOf));
    for (const [i, partitions] of layouts.entries()) {
      const table = PARTITIONED_TABLES[i]!;
      expect(partitions.map((p) => p.name)).toContain(`${table}_first`);
      expect(partitions).toHaveLength(8);
      expect(contiguous(partitions)).toBe(true);
      const [first, ...days] = partitions;
      expect(first).toMatchObject({ name: `${table}_first`, from: null });
      for (const day of days) {
        const from = partitionBoundTime(day.from!);
        expect(partitionBoundTime(day.to!).getTime() - from.getTime()).toBe(DAY);
        expect(day.name).toBe(`${table}_p${from.toISOString().slice(0, 10).replaceAll('-', '')}`);
      }
      // The children's bounds are events' bounds.
      expect(partitions.map((p) => [p.from, p.to])).toEqual(layouts[0]!.map((p) => [p.from, p.to]));
    }
  });

  describe('on a layout of days from Wednesday 3 March 2027 to Tuesday the 9th', () => {
    beforeAll(() => layOut(at('2027-03-03T00:00:00Z'), 7));

    it('skips ranges the partitions already cover', async () => {
      expect(await repo().ensurePartitions(plan('day', '2027-03-02T10:00:00Z', 7))).toEqual([]);
      expect((await partitionsOf('events')).map((p) => p.name)).toEqual([
        'events_first',
        ...['03', '04', '05', '06', '07', '08', '09'].map((d) => `events_p202703${d}`),
      ]);
    });

    it('starts a new period at the latest end when it would overlap: a week after the days, then months', async () => {
      // ISO week 9 (1-8 March) is covered; week 10 (8-15 March) starts where the days end, on the 10th.
      const weeks = await repo().ensurePartitions(plan('week', '2027-03-04T10:00:00Z', 7));
      expect(weeks.filter((p) => p.table === 'events')).toEqual([
        { table: 'events', name: 'events_p2027w10', from: bound('2027-03-10T00:00:00Z'), to: bound('2027-03-15') },
      ]);
      expect(names(weeks)).toEqual(PARTITIONED_TABLES.map((t) => `${t}_p2027w10`));

      // The period changed to months: March from the 15th on, then April whole.
      const months = await repo().ensurePartitions(plan('month', '2027-03-20T10:00:00Z', 20));
      expect(months.filter((p) => p.table === 'delivery_attempts')).toEqual([
        {
          table: 'delivery_attempts',
          name: 'delivery_attempts_p202703',
          from: bound('2027-03-15'),
          to: bound('2027-04-01'),
        },
        {
          table: 'delivery_attempts',
          name: 'delivery_attempts_p202704',
          from: bound('2027-04-01'),
          to: bound('2027-05-01'),
        },
      ]);
      expect(months).toHaveLength(2 * PARTITIONED_TABLES.length);
      for (const table of PARTITIONED_TABLES) expect(contiguous(await partitionsOf(table))).toBe(true);
    });

    it('creates the partitions ahead, once; an event of a day in them and its attempt can then be stored', async () => {
      const id = uuidv7({ msecs: at('2027-06-11T23:59:59.999Z').getTime() });
      // No partition holds that id yet, and there is no DEFAULT partition: refused (ingest answers a 503).
      await expect(insertEvent(id)).rejects.toMatchObject({ code: '23514' });

      const wanted = plan('day', '2027-06-10T12:00:00Z', 2);
      const created = await repo().ensurePartitions(wanted);
      expect(names(created)).toEqual(
        PARTITIONED_TABLES.flatMap((t) => ['10', '11', '12'].map((d) => `${t}_p202706${d}`)),
      );
      expect(await repo().ensurePartitions(wanted)).toEqual([]);

      expect(await insertEvent(id)).toBe('events_p20270611');
      expect(await insertAttempt(id)).toBe('delivery_attempts_p20270611');
      // The first millisecond of the next day is the next partition's.
      expect(await insertEvent(uuidv7({ msecs: at('2027-06-12T00:00:00.000Z').getTime() }))).toBe('events_p20270612');
    });

    it('two runs at once (two workers starting) create each partition once, neither fails', async () => {
      const wanted = plan('day', '2027-07-01T00:00:00Z', 1);
      const [one, other] = await Promise.all([repo().ensurePartitions(wanted), repo().ensurePartitions(wanted)]);
      expect(names([...one, ...other]).sort()).toEqual(
        PARTITIONED_TABLES.flatMap((t) => [`${t}_p20270701`, `${t}_p20270702`]).sort(),
      );
    });

    it('waits for another run holding the table longer than the DDL lock timeout, instead of failing', async () => {
      // Another run's turn on events, held past the 250 ms bound the DDL statements get (CI's loaded machine).
      const other = await db.pool.connect();
      try {
        await other.query('BEGIN');
        await other.query("SELECT pg_advisory_xact_lock(hashtext('partitions:events'))");
        const run = repo().ensurePartitions(plan('day', '2027-08-01T00:00:00Z', 0));
        let settled = false;
        void run.then(
          () => (settled = true),
          () => (settled = true),
        );
        await new Promise((r) => setTimeout(r, 600));
        expect(settled).toBe(false);
        await other.query('COMMIT');
        expect(names(await run)).toEqual(PARTITIONED_TABLES.map((t) => `${t}_p20270801`));
      } finally {
        other.release();
      }
    });

    it('analyses the parents: their statistics over all partitions exist afterwards', async () => {
      const inherited = async () =>
        (
          await db.pool.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stats WHERE inherited AND tablename IN ('events', 'delivery_attempts')",
          )
        ).rows[0]!.n;
      expect(await inherited()).toBe(0);
      await repo().analyzeParents();
      expect(await inherited()).toBeGreaterThan(0);
    });
  });
});
