// An interleaved A/B of the api's ingest alone: each variant (a checkout with built bundles, extra V8
// flags, settings) is started in turn, warmed for 2 s and saturated for 8 s, round after round, so the
// machine's mood of the minute falls on every variant alike. Prints each round and the medians.
//
//   VARIANTS='[{"name":"main","root":"."},{"name":"uncapped","root":".","flags":["--max-old-space-size=4096"]}]' \
//     ROUNDS=5 node bench/ingest-ab.mjs
//
// A variant's root must have run `node scripts/build.mjs` (a `git worktree` of another commit works).
//
// Tracing off against on (docs/observability.md): `$OTLP_SINK` in a variant's env is replaced by a local OTLP/HTTP
// receiver of this script (it reads and drops every export), so the traced variant pays its real export:
//
//   VARIANTS='[{"name":"tracing off","root":"."},
//     {"name":"tracing on","root":".","env":{"OTEL_EXPORTER_OTLP_ENDPOINT":"$OTLP_SINK"}}]' node bench/ingest-ab.mjs
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, deleteKeys, freshDatabase, REDIS_URL } from './lib/database.mjs';
import { saturate } from './lib/load.mjs';
import { freePort, peakRssMb, startNode, stop, waitForHttp } from './lib/processes.mjs';
import { median } from './lib/stats.mjs';
import { cpuMsOf } from './lib/usage.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const variants = JSON.parse(process.env.VARIANTS ?? '[{"name":"this checkout","root":"."}]');
const rounds = Number(process.env.ROUNDS ?? 3);
const results = {};

// The OTLP sink: answers every export at once, after reading it, and counts the bytes received.
let exportedBytes = 0;
const sink = http.createServer((req, res) => {
  req.on('data', (chunk) => (exportedBytes += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${sink.address().port}`;
const withSink = (env = {}) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace('$OTLP_SINK', sinkUrl)]));

async function measure(variant, round) {
  const root = path.resolve(variant.root);
  const name = `relay_ab_${process.pid}_${round}`;
  const url = await freshDatabase(root, name);
  const port = await freePort();
  const prefix = `ab${process.pid}r${round}`;
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    DEFAULT_TARGET_URL: 'http://127.0.0.1:9/hook',
    API_RATE_LIMIT: '0',
    ...withSink(variant.env),
  };
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env, variant.flags ?? []);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    const target = `http://127.0.0.1:${port}/github`;
    await saturate({ url: target, body, connections: 64, durationS: 2 });
    const cpu0 = cpuMsOf(api.pid);
    const run = await saturate({ url: target, body, connections: 64, durationS: 8 });
    return {
      rps: Math.round(run.rps),
      cpuMs: Number(((cpuMsOf(api.pid) - cpu0) / run.ok).toFixed(3)),
      rssMb: peakRssMb(api.pid),
    };
  } finally {
    await stop(api);
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
}

for (let round = 1; round <= rounds; round++) {
  for (const variant of variants) {
    const result = await measure(variant, round);
    (results[variant.name] ??= []).push(result);
    console.error(`[ab] round ${round} ${variant.name}: ${JSON.stringify(result)}`);
  }
}
for (const [name, runs] of Object.entries(results)) {
  const m = (k) => median(runs.map((r) => r[k]));
  console.log(
    `${name}: ${m('rps')} webhooks/s, ${m('cpuMs')} ms CPU each, peak RSS ${m('rssMb')} MB (medians of ${runs.length})`,
  );
}
if (exportedBytes > 0) console.log(`OTLP sink: ${(exportedBytes / 1_048_576).toFixed(1)} MB of spans received`);
sink.close();
