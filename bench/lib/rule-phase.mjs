// One delivery phase of a rule, on its own database, for the routing benches (bench/fanout.mjs,
// bench/routing-cost-ab.mjs): a rule for the source `github` whose primary target and destinations are
// real local HTTP servers (bench/target-server.mjs, counting by webhook-id); a backlog ingested with no
// worker running, then drained by the workers; optionally an open-loop phase for the end-to-end latency.
// The ledger is per target: every webhook-id it should have received, once, and nothing else.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, deleteKeys, freshDatabase, query, REDIS_URL } from './database.mjs';
import { SIGNING_SECRET } from './floors.mjs';
import { ledger } from './ledger.mjs';
import { openLoop } from './load.mjs';
import { ask, forkReady, freePort, startNode, stop, waitForHttp, waitForReceipts } from './processes.mjs';
import { percentile } from './stats.mjs';
import { startPhase } from './usage.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ORG = '00000000-0000-7000-8000-000000000001';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bench's push (to main) and the same push to another branch: a filter on the ref takes half. */
export function pushBodies(text) {
  const other = JSON.parse(text);
  other.ref = 'refs/heads/dev';
  return [text, JSON.stringify(other)];
}

/** A push to main (what the half filter lets through; the subject's headers are those ingestAll sends). */
export const HALF_FILTER = { headers: { 'x-github-event': 'push' }, body: { ref: 'refs/heads/main' } };

/**
 * POSTs `count` webhooks to /github, `bodies` in turn (so each body is an exact share, interleaved in the
 * queue), `concurrency` in flight; resolves with the accepted event ids per body.
 */
