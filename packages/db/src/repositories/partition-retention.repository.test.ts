import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { eventOpenDrift, layOutDayPartitions, seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createEventActionRepository } from './event-action.repository';
import { createEventRepository } from './event.repository';
import {
  CHUNKS_IN_RANGE,
  createPartitionRetentionRepository,
  keptCount,
  keptParams,
  type OrganizationCutoffs,
  type PartitionRetentionRepository,
} from './partition-retention.repository';
import { createPartitionRepository, PARTITIONED_TABLES, type AttachedPartition } from './partition.repository';

const DAY = 86_400_000;
// An injected clock: a layout of March 2027 and a retention of 30 days seen from mid-April, so every day partition
// ends before the cutoff (2027-03-16) and unacknowledged failures are kept until 90 days (2027-01-14).
const NOW = new Date('2027-04-15T12:00:00Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);
const ORG = DEFAULT_ORGANIZATION_ID;
const CUTOFFS: OrganizationCutoffs[] = [{ orgId: ORG, before: daysAgo(30), unacknowledgedBefore: daysAgo(90) }];
const stored = (day: string) => new Date(`2027-03-${day}T10:00:00Z`);

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 4 }));
let db: Database;
let repo: PartitionRetentionRepository;

beforeAll(async () => {
  db = database();
  repo = createPartitionRetentionRepository(db.pool);
  await layOutDayPartitions(db.pool, new Date('2027-03-01T00:00:00Z'), 11);
});

// A drop fires no trigger: event_open loses the range's rows with it, and no other.
afterEach(async () => {
  expect(await eventOpenDrift(db.pool)).toEqual([]);
});

const family = () => createPartitionRepository(db.pool).listPartitions();
const partition = async (name: string): Promise<AttachedPartition> => (await family()).find((p) => p.name === name)!;
const count = async (sql: string, values: unknown[] = []) =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, values)).rows[0]!.n;
const byEvents = (table: string, ids: string[]) => count(`${table} WHERE event_id = ANY($1::uuid[])`, [ids]);

// A delivered event past retention (changed 40 days before NOW), stored on a day of March.
const due = (day: string, extra: Partial<Parameters<typeof seedEvents>[1]> = {}) =>
  seedEvents(db.pool, {
    organizationId: ORG,
    count: 2,
    status: 'delivered',
    changedAt: daysAgo(40),
    storedAt: stored(day),
    attempts: 1,
    ...extra,
  });

