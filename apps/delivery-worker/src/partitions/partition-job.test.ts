import { partitionBoundId, partitionsCovering, type PartitionPeriod } from '@relay/core';
import { createDatabase, createPartitionRepository, PARTITIONED_TABLES, type Database } from '@relay/db';
import { useTestDatabase } from '@relay/test-support';
import { pino } from 'pino';
import { createWorkerMetrics } from '../metrics/worker-metrics';
import { createPartitionJob } from './partition-job';

const logger = pino({ level: 'silent' });
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 3 }));
let db: Database;

// The migration's shape (`<table>_first` below a UTC midnight, then day partitions) at a fixed date instead of the
// day the test template was migrated: days from Monday 1 March 2027 through Sunday the 7th.
beforeAll(async () => {
  db = database();
  const repository = createPartitionRepository(db.pool);
  // Children first: events' partitions are what their foreign keys reference.
  for (const table of [...PARTITIONED_TABLES].reverse()) {
    for (const p of (await repository.listPartitions()).filter((p) => p.table === table)) {
      await db.pool.query(`ALTER TABLE ${table} DETACH PARTITION ${p.name}`);
      await db.pool.query(`DROP TABLE ${p.name}`);
    }
  }
  for (const table of PARTITIONED_TABLES) {
    const end = partitionBoundId(new Date('2027-03-01T00:00:00Z'));
    await db.pool.query(`CREATE TABLE ${table}_first PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ('${end}')`);
  }
  await repository.ensurePartitions(
    partitionsCovering('day', new Date('2027-03-01T00:00:00Z'), new Date('2027-03-07T00:00:00Z')),
  );
});

// A job over the test database with its own clock, counting its analyses.
function jobAt(period: PartitionPeriod, clock: { now: string }) {
  const repository = createPartitionRepository(db.pool);
  const analyses = { count: 0 };
  const job = createPartitionJob({
    repository: {
      ...repository,
      analyzeParents: () => {
        analyses.count++;
        return repository.analyzeParents();
      },
    },
    period,
    aheadDays: 7,
    logger,
    now: () => new Date(clock.now),
  });
  return { job, analyses };
}

const everyTable = (...suffixes: string[]) => PARTITIONED_TABLES.flatMap((t) => suffixes.map((s) => `${t}_p${s}`));
const eventsPartitions = async () =>
  (await createPartitionRepository(db.pool).listPartitions()).filter((p) => p.table === 'events').map((p) => p.name);

describe('the partitions job', () => {
  it('keeps 7 days ahead across midnight: at 23:59 the 8th of March, at 00:01 the 9th, then nothing', async () => {
    const clock = { now: '2027-03-01T23:59:00Z' };
    const { job } = jobAt('day', clock);

    const before = await job.run();
    expect(before.created).toEqual(everyTable('20270308'));
    expect(before.coveredUntil).toEqual(new Date('2027-03-09T00:00:00Z'));

    clock.now = '2027-03-02T00:01:00Z';
    const after = await job.run();
    expect(after.created).toEqual(everyTable('20270309'));
    expect(after.coveredUntil).toEqual(new Date('2027-03-10T00:00:00Z'));
    expect(await eventsPartitions()).toEqual([
      'events_first',
      ...['01', '02', '03', '04', '05', '06', '07', '08', '09'].map((d) => `events_p202703${d}`),
    ]);

    expect((await job.run()).created).toEqual([]);
  });

  it('with weeks, starts the first week where the days end, then adds whole ISO weeks', async () => {
    // Wednesday the 3rd: week 10 (8-15 March) is in the window; the days reach the 10th, so it starts there.
    const clock = { now: '2027-03-03T10:00:00Z' };
    const { job } = jobAt('week', clock);
    expect((await job.run()).created).toEqual(everyTable('2027w10'));
    clock.now = '2027-03-08T00:01:00Z';
    const next = await job.run();
    expect(next.created).toEqual(everyTable('2027w11'));
    expect(next.coveredUntil).toEqual(new Date('2027-03-22T00:00:00Z'));
    expect((await job.run()).created).toEqual([]);
  });

  it('with months, starts March where the weeks end and adds April whole', async () => {
    const clock = { now: '2027-03-25T00:00:00Z' };
    const { job } = jobAt('month', clock);
    const run = await job.run();
    expect(run.created).toEqual(everyTable('202703', '202704'));
    expect(run.coveredUntil).toEqual(new Date('2027-05-01T00:00:00Z'));
    const bounds = (await createPartitionRepository(db.pool).listPartitions()).find((p) => p.name === 'events_p202703');
    expect(bounds).toMatchObject({
      from: partitionBoundId(new Date('2027-03-22T00:00:00Z')),
      to: partitionBoundId(new Date('2027-04-01T00:00:00Z')),
    });
    expect((await job.run()).created).toEqual([]);
  });

  it('analyses the parents on its first scheduled run, then once a day, never on the run at start', async () => {
    const clock = { now: '2027-03-25T00:00:00Z' };
    const { job, analyses } = jobAt('month', clock);
    expect((await job.run({ analyzeIfDue: false })).analyzed).toBe(false);
    expect((await job.run()).analyzed).toBe(true);
    clock.now = '2027-03-25T23:59:59Z';
    expect((await job.run()).analyzed).toBe(false);
    clock.now = '2027-03-26T00:00:00Z';
    expect((await job.run()).analyzed).toBe(true);
    expect(analyses.count).toBe(2);
  });

  it('shares a run in progress with a run asked for meanwhile', async () => {
    const { job, analyses } = jobAt('month', { now: '2027-03-25T00:00:00Z' });
    const [one, other] = await Promise.all([job.run(), job.run()]);
    expect(other).toBe(one);
    expect(analyses.count).toBe(1);
  });

  it('reports relay_partitions_ahead_seconds at each scrape from where partitions end; none before a run', async () => {
    let now = new Date('2027-03-25T00:00:00Z').getTime();
    const metrics = createWorkerMetrics({
      organizationLabels: false,
      pool: { totalCount: 0, idleCount: 0, waitingCount: 0 },
      queues: () => [],
      defaultMetrics: false,
      now: () => now,
    });
    const sample = async () =>
      (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith('relay_partitions_ahead_seconds '));
    // No run yet: no value, rather than a 0 that says ingest is refusing events.
    expect(await sample()).toBeUndefined();
    const job = createPartitionJob({
      repository: createPartitionRepository(db.pool),
      period: 'month',
      aheadDays: 7,
      logger,
      metrics: metrics.partitions,
      now: () => new Date(now),
    });
    await job.run({ analyzeIfDue: false });
    // The partitions reach 1 May: 37 days.
    expect(await sample()).toBe(`relay_partitions_ahead_seconds ${37 * 86_400}`);
    // An hour later with no run (the job stuck): an hour less.
    now += 3_600_000;
    expect(await sample()).toBe(`relay_partitions_ahead_seconds ${37 * 86_400 - 3_600}`);
  });
});
