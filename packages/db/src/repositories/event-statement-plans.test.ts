import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import type pg from 'pg';
import { createDatabase, type Database } from '../database';
import { ACTIVE_RULE_JOIN } from '../target.sql';
import { createEventRepository } from './event.repository';
import { keptPlanIndexReads, keptPlanScans } from './kept-plan-scans';
import { LOAD_EVENTS, RECORD_OUTCOMES } from './event.sql';
import { outcomeValues } from './outcome-values';

// The worker's load and outcome statements keep their plans for the life of a connection. A plan kept while events
// is small must still look events up by primary key, or every batch reads the whole table once it has grown.
// One connection: the index reads counted (keptPlanIndexReads) are flushed by the backend that made them, so no
// other connection's pending statistics (a seed's) can land in a measurement.
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 1 }));
let db: Database;
beforeAll(() => {
  db = database();
});

const orgId = DEFAULT_ORGANIZATION_ID;
// Runs `work` with its kept plans made at once (kept-plan-scans.ts); answers its scans of `table`.
async function scansOf(
  work: (client: pg.PoolClient) => Promise<unknown>,
  check?: (client: pg.PoolClient) => Promise<unknown>,
  table = 'events',
): Promise<{ seq: number; idx: number }> {
  const { seq, idx } = await keptPlanScans(db.pool, [table], work, check);
  return { seq: seq[table] ?? 0, idx };
}

describe('the kept plans of the worker statements on a small events table', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = await seedEvents(db.pool, { organizationId: orgId, status: 'queued', count: 3, changedAt: new Date() });
    await db.pool.query('ANALYZE events');
  });
  const orgs = () => ids.map(() => orgId);

  it('the same lookup kept as a plain prepared statement scans the whole table (what the functions avoid)', async () => {
    const found = await scansOf((client) =>
      client.query({
        name: 'plain_load',
        text: `SELECT id FROM events WHERE (id, organization_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
        values: [ids, orgs()],
      }),
    );
    expect(found.seq).toBeGreaterThan(0);
  });

  it('loading a batch looks its events up by index', async () => {
    let loaded = 0;
    const found = await scansOf(async (client) => {
      loaded = (await client.query(LOAD_EVENTS, [ids, orgs()])).rowCount ?? 0;
    });
    expect(loaded).toBe(3);
    expect(found).toEqual({ seq: 0, idx: expect.any(Number) });
    expect(found.idx).toBeGreaterThan(0);
  });

  it("recording a batch's outcomes updates its events by index", async () => {
    let statuses: string[] = [];
    const found = await scansOf(
      (client) => client.query(RECORD_OUTCOMES, outcomeValues(ids, orgId, ['ignored', 'ignored', 'ignored'])),
      async (client) => {
        const { rows } = await client.query<{ status: string }>('SELECT status FROM events WHERE id = ANY($1)', [ids]);
        statuses = rows.map((r) => r.status);
      },
    );
    expect(statuses).toEqual(['ignored', 'ignored', 'ignored']);
    expect(found.seq).toBe(0);
    expect(found.idx).toBeGreaterThan(0);
  });

  it("recording a batch's outcomes keeps their open rows by index", async () => {
    let open: string[] = [];
    const found = await scansOf(
      (client) => client.query(RECORD_OUTCOMES, outcomeValues(ids, orgId, ['ignored', 'ignored', 'delivered'])),
      async (client) => {
        const { rows } = await client.query<{ status: string }>('SELECT status FROM event_open WHERE id = ANY($1)', [
          ids,
        ]);
        open = rows.map((r) => r.status);
      },
      'event_open',
    );
    expect(open).toEqual(['ignored', 'ignored']);
    expect(found.seq).toBe(0);
    expect(found.idx).toBeGreaterThan(0);
  });

  it("an ingest batch finds its events' rules by index, and writes their ordering rows", async () => {
    await db.pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'plans', 'plans', 'http://target.example/', now(), now())`,
      [orgId],
    );
    await db.pool.query('ANALYZE providers');
    const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
    const event = (id: string, orderingKey?: string) => ({
      id,
      organizationId: orgId,
      source: 'plans',
      targetOverride: null,
      body: Buffer.from('{}'),
      headers: {},
      nextAttemptAt: new Date(),
      ...(orderingKey === undefined ? {} : { orderingKey }),
    });
    const plain = uuidv7();
    const ordered = uuidv7();
    let ordering: string[] = [];
    const found = await scansOf(
      async (client) => {
        await events.insertMany([event(plain)], client);
        await events.insertMany([event(ordered, 'k1')], client);
      },
      async (client) => {
        const { rows } = await client.query<{ event_id: string }>('SELECT event_id FROM event_ordering');
        ordering = rows.map((r) => r.event_id);
      },
      'providers',
    );
    expect(ordering).toEqual([ordered]);
    expect(found.seq).toBe(0);
    expect(found.idx).toBeGreaterThan(0);
  });
});