async function destination(): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
       VALUES (gen_random_uuid(), $1, 'routed' || gen_random_uuid(), 'routed', 'http://p.example/', now())
       RETURNING id)
     INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
     SELECT gen_random_uuid(), $1, rule.id, 'crm', 'http://d.example/', now() FROM rule RETURNING id`,
    [ORG],
  );
  return rows[0]!.id;
}

async function deliver(eventId: string, status: 'queued' | 'delivered' | 'failed'): Promise<void> {
  await db.pool.query(
    `INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at)
     SELECT gen_random_uuid(), e.organization_id, e.id, $2, $3::"DeliveryStatus", e.updated_at FROM events e
     WHERE e.id = $1`,
    [eventId, await destination(), status],
  );
}

describe('partition retention repository', () => {
  it('drops a partition all of whose events are due, with its family, referencing rows and search chunks', async () => {
    const ids = await due('01', { count: 3, search: 'indexed' });
    const pending = await due('01', { count: 1, search: 'pending' });
    // Deletable events not delivered: their event_open rows go with the range.
    const open = [
      ...(await due('01', { count: 1, status: 'ignored' })),
      ...(await due('01', { count: 1, status: 'failed', acknowledged: true })),
    ];
    expect(await count('event_open WHERE id = ANY($1::uuid[])', [open])).toBe(2);
    const dropped = [...ids, ...pending, ...open];
    await deliver(ids[0]!, 'delivered');
    await db.pool.query('INSERT INTO event_search_escaped (event_id) VALUES ($1)', [ids[1]]);
    await db.pool.query(
      `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, ordering, updated_at)
         VALUES (gen_random_uuid(), $1, 'ordered', 'ordered', 'http://p.example/', '{"key":"body.id"}', now())
         RETURNING id)
       INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key)
       SELECT $2, $1, rule.id, 'k' FROM rule`,
      [ORG, ids[2]],
    );
    // The next day's events stay; a chunk holding one of them and one of the dropped ones keeps only its own.
    const next = await due('02', { count: 1, status: 'queued' });
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO event_search_chunks (organization_id, event_ids, keys) VALUES ($1, $2::uuid[], '{1}') RETURNING id`,
      [ORG, [pending[0], next[0]]],
    );
    const mixed = rows[0]!.id;
    const whole = await count('event_search_chunks WHERE event_ids && $1::uuid[]', [ids]);
    expect(whole).toBe(1);

    const p = await partition('events_p20270301');
    expect(await repo.countKept(CUTOFFS, p)).toBe(0);
    expect(await repo.dropPartition(CUTOFFS, p, await family())).toEqual({ outcome: 'dropped', events: 6 });

    const names = (await family()).map((f) => f.name);
    for (const table of PARTITIONED_TABLES) {
      expect(names).not.toContain(`${table}_p20270301`);
      expect(names).toContain(`${table}_p20270302`);
    }
    expect(await count('events WHERE id = ANY($1::uuid[])', [dropped])).toBe(0);
    for (const table of ['deliveries', 'event_search_escaped', 'event_search_pending', 'event_ordering'])
      expect(await byEvents(table, dropped)).toBe(0);
    // No open row of the range is left, and the next day's queued event keeps its own.
    expect(await count('event_open WHERE id >= $1::uuid AND id < $2::uuid', [p.from, p.to])).toBe(0);
    expect(await count('event_open WHERE id = ANY($1::uuid[])', [next])).toBe(1);
    // The chunk of dropped events only is gone; the mixed one keeps the other day's id and is rebuilt later.
    expect(await count('event_search_chunks WHERE event_ids && $1::uuid[]', [dropped])).toBe(0);
    const left = await db.pool.query<{ event_ids: string[]; stale: boolean }>(
      'SELECT event_ids, stale FROM event_search_chunks WHERE id = $1',
      [mixed],
    );
    expect(left.rows).toEqual([{ event_ids: next, stale: true }]);
    expect(await count('events WHERE id = ANY($1::uuid[])', [next])).toBe(1);
    // Dropped, not only detached: no table of that day is left.
    const { rows: tables } = await db.pool.query("SELECT relname FROM pg_class WHERE relname LIKE '%_p20270301'");
    expect(tables).toEqual([]);
  });

  it('drops what an interrupted drop left detached, before its own', async () => {
    // As a drop that stopped between its commit (the detach) and its DROP TABLE leaves it: no partition, no link.
    await db.pool.query('CREATE TABLE delivery_attempts_p20260101 (LIKE delivery_attempts)');
    await db.pool.query(
      `ALTER TABLE delivery_attempts_p20260101 ADD CONSTRAINT left_fkey FOREIGN KEY (event_id) REFERENCES events(id)`,
    );
    await due('04');
    const p = await partition('events_p20270304');
    expect(await repo.dropPartition(CUTOFFS, p, await family())).toEqual({ outcome: 'dropped', events: 2 });
    const { rows } = await db.pool.query(
      "SELECT relname FROM pg_class WHERE relname IN ('delivery_attempts_p20260101', 'events_p20270304')",
    );
    expect(rows).toEqual([]);
  });

  it('keeps a partition holding one kept event, and loses nothing of it', async () => {
    const other = (
      await db.pool.query<{ id: OrgId }>(
        `INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'keeper', 'Keeper', now())
         RETURNING id`,
      )
    ).rows[0]!.id;
    const queuedDelivery = await due('05', { count: 1 });
    // A destination's delivery failed and unacknowledged, within RETENTION_FAILED_MAX_DAYS, of a delivered event.
    const failedDelivery = await due('08', { count: 1 });
    const cases: [string, () => Promise<string[]>][] = [
      ['02', () => Promise.resolve([])], // the queued event of the first test
      ['03', () => due('03', { count: 1, status: 'failed' })], // unacknowledged, within RETENTION_FAILED_MAX_DAYS
      ['05', async () => (await deliver(queuedDelivery[0]!, 'queued'), queuedDelivery)],
      ['06', () => due('06', { count: 1, organizationId: other })], // an organization with no retention
      ['08', async () => (await deliver(failedDelivery[0]!, 'failed'), failedDelivery)],
      // Delivered again since the cutoff (its attempt then): changed after it.
      ['09', () => due('09', { count: 1, changedAt: daysAgo(5) })],
      // Filtered (ignored) since the cutoff, and an acknowledged failure changed since: open rows changed after it.
      [
        '10',
        async () => [
          ...(await due('10', { count: 1, status: 'ignored', changedAt: daysAgo(5), attempts: 0 })),
          ...(await due('10', { count: 1, status: 'failed', acknowledged: true, changedAt: daysAgo(5), attempts: 0 })),
        ],
      ],
    ];
    for (const [day, seed] of cases) {
      const kept = await seed();
      const beside = await due(day, { search: 'indexed' });
      const p = await partition(`events_p202703${day}`);
      const before = await count(`${p.name}`);
      expect(await repo.countKept(CUTOFFS, p)).toBe(day === '02' ? 1 : kept.length);
      expect(await repo.dropPartition(CUTOFFS, p, await family())).toEqual({ outcome: 'kept' });
      expect(await count(`${p.name}`)).toBe(before);
      expect(await byEvents('delivery_attempts', beside)).toBe(2);
      expect(await byEvents('event_search_keys', beside)).toBe(2);
      expect(await byEvents('deliveries', kept)).toBe(['05', '08'].includes(day) ? 1 : 0);
    }
  });

  it('keeps a partition whose delivered event was retried and delivered again since the first count', async () => {
    // Cutoffs of the real clock (the database's now() stamps the retry): changed within the hour is kept.
    const hourAgo = new Date(Date.now() - 3_600_000);
    const cutoffs: OrganizationCutoffs[] = [{ orgId: ORG, before: hourAgo, unacknowledgedBefore: hourAgo }];
    const [id] = await due('11', { count: 1, changedAt: new Date(Date.now() - 7_200_000) });
    const p = await partition('events_p20270311');
    expect(await repo.countKept(cutoffs, p)).toBe(0);
    // Between the first count and the drop's lock: a retry (open again), then its delivery (closed again).
    const audit = {
      actorUserId: null,
      actorEmail: null,
      action: 'event.retried',
      resourceType: 'event',
      resourceId: id!,
    };
    await createEventActionRepository(db.pool).retry(ORG, id!, audit);
    const finishedAt = new Date();
    await createEventRepository(db.pool, { defaultTargetUrl: undefined }).recordOutcomes([
      {
        orgId: ORG,
        id: id!,
        attempt: {
          attemptNumber: 2,
          kind: 'main',
          targetUrl: 'http://target.example/hook',
          responseStatus: 200,
          responseBody: null,
          error: null,
          durationMs: 3,
          startedAt: finishedAt,
          finishedAt,
        },
        update: { status: 'delivered', at: finishedAt },
      },
    ]);
    expect(await count('event_open WHERE id = $1', [id])).toBe(0);
    expect(await repo.dropPartition(cutoffs, p, await family())).toEqual({ outcome: 'kept' });
    expect(await repo.countKept(cutoffs, p)).toBe(1);
    expect(await count('events WHERE id = $1', [id])).toBe(1);
  });

  it('counts the first partition (from MINVALUE) and refuses to wait: another drop running is busy', async () => {
    await due('01', { storedAt: new Date('2027-02-20T00:00:00Z'), status: 'queued', count: 1 });
    const first = await partition('events_first');
    expect(first.from).toBeNull();
    expect(await repo.countKept(CUTOFFS, first)).toBe(1);

    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('partitions:retention'))");
      expect(await repo.dropPartition(CUTOFFS, first, await family())).toEqual({ outcome: 'busy' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it("finds the range's search chunks by their ids' spans, not by reading every chunk's ids", async () => {
    const chunk = async (...days: string[]) => {
      const ids = days.map((day) => `relay_uuid7('2027-03-${day} 10:00+00')`).join(', ');
      const { rows } = await db.pool.query<{ id: string }>(
        `INSERT INTO event_search_chunks (organization_id, event_ids, keys)
         VALUES ($1, ARRAY[${ids}]::uuid[], '{}') RETURNING id::text`,
        [ORG],
      );
      return rows[0]!.id;
    };
    // A chunk's ids in any order: its span runs from the least id to the greatest.
    const [inRange, mixed, outside, empty] = [
      await chunk('02'),
      await chunk('03', '02'),
      await chunk('04', '03'),
      await chunk(),
    ];
    // An empty (or null) array spans everything, so the index never hides a chunk from the exact test.
    const { rows: spans } = await db.pool.query<{ empty: string; none: string }>(
      "SELECT relay_uuid_span('{}')::text AS empty, relay_uuid_span(NULL)::text AS none",
    );
    expect(spans[0]).toEqual({ empty: '(,)', none: '(,)' });
    const p = await partition('events_p20270302');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const found = (await client.query<{ id: string }>(CHUNKS_IN_RANGE, [p.from, p.to])).rows.map((r) => r.id);
      expect(found).toEqual(expect.arrayContaining([inRange, mixed]));
      expect(found).not.toContain(outside);
      expect(found).not.toContain(empty);
      const plan = await client.query(`EXPLAIN (FORMAT JSON) ${CHUNKS_IN_RANGE}`, [p.from, p.to]);
      expect(JSON.stringify(plan.rows[0])).toContain('event_search_chunks_span_idx');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('plans the kept count over its own partition of events only (the parent: a path into every partition)', async () => {
    const p = await partition('events_p20270303');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      // As the count runs (INDEX_WALKS).
      await client.query('SET LOCAL enable_seqscan = off; SET LOCAL jit = off');
      const plan = await client.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (FORMAT JSON) ${keptCount(p.name)}`,
        keptParams(CUTOFFS, p),
      );
      const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
      const relations = [...text.matchAll(/"Relation Name":"([^"]+)"/g)].map((m) => m[1]!);
      const events = new Set(relations.filter((name) => /^events(_|$)/.test(name)));
      expect([...events]).toEqual([p.name]);
      // The reasons events no longer indexes: event_open over the range by its primary key, and the range's
      // attempts (their partition of the same day only) by (organization_id, finished_at).
      const indexes = new Set([...text.matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]!));
      expect(indexes).toContain('event_open_pkey');
      expect([...indexes].filter((i) => i.startsWith('event_open'))).toEqual(['event_open_pkey']);
      expect([...indexes].filter((i) => i.startsWith('delivery_attempts'))).toEqual([
        'delivery_attempts_p20270303_organization_id_finished_at_idx',
      ]);
      expect(text).not.toMatch(/"Node Type":"Seq Scan"/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('tries for the locks three times, a pause between, then gives up: busy, and nothing changed', async () => {
    const ids = await due('07', { count: 1 });
    const p = await partition('events_p20270307');
    const pauses: number[] = [];
    const patient = createPartitionRetentionRepository(db.pool, { pause: async (ms) => void pauses.push(ms) });
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      // A writer's lock on a referencing table: each of the drop's tries for ACCESS EXCLUSIVE waits 250 ms for it.
      await holder.query('LOCK TABLE event_ordering IN ROW EXCLUSIVE MODE');
      expect(await patient.dropPartition(CUTOFFS, p, await family())).toEqual({ outcome: 'busy' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(pauses).toEqual([1_000, 1_000]);
    expect(await count('events WHERE id = ANY($1::uuid[])', [ids])).toBe(1);
    expect((await family()).map((f) => f.name)).toContain('events_p20270307');
  });

  it('drops once the writer it waited for is done within its tries', async () => {
    const ids = await due('07', { count: 1 });
    const p = await partition('events_p20270307');
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE event_ordering IN ROW EXCLUSIVE MODE');
    let released = false;
    // The writer finishes during the first pause: the second try has the locks.
    const patient = createPartitionRetentionRepository(db.pool, {
      pause: async () => {
        if (released) return;
        released = true;
        await holder.query('ROLLBACK');
        holder.release();
      },
    });
    try {
      const outcome = await patient.dropPartition(CUTOFFS, p, await family());
      expect(released).toBe(true);
      // The day's events: this test's and the one the test before left.
      expect(outcome).toEqual({ outcome: 'dropped', events: 2 });
    } finally {
      if (!released) {
        await holder.query('ROLLBACK');
        holder.release();
      }
    }
    expect(await count('events WHERE id = ANY($1::uuid[])', [ids])).toBe(0);
    expect((await family()).map((f) => f.name)).not.toContain('events_p20270307');
  });
});
