// pnpm bench --fanout N [--smoke] [--workers N] [--fanout-rounds R] [--fanout-events E]
// Issue 29, item 6: a rule with N destinations (real local HTTP targets; the last one's filter lets half the
// webhooks through) delivers its webhooks to the primary and every destination: total deliveries per second
// (primary + destination deliveries, backlog drain) against the single-target delivery rate (the same rule
// with no destination) measured in the same round. Rounds are interleaved, in alternating order, so the load
// of a shared machine falls on both sides alike; the judged ratio is the median of each round's own ratio.
// Every target counts what it received by webhook-id: 0 lost and 0 duplicates are required (exit code 1).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deliveryPhase, HALF_FILTER, pushBodies } from './lib/rule-phase.mjs';
import { median, round } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function runFanOut({ root, smoke, workers, destinations, log }) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const rounds = option('--fanout-rounds', smoke ? 1 : 5);
  const events = option('--fanout-events', smoke ? 200 : 4_000);
  if (!Number.isInteger(destinations) || destinations < 1 || destinations > 20)
    throw new Error('--fanout takes the number of destinations, 1 to 20');
  log(
    `fan-out: building (${smoke ? 'smoke' : 'full'}, ${destinations} destinations, ${rounds} rounds, ` +
      `${events} webhooks)`,
  );
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const bodies = pushBodies(readFileSync(path.join(here, 'github-push.json'), 'utf8'));
  // Every destination takes every webhook but the last, whose filter takes the pushes to main (body 0): half.
  const routes = Array.from({ length: destinations }, (_, i) => ({
    filter: i === destinations - 1 ? HALF_FILTER : null,
  }));
  const expectedFor = (ids, filter) => (filter === null ? ids.flat() : ids[0]);
  const common = { root, workers, events, bodies, expectedFor, log };
  const perRound = [];
  for (let r = 1; r <= rounds; r++) {
    const sides = {
      single: () => deliveryPhase({ ...common, name: `single${r}` }),
      fanOut: () => deliveryPhase({ ...common, name: `fanout${r}`, destinations: routes }),
    };
    // Alternate which side goes first: a machine warming up or calming down over a round favours neither.
    const result = { single: null, fanOut: null, first: r % 2 ? 'single' : 'fanOut' };
    for (const side of r % 2 ? ['single', 'fanOut'] : ['fanOut', 'single']) result[side] = await sides[side]();
    result.ratio = Number((result.fanOut.deliveriesPerSecond / result.single.deliveriesPerSecond).toFixed(3));
    perRound.push(result);
    log(
      `round ${r}: single ${result.single.deliveriesPerSecond}/s, fan-out ${result.fanOut.deliveriesPerSecond}/s ` +
        `(ratio ${result.ratio}), lost ${result.fanOut.lost + result.single.lost}, ` +
        `duplicates ${result.fanOut.duplicates + result.single.duplicates}`,
    );
  }
  const med = (pick) => median(perRound.map(pick));
  const lost = perRound.reduce((s, p) => s + p.single.lost + p.fanOut.lost + p.fanOut.misrouted, 0);
  const duplicates = perRound.reduce((s, p) => s + p.single.duplicates + p.fanOut.duplicates, 0);
  const summary = {
    singleDeliveriesPerSecond: med((p) => p.single.deliveriesPerSecond),
    fanOutDeliveriesPerSecond: med((p) => p.fanOut.deliveriesPerSecond),
    ratio: med((p) => p.ratio),
    ratioMin: Math.min(...perRound.map((p) => p.ratio)),
    ratioMax: Math.max(...perRound.map((p) => p.ratio)),
    roundsAtLeast08: perRound.filter((p) => p.ratio >= 0.8).length,
    singleWorkerCpuMsPerDelivery: med((p) => p.single.workerCpuMsPerDelivery),
    fanOutWorkerCpuMsPerDelivery: med((p) => p.fanOut.workerCpuMsPerDelivery),
    singlePostgresCpuMsPerDelivery: med((p) => p.single.postgresCpuMsPerDelivery),
    fanOutPostgresCpuMsPerDelivery: med((p) => p.fanOut.postgresCpuMsPerDelivery),
    // Workers' and Postgres's CPU per delivery, single ÷ fan-out, per round: what each delivery costs the machine,
    // which a busy machine's load moves far less than it moves the rates (above 1: a fan-out delivery is cheaper).
    cpuRatio: med((p) => {
      const cpu = (side) => side.workerCpuMsPerDelivery + side.postgresCpuMsPerDelivery;
      return Number((cpu(p.single) / cpu(p.fanOut)).toFixed(3));
    }),
    lost,
    duplicates,
  };
  const targets = {
    ratio: { target: '>= 0.8 (median of the rounds’ own ratios)', met: summary.ratio >= 0.8 },
    lost: { target: '0 (misrouted counted as lost)', met: lost === 0 },
    duplicates: { target: '0', met: duplicates === 0 },
  };
  const result = {
    date: new Date().toISOString(),
    mode: smoke ? 'smoke' : 'full',
    node: process.version,
    settings: { destinations, filteredDestination: HALF_FILTER, rounds, webhooksPerPhase: events, workers },
    summary,
    targets,
    perRound,
  };
  mkdirSync(path.join(here, 'results'), { recursive: true });
  const file = smoke ? 'fanout-smoke.json' : `fanout-${destinations}.json`;
  writeFileSync(path.join(here, 'results', file), `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    [
      `| ${rounds} round${rounds > 1 ? 's' : ''}, ${workers} workers, ${events} webhooks each | single target | ` +
        `${destinations} destinations | fan-out / single |`,
      '|---|---|---|---|',
      `| deliveries/s (median) | ${summary.singleDeliveriesPerSecond} | ${summary.fanOutDeliveriesPerSecond} | ` +
        `${summary.ratio} (${summary.ratioMin}–${summary.ratioMax}) |`,
      `| worker CPU per delivery (ms) | ${round(summary.singleWorkerCpuMsPerDelivery, 3)} | ` +
        `${round(summary.fanOutWorkerCpuMsPerDelivery, 3)} | |`,
      `| lost / duplicates | ${perRound.reduce((s, p) => s + p.single.lost, 0)} / ` +
        `${perRound.reduce((s, p) => s + p.single.duplicates, 0)} | ` +
        `${perRound.reduce((s, p) => s + p.fanOut.lost + p.fanOut.misrouted, 0)} / ` +
        `${perRound.reduce((s, p) => s + p.fanOut.duplicates, 0)} | |`,
      '',
      `CPU per delivery (workers + Postgres), single / fan-out: ${summary.cpuRatio} (median of the rounds); ` +
        `rounds with fan-out / single ≥ 0.8: ${summary.roundsAtLeast08} of ${rounds}`,
      `results: bench/results/${file}; targets met: ${Object.entries(targets)
        .map(([k, v]) => `${k} ${v.met ? 'yes' : 'NO'}`)
        .join(', ')}`,
    ].join('\n'),
  );
  // As in the main run: speed is reported, correctness decides the exit code.
  if (!targets.lost.met || !targets.duplicates.met) process.exitCode = 1;
}
