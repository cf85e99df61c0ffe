import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

// The benchmark runs end to end in a few seconds so it cannot rot: baselines, ingest, drain,
// open-loop latency, RSS and the ledger. Speed is not asserted here (that is the full run's job);
// completeness and "nothing lost" are.
describe('pnpm bench --smoke', () => {
  it('runs every phase and loses nothing', async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--smoke'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --smoke failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/smoke.json'), 'utf8'));
    const [only] = result.perRun;
    for (const metric of [
      'expressPerSecond',
      'bullmqNoopPerSecond',
      'ingestFloorPerSecond',
      'deliveryFloorPerSecond',
      'trickleE2eP50',
      'ingestApiCpuMs',
      'drainWorkerCpuMs',
      'drainRedisCommands',
      'ingestPerSecond',
      'deliveredPerSecond',
      'e2eP50',
      'e2eP99',
      'ingestP99',
      'sustainableE2eP99',
      'sustainableRelayCpuMs',
      'sustainablePostgresCpuMs',
      'floorSustainableCpuMs',
      'rssApiMb',
      'rssWorkerMb',
    ]) {
      expect(only[metric]).toBeGreaterThan(0);
    }
    // What the machine did at half the sustainable rate (calm-probe.mjs): a share of both cores, threads runnable.
    expect(only.sustainableMachine.busy).toBeGreaterThan(0);
    expect(only.sustainableMachine.busy).toBeLessThanOrEqual(1);
    expect(only.sustainableMachine.runnableMean).toBeGreaterThan(0);
    // The latency floor's phase at that rate, measured the same way, and the relay's peak RSS phase by phase.
    expect(only.floorSustainableMachine.busy).toBeGreaterThan(0);
    expect(only.floorSustainableMachine.busy).toBeLessThanOrEqual(1);
    expect(Object.keys(only.rssByPhase)).toEqual([
      'start',
      'ingest',
      'drain',
      'halfIngest',
      'halfSustainable',
      'trickle',
    ]);
    expect(only.rssByPhase.drain.worker).toBeGreaterThan(0);
    const phases = Object.values(only.rssByPhase as Record<string, { api: number }>);
    expect(Math.max(...phases.map((p) => p.api))).toBe(only.rssApiMb);
    // The part of each peak that is mapped files (the node binary's pages), read from the processes before they end.
    expect(only.rssApiFilesMb).toBeGreaterThan(0);
    expect(only.rssApiFilesMb).toBeLessThan(only.rssApiMb);
    expect(only.rssWorkerFilesMb).toBeGreaterThan(0);
    expect(only.rssWorkerFilesMb).toBeLessThan(only.rssWorkerMb);
    expect(only.lost).toBe(0);
    expect(only.stored).toBeGreaterThanOrEqual(only.accepted);
    expect(only.backlog).toBeGreaterThanOrEqual(500);
    expect(result.targets.lost.met).toBe(true);
    expect(result.ratios.ingestVsExpress).toBeGreaterThan(0);
    expect(result.ratios.sameRun.ingestVsFloor).toBeGreaterThan(0);
    expect(result.ratios.sameRun.deliveredVsFloor).toBeGreaterThan(0);
  }, 240_000);
});

// --profile on its own throw-away cluster: statements per event from pg_stat_statements, Redis commands,
// and a summary of each process's CPU profile.
describe('pnpm bench --smoke --profile', () => {
  it('reports where the time goes', async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--smoke', '--profile'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --smoke --profile failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const report = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/profile-smoke.json'), 'utf8'));
    const [usage] = report.usage;
    expect(usage.ingest.pgTop.map((s: { query: string }) => s.query).join('\n')).toMatch(/INSERT INTO events/);
    expect(usage.drain.pgStatementsPerEvent).toBeGreaterThan(0);
    expect(usage.drain.redisCommandsPerEvent).toBeGreaterThan(0);
    const names = Object.keys(report.cpuProfiles);
    expect(names.some((n) => n.startsWith('api-'))).toBe(true);
    expect(names.some((n) => n.startsWith('worker1-'))).toBe(true);
  }, 240_000);
});

describe('pnpm bench --fair --smoke', () => {
  it('measures a healthy target alone, beside a hanging one and a hanging rule that retries, once each', async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--fair', '--smoke'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --fair --smoke failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/fair-smoke.json'), 'utf8'));
    for (const phase of [result.alone, result.beside, result.retries]) {
      expect(phase.deliveredPerSecond).toBeGreaterThan(0);
      expect(phase.e2eP99).toBeGreaterThan(0);
      expect(phase.openLoopDelivered).toBe(phase.openLoopOffered);
      expect(phase.duplicates).toBe(0);
    }
    expect(result.beside.hangingStillQueued).toBe(100);
    expect(result.ratios.throughput).toBeGreaterThan(0);
    // Beside a hanging rule that retries (issue 26): its policy bounds the attempts of each event.
    expect(result.retries.hangingMostAttempts).toBeGreaterThan(0);
    expect(result.retries.hangingMostAttempts).toBeLessThanOrEqual(result.hangingPolicy.max_attempts);
    expect(result.ratios.retriesThroughput).toBeGreaterThan(0);
  }, 240_000);
});

