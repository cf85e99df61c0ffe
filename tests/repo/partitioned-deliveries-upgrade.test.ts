import { newEventId } from '@relay/test-support';
import pg from 'pg';
import { createUpgradeProject, type UpgradeProject } from './upgrade-project';

// The upgrade to partitioned deliveries (migration 20261206000000, docs/partitioning.md "Online upgrade"), run by the
// real runner over an install with deliveries while the previous version keeps fanning out and recording outcomes
// with its own statements: nothing is lost or refused, the old table becomes the first partition, the partitions of
// events' days after it exist for deliveries too, and the previous version's functions still work on the new table.
const UPGRADE = '20261206000000_partitioned_deliveries';
const ORG = '00000000-0000-7000-8000-000000000001';
const RULE = '00000000-0000-7000-8000-0000000000aa';
const DESTINATION = '00000000-0000-7000-8000-0000000000bb';
const DELIVERIES = 100_000;

let project: UpgradeProject;
let pool: pg.Pool;

beforeAll(async () => {
  project = await createUpgradeProject(UPGRADE, 'deliveries-upgrade');
  pool = new pg.Pool({ connectionString: project.url, max: 4 });
}, 300_000);

afterAll(async () => {
  await pool?.end();
  await project?.remove();
});

// A destination delivery's outcome recorded delivered: with the previous version's function (16 parameters, the
// delivery by id alone) when no event id is given, else with this version's (17, the event named).
async function recordDelivered(deliveryId: string, eventId?: string): Promise<number | undefined> {
  const now = new Date();
  const values = [ORG, deliveryId, newEventId(), 1, 'http://d/', 200, 'ok', null, 5, now, now, 'delivered', null];
  const args = [...values, null, null, now, ...(eventId ? [eventId] : [])];
  const params = args.map((_, i) => `$${i + 1}`).join(', ');
  const { rows } = await pool.query<{ recorded: number }>(
    `SELECT recorded FROM relay_record_deliveries(${params})`,
    args.map((value) => [value]),
  );
  return rows[0]?.recorded;
}

// The previous version's destination work for one new event: stored, fanned out (relay_fan_out_many), its delivery
// recorded delivered with the outcome function it knows (16 parameters: the delivery by id alone).
async function previousVersionDelivers(): Promise<string> {
  const eventId = newEventId();
  await pool.query(
    `INSERT INTO events (id, organization_id, source, body, headers, provider_id, created_at, updated_at)
     VALUES ($1, $2, 'live', convert_to('{}', 'UTF8'), '{}', $3, now(), now())`,
    [eventId, ORG, RULE],
  );
  const { rows } = await pool.query<{ id: string; what: string }>(
    'SELECT id, what FROM relay_fan_out_many($1, $2, $3, $4, $5)',
    [[ORG], [eventId], [1], [DESTINATION], [newEventId()]],
  );
  const deliveryId = rows.find((r) => r.what === 'added')!.id;
  if ((await recordDelivered(deliveryId)) !== 1) throw new Error(`delivery ${deliveryId} not recorded`);
  return deliveryId;
}

describe('the upgrade to partitioned deliveries', () => {
  it('runs online: nothing lost or refused, the old table the first partition, old statements still work', async () => {
    await pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
       VALUES ($2, $1, 'r', 'github', 'http://t/', now(), now())`,
      [ORG, RULE],
    );
    await pool.query(
      `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
       VALUES ($3, $1, $2, 'd', 'http://d/', now())`,
      [ORG, RULE, DESTINATION],
    );
    // History of the last days: events with a delivered delivery each.
    await pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
       SELECT relay_uuid7(t), $1, 'github', convert_to('{"n":1}', 'UTF8'), '{}', 'delivered', t, t
       FROM (SELECT now() - make_interval(secs => n * 3) AS t FROM generate_series(1, $2) n) s`,
      [ORG, DELIVERIES],
    );
    await pool.query(
      `INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at)
       SELECT gen_random_uuid(), organization_id, id, $1, 'delivered', created_at FROM events`,
      [DESTINATION],
    );

    const written: string[] = [];
    const refused: unknown[] = [];
    let migrating = true;
    const writer = (async () => {
      while (migrating) {
        await previousVersionDelivers().then(
          (id) => written.push(id),
          (err: unknown) => refused.push(err),
        );
      }
    })();
    const { stdout } = await project.upgrade();
    migrating = false;
    await writer;
    expect(stdout).toContain(UPGRADE);
    expect(refused.map((e) => String((e as { detail?: string }).detail ?? e))).toEqual([]);
    expect(written.length).toBeGreaterThan(0);

    // Every delivery is there, in the first partition; the parent is partitioned by the event id.
    const { rows: counts } = await pool.query<{ part: string; n: number }>(
      'SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM deliveries GROUP BY 1',
    );
    expect(counts).toEqual([{ part: 'deliveries_first', n: DELIVERIES + written.length }]);
    const { rows: key } = await pool.query<{ key: string }>("SELECT pg_get_partkeydef('deliveries'::regclass) AS key");
    expect(key).toEqual([{ key: 'RANGE (event_id)' }]);
    // Deliveries have a partition for each of events' days after the first partition, with the same bounds.
    const { rows: missing } = await pool.query(
      `SELECT e.relname FROM pg_inherits i JOIN pg_class e ON e.oid = i.inhrelid
       WHERE i.inhparent = 'events'::regclass AND e.relname <> 'events_first'
         AND NOT EXISTS (SELECT 1 FROM pg_class d JOIN pg_inherits di ON di.inhrelid = d.oid
           WHERE di.inhparent = 'deliveries'::regclass AND d.relname = 'deliveries' || substr(e.relname, 7)
             AND pg_get_expr(d.relpartbound, d.oid) = pg_get_expr(e.relpartbound, e.oid))
         AND pg_get_expr(e.relpartbound, e.oid) > (SELECT pg_get_expr(relpartbound, oid) FROM pg_class
           WHERE relname = 'deliveries_first')`,
    );
    expect(missing).toEqual([]);
    const { rows: nothingInvalid } = await pool.query(
      "SELECT conname FROM pg_constraint WHERE conrelid = 'deliveries'::regclass AND NOT convalidated",
    );
    expect(nothingInvalid).toEqual([]);

    // The previous version's statements still work on the new table, and so do this version's.
    await previousVersionDelivers();
    const { rows: later } = await pool.query<{ id: string }>("SELECT relay_uuid7(now() + interval '3 days') AS id");
    const eventId = later[0]!.id;
    await pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers, provider_id)
       VALUES ($1, $2, 'later', '\\x7b7d', '{}', $3)`,
      [eventId, ORG, RULE],
    );
    const { rows: fanned } = await pool.query<{ id: string }>(
      "SELECT id FROM relay_fan_out_many($1, $2, $3, $4, $5) WHERE what = 'added'",
      [[ORG], [eventId], [1], [DESTINATION], [newEventId()]],
    );
    const recorded = await recordDelivered(fanned[0]!.id, eventId);
    expect(recorded).toBe(1);
    const { rows: placed } = await pool.query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM deliveries WHERE event_id = $1',
      [eventId],
    );
    expect(placed[0]!.part).toMatch(/^deliveries_p\d{8}$/);
  }, 600_000);
});
