import {
  redisCli,
  sleep,
  startRedisCluster,
  startTargetServer,
  type RedisCluster,
  type TargetServer,
} from '@relay/test-support';
import { FAILOVER_WORKER_ENV, ingestThroughFault, rulesOnEveryShard, jobsInFlight, receiptsOf } from './failover-load';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Issue 33 item 5: the whole relay on a 3 + 3 Redis Cluster with three queue shards; mid-load the primary of a busy
// shard dies by SIGKILL (no save), its replica takes over after the node timeout. What the dead primary held and had
// not yet copied is gone: the sweeper re-enqueues those events from Postgres. Every accepted webhook arrives, and
// only what was in flight at the kill may arrive twice.

jest.setTimeout(300_000);

const SHARDS = 3;
const PREFIX = `relay-failover-${process.pid}`;

let cluster: RedisCluster;
let target: TargetServer;
let pipeline: Pipeline;

/** The port of the primary that serves the slot of `key` now (`CLUSTER NODES`: … flags … link slot-ranges…). */
async function primaryOf(key: string): Promise<number> {
  const [primary] = await cluster.primaries();
  const slot = Number(await redisCli(primary!.port, 'CLUSTER', 'KEYSLOT', key));
  for (const line of (await redisCli(primary!.port, 'CLUSTER', 'NODES')).split('\n')) {
    const [, address, flags, , , , , link, ...ranges] = line.trim().split(' ');
    if (!flags?.split(',').includes('master') || flags.includes('fail') || link !== 'connected') continue;
    const owns = ranges.some((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return slot >= from! && slot <= to!;
    });
    if (owns) return Number(address!.split('@')[0]!.split(':')[1]);
  }
  throw new Error(`no primary serves slot ${slot}`);
}

beforeAll(async () => {
  cluster = await startRedisCluster();
  target = await startTargetServer();
  const env = {
    REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','),
    QUEUE_PREFIX: PREFIX,
    REDIS_QUEUE_SHARDS: String(SHARDS),
  };
  pipeline = await startPipeline({
    redisUrl: 'redis://127.0.0.1:1',
    api: { ...env, INGEST_RATE_LIMIT: '100000' },
    worker: { ...env, ...FAILOVER_WORKER_ENV },
  });
});

afterAll(async () => {
  // Bounded as main.ts bounds a shutdown (SHUTDOWN_TIMEOUT_MS): once in several runs the close after the kill did not
  // end within jest's 300 s (a BullMQ close waiting on the cluster connection; open: see docs/operations.md), and the
  // cluster's removal below ends whatever still waits on it.
  await Promise.race([pipeline?.close(), sleep(60_000)]);
  await target?.close();
  await cluster?.close();
});

it('loses nothing when a primary is killed mid-load, and delivers twice at most what was in flight', async () => {
  const admin = (await userCredential(pipeline, 'admin')).authorization;
  const sources = await rulesOnEveryShard(pipeline, admin, target, SHARDS);
  const victim = await primaryOf(`{${PREFIX}:dlv:0}:wait`);

  const load = await ingestThroughFault(pipeline, {
    sources,
    total: 300,
    parallel: 4,
    faultAfter: 100,
    fault: () => cluster.kill(victim),
  });
  expect(load.accepted).toHaveLength(300);
  expect((await cluster.primaries()).map((node) => node.port)).not.toContain(victim);

  const receipts = await receiptsOf(pipeline, target, load.accepted, load.faultAt);
  // The measured outcome, quoted in docs/operations.md.
  console.log(
    `cluster failover: ${JSON.stringify({ ...receipts, lost: receipts.lost.length, retried: load.retried })}`,
  );
  expect(receipts.lost).toEqual([]);
  expect(receipts.duplicates).toBeLessThanOrEqual(jobsInFlight(SHARDS));
});
