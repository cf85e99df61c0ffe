// An interleaved A/B of the worker's record-outcome statement alone, run by hand (never in `pnpm test`):
//
// Its variants edit the schema as it was before issue 32 item 3 was built (migrations 20261207000000_event_open and
// 20261207100000_hot_outcomes made the hot variants the schema): run it from a worktree of commit b2ead85 or earlier.
//
//   node --import tsx bench/outcome-ab.mjs [--events 12000] [--rounds 5] [--batch 12] [--only function,payloads]
//     [--fill-batch 1000] [--results f.json]
//
// Each variant gets a fresh database copied from the migrated `test` database, `--events` queued events with the bench
// payload (1.6 KB, stored in the row), then records one delivered outcome per event in batches of `--batch` (12, as
// the worker's at saturation; 2 or 3 at half the sustainable rate), and reports the wall time per outcome. Variants, in alternating order round by round:
// - inline: the statement sent as text and planned at every call (as before migration 20261205100000);
// - function: relay_record_outcomes, whose plan the connection keeps, over events whose payload is in the row (as
//   stored before migration 20261205500000_event_payloads);
// - payloads: the same over events stored as ingest stores them now, the payload in event_payloads and the row narrow;
// - checked: payloads, with delivery_attempts' foreign key into events as it was before migration
//   20261205600000_unchecked_event_keys (its check is a statement per attempt against the partitioned events);
// - auto: payloads, with the load's and the outcome's functions left to plan_cache_mode auto (as before migration
//   20261205700000_generic_plans, which declares force_generic_plan on them: auto planned small batches every call);
// - narrow: the same function updating a narrow table of the mutable state instead of events (issue 32 item 3's
//   direction, measured here only: nothing reads such a table);
// - partial: the function, with the sweeper's index on events only over queued events and the attempts' destination
//   index only over destination attempts, so a delivered outcome writes two index entries fewer;
// - hot: the function with the three events indexes on a column an outcome changes dropped and fillfactor 70, so an
//   outcome's update may be HOT (a ceiling, not a design: lists by status need those indexes);
// - slim: the function over events stored with a 2-byte body and no headers (what moving the payload out of the
//   row would leave to update);
// - one_index: payloads, the function updating a narrow state table whose status and time indexes are partial (only
//   events not delivered), so a delivered outcome writes one index entry; events not updated (measured only);
// - hot_side: hot_narrow, with a side table of the events not delivered kept by statement triggers on events (the
//   lookups the dropped indexes served); the fill then shows what it adds to ingest;
// - hot_explicit: hot_side's side table without the triggers, the outcome statement deleting the delivered events'
//   side rows itself and the fill's statement writing them, as the ingest function would;
// - hot_guarded: hot_explicit with the row trigger the rarer writes need, skipped by a setting the outcome function
//   declares (and the fill's session sets, as the ingest function would);
// - hot_narrow: payloads with the hot variant's indexes dropped: what HOT updates of today's narrow row would give.
// Each round also prints the load of the same batches (relay_load_events) and the fill's cost per event.
// Results: bench/results/outcome-ab.json, or --results.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { LOAD_EVENTS, RECORD_OUTCOMES } from '../packages/db/src/repositories/event.sql.ts';
import { newEventId } from '../packages/test-support/src/event-seed.ts';
import { median } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '12000' },
    rounds: { type: 'string', default: '5' },
    batch: { type: 'string', default: '12' },
    'fill-batch': { type: 'string', default: '1000' },
    only: { type: 'string' },
    results: { type: 'string', default: 'outcome-ab.json' },
  },
});
const N = Number(values.events);
const BATCH = Number(values.batch);
// Events per fill statement: ingest's batches are tens of events at saturation, a few at low rates.
const FILL_BATCH = Number(values['fill-batch']);
const ORG = '00000000-0000-7000-8000-000000000001';
const body = readFileSync(path.join(here, 'github-push.json'));
const headers = { 'content-type': 'application/json', 'x-github-event': 'push', 'user-agent': 'GitHub-Hookshot/1' };

