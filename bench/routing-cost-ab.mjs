// Issue 29, item 6: a rule without filter or destinations pays nothing measurable for routing. An interleaved
// A/B of the delivery path (ingest → delivered) of such a rule: each variant (a checkout with built bundles, e.g.
// one of the commit before issue 29) runs the same phase in turn, round after round, so the machine's mood of
// the minute falls on every variant alike (as bench/ingest-ab.mjs does for ingest alone). A phase, on a fresh
// database migrated by the variant's own migrations: a rule for `github` with a local target, a backlog of
// webhooks ingested with no worker running, drained by the workers, then an open loop for the end-to-end latency.
//
//   VARIANTS='[{"name":"issue start","root":"/tmp/base"},{"name":"routing","root":"."}]' ROUNDS=5 \
//     node bench/routing-cost-ab.mjs
//
// DESTINATIONS (default 0: the primary target alone; N: N unfiltered destinations beside it, the fan-out's
// per-delivery statements, and no open loop: its ledger counts the backlog's webhooks only), EVENTS (default 4,000), WORKERS (2), RATE and DURATION_S (open loop, default 100/s for 8 s), OUT (a file
// name in bench/results, default routing-cost-ab.json). A variant's root must have run `node scripts/build.mjs`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deliveryPhase, pushBodies } from './lib/rule-phase.mjs';
import { median } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const variants = JSON.parse(process.env.VARIANTS ?? '[{"name":"this checkout","root":"."}]');
const rounds = Number(process.env.ROUNDS ?? 3);
const events = Number(process.env.EVENTS ?? 4_000);
const workers = Number(process.env.WORKERS ?? 2);
const destinations = Array.from({ length: Number(process.env.DESTINATIONS ?? 0) }, () => ({ filter: null }));
const latency = { rate: Number(process.env.RATE ?? 100), durationS: Number(process.env.DURATION_S ?? 8) };
const out = process.env.OUT ?? 'routing-cost-ab.json';
const bodies = pushBodies(readFileSync(path.join(here, 'github-push.json'), 'utf8'));
const log = (...parts) => console.error(`[routing-ab] ${parts.join(' ')}`);
const METRICS = [
  'ingestPerSecond',
  'deliveriesPerSecond',
  'workerCpuMsPerDelivery',
  'postgresCpuMsPerDelivery',
  'redisCommandsPerDelivery',
  'e2eP50',
  'e2eP99',
];

const runs = Object.fromEntries(variants.map((v) => [v.name, []]));
for (let r = 1; r <= rounds; r++) {
  // Alternate the order too: the first variant of a round does not always meet a machine just released.
  const order = r % 2 ? variants : [...variants].reverse();
  for (const variant of order) {
    const phase = await deliveryPhase({
      root: path.resolve(variant.root),
      name: `v${variants.indexOf(variant)}r${r}`,
      destinations,
      expectedFor: (ids) => ids.flat(),
      events,
      workers,
      bodies,
      latency: destinations.length ? undefined : latency,
      log,
    });
    const { perTarget, ...rest } = phase;
    const run = { round: r, ...rest, e2eP50: phase.e2e?.p50, e2eP99: phase.e2e?.p99 };
    runs[variant.name].push(run);
    log(`round ${r} ${variant.name}: ${JSON.stringify(Object.fromEntries(METRICS.map((m) => [m, run[m]])))}`);
    if (phase.lost || phase.duplicates || phase.misrouted)
      log(`round ${r} ${variant.name}: ${JSON.stringify(perTarget)}`);
  }
}
const medians = Object.fromEntries(
  Object.entries(runs).map(([name, list]) => [
    name,
    Object.fromEntries(METRICS.map((m) => [m, median(list.map((x) => x[m]))])),
  ]),
);
// Each round's own ratio (last variant / first), then the median: both sides of a round met the same load.
const [a, b] = variants.map((v) => runs[v.name]);
const ratios =
  a && b
    ? Object.fromEntries(METRICS.map((m) => [m, Number(median(a.map((x, i) => b[i][m] / x[m])).toFixed(3))]))
    : null;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  what: process.env.WHAT ?? 'bench/routing-cost-ab.mjs',
  settings: {
    rounds,
    webhooksPerPhase: events,
    workers,
    destinations: destinations.length,
    openLoop: destinations.length ? null : latency,
  },
  variants,
  medians,
  sameRoundRatios: ratios && { of: `${variants[1].name} / ${variants[0].name}`, ...ratios },
  rounds: runs,
};
mkdirSync(path.join(here, 'results'), { recursive: true });
writeFileSync(path.join(here, 'results', out), `${JSON.stringify(result, null, 2)}\n`);
for (const [name, m] of Object.entries(medians)) console.log(`${name}: ${JSON.stringify(m)}`);
if (ratios)
  console.log(`${variants[1].name} / ${variants[0].name} (median of each round's ratio): ${JSON.stringify(ratios)}`);
const faults = Object.values(runs)
  .flat()
  .reduce((s, x) => s + x.lost + x.duplicates + x.misrouted, 0);
if (faults) {
  console.error(`[routing-ab] ${faults} lost, duplicated or misrouted deliveries`);
  process.exitCode = 1;
}
