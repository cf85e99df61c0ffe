// pnpm bench --redis-cluster [--smoke]: the relay's sharded delivery queues (packages/queue) on a private single Redis
// and on a private 3-primary Redis Cluster, in one invocation. Per run: the delivered rate (enqueue in bulks as
// ingest does, one BullMQ worker per shard as the worker runtime does, a no-op delivery), and from INFO commandstats
// and INFO cpu on every node before and after: Redis commands and Redis CPU per event, per shard's primary.
// Then the whole relay (production build: HTTP ingest, Postgres, two workers, a target) runs the main bench's relay run
// (bench/lib/relay-run.mjs) once on the private single Redis and once on the cluster with 6 queue shards, in the same
// invocation, with Redis commands and CPU per event per node over the whole run. Its webhooks all go to one source
// without a rule, so on the cluster they use one shard (hence one primary): it measures what an event costs on a
// cluster against single Redis, and what one shard sustained here; the spread over shards is the queue runs' above. Two shared cores cannot show
// throughput growing with shards, so the growth with shards is an estimate from the per-shard costs, printed as one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { createRequire } from 'node:module';
import { register } from 'tsx/cjs/api';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { relayRun } from './lib/relay-run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The workspace packages are CommonJS TypeScript: required through tsx's CommonJS hook (tsImport's namespace does
// not follow their relative requires).
register();
const require = createRequire(import.meta.url);
const load = async (file) => require(path.join(root, file));

const HOST = '127.0.0.1';
// The whole relay's run on the cluster: two shards per primary, so the rules' shards spread over the three.
const RELAY_SHARDS = 6;
const summaryOf = (run) => ({
  ingestPerSecond: run.ingestPerSecond,
  deliveredPerSecond: run.deliveredPerSecond,
  sustainableE2eP99: run.sustainableE2eP99,
  accepted: run.accepted,
  lost: run.lost,
  duplicates: run.duplicates,
  rssApiMb: run.rssApiMb,
  rssWorkerMb: run.rssWorkerMb,
});

/** A private single Redis on a spare port (never the shared one: its counters would hold other users' commands). */
async function startSingleRedis(freePorts) {
  const [port] = await freePorts(1);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-bench-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const probe = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => 100 });
  probe.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    if ((await probe.ping().catch(() => null)) === 'PONG') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  probe.disconnect();
  return {
    nodes: [{ host: HOST, port }],
    close: async () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const field = (info, name) => Number(new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1] ?? 0);

/** Commands run and CPU seconds used so far, per node (port). */
async function nodeCounters(nodes) {
  const out = new Map();
  for (const node of nodes) {
    const redis = new Redis({ host: node.host, port: node.port });
    const stats = await redis.info('commandstats');
    const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    const cpu = await redis.info('cpu');
    out.set(node.port, { calls, cpu: field(cpu, 'used_cpu_sys') + field(cpu, 'used_cpu_user') });
    redis.disconnect();
  }
  return out;
}

