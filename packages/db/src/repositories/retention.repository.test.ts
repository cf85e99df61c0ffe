import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { createTestDatabase, eventOpenDrift, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { planNodes, type PlanNode } from './list-plan-scans';
import {
  COUNT_DUE_EVENTS,
  createRetentionRepository,
  DELETE_EVENT_BATCH,
  type EventCutoffs,
} from './retention.repository';

const DAY = 86_400_000;
const NOW = new Date('2026-11-24T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
// Retention 30 days, unacknowledged failures kept 90.
const CUTOFFS: EventCutoffs = { before: daysAgo(30), unacknowledgedBefore: daysAgo(90) };
const ORG = DEFAULT_ORGANIZATION_ID;

let testDb: TestDatabase;
let db: Database;
let other: OrgId;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 3 });
  const { rows } = await db.pool.query<{ id: string }>(
    "INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'other', 'Other', now()) RETURNING id",
  );
  other = rows[0]!.id as OrgId;
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
});
// Deleting events clears their event_open rows (the trigger relay_delete_event_rows).
afterEach(async () => {
  expect(await eventOpenDrift(db.pool)).toEqual([]);
});

const count = async (sql: string, params: unknown[] = []) =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;
const remaining = async (ids: string[]) => count('events WHERE id = ANY($1::uuid[])', [ids]);