describe('the kept plans read only their own events, however many others are queued', () => {
  const BACKLOG = 400;
  let ids: string[];
  beforeAll(async () => {
    // Plans kept from the small table above (autovacuum kept from renewing its statistics), then a backlog.
    await db.pool.query(`DO $$ DECLARE p regclass; BEGIN
      FOR p IN SELECT relid FROM pg_partition_tree('events') WHERE isleaf LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false)', p);
      END LOOP; END $$`);
    await seedEvents(db.pool, { organizationId: orgId, status: 'queued', count: BACKLOG, changedAt: new Date() });
    ids = await seedEvents(db.pool, { organizationId: orgId, status: 'queued', count: 3, changedAt: new Date() });
  });
  const orgs = () => ids.map(() => orgId);
  // A batch of three reads a few entries of each index it uses; a whole index is the backlog.
  const FEW = BACKLOG / 10;

  it('a load', async () => {
    const found = await keptPlanIndexReads(db.pool, 'events', async (client) => {
      return (await client.query(LOAD_EVENTS, [ids, orgs()])).rowCount;
    });
    expect(found.answer).toBe(3);
    expect(found.read).toBeLessThan(FEW);
  });

  it('an outcome', async () => {
    const found = await keptPlanIndexReads(db.pool, 'events', async (client) => {
      await client.query(RECORD_OUTCOMES, outcomeValues(ids, orgId, ['delivered', 'delivered', 'delivered'], 1));
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE id = ANY($1) AND status = 'delivered'",
        [ids],
      );
      return rows[0]!.n;
    });
    expect(found.answer).toBe(3);
    // The check above reads its three by the primary key: a few entries more.
    expect(found.read).toBeLessThan(FEW);
  });

  // The backlog is in event_open too (not delivered): the outcome's delete and update there probe its primary key.
  it("an outcome's open rows", async () => {
    const found = await keptPlanIndexReads(db.pool, 'event_open', async (client) => {
      await client.query(RECORD_OUTCOMES, outcomeValues(ids, orgId, ['delivered', 'queued', 'failed'], 1));
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM event_open WHERE id = ANY($1)',
        [ids],
      );
      return rows[0]!.n;
    });
    expect(found.answer).toBe(2);
    expect(found.read).toBeLessThan(FEW);
  });
});

describe('the ingest function reads only its rule, however many the organization has', () => {
  it('an ingest batch', async () => {
    // Plans kept from the few rules above (autovacuum kept from renewing the statistics), then many rules.
    await db.pool.query('ALTER TABLE providers SET (autovacuum_enabled = false)');
    await db.pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'many-' || n, 'many-' || n, 'http://target.example/', now(), now()
       FROM generate_series(1, 400) n`,
      [orgId],
    );
    const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
    const found = await keptPlanIndexReads(db.pool, 'providers', async (client) => {
      const event = {
        organizationId: orgId,
        source: 'many-7',
        targetOverride: null,
        body: Buffer.from('{}'),
        headers: {},
        nextAttemptAt: new Date(),
      };
      const stored = await events.insertMany(
        [
          { ...event, id: uuidv7() },
          { ...event, id: uuidv7(), orderingKey: 'k' },
        ],
        client,
      );
      return stored.size;
    });
    expect(found.answer).toBe(2);
    expect(found.read).toBeLessThan(40);
  });
});

describe('the ingest function', () => {
  // The target rule of the spec is written in target.sql.ts and, for the ingest statement, in the function's body.
  it('selects the rule as ACTIVE_RULE_JOIN does, word for word', async () => {
    const { rows } = await db.pool.query<{ src: string }>(
      `SELECT prosrc AS src FROM pg_proc WHERE proname = 'relay_insert_events'`,
    );
    const words = (sql: string) => sql.replace(/\s+/g, ' ').trim();
    expect(rows).toHaveLength(1);
    expect(words(rows[0]!.src)).toContain(words(ACTIVE_RULE_JOIN));
  });
});
