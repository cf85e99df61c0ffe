import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BASE_DATABASE_URL, newEventId } from '@relay/test-support';
import pg from 'pg';

// The upgrade to partitioned deliveries (migration 20261206000000, docs/partitioning.md "Online upgrade"), run by the
// real runner over an install with deliveries while the previous version keeps fanning out and recording outcomes
// with its own statements: nothing is lost or refused, the old table becomes the first partition, the partitions of
// events' days after it exist for deliveries too, and the previous version's functions still work on the new table.
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const UPGRADE = '20261206000000_partitioned_deliveries';
const ORG = '00000000-0000-7000-8000-000000000001';
const RULE = '00000000-0000-7000-8000-0000000000aa';
const DESTINATION = '00000000-0000-7000-8000-0000000000bb';
const DELIVERIES = 100_000;

let dir: string;
let url: string;
let pool: pg.Pool;
const name = `relay_deliveries_upgrade_${process.pid}_${Date.now()}`;
const admin = () => new pg.Client({ connectionString: BASE_DATABASE_URL });
const migrate = () =>
  run(process.execPath, [path.join(dir, 'scripts/db.mjs'), 'migrate'], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL: url },
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'relay-deliveries-upgrade-'));
  await mkdir(path.join(dir, 'scripts/lib'), { recursive: true });
  await mkdir(path.join(dir, 'prisma/migrations'), { recursive: true });
  for (const file of ['package.json', 'scripts/db.mjs', 'scripts/lib/sql-statements.mjs', 'prisma/schema.prisma']) {
    await copyFile(path.join(ROOT, file), path.join(dir, file));
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const migrations = path.join(ROOT, 'prisma/migrations');
  for (const entry of await readdir(migrations)) {
    if (entry < UPGRADE || entry === 'migration_lock.toml') {
      await cp(path.join(migrations, entry), path.join(dir, 'prisma/migrations', entry), { recursive: true });
    }
  }
  const client = admin();
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const u = new URL(BASE_DATABASE_URL);
  u.pathname = `/${name}`;
  url = u.toString();
  await migrate();
  pool = new pg.Pool({ connectionString: url, max: 4 });
}, 300_000);

afterAll(async () => {
  await pool?.end();
  const client = admin();
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
  if (dir) await rm(dir, { recursive: true, force: true });
});

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
  const now = new Date();
  const { rows: recorded } = await pool.query<{ recorded: number }>(
    `SELECT recorded FROM relay_record_deliveries($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
       $16)`,
    [
      ORG,
      deliveryId,
      newEventId(),
      1,
      'http://d/',
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
    ].map((value) => [value]),
  );
  if (recorded[0]?.recorded !== 1) throw new Error(`delivery ${deliveryId} not recorded`);
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
    await cp(path.join(ROOT, 'prisma/migrations', UPGRADE), path.join(dir, 'prisma/migrations', UPGRADE), {
      recursive: true,
    });
    const { stdout } = await migrate();
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
    const now = new Date();
    const { rows: recorded } = await pool.query<{ recorded: number }>(
      `SELECT recorded FROM relay_record_deliveries($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
         $16, $17)`,
      [
        ORG,
        fanned[0]!.id,
        newEventId(),
        1,
        'http://d/',
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
        eventId,
      ].map((value) => [value]),
    );
    expect(recorded).toEqual([{ recorded: 1 }]);
    const { rows: placed } = await pool.query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM deliveries WHERE event_id = $1',
      [eventId],
    );
    expect(placed[0]!.part).toMatch(/^deliveries_p\d{8}$/);
  }, 600_000);
});
