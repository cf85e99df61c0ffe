import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import type pg from 'pg';
import { createDatabase, type Database } from '../database';
import { keptPlanIndexReads, keptPlanScans } from './kept-plan-scans';
import {
  BLOCKED_BODY,
  FAN_OUT_BODY,
  FAN_OUT_MANY,
  LOAD_MANY,
  RECORD_BODY,
  RECORD_MANY,
} from './delivery-statement.sql';

// A destination delivery's statements run inside functions whose plans each connection keeps
// (delivery-statement.sql.ts). A plan kept while the tables are small must still look rows up by index, or each
// delivery reads whole tables once they have grown.
// One connection: the index reads counted (keptPlanIndexReads) are flushed by the backend that made them, so no
// other connection's pending statistics (a seed's) can land in a measurement.
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 1 }));
let db: Database;
beforeAll(() => {
  db = database();
});

const orgId = DEFAULT_ORGANIZATION_ID;
const TABLES = ['deliveries', 'destinations', 'event_ordering', 'events', 'providers', 'delivery_attempts'];

// Runs `work` with its kept plans made at once (kept-plan-scans.ts); answers its scans of the tables involved.
const scansOf = <T>(work: (client: pg.PoolClient) => Promise<T>, check?: (client: pg.PoolClient) => Promise<void>) =>
  keptPlanScans(db.pool, TABLES, work, check);

