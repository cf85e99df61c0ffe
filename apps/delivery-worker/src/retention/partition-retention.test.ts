import { DEFAULT_ORGANIZATION_ID, partitionsCovering } from '@relay/core';
import {
  createDatabase,
  createPartitionRepository,
  createPartitionRetentionRepository,
  createRetentionRepository,
  type Database,
} from '@relay/db';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { pino } from 'pino';
import { createPartitionRetirement, partitionRetirementOf } from './partition-retention';
import { formatDryRun, retentionDryRun } from './retention-dry-run';
import { createRetentionRun } from './retention-run';

const DAY = 86_400_000;
const NOW = new Date();
const ORG = DEFAULT_ORGANIZATION_ID;
const dayStart = (daysAgo: number) => {
  const d = new Date(NOW.getTime() - daysAgo * DAY);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
};
const inDay = (daysAgo: number) => new Date(dayStart(daysAgo).getTime() + 3_600_000);
const suffix = (daysAgo: number) => dayStart(daysAgo).toISOString().slice(0, 10).replaceAll('-', '');

// Retention by partition (docs/partitioning.md) on a real database: a partition past every cutoff is dropped with
// its children's; every event retention keeps (queued, paused, ordering-blocked, unacknowledged failures, a
// queued delivery, changed since the cutoff) is moved out first and survives with its rows; a partition keeping
// more than RETENTION_MOVE_MAX_ROWS stays, its due rows deleted by the row-by-row retention as before.
describe('retention by partition drop', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase({ url: testDb.url, poolSize: 3 });
    // Day partitions 60, 50 and 40 days ago, as the upgrade's copy or a long-running install leaves them.
    const partitions = createPartitionRepository(db.pool);
    for (const daysAgo of [60, 50, 40])
      await partitions.ensure(partitionsCovering('day', inDay(daysAgo), inDay(daysAgo)));
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const partitionNames = async () => (await createPartitionRepository(db.pool).list()).map((p) => p.name);
  const existing = async (ids: string[]) =>
    (await db.pool.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[])', [ids])).rows.map(
      (r) => r.id,
    );
  const rowsOf = async (table: string, ids: string[]) =>
    (
      await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE event_id = ANY($1::uuid[])`, [
        ids,
      ])
    ).rows[0]!.n;

  it('drops whole partitions past retention and keeps every event it must keep', async () => {
    const seed = (
      daysAgo: number,
      status: 'queued' | 'delivered' | 'failed' | 'paused',
      changedDaysAgo: number,
      extra = {},
    ) =>
      seedEvents(db.pool, {
        organizationId: ORG,
        count: 2,
        status,
        changedAt: new Date(NOW.getTime() - changedDaysAgo * DAY),
        partitionAt: inDay(daysAgo),
        attempts: 1,
        search: 'indexed',
        ...extra,
      });
    // 60 days ago: only due rows (delivered, acknowledged failures, failures past the 90-day... no: acknowledged).
    const dueOnly = [...(await seed(60, 'delivered', 59)), ...(await seed(60, 'failed', 59, { acknowledged: true }))];
    // 50 days ago: due rows beside every kind of kept one.
    const due50 = await seed(50, 'delivered', 49);
    const kept50 = [
      ...(await seed(50, 'queued', 49)),
      ...(await seed(50, 'paused', 49)),
      ...(await seed(50, 'failed', 49)), // unacknowledged, within RETENTION_FAILED_MAX_DAYS
      ...(await seed(50, 'delivered', 5)), // changed since the cutoff (an admin's retry, delivered again)
    ];
    // Ordering-blocked: a queued event behind its key's head, with its event_ordering row.
    const blocked = await seed(50, 'queued', 49, { count: 1, search: 'pending' });
    await db.pool.query(
      `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, ordering, updated_at)
         VALUES (gen_random_uuid(), $1, 'ordered', 'ordered', 'http://p.example/', '{"key":"body.id"}', now())
         RETURNING id)
       INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key, partition_at)
       SELECT e.id, e.organization_id, rule.id, 'k', e.partition_at FROM events e, rule WHERE e.id = $2`,
      [ORG, blocked[0]],
    );
    // A delivered event whose destination delivery is still queued: kept as its delivery is.
    const withQueuedDelivery = await seed(50, 'delivered', 49, { count: 1 });
    await db.pool.query(
      `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
         VALUES (gen_random_uuid(), $1, 'routed', 'routed', 'http://p.example/', now()) RETURNING id),
       dest AS (INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
         SELECT gen_random_uuid(), $1, rule.id, 'crm', 'http://d.example/', now() FROM rule RETURNING id)
       INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at, partition_at)
       SELECT gen_random_uuid(), e.organization_id, e.id, dest.id, 'queued', e.updated_at, e.partition_at
       FROM events e, dest WHERE e.id = $2`,
      [ORG, withQueuedDelivery[0]],
    );
    // 40 days ago: more kept rows than RETENTION_MOVE_MAX_ROWS (10 here): the partition stays.
    const manyKept = await seed(40, 'queued', 39, { count: 11 });
    const due40 = await seed(40, 'delivered', 39);
    const allKept = [...kept50, ...blocked, ...withQueuedDelivery, ...manyKept];

    const logger = pino({ level: 'silent' });
    const run = createRetentionRun({
      repository: createRetentionRepository(db.pool),
      settings: { retentionDays: 30, failedMaxDays: 90, auditRetentionDays: 0 },
      logger,
      batchSize: 4,
      maxRunMs: 60_000,
      now: () => NOW,
      pauseMs: 0,
      partitions: createPartitionRetirement({
        partitions: createPartitionRepository(db.pool),
        repository: createPartitionRetentionRepository(db.pool),
        logger,
        moveMaxRows: 10,
        batchSize: 4,
      }),
    });
    const totals = await run.runOnce();

    expect(totals).toMatchObject({ partitionsDropped: 2, eventsMoved: kept50.length + 2, complete: true });
    // Deleted: the dropped partitions' events (counted as the row deletes count theirs) and the edge's due rows.
    expect(totals.events).toBe(dueOnly.length + due50.length + due40.length);
    const names = await partitionNames();
    for (const table of ['events', 'deliveries', 'delivery_attempts', 'event_search']) {
      expect(names).not.toContain(`${table}_p${suffix(60)}`);
      expect(names).not.toContain(`${table}_p${suffix(50)}`);
      expect(names).toContain(`${table}_p${suffix(40)}`);
    }
    // Every kept event survives with its attempt, search row, delivery and ordering row; every due one is gone.
    expect((await existing(allKept)).sort()).toEqual([...allKept].sort());
    expect(await existing([...dueOnly, ...due50, ...due40])).toEqual([]);
    const moved = [...kept50, ...blocked, ...withQueuedDelivery];
    expect(await rowsOf('delivery_attempts', moved)).toBe(moved.length);
    expect(await rowsOf('event_search', kept50)).toBe(kept50.length);
    expect(await rowsOf('event_search_pending', blocked)).toBe(1);
    expect(await rowsOf('event_ordering', blocked)).toBe(1);
    expect(await rowsOf('deliveries', withQueuedDelivery)).toBe(1);
    // Moved rows keep their API times (created_at, updated_at); only the internal partition_at changed.
    const { rows } = await db.pool.query<{ old: number }>(
      `SELECT count(*)::int AS old FROM events WHERE id = ANY($1::uuid[]) AND (partition_at < $2 OR created_at > $2)`,
      [moved, dayStart(0)],
    );
    expect(rows[0]!.old).toBe(0);
  });
});

// The dry run's partition section (`pnpm relay-worker retention dry-run`): what the partition step would do with
// each partition past the cutoffs, with nothing moved or dropped.
describe('retention by partition, planned (the dry run)', () => {
  let testDb: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase({ url: testDb.url, poolSize: 3 });
    const partitions = createPartitionRepository(db.pool);
    for (const daysAgo of [60, 50, 40])
      await partitions.ensure(partitionsCovering('day', inDay(daysAgo), inDay(daysAgo)));
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('says which partitions would be dropped whole, after moving kept events, or stay', async () => {
    const seed = (daysAgo: number, status: 'delivered' | 'queued', count: number) =>
      seedEvents(db.pool, {
        organizationId: ORG,
        count,
        status,
        changedAt: new Date(NOW.getTime() - daysAgo * DAY),
        partitionAt: inDay(daysAgo),
      });
    await seed(60, 'delivered', 3);
    await seed(50, 'delivered', 2);
    await seed(50, 'queued', 1);
    await seed(40, 'queued', 3);
    const settings = { retentionDays: 30, failedMaxDays: 90, auditRetentionDays: 0 };
    const retirement = partitionRetirementOf(
      db.pool,
      { RETENTION_MOVE_MAX_ROWS: 2, RETENTION_BATCH_SIZE: 100 },
      pino({ level: 'silent' }),
    );
    const report = await retentionDryRun(createRetentionRepository(db.pool), settings, NOW, retirement);
    expect(report.partitions.map((p) => [p.name, p.kept, p.action])).toEqual([
      [`events_p${suffix(60)}`, 0, 'drop'],
      [`events_p${suffix(50)}`, 1, 'move_then_drop'],
      [`events_p${suffix(40)}`, 3, 'stays'],
    ]);
    expect(report.rows).toContainEqual(expect.objectContaining({ organization: 'default', events: 5 }));
    expect(formatDryRun(report, settings)).toContain(
      `events_p${suffix(50)} (${dayStart(50).toISOString()} to ${dayStart(49).toISOString()}): dropped whole after ` +
        'moving 1 kept events out',
    );
    // Nothing moved or dropped.
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
    expect(rows[0]!.n).toBe(9);
    expect((await createPartitionRepository(db.pool).list()).map((p) => p.name)).toContain(`events_p${suffix(60)}`);
  });
});
