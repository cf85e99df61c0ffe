import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { createDatabase, createRetentionRepository, type Database, type RetentionRepository } from '@relay/db';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { pino } from 'pino';
import { createRetentionRun, type RetentionDeps, type RetentionMetrics } from './retention-run';
import type { RetentionSettings } from './retention-plan';

const DAY = 86_400_000;
// The injected clock: "old" is measured from here, far from the machine's time.
const NOW = new Date('2027-03-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
const ORG = DEFAULT_ORGANIZATION_ID;
const OFF: RetentionSettings = { retentionDays: 0, failedMaxDays: 90, auditRetentionDays: 0 };

let testDb: TestDatabase;
let db: Database;
let repository: RetentionRepository;
let hosted: OrgId;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 3 });
  repository = createRetentionRepository(db.pool);
  const { rows } = await db.pool.query<{ id: string }>(
    "INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'hosted', 'Hosted', now()) RETURNING id",
  );
  hosted = rows[0]!.id as OrgId;
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});
beforeEach(async () => {
  await db.pool.query(
    `TRUNCATE events, event_open, event_payloads, deliveries, event_ordering, delivery_attempts, event_search_chunks,
       event_search_keys, event_search_escaped, event_search_pending, audit_entries`,
  );
  await db.pool.query('UPDATE organizations SET retention_days = NULL');
});

function recorder() {
  const deleted: Record<string, number> = {};
  const runs: string[] = [];
  const metrics: RetentionMetrics = {
    deleted: (table, count) => void (deleted[table] = (deleted[table] ?? 0) + count),
    run: (outcome) => void runs.push(outcome),
  };
  return { metrics, deleted, runs };
}

const runWith = (settings: RetentionSettings, extra: Partial<RetentionDeps> = {}) =>
  createRetentionRun({
    repository,
    settings,
    logger: pino({ level: 'silent' }),
    batchSize: 1_000,
    maxRunMs: 60_000,
    now: () => NOW,
    pauseMs: 0,
    ...extra,
  });

