import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createDatabase, createPartitionCopyRepository, createPartitionRepository, type Database } from '@relay/db';
import { adminQuery, databaseUrl } from '@relay/test-support';
import pg from 'pg';
import { pino } from 'pino';
import { createLegacyCopy } from '../../apps/delivery-worker/src/partitions/legacy-copy';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const CONVERSION = '20261203140000_partitioned_history';
// RELAY_UPGRADE_EVENTS=1000000 is the measured run (docs/operations.md "Upgrading to partitioned history").
const EVENTS = Number(process.env.RELAY_UPGRADE_EVENTS ?? 20_000);
const ORG = '00000000-0000-7000-8000-000000000001';

// The runner with every migration before the conversion: an install of the previous release.
async function previousRelease(): Promise<{ dir: string; migrate(url: string): Promise<unknown> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'relay-previous-'));
  await mkdir(path.join(dir, 'scripts/lib'), { recursive: true });
  await mkdir(path.join(dir, 'prisma/migrations'), { recursive: true });
  for (const file of ['package.json', 'scripts/db.mjs', 'scripts/lib/sql-statements.mjs', 'prisma/schema.prisma'])
    await copyFile(path.join(ROOT, file), path.join(dir, file));
  await copyFile(
    path.join(ROOT, 'prisma/migrations/migration_lock.toml'),
    path.join(dir, 'prisma/migrations/migration_lock.toml'),
  );
  for (const entry of await readdir(path.join(ROOT, 'prisma/migrations'), { withFileTypes: true }))
    if (entry.isDirectory() && entry.name < CONVERSION)
      await cp(path.join(ROOT, 'prisma/migrations', entry.name), path.join(dir, 'prisma/migrations', entry.name), {
        recursive: true,
      });
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return {
    dir,
    migrate: (url) =>
      run(process.execPath, [path.join(dir, 'scripts/db.mjs'), 'migrate'], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: url },
      }),
  };
}

const migrateToCurrent = (url: string) =>
  run(process.execPath, [path.join(ROOT, 'scripts/db.mjs'), 'migrate'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    maxBuffer: 10 * 1024 * 1024,
  });

// The previous release's data, written straight in with generate_series: events in every state over the last
// 40 days, an attempt each, a destination delivery for a third, search rows (indexed or pending), ordering rows.
const SEED = `
WITH rule AS (
  INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
  VALUES (gen_random_uuid(), $1, 'upgrade', 'upgrade', 'http://p.example/', now()) RETURNING id
), dest AS (
  INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
  SELECT gen_random_uuid(), $1, id, 'crm', 'http://d.example/', now() FROM rule RETURNING id, provider_id
), ev AS (
  INSERT INTO events (id, organization_id, source, provider_id, body, headers, status, attempt_count, created_at,
    updated_at)
  SELECT gen_random_uuid(), $1, 'upgrade', dest.provider_id, convert_to('{"n":' || g || '}', 'UTF8'),
    '{"content-type":"application/json"}',
    (CASE g % 10 WHEN 0 THEN 'queued' WHEN 1 THEN 'failed' WHEN 2 THEN 'paused' ELSE 'delivered' END)::"EventStatus",
    1, now() AT TIME ZONE 'UTC' - make_interval(secs => g * (3456000.0 / $2)),
    now() AT TIME ZONE 'UTC' - make_interval(secs => g * (3456000.0 / $2))
  FROM generate_series(1, $2) g, dest
  RETURNING id, organization_id, status, created_at
), d AS (
  INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at, created_at)
  SELECT gen_random_uuid(), ev.organization_id, ev.id, dest.id, 'delivered', ev.created_at, ev.created_at
  FROM ev, dest WHERE get_byte(uuid_send(ev.id), 15) % 3 = 0
), a AS (
  INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms, started_at,
    finished_at)
  SELECT gen_random_uuid(), id, organization_id, 1, 'http://p.example/', 5, created_at, created_at FROM ev
), s AS (
  INSERT INTO event_search (event_id, organization_id, search_text)
  SELECT id, organization_id, 'upgrade {"n":1}' FROM ev WHERE status <> 'queued'
), o AS (
  INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key)
  SELECT ev.id, ev.organization_id, dest.provider_id, 'k' FROM ev, dest WHERE ev.status = 'queued'
)
INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM ev WHERE status = 'queued'`;