export async function ingestAll({ port, bodies, count, concurrency = 32 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const ids = bodies.map(() => []);
  const failures = [];
  let next = 0;
  const post = (i) =>
    new Promise((resolve) => {
      const body = bodies[i % bodies.length];
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/github',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-github-event': 'push',
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            if (res.statusCode === 202) ids[i % bodies.length].push(JSON.parse(text).id);
            else failures.push(res.statusCode);
            resolve();
          });
        },
      );
      req.on('error', (err) => {
        failures.push(err.code ?? err.message);
        resolve();
      });
      req.end(body);
    });
  const lane = async () => {
    while (next < count) await post(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
  return { ids, failures };
}

/**
 * One phase: `destinations` is a list of `{filter}` (null: every webhook); `expectedFor(ids, filter)` says
 * which events a destination with that filter should receive (ids: accepted event ids per body).
 */
export async function deliveryPhase({
  root,
  name,
  destinations = [],
  expectedFor,
  events,
  workers,
  bodies,
  latency,
  log,
}) {
  const dbName = `relay_route_${process.pid}_${name}`;
  const prefix = `route${process.pid}${name}`;
  const url = await freshDatabase(root, dbName);
  const targets = [];
  const workerEntry = path.join(root, 'apps/delivery-worker/dist/main.mjs');
  let api;
  const running = [];
  try {
    // This checkout's target (a variant's root may predate KEY_HEADER); the variant's own builds and migrations.
    const targetUrls = [];
    for (let i = 0; i <= destinations.length; i++) {
      const { child, msg } = await forkReady(path.join(here, '../target-server.mjs'), { KEY_HEADER: 'webhook-id' });
      targets.push(child);
      targetUrls.push(`http://127.0.0.1:${msg.port}/t${i}`);
    }
    const [{ id: ruleId }] = await query(
      url,
      `INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
       VALUES (gen_random_uuid(), $1, 'github', 'github', $2, now()) RETURNING id`,
      [ORG, targetUrls[0]],
    );
    for (const [i, d] of destinations.entries()) {
      await query(
        url,
        `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, filter, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, now())`,
        [ORG, ruleId, `destination-${i + 1}`, targetUrls[i + 1], d.filter === null ? null : JSON.stringify(d.filter)],
      );
    }
    const port = await freePort();
    const env = {
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      // The rule owns the source: a webhook reaching the default target would be a routing fault, lost here.
      DEFAULT_TARGET_URL: 'http://127.0.0.1:9/not-routed',
      TARGET_ALLOW_PRIVATE: 'true',
      DEFAULT_SIGNING_SECRET: SIGNING_SECRET,
      PORT: String(port),
      WORKER_HEALTH_PORT: '0',
      INGEST_RATE_LIMIT: '0',
      API_RATE_LIMIT: '0',
    };
    api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env);
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    // As in the main run: a worker's first sweep meets an empty queue, then the backlog is built.
    const first = startNode(workerEntry, env);
    await sleep(1500);
    await stop(first);
    const ingestStart = performance.now();
    const ingested = await ingestAll({ port, bodies, count: events });
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    const all = ingested.ids.flat();
    const expected = [new Set(all), ...destinations.map((d) => new Set(expectedFor(ingested.ids, d.filter)))];
    const total = expected.reduce((sum, s) => sum + s.size, 0);

    for (let i = 0; i < workers; i++) running.push(startNode(workerEntry, env));
    const started = performance.now();
    const usage = await startPhase({
      pids: Object.fromEntries(running.map((w, i) => [`worker${i + 1}`, w.pid])),
      databaseUrl: url,
    });
    for (const [i, t] of targets.entries()) await waitForReceipts(t, expected[i].size);
    const wallSeconds = (performance.now() - started) / 1000;
    const cost = await usage.end(total);
    // The drain's rate is timed at the targets, first delivery to last, so the workers' start-up (a larger share
    // of a short drain than of a long one) weighs on neither side of a comparison.
    const arrivals = (await Promise.all(targets.map((t) => ask(t, 'receipts')))).flatMap((m) =>
      m.receipts.map(([, at]) => at),
    );
    const seconds = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
    log(
      `${name}: ${all.length} webhooks, ${total} deliveries in ${seconds.toFixed(2)} s (${wallSeconds.toFixed(2)} s)`,
    );

    let e2e = null;
    if (latency) {
      const loop = await openLoop({ port, path: '/github', body: bodies[0], ...latency });
      await waitForReceipts(targets[0], all.length + loop.samples.length);
      const seen = new Map((await ask(targets[0], 'receipts')).receipts.map(([, t, , eventId]) => [eventId, t]));
      const times = loop.samples.map((s) => seen.get(s.id) - s.t0).filter((v) => Number.isFinite(v));
      for (const s of loop.samples) expected[0].add(s.id);
      e2e = {
        rate: latency.rate,
        offered: loop.samples.length,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
      };
    }
    // A late duplicate (a job run twice) would arrive after the counts were reached: give it a moment.
    await sleep(1000);
    const perTarget = [];
    for (const [i, t] of targets.entries())
      perTarget.push({
        target: i === 0 ? 'primary' : `destination-${i}`,
        filter: i === 0 ? null : destinations[i - 1].filter,
        ...ledger((await ask(t, 'receipts')).receipts, expected[i]),
      });
    const [statuses] = await query(
      url,
      `SELECT (SELECT count(*) FROM events WHERE status <> 'delivered')::int AS events_not_delivered,
              (SELECT count(*) FROM deliveries)::int AS deliveries,
              (SELECT count(*) FROM deliveries WHERE status <> 'delivered')::int AS deliveries_not_delivered`,
    ).catch(() =>
      // A checkout from before destinations has no deliveries table.
      query(url, `SELECT count(*)::int AS events_not_delivered FROM events WHERE status <> 'delivered'`),
    );
    const sum = (k) => perTarget.reduce((s, t) => s + t[k], 0);
    return {
      webhooks: all.length,
      ingestFailures: ingested.failures.length,
      // 32 webhooks in flight, no worker running: the api and Postgres alone.
      ingestPerSecond: Math.round(all.length / ingestSeconds),
      deliveries: total,
      // First to last delivery at the targets; wallSeconds from the workers' start.
      seconds: Number(seconds.toFixed(3)),
      wallSeconds: Number(wallSeconds.toFixed(3)),
      deliveriesPerSecond: Math.round(total / seconds),
      workerCpuMsPerDelivery: Number(
        Object.entries(cost.cpu)
          .filter(([k]) => k.startsWith('worker'))
          .reduce((s, [, c]) => s + c.msPerEvent, 0)
          .toFixed(3),
      ),
      postgresCpuMsPerDelivery: cost.cpu.postgres.msPerEvent,
      redisCommandsPerDelivery: cost.redisCommandsPerEvent,
      e2e,
      lost: sum('lost'),
      duplicates: sum('duplicates'),
      misrouted: sum('misrouted'),
      perTarget,
      database: statuses,
    };
  } finally {
    await Promise.all([stop(api), ...running.map((w) => stop(w))]);
    await Promise.all(targets.map((t) => stop(t)));
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
}