const eventsOf = async (org: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE organization_id = $1', [org]))
    .rows[0]!.n;

async function seedAudit(createdAt: Date, n: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO audit_entries (id, organization_id, actor_user_id, actor_email, action, resource_type, resource_id,
       created_at)
     SELECT gen_random_uuid(), $1, gen_random_uuid(), 'a@example.com', 'x.done', 'x', 'r',
       ($2::timestamptz AT TIME ZONE 'UTC') FROM generate_series(1, $3)`,
    [ORG, createdAt.toISOString(), n],
  );
}
const auditCount = async () =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_entries')).rows[0]!.n;

describe('retention run', () => {
  it('deletes nothing when neither the setting nor an organization asks for it (an upgrade deletes nothing)', async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 5, status: 'delivered', changedAt: daysAgo(3_000) });
    await seedAudit(daysAgo(3_000), 3);
    const { metrics, runs, deleted } = recorder();
    const totals = await runWith(OFF, { metrics }).runOnce();
    expect(totals).toMatchObject({ events: 0, auditEntries: 0, organizations: 0, complete: true });
    expect(await eventsOf(ORG)).toBe(5);
    expect(await auditCount()).toBe(3);
    expect(runs).toEqual(['ok']);
    expect(deleted).toEqual({});
  });

  it("lets an organization's own retention win over the setting, and apply while the setting is off", async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'delivered', changedAt: daysAgo(10) });
    await seedEvents(db.pool, { organizationId: hosted, count: 3, status: 'delivered', changedAt: daysAgo(10) });
    await db.pool.query('UPDATE organizations SET retention_days = 7 WHERE id = $1', [hosted]);

    await runWith({ ...OFF, retentionDays: 30 }).runOnce();
    expect(await eventsOf(ORG)).toBe(2);
    expect(await eventsOf(hosted)).toBe(0);

    // The setting off: the override still applies; the default organization keeps everything.
    await seedEvents(db.pool, { organizationId: hosted, count: 1, status: 'delivered', changedAt: daysAgo(8) });
    await seedEvents(db.pool, { organizationId: ORG, count: 1, status: 'delivered', changedAt: daysAgo(800) });
    const totals = await runWith(OFF).runOnce();
    expect(totals).toMatchObject({ events: 1, organizations: 1 });
    expect(await eventsOf(hosted)).toBe(0);
    expect(await eventsOf(ORG)).toBe(3);

    // An override longer than the setting keeps events the setting would delete.
    await db.pool.query('UPDATE organizations SET retention_days = 60 WHERE id = $1', [hosted]);
    await seedEvents(db.pool, { organizationId: hosted, count: 2, status: 'delivered', changedAt: daysAgo(45) });
    await runWith({ ...OFF, retentionDays: 30 }).runOnce();
    expect(await eventsOf(hosted)).toBe(2);
  });

  it('keeps unacknowledged failures until the hard maximum, never shorter than the retention', async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'failed', changedAt: daysAgo(60) });
    await seedEvents(db.pool, { organizationId: ORG, count: 1, status: 'failed', changedAt: daysAgo(100) });
    await runWith({ ...OFF, retentionDays: 30, failedMaxDays: 90 }).runOnce();
    expect(await eventsOf(ORG)).toBe(2);
    // Retention longer than the maximum: failures are kept as long as everything else.
    await runWith({ ...OFF, retentionDays: 120, failedMaxDays: 50 }).runOnce();
    expect(await eventsOf(ORG)).toBe(2);
    await runWith({ ...OFF, retentionDays: 30, failedMaxDays: 50 }).runOnce();
    expect(await eventsOf(ORG)).toBe(0);
  });

  it('applies the audit retention on its own: events and audit entries each by their setting', async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'delivered', changedAt: daysAgo(40) });
    await seedAudit(daysAgo(400), 2);
    await seedAudit(daysAgo(40), 3);
    await runWith({ ...OFF, retentionDays: 30 }).runOnce();
    expect(await eventsOf(ORG)).toBe(0);
    expect(await auditCount()).toBe(5);

    const totals = await runWith({ ...OFF, auditRetentionDays: 365 }).runOnce();
    expect(totals).toMatchObject({ events: 0, auditEntries: 2 });
    expect(await auditCount()).toBe(3);
  });

  it('deletes in batches, counts every table in the metrics, and takes organizations in turns', async () => {
    await seedEvents(db.pool, {
      organizationId: ORG,
      count: 5,
      status: 'delivered',
      changedAt: daysAgo(40),
      attempts: 2,
      search: 'indexed',
    });
    await seedEvents(db.pool, { organizationId: hosted, count: 3, status: 'delivered', changedAt: daysAgo(40) });
    await seedAudit(daysAgo(400), 3);
    const seen: string[] = [];
    const spy: RetentionRepository = {
      ...repository,
      deleteEventBatch: (orgId, ...rest) => {
        seen.push(orgId === ORG ? 'default' : 'hosted');
        return repository.deleteEventBatch(orgId, ...rest);
      },
    };
    const { metrics, deleted, runs } = recorder();
    const totals = await runWith(
      { ...OFF, retentionDays: 30, auditRetentionDays: 365 },
      { repository: spy, metrics, batchSize: 2 },
    ).runOnce();
    expect(totals).toMatchObject({ events: 8, attempts: 10, auditEntries: 3, complete: true });
    // 2 + 2 + 1 and 2 + 1 events, one for expired deduplication keys (none), then 2 + 1 audit entries:
    // one statement each.
    expect(totals.batches).toBe(8);
    expect(seen).toEqual(['default', 'hosted', 'default', 'hosted', 'default']);
    expect(deleted).toEqual({ events: 8, delivery_attempts: 10, audit_entries: 3 });
    // The index chunk of the deleted events went with them (the trigger on events).
    expect((await db.pool.query('SELECT count(*)::int AS n FROM event_search_chunks')).rows[0].n).toBe(0);
    expect(runs).toEqual(['ok']);
  });

  it('goes on from the creation time each batch reached, judging every event by its last change', async () => {
    const seed = (count: number, status: 'delivered' | 'queued' | 'failed', changed: number, acknowledged = false) =>
      seedEvents(db.pool, { organizationId: ORG, count, status, changedAt: daysAgo(changed), acknowledged });
    const recent = await seed(3, 'delivered', 40);
    const queued = await seed(2, 'queued', 400);
    const acked = await seed(1, 'failed', 50, true);
    // Created long before the others: one last changed before the cutoff (due), one since (kept).
    const [oldDue, oldKept] = [...(await seed(1, 'delivered', 35)), ...(await seed(1, 'delivered', 5))];
    await db.pool.query(
      `UPDATE events SET created_at = ($2::timestamptz AT TIME ZONE 'UTC') WHERE id = ANY($1::uuid[])`,
      [[oldDue, oldKept], daysAgo(200).toISOString()],
    );
    await db.pool.query('SELECT relay_rebuild_event_open()');
    const totals = await runWith({ ...OFF, retentionDays: 30 }, { batchSize: 2 }).runOnce();
    // 2 (the old due one and the acknowledged failure) + 2 + 1, one of the other organization's (none), one for
    // expired deduplication keys.
    expect(totals).toMatchObject({ events: 5, batches: 5, complete: true });
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM events ORDER BY id');
    expect(rows.map((r) => r.id).sort()).toEqual([...queued, oldKept!].sort());
    expect([...recent, ...acked, oldDue].every((id) => !rows.some((r) => r.id === id))).toBe(true);
  });

  it('stops at the time budget with rows still due, and the next run goes on', async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 6, status: 'delivered', changedAt: daysAgo(40) });
    const first = await runWith({ ...OFF, retentionDays: 30 }, { batchSize: 2, maxRunMs: 1, pauseMs: 5 }).runOnce();
    expect(first).toMatchObject({ events: 2, batches: 1, complete: false });
    expect(await eventsOf(ORG)).toBe(4);
    const second = await runWith({ ...OFF, retentionDays: 30 }, { batchSize: 2 }).runOnce();
    expect(second).toMatchObject({ events: 4, complete: true });
  });

  it('deletes expired deduplication keys in batches on every run, even with retention off', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
       VALUES (gen_random_uuid(), $1, 'dedup-retention', 'dedup-retention', 'http://127.0.0.1:1/', now()) RETURNING id`,
      [ORG],
    );
    const seedKeys = (prefix: string, expiresAt: Date, n: number) =>
      db.pool.query(
        `INSERT INTO event_dedup (organization_id, provider_id, dedup_key, event_id, expires_at)
         SELECT $1, $2, $3 || i, gen_random_uuid(), ($4::timestamptz AT TIME ZONE 'UTC') FROM generate_series(1, $5) i`,
        [ORG, rows[0]!.id, prefix, expiresAt.toISOString(), n],
      );
    await seedKeys('expired-', new Date(NOW.getTime() - 1_000), 5);
    await seedKeys('at-now-', NOW, 1);
    await seedKeys('live-', new Date(NOW.getTime() + 1_000), 3);
    const keys = async () =>
      (await db.pool.query<{ key: string }>('SELECT dedup_key AS key FROM event_dedup ORDER BY 1')).rows.map(
        (r) => r.key,
      );

    const { metrics, deleted } = recorder();
    const totals = await runWith(OFF, { metrics, batchSize: 2 }).runOnce();
    // 2 + 2 + 2 expired keys (the one expiring at the run's moment is expired too), then none left.
    expect(totals).toMatchObject({ events: 0, dedupKeys: 6, batches: 4, complete: true });
    expect(deleted).toEqual({ event_dedup: 6 });
    expect(await keys()).toEqual(['live-1', 'live-2', 'live-3']);
    await db.pool.query('DELETE FROM providers WHERE id = $1', [rows[0]!.id]);
  });

  it('counts a failed run and lets the error reach the job', async () => {
    const broken: RetentionRepository = {
      ...repository,
      listOrganizations: () => Promise.reject(new Error('database gone')),
    };
    const { metrics, runs } = recorder();
    await expect(runWith({ ...OFF, retentionDays: 30 }, { repository: broken, metrics }).runOnce()).rejects.toThrow(
      'database gone',
    );
    expect(runs).toEqual(['failed']);
  });
});