// The statement as it was sent before: the function's body, read from its migration.
const migration = readFileSync(
  path.join(here, '../prisma/migrations/20261205100000_delivery_statement_functions/migration.sql'),
  'utf8',
);
const INLINE = /relay_record_outcomes[\s\S]*?AS \$\$\nBEGIN\n([\s\S]*?);\nEND \$\$/.exec(migration)[1];
const NARROW_STATE = [
  `CREATE TABLE event_state (id uuid PRIMARY KEY, organization_id uuid NOT NULL, status "EventStatus" NOT NULL,
    attempt_count int NOT NULL DEFAULT 0, next_attempt_at timestamp(3), failure_reason text, last_error text,
    created_at timestamp(3) NOT NULL, updated_at timestamp(3) NOT NULL, delivered_at timestamp(3))`,
  'CREATE INDEX ON event_state (organization_id, status, created_at DESC)',
  'CREATE INDEX ON event_state (organization_id, updated_at)',
  'CREATE INDEX ON event_state (status, next_attempt_at)',
  `CREATE OR REPLACE FUNCTION relay_record_outcomes(uuid[], uuid[], integer[], "AttemptKind"[], text[], integer[],
    text[], text[], integer[], timestamptz[], timestamptz[], uuid[], uuid[], "EventStatus"[], integer[], timestamptz[],
    text[], text[], timestamptz[], uuid[]) RETURNS void LANGUAGE plpgsql SET enable_seqscan = off SET jit = off
    AS $fn$ BEGIN ${INLINE.replace('UPDATE events e SET', 'UPDATE event_state e SET')}; END $fn$`,
];
// The narrow state tables' rows for the events just filled.
const FILL_STATE = [
  `INSERT INTO event_state SELECT id, organization_id, status, 0, next_attempt_at, NULL, NULL, created_at, updated_at
   FROM events`,
];
const PARTIAL = [
  'DROP INDEX events_status_next_attempt_at_idx',
  `CREATE INDEX events_queued_next_attempt_at_idx ON events (next_attempt_at) WHERE status = 'queued'`,
  'DROP INDEX delivery_attempts_destination_id_idx',
  'CREATE INDEX delivery_attempts_destination_id_idx ON delivery_attempts (destination_id) WHERE destination_id IS NOT NULL',
];
const HOT_CEILING = [
  'DROP INDEX events_status_next_attempt_at_idx',
  'DROP INDEX events_organization_id_status_created_at_idx',
  'DROP INDEX events_organization_id_updated_at_idx',
  // A partitioned table has no storage of its own: its partitions take the fillfactor.
  `DO $$ DECLARE p regclass; BEGIN FOR p IN SELECT relid FROM pg_partition_tree('events') WHERE isleaf LOOP
     EXECUTE format('ALTER TABLE %s SET (fillfactor = 70)', p); END LOOP; END $$`,
];
// The mutable state in a narrow table whose status and time indexes hold only events not delivered: a delivered
// outcome's update then writes one index entry (the primary key's), the shape issue 32 item 3 names.
const ONE_SMALL_INDEX = [
  `CREATE TABLE event_state (id uuid PRIMARY KEY, organization_id uuid NOT NULL, status "EventStatus" NOT NULL,
    attempt_count int NOT NULL DEFAULT 0, next_attempt_at timestamp(3), failure_reason text, last_error text,
    created_at timestamp(3) NOT NULL, updated_at timestamp(3) NOT NULL, delivered_at timestamp(3))
    WITH (fillfactor = 70)`,
  `CREATE INDEX ON event_state (organization_id, status, created_at DESC) WHERE status <> 'delivered'`,
  `CREATE INDEX ON event_state (organization_id, updated_at) WHERE status = 'failed'`,
  `CREATE INDEX ON event_state (next_attempt_at) WHERE status = 'queued'`,
  NARROW_STATE[4],
];
// HOT updates of the narrow row, with the lookups the three dropped indexes served kept by a side table of the events
// not delivered, which statement triggers on events maintain: a delivered outcome's update is HOT and deletes its side
// row (measured only).
const HOT_SIDE = [
  ...HOT_CEILING,
  `CREATE TABLE event_open (id uuid PRIMARY KEY, organization_id uuid NOT NULL, status "EventStatus" NOT NULL,
    created_at timestamp(3) NOT NULL, next_attempt_at timestamp(3), updated_at timestamp(3) NOT NULL)`,
  'CREATE INDEX ON event_open (organization_id, status, created_at DESC)',
  `CREATE INDEX ON event_open (next_attempt_at) WHERE status = 'queued'`,
  `CREATE INDEX ON event_open (organization_id, updated_at) WHERE status = 'failed'`,
  `CREATE FUNCTION open_inserted() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN
    INSERT INTO event_open SELECT id, organization_id, status, created_at, next_attempt_at, updated_at FROM n
    WHERE status <> 'delivered'; RETURN NULL; END $fn$`,
  `CREATE FUNCTION open_updated() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN
    DELETE FROM event_open x USING n WHERE x.id = n.id AND n.status = 'delivered';
    INSERT INTO event_open SELECT id, organization_id, status, created_at, next_attempt_at, updated_at FROM n
    WHERE status <> 'delivered' ON CONFLICT (id) DO UPDATE SET status = excluded.status,
    next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at; RETURN NULL; END $fn$`,
  `CREATE TRIGGER open_inserted AFTER INSERT ON events REFERENCING NEW TABLE AS n FOR EACH STATEMENT
    EXECUTE FUNCTION open_inserted()`,
  `CREATE TRIGGER open_updated AFTER UPDATE ON events REFERENCING NEW TABLE AS n FOR EACH STATEMENT
    EXECUTE FUNCTION open_updated()`,
];
// hot_side's side table kept by the outcome function itself instead of a trigger: today's function (its definition
// read from the database) with a statement that deletes the delivered events' side rows.
const HOT_EXPLICIT = [
  ...HOT_SIDE.filter((sql) => !/TRIGGER|FUNCTION open_/.test(sql)),
  async (c) => {
    const { rows } = await c.query("SELECT pg_get_functiondef('relay_record_outcomes'::regproc) AS def");
    const def = rows[0].def.replace(
      /END\s*\$function\$\s*$/,
      `DELETE FROM event_open WHERE id IN (SELECT u.id FROM unnest($12::uuid[], $14::"EventStatus"[]) AS u(id, status)
        WHERE u.status = 'delivered');
      END $function$`,
    );
    if (def === rows[0].def) throw new Error('relay_record_outcomes: its end was not found');
    await c.query(def);
  },
];
// hot_explicit with the row trigger the design needs for the rarer writes (retry, acknowledge, cancel, pause, resume,
// tests' own rows), which the ingest and outcome functions skip by a setting they declare: what the trigger's
// condition costs the writes that skip it (the fill sets it for its session, as the ingest function would declare it).
const HOT_GUARDED = [
  ...HOT_EXPLICIT,
  `CREATE FUNCTION open_row() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN
    IF TG_OP = 'DELETE' OR NEW.status = 'delivered' THEN DELETE FROM event_open WHERE id = OLD.id;
    ELSE INSERT INTO event_open VALUES (NEW.id, NEW.organization_id, NEW.status, NEW.created_at, NEW.next_attempt_at,
      NEW.updated_at) ON CONFLICT (id) DO UPDATE SET status = excluded.status,
      next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at; END IF; RETURN NULL; END $fn$`,
  `CREATE TRIGGER open_row AFTER INSERT OR UPDATE OF status, next_attempt_at ON events FOR EACH ROW
    WHEN (current_setting('relay.open_kept', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION open_row()`,
  `ALTER FUNCTION relay_record_outcomes SET relay.open_kept = 'on'`,
];
const variants = {
  inline: { sql: INLINE },
  partial: { sql: RECORD_OUTCOMES, setup: PARTIAL },
  hot: { sql: RECORD_OUTCOMES, setup: HOT_CEILING },
  slim: { sql: RECORD_OUTCOMES, body: Buffer.from('{}'), headers: {} },
  function: { sql: RECORD_OUTCOMES },
  payloads: { sql: RECORD_OUTCOMES, beside: true },
  auto: {
    sql: RECORD_OUTCOMES,
    beside: true,
    setup: [
      'ALTER FUNCTION relay_record_outcomes RESET plan_cache_mode',
      'ALTER FUNCTION relay_load_events RESET plan_cache_mode',
    ],
  },
  checked: {
    sql: RECORD_OUTCOMES,
    beside: true,
    setup: [
      `ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_fkey FOREIGN KEY (event_id)
       REFERENCES events(id) ON DELETE CASCADE ON UPDATE CASCADE`,
    ],
  },
  one_index: {
    sql: RECORD_OUTCOMES,
    beside: true,
    setup: ONE_SMALL_INDEX,
    filled: FILL_STATE,
  },
  hot_narrow: { sql: RECORD_OUTCOMES, beside: true, setup: HOT_CEILING },
  hot_side: { sql: RECORD_OUTCOMES, beside: true, setup: HOT_SIDE },
  // The side rows written by the fill's statement, as ingest would write them: the fill's time per event is then
  // what the design costs ingest (three events indexes fewer, a side row with its three more).
  hot_explicit: { sql: RECORD_OUTCOMES, beside: true, setup: HOT_EXPLICIT, open: true },
  hot_guarded: {
    sql: RECORD_OUTCOMES,
    beside: true,
    setup: HOT_GUARDED,
    open: true,
    session: ["SET relay.open_kept = 'on'"],
  },
  narrow: {
    sql: RECORD_OUTCOMES,
    setup: NARROW_STATE,
    filled: FILL_STATE,
  },
};
const names = values.only ? values.only.split(',') : Object.keys(variants);
const admin = new pg.Client({ host: '127.0.0.1', database: 'postgres', user: 'root' });
await admin.connect();