// The million-event search scenario, at 5,000 events: every query answers, and the budget is reported.
describe('pnpm bench --search --smoke', () => {
  it('times the list and five kinds of search term', async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--search', '--smoke'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --search --smoke failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/search-smoke.json'), 'utf8'));
    expect(result.events).toBe(5_000);
    const rows = Object.fromEntries(
      result.scenarios.map((s: { query: string; rows: number }) => [s.query.split('&')[0], s.rows]),
    );
    expect(rows).toEqual({
      'per_page=50': 50,
      'search=quetzalcoatl': 0,
      'search=octo-common': 50,
      'search=zebra-quokka-nomatch': 0,
      // Part of the last event's commit hash, and its message number.
      [`search=${createHash('md5').update('5000c').digest('hex').slice(0, 16)}`]: 1,
      'search=update%205000': 1,
    });
    expect(typeof result.met).toBe('boolean');
  }, 240_000);
});

// Retention by partition drop while ingest runs (issue 32), at 5,000 events: the day's partition is dropped with
// every event in it and their destination deliveries, and ingest answered every request meanwhile. No speed is
// asserted (pnpm bench --retention). --cold: the day's files are evicted from the page cache before the drop.
describe('pnpm bench --retention --smoke', () => {
  it("drops a past day's partition while ingest runs", async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--retention', '--smoke', '--cold'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --retention --smoke failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/retention-drop-smoke.json'), 'utf8'));
    expect(result.rounds).toHaveLength(1);
    const [round] = result.rounds;
    expect(round).toMatchObject({
      outcome: 'dropped',
      droppedEvents: 5_000,
      deliveriesLeft: 0,
      keptBeforeDrop: 0,
      failures: 0,
    });
    // The retained days' search chunks stay; the dropped day's are gone.
    expect(round.chunksLeft).toBe(round.historyChunks);
    expect(round.historyChunks).toBeGreaterThan(0);
    expect(round.ingestWithRetention.requests).toBe(result.settings.rate * result.settings.phaseS);
    expect(round.dropMs).toBeGreaterThan(0);
    // The day's files were found and evicted: most of them are not cached when its phase begins.
    expect(round.dayMb).toBeGreaterThan(0);
    expect(round.cachedBeforeMb).toBeLessThan(round.dayMb / 2);
  }, 240_000);
});

// Routing's fan-out (issue 29): a rule with three destinations, the last filtered to half the webhooks, against
// the same rule alone, one small round. No speed is asserted; every target's ledger (by webhook-id) must be clean.
describe('pnpm bench --fanout 3 --smoke', () => {
  it('delivers every webhook to the primary and each destination its filter allows, once', async () => {
    await run(process.execPath, [path.join(ROOT, 'bench/run.mjs'), '--fanout', '3', '--smoke'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --fanout --smoke failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(readFileSync(path.join(ROOT, 'bench/results/fanout-smoke.json'), 'utf8'));
    expect(result.settings.destinations).toBe(3);
    for (const key of ['singleDeliveriesPerSecond', 'fanOutDeliveriesPerSecond', 'ratio']) {
      expect(result.summary[key]).toBeGreaterThan(0);
    }
    expect(result.summary).toMatchObject({ lost: 0, duplicates: 0 });
    expect(result.targets.lost.met).toBe(true);
    expect(result.targets.duplicates.met).toBe(true);
    expect(typeof result.targets.ratio.met).toBe('boolean');
    const [round] = result.perRound;
    const webhooks = round.fanOut.webhooks;
    expect(webhooks).toBe(200);
    expect(round.single.deliveries).toBe(webhooks);
    // Primary and two unfiltered destinations take every webhook, the filtered one half: 3.5 deliveries each.
    expect(round.fanOut.deliveries).toBe(webhooks * 3.5);
    expect(round.fanOut.perTarget.map((t: { expected: number }) => t.expected)).toEqual([
      webhooks,
      webhooks,
      webhooks,
      webhooks / 2,
    ]);
    for (const target of [...round.single.perTarget, ...round.fanOut.perTarget]) {
      expect(target).toMatchObject({ lost: 0, duplicates: 0, misrouted: 0 });
      expect(target.received).toBe(target.expected);
    }
    expect(round.fanOut.database).toEqual({
      events_not_delivered: 0,
      deliveries: webhooks * 2.5,
      deliveries_not_delivered: 0,
    });
  }, 240_000);
});