describe('retention repository', () => {
  it('deletes only old delivered events and old acknowledged failures, with their attempts and search rows', async () => {
    const repo = createRetentionRepository(db.pool);
    const oldDelivered = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 3,
      status: 'delivered',
      changedAt: daysAgo(31),
      attempts: 2,
      search: 'indexed',
    });
    const oldPending = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 1,
      status: 'delivered',
      changedAt: daysAgo(40),
      search: 'pending',
    });
    const oldAcknowledged = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 2,
      status: 'failed',
      acknowledged: true,
      changedAt: daysAgo(31),
      attempts: 1,
    });
    const kept = [
      // Young enough.
      ...(await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'delivered', changedAt: daysAgo(29) })),
      // Queued events are never deleted, however old.
      ...(await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'queued', changedAt: daysAgo(400) })),
      // Failures nobody acknowledged wait for the hard maximum.
      ...(await seedEvents(db.pool, { organizationId: ORG, count: 2, status: 'failed', changedAt: daysAgo(89) })),
      // Another organization's old events: not this call's.
      ...(await seedEvents(db.pool, { organizationId: other, count: 2, status: 'delivered', changedAt: daysAgo(99) })),
    ];
    const pastMax = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 1,
      status: 'failed',
      changedAt: daysAgo(91),
    });

    const result = await repo.deleteEventBatch(ORG, CUTOFFS, 100);
    expect(result).toEqual({ events: 7, attempts: 8, searchPending: 1, reached: expect.any(Date) });
    // The cursor is the newest deleted event's creation (the seed creates an event an hour before its change).
    expect(result.reached!.getTime()).toBe(daysAgo(31).getTime() - 3_600_000);
    expect(await remaining([...oldDelivered, ...oldPending, ...oldAcknowledged, ...pastMax])).toBe(0);
    expect(await remaining(kept)).toBe(kept.length);
    expect(await count('delivery_attempts')).toBe(0);
    expect(await count('event_search_chunks')).toBe(0);
    expect(await count('event_search_pending')).toBe(0);
    expect(await repo.deleteEventBatch(ORG, CUTOFFS, 100)).toMatchObject({ events: 0, reached: null });
  });

  it('deletes an event with its destination deliveries; keeps it while one is unfinished or failed unseen', async () => {
    const repo = createRetentionRepository(db.pool);
    const { rows } = await db.pool.query<{ id: string }>(
      `WITH rule AS (
         INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'retained', 'retained', 'http://p.example/', now(), now()) RETURNING id)
       INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
       SELECT gen_random_uuid(), $1, rule.id, 'archive', 'http://d.example/', now() FROM rule RETURNING id`,
      [ORG],
    );
    const destinationId = rows[0]!.id;
    const events = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 6,
      status: 'delivered',
      changedAt: daysAgo(40),
      attempts: 1,
    });
    // One delivery per event, in each state a delivery can be in (changed when the event was, but the fourth).
    const states: [string, string | null, Date][] = [
      ['delivered', null, daysAgo(40)],
      ['failed', daysAgo(39).toISOString(), daysAgo(40)], // acknowledged
      ['failed', null, daysAgo(95)], // not acknowledged, past the hard maximum
      ['failed', null, daysAgo(40)], // not acknowledged: needs attention
      ['queued', null, daysAgo(40)],
      ['paused', null, daysAgo(40)],
    ];
    for (const [i, [status, acknowledged, changed]] of states.entries())
      await db.pool.query(
        `INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, acknowledged_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4::"DeliveryStatus", $5::timestamptz, $6::timestamptz)`,
        [ORG, events[i], destinationId, status, acknowledged, changed.toISOString()],
      );

    const result = await repo.deleteEventBatch(ORG, CUTOFFS, 100);
    expect(result).toMatchObject({ events: 3, attempts: 3 });
    expect(await remaining(events.slice(0, 3))).toBe(0);
    expect(await remaining(events.slice(3))).toBe(3);
    // The deleted events' deliveries went with them (the cascade); the kept events keep theirs.
    expect(await count('deliveries WHERE event_id = ANY($1::uuid[])', [events.slice(0, 3)])).toBe(0);
    expect(await count('deliveries WHERE event_id = ANY($1::uuid[])', [events.slice(3)])).toBe(3);
    expect(await repo.countDueEvents(ORG, CUTOFFS)).toEqual({ events: 0, attempts: 0 });
    await db.pool.query('DELETE FROM providers');
  });

  it('deletes in batches of the given size, oldest first, and continues from where a batch stopped', async () => {
    const repo = createRetentionRepository(db.pool);
    const oldest = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 3,
      status: 'delivered',
      changedAt: daysAgo(50),
    });
    const older = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 3,
      status: 'delivered',
      changedAt: daysAgo(40),
    });
    const first = await repo.deleteEventBatch(ORG, CUTOFFS, 3);
    expect(first.events).toBe(3);
    expect(await remaining(oldest)).toBe(0);
    expect(await remaining(older)).toBe(3);
    // From the cursor on: the older rows before it are not read again.
    const second = await repo.deleteEventBatch(ORG, CUTOFFS, 3, first.reached!);
    expect(second.events).toBe(3);
    expect(await remaining(older)).toBe(0);
  });

  it('skips events another transaction holds instead of waiting for them', async () => {
    const repo = createRetentionRepository(db.pool);
    const ids = await seedEvents(db.pool, {
      organizationId: ORG,
      count: 2,
      status: 'delivered',
      changedAt: daysAgo(31),
    });
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM events WHERE id = $1 FOR UPDATE', [ids[0]]);
      const result = await repo.deleteEventBatch(ORG, CUTOFFS, 100);
      expect(result.events).toBe(1);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect(await remaining(ids)).toBe(1);
  });

  it('counts what is due without deleting it', async () => {
    const repo = createRetentionRepository(db.pool);
    await seedEvents(db.pool, {
      organizationId: ORG,
      count: 4,
      status: 'delivered',
      changedAt: daysAgo(31),
      attempts: 2,
    });
    await seedEvents(db.pool, { organizationId: ORG, count: 3, status: 'queued', changedAt: daysAgo(31), attempts: 1 });
    expect(await repo.countDueEvents(ORG, CUTOFFS)).toEqual({ events: 4, attempts: 8 });
    expect(await count('events')).toBe(7);
  });

  it('deletes audit entries older than the audit cutoff across organizations, platform entries included', async () => {
    const repo = createRetentionRepository(db.pool);
    const insert = (org: string | null, createdAt: Date, n: number) =>
      db.pool.query(
        `INSERT INTO audit_entries (id, organization_id, actor_user_id, actor_email, action, resource_type,
           resource_id, created_at)
         SELECT gen_random_uuid(), $1, gen_random_uuid(), 'a@example.com', 'x.done', 'x', 'r',
           ($2::timestamptz AT TIME ZONE 'UTC') FROM generate_series(1, $3)`,
        [org, createdAt.toISOString(), n],
      );
    await insert(ORG, daysAgo(400), 3);
    await insert(null, daysAgo(400), 2);
    await insert(other, daysAgo(366), 1);
    await insert(ORG, daysAgo(300), 4);
    const due = await repo.countDueAudit(daysAgo(365));
    expect(Object.fromEntries(due)).toEqual({ [ORG]: 3, [other]: 1, null: 2 });
    expect(await repo.deleteAuditBatch(daysAgo(365), 4)).toBe(4);
    expect(await repo.deleteAuditBatch(daysAgo(365), 4)).toBe(2);
    expect(await repo.deleteAuditBatch(daysAgo(365), 4)).toBe(0);
    expect(await count('audit_entries')).toBe(4);
  });

  it('judges an event by its last change though it walks by creation: created long ago, changed since, kept', async () => {
    const repo = createRetentionRepository(db.pool);
    const seed = (status: 'delivered' | 'failed', changed: number, acknowledged = false) =>
      seedEvents(db.pool, { organizationId: ORG, count: 1, status, changedAt: daysAgo(changed), acknowledged });
    // Each created 100 days ago (as a redelivery or a late acknowledge leaves an old event).
    const [recent] = await seed('delivered', 10);
    const [ackedRecently] = await seed('failed', 5, true);
    const [stale] = await seed('delivered', 35);
    const [staleAcked] = await seed('failed', 60, true);
    await db.pool.query(
      `UPDATE events SET created_at = ($2::timestamptz AT TIME ZONE 'UTC') WHERE id = ANY($1::uuid[])`,
      [[recent, ackedRecently, stale, staleAcked], daysAgo(100).toISOString()],
    );
    await db.pool.query('SELECT relay_rebuild_event_open()');
    expect(await repo.countDueEvents(ORG, CUTOFFS)).toEqual({ events: 2, attempts: 0 });
    const first = await repo.deleteEventBatch(ORG, CUTOFFS, 1);
    expect(first).toMatchObject({ events: 1, reached: daysAgo(100) });
    // The next batch starts at the same creation time: the kept rows there are read again, the other due one is not
    // skipped.
    expect(await repo.deleteEventBatch(ORG, CUTOFFS, 1, first.reached!)).toMatchObject({ events: 1 });
    expect(await repo.deleteEventBatch(ORG, CUTOFFS, 1, first.reached!)).toMatchObject({ events: 0, reached: null });
    expect(await remaining([stale!, staleAcked!])).toBe(0);
    expect(await remaining([recent!, ackedRecently!])).toBe(2);
  });

  it("walks the organization's (organization_id, created_at) index, bounded by the cutoff", async () => {
    await seedEvents(db.pool, { organizationId: ORG, count: 1_000, status: 'delivered', changedAt: daysAgo(40) });
    await seedEvents(db.pool, { organizationId: ORG, count: 1_000, status: 'delivered', changedAt: daysAgo(3) });
    await seedEvents(db.pool, { organizationId: other, count: 1_000, status: 'delivered', changedAt: daysAgo(40) });
    await db.pool.query('ANALYZE events');
    // The partition holding them (the others are empty, and read whole at no cost).
    const { rows: held } = await db.pool.query<{ name: string }>(
      'SELECT DISTINCT tableoid::regclass::text AS name FROM events',
    );
    const values = [ORG, new Date(0), CUTOFFS.before, CUTOFFS.unacknowledgedBefore].map((v) =>
      v instanceof Date ? v.toISOString() : v,
    );
    const statements: [string, unknown[], string][] = [
      [DELETE_EVENT_BATCH, [...values, 1_000], 'CTE batch'],
      [COUNT_DUE_EVENTS, values, 'CTE due'],
    ];
    for (const [sql, params, cte] of statements) {
      const nodes = await planNodes(db.pool, sql, params, { subplan: cte });
      const reads = eventReads(nodes).filter((r) => held.some((h) => h.name === r.relation));
      expect(reads).toHaveLength(held.length);
      for (const read of reads)
        expect(read).toEqual({
          relation: expect.any(String),
          index: expect.stringMatching(/organization_id_created_at_idx/),
          cond: expect.stringMatching(/created_at < /),
        });
    }
  });

  it('lists organizations with their own retention', async () => {
    await db.pool.query('UPDATE organizations SET retention_days = 7 WHERE id = $1', [other]);
    const orgs = await createRetentionRepository(db.pool).listOrganizations();
    expect(orgs).toEqual([
      { id: ORG, slug: 'default', retentionDays: null },
      { id: other, slug: 'other', retentionDays: 7 },
    ]);
  });
});

// The reads of events' partitions among a plan's nodes: the partition, and the index and its condition if by an index.
function eventReads(nodes: PlanNode[]): { relation: string; index?: string; cond?: string }[] {
  return nodes.flatMap((node) => {
    const relation = node['Relation Name'];
    if (relation === undefined || !/^events(_|$)/.test(relation)) return [];
    const scan = node.Plans?.find((p) => p['Node Type'] === 'Bitmap Index Scan') ?? node;
    const [index, cond] = [scan['Index Name'], scan['Index Cond']];
    return [{ relation, ...(index !== undefined ? { index, cond: cond ?? '' } : {}) }];
  });
}
