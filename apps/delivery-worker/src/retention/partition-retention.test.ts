import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDatabase, createPartitionRepository, createRetentionRepository, type Database } from '@relay/db';
import { layOutDayPartitions, seedEvents, useTestDatabase } from '@relay/test-support';
import { pino } from 'pino';
import { partitionRetirementOf } from './partition-retention';
import { formatDryRun, retentionDryRun } from './retention-dry-run';
import type { RetentionSettings } from './retention-plan';
import { createRetentionRun, type RetentionMetrics } from './retention-run';

const DAY = 86_400_000;
// An injected clock, far from the machine's: with 30 days of retention the cutoff is 2027-03-16T12:00, so the
// partitions of 1-15 March (and the first one, below 1 March) are past every cutoff, the 16th straddles it.
const NOW = new Date('2027-04-15T12:00:00Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);
const ORG = DEFAULT_ORGANIZATION_ID;
const THIRTY: RetentionSettings = { retentionDays: 30, failedMaxDays: 90, auditRetentionDays: 0 };
const logger = pino({ level: 'silent' });

function open() {
  const database = useTestDatabase((url) => createDatabase({ url, poolSize: 4 }));
  let db: Database;
  beforeAll(async () => {
    db = database();
    await layOutDayPartitions(db.pool, new Date('2027-03-01T00:00:00Z'), 20);
  });
  const seed = (stored: string, status: 'delivered' | 'queued', changedAt: Date, count = 2, org: string = ORG) =>
    seedEvents(db.pool, {
      organizationId: org,
      count,
      status,
      changedAt,
      storedAt: new Date(stored),
      attempts: 1,
      search: 'indexed',
    });
  const names = async () => (await createPartitionRepository(db.pool).listPartitions()).map((p) => p.name);
  const eventCount = async () =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n;
  const run = (settings: RetentionSettings, metrics?: RetentionMetrics) =>
    createRetentionRun({
      repository: createRetentionRepository(db.pool),
      settings,
      logger,
      batchSize: 3,
      maxRunMs: 60_000,
      now: () => NOW,
      pauseMs: 0,
      metrics,
      partitions: partitionRetirementOf(db.pool, logger),
    });
  return { db: () => db, seed, names, eventCount, run };
}

describe('retention run with partitions', () => {
  const t = open();

  it('drops the partitions past every cutoff that keep nothing, then deletes the due rows left as before', async () => {
    const first = await t.seed('2027-02-20T10:00:00Z', 'delivered', daysAgo(50));
    const day1 = await t.seed('2027-03-01T10:00:00Z', 'delivered', daysAgo(40), 4);
    const keptDay2 = await t.seed('2027-03-02T10:00:00Z', 'queued', daysAgo(40), 1);
    const dueDay2 = await t.seed('2027-03-02T11:00:00Z', 'delivered', daysAgo(40), 2);
    // The edge: stored on the 16th, some changed before the cutoff, some after.
    const dueEdge = await t.seed('2027-03-16T05:00:00Z', 'delivered', daysAgo(30.25), 2);
    const keptEdge = await t.seed('2027-03-16T20:00:00Z', 'delivered', daysAgo(29), 1);
    const deleted: Record<string, number> = {};
    const metrics: RetentionMetrics = {
      deleted: (table, n) => void (deleted[table] = (deleted[table] ?? 0) + n),
      run: () => {},
    };

    const totals = await t.run(THIRTY, metrics).runOnce();

    // The first and every day of 1-15 March (empty ones too) but the 2nd, which holds a queued event.
    expect(totals).toMatchObject({ partitionsDropped: 15, complete: true });
    expect(totals.events).toBe(first.length + day1.length + dueDay2.length + dueEdge.length);
    expect(deleted.events).toBe(totals.events);
    const names = await t.names();
    for (const table of ['events', 'delivery_attempts', 'event_search_keys']) {
      expect(names).not.toContain(`${table}_first`);
      expect(names).not.toContain(`${table}_p20270301`);
      expect(names).not.toContain(`${table}_p20270315`);
      expect(names).toContain(`${table}_p20270302`);
      expect(names).toContain(`${table}_p20270316`);
    }
    const { rows } = await t.db().pool.query<{ id: string }>('SELECT id FROM events ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([...keptDay2, ...keptEdge].sort());
    // The dropped and deleted events left the search chunks too; the kept ones are still found there.
    const chunked = await t
      .db()
      .pool.query<{ id: string }>('SELECT DISTINCT unnest(event_ids)::text AS id FROM event_search_chunks ORDER BY 1');
    expect(chunked.rows.map((r) => r.id)).toEqual([...keptDay2, ...keptEdge].sort());

    // A second run finds nothing more to drop or delete.
    expect(await t.run(THIRTY).runOnce()).toMatchObject({ partitionsDropped: 0, events: 0 });
  });
});

describe('retention run with partitions, an organization keeping everything', () => {
  const t = open();

  it("drops no partition, and the others' due rows still go one by one", async () => {
    const keeper = (
      await t.db().pool.query<{ id: string }>(
        `INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'k', 'K', now())
           RETURNING id`,
      )
    ).rows[0]!.id;
    // RETENTION_DAYS off: only the default organization, by its own override, deletes anything.
    await t.db().pool.query('UPDATE organizations SET retention_days = 30 WHERE id = $1', [ORG]);
    await t.seed('2027-03-01T10:00:00Z', 'delivered', daysAgo(40), 3);
    const kept = await t.seed('2027-03-01T11:00:00Z', 'delivered', daysAgo(40), 1, keeper);
    const before = await t.names();

    const totals = await t.run({ ...THIRTY, retentionDays: 0 }).runOnce();

    expect(totals).toMatchObject({ partitionsDropped: 0, events: 3 });
    expect(await t.names()).toEqual(before);
    expect(await t.eventCount()).toBe(kept.length);
  });
});

describe('retention dry run with partitions', () => {
  const t = open();

  it('lists the partitions it would drop or keep, and changes nothing', async () => {
    await t.seed('2027-02-20T10:00:00Z', 'delivered', daysAgo(50));
    await t.seed('2027-03-01T10:00:00Z', 'delivered', daysAgo(40), 3);
    await t.seed('2027-03-02T10:00:00Z', 'queued', daysAgo(40), 1);
    await t.seed('2027-03-02T11:00:00Z', 'delivered', daysAgo(40), 1);
    const before = await t.names();

    const report = await retentionDryRun(
      createRetentionRepository(t.db().pool),
      THIRTY,
      NOW,
      partitionRetirementOf(t.db().pool, logger),
    );

    // Every partition of 1-15 March and the first: past every cutoff. Only the 2nd keeps an event.
    expect(report.partitions).toHaveLength(16);
    expect(report.partitions.slice(0, 3).map((p) => [p.name, p.kept, p.action])).toEqual([
      ['events_first', 0, 'drop'],
      ['events_p20270301', 0, 'drop'],
      ['events_p20270302', 1, 'stays'],
    ]);
    expect(report.partitions[0]!.from).toEqual(new Date(0));
    expect(report.rows).toContainEqual(expect.objectContaining({ organization: 'default', events: 6 }));
    const text = formatDryRun(report, THIRTY);
    expect(text).toContain(
      'events_p20270301 (2027-03-01T00:00:00.000Z to 2027-03-02T00:00:00.000Z): would be dropped whole',
    );
    expect(text).toContain(
      'events_p20270302 (2027-03-02T00:00:00.000Z to 2027-03-03T00:00:00.000Z): would stay (1 kept event); its due',
    );
    expect(text).toContain('events_first (before 2027-03-01T00:00:00.000Z): would be dropped whole');
    expect(await t.names()).toEqual(before);
    expect(await t.eventCount()).toBe(7);
  });
});