const COUNTS = `SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries,
  (SELECT count(*) FROM delivery_attempts)::int AS attempts, (SELECT count(*) FROM event_search)::int AS search,
  (SELECT count(*) FROM event_search_pending)::int AS pending, (SELECT count(*) FROM event_ordering)::int AS ordering,
  (SELECT sum(attempt_count) FROM events)::bigint AS attempt_sum`;

// The old release's ingest statement (one event and its pending-search row, no partition_at), and the new one's.
const OLD_INGEST = `WITH e AS (INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
  VALUES (gen_random_uuid(), $1, 'load', '\\x7b7d', '{}', 'queued', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
  RETURNING id, organization_id)
INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM e`;
const NEW_INGEST = `WITH e AS (INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at,
    partition_at)
  VALUES (gen_random_uuid(), $1, 'load', '\\x7b7d', '{}', 'queued', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC',
    now() AT TIME ZONE 'UTC')
  RETURNING id, organization_id, partition_at)
INSERT INTO event_search_pending (event_id, organization_id, partition_at) SELECT id, organization_id, partition_at FROM e`;
// A delivery outcome on an old event, as the worker writes it (by id): each success adds 1 to attempt_count, so
// the sum at the end shows whether any write was lost.
const OUTCOME = `UPDATE events SET attempt_count = attempt_count + 1, updated_at = now() AT TIME ZONE 'UTC'
  WHERE id = (SELECT id FROM sample ORDER BY random() LIMIT 1)`;

interface Load {
  ok: number;
  failed: Map<string, number>;
  outcomes: number;
  outcomeErrors: Map<string, number>;
  maxLatencyMs: number;
  stop(): Promise<void>;
}

// Ingest and delivery outcomes in a loop on a pool of 4, as a relay under load writes them; a statement waits as
// the app's would (no timeout of its own), so a lock held by the migration shows as latency.
function startLoad(pool: pg.Pool, ingest: string): Load {
  let running = true;
  const load: Load = {
    ok: 0,
    failed: new Map(),
    outcomes: 0,
    outcomeErrors: new Map(),
    maxLatencyMs: 0,
    stop: async () => {},
  };
  const count = (map: Map<string, number>, err: unknown) => {
    const code = (err as { code?: string }).code ?? String(err);
    map.set(code, (map.get(code) ?? 0) + 1);
  };
  const ingestLoop = async () => {
    while (running) {
      const started = performance.now();
      await pool.query(ingest, [ORG]).then(
        () => load.ok++,
        (err) => count(load.failed, err),
      );
      load.maxLatencyMs = Math.max(load.maxLatencyMs, performance.now() - started);
      await sleep(2);
    }
  };
  const outcomeLoop = async () => {
    while (running) {
      await pool.query(OUTCOME).then(
        (r) => (load.outcomes += r.rowCount ?? 0),
        (err) => count(load.outcomeErrors, err),
      );
      await sleep(5);
    }
  };
  const loops = [ingestLoop(), ingestLoop(), outcomeLoop()];
  load.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return load;
}