async function runOnce({ label, nodes, cluster, shards, events, queueModule }) {
  const { createDeliveryQueue, deliveryQueuePrefix } = queueModule;
  const connect = () => {
    const client = cluster
      ? new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } })
      : new Redis({ ...nodes[0], maxRetriesPerRequest: null });
    client.on('error', () => {});
    return client;
  };
  const prefix = `bench${Date.now().toString(36)}`;
  const producer = connect();
  const workerConnection = connect();
  const queue = createDeliveryQueue({ connection: producer, prefix, shards });
  let done = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const workers = Array.from({ length: shards }, (_, shard) => {
    const worker = new Worker(
      'deliveries',
      async () => {
        if (++done === events) finish();
      },
      { connection: workerConnection, prefix: deliveryQueuePrefix(prefix, shard), concurrency: Math.ceil(32 / shards) },
    );
    worker.on('error', () => {});
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const rules = Array.from({ length: 200 }, (_, i) => `rule-${i}`);
  const before = await nodeCounters(nodes);
  const started = performance.now();
  for (let i = 0; i < events; i += 100) {
    const batch = Array.from({ length: Math.min(100, events - i) }, (_, n) => ({
      orgId: 'org',
      eventId: `e${i + n}`,
      ruleId: rules[(i + n) % rules.length],
    }));
    await queue.enqueue(batch);
  }
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const after = await nodeCounters(nodes);
  await Promise.all(workers.map((w) => w.close()));
  await queue.close();
  producer.disconnect();
  workerConnection.disconnect();
  const perNode = [...after].map(([port, a]) => ({
    port,
    commandsPerEvent: (a.calls - before.get(port).calls) / events,
    cpuMsPerEvent: ((a.cpu - before.get(port).cpu) * 1000) / events,
  }));
  const busy = perNode.filter((n) => n.commandsPerEvent > 0.5);
  return { label, shards, events, rate: events / seconds, perNode, busyNodes: busy.length };
}

/** The whole relay on `redis` (its settings and nodes), with Redis commands and CPU per accepted event per node. */
async function relayOn({ label, redis, smoke, log }) {
  const here = path.join(root, 'bench');
  const before = await nodeCounters(redis.nodes);
  const run = await relayRun({
    root,
    here,
    run: 1,
    label: label
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(0, 12),
    body: readFileSync(path.join(here, 'github-push.json'), 'utf8'),
    workers: 2,
    durationS: smoke ? 1 : 10,
    backlog: smoke ? 500 : 10_000,
    connections: 64,
    log,
    redis,
  });
  const after = await nodeCounters(redis.nodes);
  const perNode = [...after].map(([port, a]) => ({
    port,
    commandsPerEvent: (a.calls - before.get(port).calls) / run.accepted,
    cpuMsPerEvent: ((a.cpu - before.get(port).cpu) * 1000) / run.accepted,
  }));
  log(
    `redis-cluster: relay on ${label}: ingest ${Math.round(run.ingestPerSecond)}/s, delivered ${Math.round(run.deliveredPerSecond)}/s`,
  );
  return { label, run, perNode };
}

export async function runRedisCluster({ smoke, log }) {
  const { startRedisCluster } = await load('packages/test-support/src/redis-cluster.ts');
  const { freePorts } = await load('packages/test-support/src/spare-port.ts');
  const queueModule = await load('packages/queue/src/index.ts');
  const events = smoke ? 500 : 5_000;
  log(`redis-cluster: ${events} events per run`);
  const single = await startSingleRedis(freePorts);
  const cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 0 });
  const results = [];
  const relays = [];
  try {
    results.push(
      await runOnce({
        label: 'single Redis, 1 shard',
        nodes: single.nodes,
        cluster: false,
        shards: 1,
        events,
        queueModule,
      }),
    );
    for (const shards of [1, 3, 6])
      results.push(
        await runOnce({
          label: `cluster (3 primaries), ${shards} shard(s)`,
          nodes: cluster.nodes,
          cluster: true,
          shards,
          events,
          queueModule,
        }),
      );
    execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
    const clusterEnv = {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','),
      REDIS_QUEUE_SHARDS: String(RELAY_SHARDS),
    };
    const singleUrl = `redis://${single.nodes[0].host}:${single.nodes[0].port}`;
    relays.push(
      await relayOn({
        label: 'single Redis',
        redis: { env: { REDIS_URL: singleUrl }, nodes: single.nodes },
        smoke,
        log,
      }),
      await relayOn({
        label: `cluster, ${RELAY_SHARDS} shards`,
        redis: { env: clusterEnv, nodes: cluster.nodes },
        smoke,
        log,
      }),
    );
  } finally {
    await cluster.close();
    await single.close();
  }
  const lines = [
    '## Redis Cluster: sharded delivery queues (pnpm bench --redis-cluster)',
    '',
    `${events} events per run over 200 rules; enqueue in bulks of 100, one BullMQ worker per shard (32 jobs in all),`,
    'a no-op delivery. Redis figures from INFO commandstats / INFO cpu of every node, before and after.',
    '',
    '| run | delivered/s | Redis commands per event, per node | Redis CPU ms per event, per node |',
    '|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.label} | ${Math.round(r.rate)} | ${r.perNode.map((n) => n.commandsPerEvent.toFixed(1)).join(' / ')} | ` +
        `${r.perNode.map((n) => n.cpuMsPerEvent.toFixed(3)).join(' / ')} |`,
    ),
    '',
  ];
  const base = results[0];
  const totalCpu = (r) => r.perNode.reduce((s, n) => s + n.cpuMsPerEvent, 0);
  const totalCmds = (r) => r.perNode.reduce((s, n) => s + n.commandsPerEvent, 0);
  const sharded = results[results.length - 1];
  const perEventCpu = totalCpu(sharded);
  lines.push(
    `Per event: ${totalCmds(base).toFixed(1)} Redis commands and ${totalCpu(base).toFixed(3)} ms Redis CPU on single Redis; ` +
      `${totalCmds(sharded).toFixed(1)} commands and ${perEventCpu.toFixed(3)} ms on the cluster with ${sharded.shards} shards ` +
      `(spread over ${sharded.busyNodes} primaries).`,
    `ESTIMATE (not measured: two shared cores cannot show it): with a core per Redis primary and the queues alone, ` +
      `single Redis carries about ${Math.round(1000 / Math.max(totalCpu(base), 1e-6))} events/s; the cluster with ` +
      `${sharded.shards} shards about ${Math.round(1000 / Math.max(...sharded.perNode.map((n) => n.cpuMsPerEvent), 1e-6))} ` +
      'events/s (bounded by its busiest primary); with many shards per primary, so the rules spread evenly, ' +
      `about P × ${Math.round(1000 / Math.max(perEventCpu, 1e-6))} events/s on P primaries.`,
  );
  const fig = (v, digits = 0) => (v === null || v === undefined ? '–' : Number(v).toFixed(digits));
  lines.push(
    '',
    "## The whole relay on each (production build, 2 workers, the main bench's relay run)",
    '',
    '| Redis | ingest/s | delivered/s | e2e p99 at half sustainable (ms) | lost | duplicates | Redis commands per event, ' +
      'per node | Redis CPU ms per event, per node |',
    '|---|---|---|---|---|---|---|---|',
    ...relays.map(
      ({ label, run, perNode }) =>
        `| ${label} | ${fig(run.ingestPerSecond)} | ${fig(run.deliveredPerSecond)} | ${fig(run.sustainableE2eP99)} | ` +
        `${run.lost} | ${run.duplicates} | ${perNode.map((n) => n.commandsPerEvent.toFixed(1)).join(' / ')} | ` +
        `${perNode.map((n) => n.cpuMsPerEvent.toFixed(3)).join(' / ')} |`,
    ),
  );
  console.log(lines.join('\n'));
  const output = {
    queue: results,
    relay: relays.map(({ label, run, perNode }) => ({ label, perNode, ...summaryOf(run) })),
  };
  if (!smoke)
    writeFileSync(path.join(root, 'bench/results/redis-cluster.json'), `${JSON.stringify(output, null, 2)}\n`);
  return output;
}
