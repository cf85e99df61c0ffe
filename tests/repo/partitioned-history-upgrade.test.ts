import { newEventId } from '@relay/test-support';
import pg from 'pg';
import { createUpgradeProject, type UpgradeProject } from './upgrade-project';

// The upgrade to partitioned history (migration 20261205400000, docs/partitioning.md "Online upgrade") on an install
// holding a million events, run by the real runner while writes go on as the previous version makes them: nothing
// is lost or refused, the old tables become the first partitions, every foreign key is valid again, and what the
// old version's statements do still works.
const UPGRADE = '20261205400000_partitioned_history';
const ORG = '00000000-0000-7000-8000-000000000001';
const EVENTS = 1_000_000;

let project: UpgradeProject;
let pool: pg.Pool;

beforeAll(async () => {
  // A copy of the runner with every migration before the upgrade, and its database.
  project = await createUpgradeProject(UPGRADE, 'upgrade');
  pool = new pg.Pool({ connectionString: project.url, max: 4 });
}, 300_000);

afterAll(async () => {
  await pool?.end();
  await project?.remove();
});

// The previous version's ingest: a UUIDv7 id of now, the event with its pending search row.
async function ingestOne(client: pg.Pool): Promise<string> {
  const id = newEventId();
  await client.query(
    `WITH e AS (INSERT INTO events (id, organization_id, source, body, headers, created_at, updated_at)
       VALUES ($1, $2, 'live', convert_to('{"live":true}', 'UTF8'), '{}', now(), now()) RETURNING id, organization_id)
     INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM e`,
    [id, ORG],
  );
  return id;
}

describe('the upgrade to partitioned history', () => {
  it('runs online over a million events: nothing lost, nothing refused, old statements still work', async () => {
    // History of the last 20 days: each event delivered with one attempt, some with a destination's delivery.
    const fill = await pool.connect();
    try {
      await fill.query(`CREATE FUNCTION pg_temp.v7(at timestamptz) RETURNS uuid LANGUAGE sql AS $$
        SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7'
          || substr(r, 14, 3) || substr(r, 17, 16))::uuid
        FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS r) random $$`);
      await fill.query(
        `INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
         SELECT pg_temp.v7(t), $1, 'github', convert_to('{"n":1}', 'UTF8'), '{}', 'delivered', t, t
         FROM (SELECT now() - make_interval(secs => n * 1.7) AS t FROM generate_series(1, $2) n) s`,
        [ORG, EVENTS],
      );
    } finally {
      fill.release();
    }
    await pool.query(
      `INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms,
         started_at, finished_at)
       SELECT gen_random_uuid(), id, organization_id, 1, 'http://t/', 5, created_at, created_at FROM events`,
    );
    await pool.query(
      `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
      VALUES ('00000000-0000-7000-8000-0000000000aa', $1, 'r', 'github', 'http://t/', now(), now())`,
      [ORG],
    );
    await pool.query(
      `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
      VALUES ('00000000-0000-7000-8000-0000000000bb', $1, '00000000-0000-7000-8000-0000000000aa', 'd', 'http://d/',
        now())`,
      [ORG],
    );
    await pool.query(
      `INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at)
       SELECT gen_random_uuid(), organization_id, id, '00000000-0000-7000-8000-0000000000bb', 'delivered', now()
       FROM events LIMIT 1000`,
    );
    const before = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n;
    expect(before).toBe(EVENTS);

    // The previous version keeps ingesting while the new one migrates.
    const written: string[] = [];
    const refused: unknown[] = [];
    let migrating = true;
    const writer = (async () => {
      while (migrating) {
        await ingestOne(pool).then(
          (id) => written.push(id),
          (err: unknown) => refused.push(err),
        );
      }
    })();
    const { stdout } = await project.upgrade();
    migrating = false;
    await writer;
    expect(stdout).toContain(UPGRADE);
    expect(refused).toEqual([]);
    expect(written.length).toBeGreaterThan(0);

    // Every row is there, the old ones in the first partition, the parents partitioned by the ids.
    const { rows: counts } = await pool.query<{ part: string; n: number }>(
      'SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM events GROUP BY 1',
    );
    expect(counts).toEqual([{ part: 'events_first', n: EVENTS + written.length }]);
    expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_attempts')).rows[0]!.n).toBe(
      EVENTS,
    );
    const { rows: keys } = await pool.query<{ table: string; key: string }>(
      `SELECT c.relname AS table, pg_get_partkeydef(c.oid) AS key FROM pg_class c
       WHERE c.relname IN ('events', 'delivery_attempts', 'event_search_keys') ORDER BY 1`,
    );
    expect(keys).toEqual([
      { table: 'delivery_attempts', key: 'RANGE (event_id)' },
      { table: 'event_search_keys', key: 'RANGE (event_id)' },
      { table: 'events', key: 'RANGE (id)' },
    ]);
    // Every foreign key is valid: none was left NOT VALID by the upgrade. (Postgres 15 keeps the flag of the copies
    // it makes of a plain table's foreign key for each partition of the table referenced as it was at creation:
    // only the constraints themselves, conparentid 0, say what was validated.)
    const { rows: invalid } = await pool.query(
      "SELECT conname FROM pg_constraint WHERE contype = 'f' AND NOT convalidated AND conparentid = 0",
    );
    expect(invalid).toEqual([]);
    // And they hold: a delivery of no event is refused.
    await expect(
      pool.query(
        `INSERT INTO deliveries (id, organization_id, event_id, destination_id, updated_at)
         VALUES (gen_random_uuid(), $1, relay_uuid7(), '00000000-0000-7000-8000-0000000000bb', now())`,
        [ORG],
      ),
    ).rejects.toMatchObject({ code: '23503' });

    // The old version's writes and reads: an attempt by its event, an outcome, a cascade on delete.
    const id = written[0]!;
    await pool.query(
      `INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms,
         started_at, finished_at) VALUES (gen_random_uuid(), $1, $2, 1, 'http://t/', 5, now(), now())`,
      [id, ORG],
    );
    await pool.query("UPDATE events SET status = 'delivered', attempt_count = 1 WHERE id = $1", [id]);
    const { rows: loaded } = await pool.query('SELECT id, status FROM relay_load_events($1, $2)', [[id], [ORG]]);
    expect(loaded).toEqual([{ id, status: 'delivered' }]);
    await pool.query('DELETE FROM events WHERE id = $1', [id]);
    expect((await pool.query('SELECT 1 FROM delivery_attempts WHERE event_id = $1', [id])).rows).toEqual([]);
    expect((await pool.query('SELECT 1 FROM event_search_pending WHERE event_id = $1', [id])).rows).toEqual([]);
    // An event of a day after the first partition goes to its own day's partition.
    const { rows: inserted } = await pool.query<{ id: string }>(
      `INSERT INTO events (id, organization_id, source, body, headers)
       VALUES (relay_uuid7(now() + interval '3 days'), $1, 'later', '\\x7b7d', '{}') RETURNING id`,
      [ORG],
    );
    const later = inserted[0]!.id;
    const { rows: placed } = await pool.query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM events WHERE id = $1',
      [later],
    );
    expect(placed[0]!.part).toMatch(/^events_p\d{8}$/);
  }, 600_000);
});
