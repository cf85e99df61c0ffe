// An experiment, run by hand (never in `pnpm test`): what the ingest statement's bodies cost as the `bytea[]` the
// relay and the durable-ingest floor send, which `pg` writes as a text array literal of hex-encoded bodies, against
// one binary `bytea` of the batch's bodies end to end with their offsets and lengths as `int[]`, cut apart in SQL.
// Batches of 20 copies of the bench's 1.3 KB push into a temporary table; alternating rounds; per event: the
// client's CPU, Postgres' backend CPU (from /proc, same machine) and the wall time.
//
//   pnpm exec node bench/experiments/binary-bodies.mjs [rounds] [batches]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DATABASE_URL } from '../lib/database.mjs';
import { median } from '../lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const body = readFileSync(path.join(here, '..', 'github-push.json'));
const ROUNDS = Number(process.argv[2] ?? 7);
const BATCHES = Number(process.argv[3] ?? 1000);
const BATCH = 20;
const ids = Array.from({ length: BATCH }, (_, i) => i);
const bodies = ids.map(() => Buffer.from(body));

const client = new pg.Client({ connectionString: DATABASE_URL });
await client.connect();
await client.query('CREATE TEMP TABLE bodies_t (id int, body bytea)');
const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
const backendCpuMs = () => {
  const fields = readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
};

const variants = {
  'bytea[] (hex text array)': () =>
    client.query('INSERT INTO bodies_t SELECT i, b FROM unnest($1::int[], $2::bytea[]) AS u(i, b)', [ids, bodies]),
  'one binary bytea + int[]': () => {
    const starts = [];
    let at = 1;
    for (const b of bodies) {
      starts.push(at);
      at += b.length;
    }
    return client.query(
      `INSERT INTO bodies_t SELECT i, substring($2::bytea FROM s FOR l)
       FROM unnest($1::int[], $3::int[], $4::int[]) AS u(i, s, l)`,
      [ids, Buffer.concat(bodies), starts, bodies.map((b) => b.length)],
    );
  },
};

// The two ways store the same bytes.
for (const run of Object.values(variants)) await run();
const stored = await client.query('SELECT count(DISTINCT body) AS n, bool_and(body = $1) AS same FROM bodies_t', [
  body,
]);
if (stored.rows[0].n !== '1' || !stored.rows[0].same) throw new Error('the two ways stored different bodies');

const results = Object.fromEntries(
  Object.keys(variants).map((name) => [name, { clientUs: [], postgresUs: [], wallUs: [] }]),
);
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(variants);
  for (const name of round % 2 === 0 ? names : names.reverse()) {
    await client.query('TRUNCATE bodies_t');
    const [cpu, pgCpu, start] = [process.cpuUsage(), backendCpuMs(), process.hrtime.bigint()];
    for (let i = 0; i < BATCHES; i++) await variants[name]();
    const events = BATCHES * BATCH;
    const used = process.cpuUsage(cpu);
    const r = results[name];
    r.wallUs.push(Number(process.hrtime.bigint() - start) / 1000 / events);
    r.clientUs.push((used.user + used.system) / events);
    r.postgresUs.push(((backendCpuMs() - pgCpu) * 1000) / events);
  }
}
for (const [name, r] of Object.entries(results))
  console.log(
    `${name}: per event client ${median(r.clientUs).toFixed(1)} µs, Postgres ${median(r.postgresUs).toFixed(1)} µs,` +
      ` wall ${median(r.wallUs).toFixed(1)} µs (medians of ${ROUNDS} rounds of ${BATCHES} batches of ${BATCH})`,
  );
await client.end();