describe('the kept plans of the destination statements on small tables', () => {
  let ruleId: string;
  let destinationId: string;
  let events: string[];
  let queuedDelivery: string;
  beforeAll(async () => {
    // In id order, as ingest makes them (the ordering check compares event ids).
    events = (
      await seedEvents(db.pool, { organizationId: orgId, status: 'queued', count: 3, changedAt: new Date() })
    ).sort();
    ruleId = crypto.randomUUID();
    destinationId = crypto.randomUUID();
    queuedDelivery = crypto.randomUUID();
    // An ordered rule, so the load's ordering check goes past its first condition into both of its lookups.
    await db.pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, ordering, created_at, updated_at)
       VALUES ($1, $2, 'plans', 'plans', 'http://target.example/', '{"key":"header:x-key"}', now(), now())`,
      [ruleId, orgId],
    );
    await db.pool.query(
      `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, created_at, updated_at)
       VALUES ($1, $2, $3, 'one', 'http://one.example/', now() - interval '1 day', now())`,
      [destinationId, orgId, ruleId],
    );
    await db.pool.query(
      `INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key)
       SELECT e, $2, $3, 'k' FROM unnest($1::uuid[]) e`,
      [events, orgId, ruleId],
    );
    await db.pool.query(
      `INSERT INTO deliveries (id, organization_id, event_id, destination_id, ordering_key, updated_at)
       VALUES ($1, $2, $3, $4, 'k', now())`,
      [queuedDelivery, orgId, events[1], destinationId],
    );
    for (const table of TABLES) await db.pool.query(`ANALYZE ${table}`);
  });

  it('a fan-out adds the delivery and finds the event by index', async () => {
    const found = await scansOf(async (client) => {
      // One event's fan-out (the batch function with one item).
      const { rows } = await client.query<{ what: string; destination_id: string }>(FAN_OUT_MANY, [
        [orgId],
        [events[2]],
        [1],
        [destinationId],
        [crypto.randomUUID()],
      ]);
      return rows;
    });
    expect(found.answer).toEqual([{ ...found.answer[0], item: 1, what: 'added', destination_id: destinationId }]);
    expect(found.seq).toEqual({});
    expect(found.idx).toBeGreaterThan(0);
  });

  it('loading a delivery answers it with its destination, and whether it waits for its key', async () => {
    const { rows } = await db.pool.query<{ v_id: string; v_blocked: boolean; target_url: string }>(LOAD_MANY, [
      [queuedDelivery, crypto.randomUUID()],
      [orgId, orgId],
      [events[1], events[1]],
    ]);
    // events[0] has the same key, is older, queued and not fanned out yet: it may still make an older delivery.
    expect(rows).toEqual([
      expect.objectContaining({ v_id: queuedDelivery, v_blocked: true, target_url: 'http://one.example/' }),
    ]);
  });

  it("the load's ordering check (the function) looks up by index", async () => {
    // The delivery's row is handed over as a value: the function's own lookups are the only scans counted (the
    // load's join of two rows by primary key is planned at each call, and cheaply).
    const { rows } = await db.pool.query<{ row: unknown }>(
      'SELECT to_jsonb(v) AS row FROM deliveries v WHERE id = $1',
      [queuedDelivery],
    );
    const found = await scansOf(async (client) => {
      const blocked = await client.query<{ blocked: boolean }>(
        'SELECT relay_delivery_blocked(jsonb_populate_record(NULL::deliveries, $1::jsonb)) AS blocked',
        [rows[0]!.row],
      );
      return blocked.rows[0]?.blocked;
    });
    expect(found.answer).toBe(true);
    expect(found.seq).toEqual({});
    expect(found.idx).toBeGreaterThan(0);
  });

  it('recording a batch of delivery outcomes updates them by index, one answer per delivery in order', async () => {
    const now = new Date();
    let attempts = 0;
    const missing = crypto.randomUUID();
    const found = await scansOf(
      async (client) => {
        // Each parameter is an array with one element per delivery: a queued delivery, then one that is not there.
        const { rows } = await client.query<{ delivery_id: string; recorded: number }>(
          RECORD_MANY,
          [
            orgId,
            null,
            null,
            1,
            'http://one.example/',
            200,
            'ok',
            null,
            5,
            now,
            now,
            'delivered',
            null,
            null,
            null,
            now,
            events[1],
          ].map((value, i) => {
            if (i === 1) return [queuedDelivery, missing];
            if (i === 2) return [crypto.randomUUID(), crypto.randomUUID()];
            return [value, value];
          }),
        );
        return rows.map((r) => [r.delivery_id, r.recorded]);
      },
      async (client) => {
        const { rowCount } = await client.query('SELECT 1 FROM delivery_attempts WHERE destination_id = $1', [
          destinationId,
        ]);
        attempts = rowCount ?? 0;
      },
    );
    expect(found.answer).toEqual([
      [queuedDelivery, 1],
      [missing, 0],
    ]);
    expect(attempts).toBe(1);
    expect(found.seq).toEqual({});
    expect(found.idx).toBeGreaterThan(0);
  });
});

describe('the kept plans read only their own deliveries, however many others are queued', () => {
  let destinationId: string;
  let delivery: string;
  let deliveryEvent: string;
  let fresh: string;
  let keyed: string[];
  let keyedDeliveries: string[];
  const BACKLOG = 400;
  beforeAll(async () => {
    // Plans kept from small tables (the statistics of the ANALYZE above, autovacuum kept from renewing them), then a
    // backlog of queued deliveries of other events at one destination.
    await db.pool.query(`DO $$ DECLARE p regclass; BEGIN
      FOR p IN SELECT relid FROM pg_partition_tree('deliveries') WHERE isleaf LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false)', p);
      END LOOP; END $$`);
    const ruleId = crypto.randomUUID();
    destinationId = crypto.randomUUID();
    // An ordered rule: the ordering checks look past their first condition.
    await db.pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, ordering, created_at, updated_at)
       VALUES ($1, $2, 'backlog', 'backlog', 'http://target.example/', '{"key":"header:x-key"}', now(), now())`,
      [ruleId, orgId],
    );
    await db.pool.query(
      `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, created_at, updated_at)
       VALUES ($1, $2, $3, 'one', 'http://one.example/', now(), now())`,
      [destinationId, orgId, ruleId],
    );
    const ids = await seedEvents(db.pool, {
      organizationId: orgId,
      status: 'queued',
      count: BACKLOG + 3,
      changedAt: new Date(),
    });
    fresh = ids.pop()!;
    // Two deliveries of one key, in event order (the older holds the key), beside the backlog's unkeyed ones.
    keyed = [ids.pop()!, ids.pop()!].sort();
    await db.pool.query(
      `INSERT INTO deliveries (id, organization_id, event_id, destination_id, ordering_key, updated_at)
       SELECT gen_random_uuid(), $2, e, $3, 'k', now() FROM unnest($1::uuid[]) e`,
      [keyed, orgId, destinationId],
    );
    keyedDeliveries = (
      await db.pool.query<{ id: string }>('SELECT id FROM deliveries WHERE event_id = ANY($1) ORDER BY event_id', [
        keyed,
      ])
    ).rows.map((r) => r.id);
    await db.pool.query(
      `INSERT INTO deliveries (id, organization_id, event_id, destination_id, updated_at)
       SELECT gen_random_uuid(), $2, e, $3, now() FROM unnest($1::uuid[]) e`,
      [ids, orgId, destinationId],
    );
    deliveryEvent = ids[0]!;
    delivery = (await db.pool.query<{ id: string }>('SELECT id FROM deliveries WHERE event_id = $1', [ids[0]])).rows[0]!
      .id;
  });

  // A statement for one event or delivery reads a few entries of each index it uses; a whole index is the backlog.
  const FEW = BACKLOG / 10;

  it('a fan-out', async () => {
    const found = await keptPlanIndexReads(db.pool, 'deliveries', async (client) => {
      const { rows } = await client.query<{ what: string }>(FAN_OUT_MANY, [
        [orgId],
        [fresh],
        [1],
        [destinationId],
        [crypto.randomUUID()],
      ]);
      return rows.map((r) => r.what);
    });
    expect(found.answer).toEqual(['added']);
    expect(found.read).toBeLessThan(FEW);
  });

  it('a load', async () => {
    const found = await keptPlanIndexReads(db.pool, 'deliveries', async (client) => {
      const { rows } = await client.query<{ v_id: string }>(LOAD_MANY, [[delivery], [orgId], [deliveryEvent]]);
      return rows.map((r) => r.v_id);
    });
    expect(found.answer).toEqual([delivery]);
    expect(found.read).toBeLessThan(FEW);
  });

  it('an outcome', async () => {
    const now = new Date();
    const found = await keptPlanIndexReads(db.pool, 'deliveries', async (client) => {
      const one = [orgId, delivery, crypto.randomUUID(), 1, 'http://one.example/', 500, 'no', null, 5, now, now];
      const { rows } = await client.query<{ recorded: number }>(
        RECORD_MANY,
        [...one, 'queued', now, null, 'HTTP 500', null, deliveryEvent].map((value) => [value]),
      );
      return rows.map((r) => r.recorded);
    });
    expect(found.answer).toEqual([1]);
    expect(found.read).toBeLessThan(FEW);
  });

  it("an ordering check, and a final outcome's release of its key", async () => {
    const now = new Date();
    const found = await keptPlanIndexReads(db.pool, 'deliveries', async (client) => {
      const blocked = await client.query<{ blocked: boolean }>(
        // In the order given (event order): ORDER BY event_id would walk every partition's (event_id, ...) index.
        `SELECT relay_delivery_blocked(v) AS blocked FROM unnest($1::uuid[]) WITH ORDINALITY k(id, n)
         JOIN deliveries v ON v.id = k.id ORDER BY k.n`,
        [keyedDeliveries],
      );
      const one = [orgId, keyedDeliveries[0], crypto.randomUUID(), 1, 'http://one.example/', 200, 'ok', null, 5, now];
      const { rows } = await client.query<{ head_id: string | null }>(
        RECORD_MANY,
        [...one, now, 'delivered', null, null, null, now, keyed[0]].map((value) => [value]),
      );
      return { blocked: blocked.rows.map((r) => r.blocked), head: rows[0]?.head_id };
    });
    expect(found.answer).toEqual({ blocked: [false, true], head: keyedDeliveries[1] });
    expect(found.read).toBeLessThan(FEW);
  });
});

describe('the destination functions', () => {
  const words = (sql: string) => sql.replace(/\s+/g, ' ').trim();
  // The statements are written in delivery-statement.sql.ts and, for Postgres, in the functions' bodies.
  // The outcome record's 16-parameter version is the previous release's (migration 20261206000000): not ours.
  it.each([
    ['relay_delivery_blocked', 1, BLOCKED_BODY],
    ['relay_fan_out', 4, FAN_OUT_BODY],
    ['relay_record_delivery', 17, RECORD_BODY],
  ])('%s runs the statement of delivery-statement.sql.ts, word for word', async (name, args, body) => {
    const { rows } = await db.pool.query<{ src: string }>(
      `SELECT prosrc AS src FROM pg_proc WHERE proname = $1 AND pronargs = $2`,
      [name, args],
    );
    expect(rows).toHaveLength(1);
    expect(words(rows[0]!.src)).toContain(words(body));
  });
});