async function measure(name) {
  const variant = variants[name];
  const database = `outcome_ab_${name}`;
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database} TEMPLATE test`);
  const c = new pg.Client({ host: '127.0.0.1', database, user: 'root' });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO organizations (id, name, slug, updated_at) VALUES ($1, 'o', 'o', now())
      ON CONFLICT DO NOTHING`,
      [ORG],
    );
    for (const sql of variant.setup ?? []) await (typeof sql === 'function' ? sql(c) : c.query(sql));
    for (const sql of variant.session ?? []) await c.query(sql);
    const ids = Array.from({ length: N }, () => newEventId());
    const filling = process.hrtime.bigint();
    for (let i = 0; i < N; i += FILL_BATCH) {
      const params = [ids.slice(i, i + FILL_BATCH), ORG, variant.body ?? body, variant.headers ?? headers];
      if (variant.beside)
        await c.query(
          `WITH e AS (INSERT INTO events (id, organization_id, source, status, created_at, updated_at)
             SELECT u, $2, 'github', 'queued', now(), now() FROM unnest($1::uuid[]) u
             RETURNING id, organization_id, status, created_at, next_attempt_at, updated_at)${
               variant.open ? ', o AS (INSERT INTO event_open SELECT * FROM e)' : ''
             }
           INSERT INTO event_payloads (event_id, body, headers) SELECT id, $3, $4 FROM e`,
          params,
        );
      else
        await c.query(
          `INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
           SELECT u, $2, 'github', $3, $4, 'queued', now(), now() FROM unnest($1::uuid[]) u`,
          params,
        );
    }
    const fillUs = Number(process.hrtime.bigint() - filling) / 1000 / N;
    console.log(`  ${name}: fill ${fillUs.toFixed(1)} µs per event`);
    for (const sql of variant.filled ?? []) await c.query(sql);
    await c.query('VACUUM ANALYZE');
    await c.query('SET synchronous_commit = off');
    let loading = 0n;
    let started = process.hrtime.bigint();
    for (let i = 0; i < N; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const t0 = process.hrtime.bigint();
      await c.query(LOAD_EVENTS, [batch, batch.map(() => ORG)]);
      const t1 = process.hrtime.bigint();
      loading += t1 - t0;
      started += t1 - t0;
      const now = new Date();
      const all = (x) => batch.map(() => x);
      await c.query(variant.sql, [
        batch,
        all(ORG),
        all(1),
        all('main'),
        all('http://target.example/'),
        all(200),
        all('ok'),
        all(null),
        all(12),
        all(now),
        all(now),
        batch,
        all(ORG),
        all('delivered'),
        all(1),
        all(null),
        all(null),
        all(null),
        all(now),
        batch.map(() => randomUUID()),
      ]);
    }
    const size = (await c.query("SELECT pg_total_relation_size('events') AS s")).rows[0].s;
    console.log(`  ${name}: load ${(Number(loading) / 1000 / N).toFixed(1)} µs per event, events ${size} bytes`);
    return { us: Number(process.hrtime.bigint() - started) / 1000 / N, fillUs };
  } finally {
    await c.end();
    await admin.query(`DROP DATABASE ${database}`);
  }
}

const runs = Object.fromEntries(names.map((n) => [n, []]));
const fills = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const name of round % 2 ? names : [...names].reverse()) {
    const { us, fillUs } = await measure(name);
    runs[name].push(Math.round(us * 10) / 10);
    fills[name].push(Math.round(fillUs * 10) / 10);
    console.log(`round ${round} ${name}: ${us.toFixed(1)} µs per outcome`);
  }
}
await admin.end();
const medians = Object.fromEntries(names.map((n) => [n, median(runs[n])]));
const fillMedians = Object.fromEntries(names.map((n) => [n, median(fills[n])]));
console.log('medians (µs per outcome):', medians, 'fill (µs per event):', fillMedians);
writeFileSync(
  path.join(here, 'results', values.results),
  `${JSON.stringify({ at: new Date().toISOString(), events: N, batch: BATCH, runs, medians, fills, fillMedians }, null, 2)}\n`,
);