describe(`the online upgrade to partitioned history (${EVENTS} events)`, () => {
  const name = `relay_upgrade_${process.pid}_${Date.now()}`;
  const url = databaseUrl(name);
  let previous: Awaited<ReturnType<typeof previousRelease>>;
  let pool: pg.Pool;
  let db: Database;
  const timings: Record<string, number | string> = {};

  beforeAll(async () => {
    previous = await previousRelease();
    await adminQuery(`CREATE DATABASE "${name}"`);
    await previous.migrate(url);
    pool = new pg.Pool({ connectionString: url, max: 6 });
    db = createDatabase({ url, poolSize: 4 });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await db?.close();
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await rm(previous.dir, { recursive: true, force: true });
    console.log(`partition upgrade, ${EVENTS} events: ${JSON.stringify(timings)}`);
  });

  it('migrates while ingest and deliveries go on, copies in the background, and loses nothing', async () => {
    let t = performance.now();
    await pool.query(SEED, [ORG, EVENTS]);
    await pool.query('ANALYZE');
    timings.seedSeconds = Math.round(performance.now() - t) / 1000;
    // The outcomes' sample: old events only, so every one of them is moved by the copy while it is written.
    await pool.query('CREATE TABLE sample AS SELECT id FROM events ORDER BY random() LIMIT 1000');
    const before = (await pool.query(COUNTS)).rows[0];

    // The previous release keeps ingesting and delivering while the new one's migration runs.
    const oldLoad = startLoad(pool, OLD_INGEST);
    await sleep(500);
    t = performance.now();
    await migrateToCurrent(url);
    timings.migrationSeconds = Math.round(performance.now() - t) / 1000;
    await sleep(500);
    await oldLoad.stop();
    timings.oldIngestOk = oldLoad.ok;
    timings.oldIngestMaxLatencyMs = Math.round(oldLoad.maxLatencyMs);
    expect(Object.fromEntries(oldLoad.failed)).toEqual({});
    expect(Object.fromEntries(oldLoad.outcomeErrors)).toEqual({});

    // The new release: ingest and outcomes go on while the copy moves the legacy rows out.
    const newLoad = startLoad(pool, NEW_INGEST);
    const copy = createLegacyCopy({
      repository: createPartitionCopyRepository(db.pool),
      partitions: createPartitionRepository(db.pool),
      period: 'day',
      batchSize: 5_000,
      maxRunMs: 3_600_000,
      pauseMs: 20,
      logger: pino({ level: 'silent' }),
    });
    t = performance.now();
    const result = await copy.run();
    const copySeconds = (performance.now() - t) / 1000;
    await newLoad.stop();
    timings.copySeconds = Math.round(copySeconds * 10) / 10;
    timings.copyEventsPerSecond = Math.round(result.moved / copySeconds);
    timings.newIngestOk = newLoad.ok;
    timings.newIngestMaxLatencyMs = Math.round(newLoad.maxLatencyMs);
    timings.outcomeErrorsDuringCopy = JSON.stringify(Object.fromEntries(newLoad.outcomeErrors));
    expect(result).toMatchObject({ state: 'done', remaining: 0 });
    expect(Object.fromEntries(newLoad.failed)).toEqual({});

    // Nothing lost: every row is there, once, in the partition of its event's created_at (old rows) or of its
    // ingest (new ones), the legacy partitions are gone, and every outcome that succeeded is counted.
    const after = (await pool.query(COUNTS)).rows[0];
    const ingested = oldLoad.ok + newLoad.ok;
    expect(after).toMatchObject({
      events: before.events + ingested,
      deliveries: before.deliveries,
      attempts: before.attempts,
      search: before.search,
      pending: before.pending + ingested,
      ordering: before.ordering,
    });
    expect(Number(after.attempt_sum)).toBe(Number(before.attempt_sum) + oldLoad.outcomes + newLoad.outcomes);
    const { rows: misplaced } = await pool.query(
      `SELECT (SELECT count(*) FROM events WHERE partition_at <> created_at AND source = 'upgrade')::int AS events,
         (SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.partition_at <> e.partition_at)::int
           AS deliveries,
         (SELECT to_regclass('events_legacy') IS NULL AND to_regclass('deliveries_legacy') IS NULL) AS dropped`,
    );
    expect(misplaced[0]).toEqual({ events: 0, deliveries: 0, dropped: true });
  }, 3_600_000);
});
