import { existsSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, type RedisCluster } from './redis-cluster';
import { redisCli } from './redis-deployment';
import { startRedisSentinel, type RedisSentinel } from './redis-sentinel';
import { waitFor } from './wait-for';

// The harness itself, on the real engines: a cluster that spreads keys over its primaries and survives a SIGKILLed
// primary, a Sentinel set whose failover a client follows, and nothing left running afterwards.

jest.setTimeout(120_000);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const pidsOf = async (ports: number[]) =>
  Promise.all(
    ports.map(async (port) => Number(/^process_id:(\d+)/m.exec(await redisCli(port, 'INFO', 'server'))?.[1])),
  );

describe('startRedisCluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 }, slotsRefreshTimeout: 2_000 });
    client.on('error', () => {});
  });

  afterAll(async () => {
    client?.disconnect();
    await cluster?.close();
  });

  it('starts 3 primaries with a replica each, every node in cluster_state:ok', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(await cluster.primaries()).toHaveLength(3);
    for (const node of cluster.nodes) expect(await redisCli(node.port, 'CLUSTER', 'INFO')).toMatch(/cluster_state:ok/);
  });

  it('stores keys of every slot range, each on the primary that owns its slot', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `harness:key:${i}`);
    for (const key of keys) await client.set(key, key);
    for (const key of keys) expect(await client.get(key)).toBe(key);
    // Every primary holds some of them: the keys really are spread, not all on one node.
    const counts = await Promise.all(
      (await cluster.primaries()).map(async (node) => Number(await redisCli(node.port, 'DBSIZE'))),
    );
    expect(counts).toHaveLength(3);
    for (const count of counts) expect(count).toBeGreaterThan(0);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(keys.length);
  });

  it('fails a SIGKILLed primary over to its replica, and the key is readable again', async () => {
    const key = 'harness:failover';
    await client.set(key, 'kept');
    const slot = Number(await redisCli(cluster.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', key));
    const owners = await Promise.all(
      (await cluster.primaries()).map(async (node) => ({
        node,
        count: Number(await redisCli(node.port, 'CLUSTER', 'COUNTKEYSINSLOT', String(slot))),
      })),
    );
    const primary = owners.find((entry) => entry.count > 0)!.node;
    // The replica has the write before its primary dies (replication is asynchronous).
    expect(Number(await redisCli(primary.port, 'WAIT', '1', '10000'))).toBe(1);

    await cluster.kill(primary.port);

    await waitFor(async () => (await client.get(key)) === 'kept', 60_000, 'the key through the promoted replica');
    const primaries = await cluster.primaries();
    expect(primaries).toHaveLength(3);
    expect(primaries.map((node) => node.port)).not.toContain(primary.port);
    // Writes to that slot work again too.
    await client.set(key, 'after failover');
    expect(await client.get(key)).toBe('after failover');
  });

  it('close() kills every server and removes the folder, and may be called twice', async () => {
    const other = await startRedisCluster();
    const pids = await pidsOf(other.nodes.map((node) => node.port));
    expect(pids.every(alive)).toBe(true);
    await other.close();
    await other.close();
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(other.dir)).toBe(false);
  });
});

describe('startRedisSentinel', () => {
  let sentinel: RedisSentinel;
  let client: Redis;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    client = new Redis({ sentinels: sentinel.sentinels, name: sentinel.name, maxRetriesPerRequest: 1 });
    client.on('error', () => {});
  });

  afterAll(async () => {
    client?.disconnect();
    await sentinel?.close();
  });

  it('reaches the primary through the sentinels', async () => {
    const primary = await sentinel.primary();
    expect(primary).toEqual(sentinel.nodes[0]);
    await client.set('harness:sentinel', 'one');
    expect(await redisCli(primary.port, 'GET', 'harness:sentinel')).toBe('one');
  });

  it('fails over with SENTINEL FAILOVER, and the client follows the new primary', async () => {
    const before = await sentinel.primary();
    const after = await sentinel.failover();
    expect(after.port).not.toBe(before.port);
    await waitFor(
      async () => (await client.set('harness:sentinel', 'two')) === 'OK',
      60_000,
      'a write on the new primary',
    );
    expect(await redisCli(after.port, 'GET', 'harness:sentinel')).toBe('two');
  });

  it('fails over when the primary is SIGKILLed, and the client reconnects to the promoted replica', async () => {
    const before = await sentinel.primary();
    // WAIT counts the replicas that have the writes of its own connection: the client's, not a fresh redis-cli's
    // (which has none, so it answered at once and the write could be lost with the primary: 'one' was read back).
    await client.set('harness:sentinel', 'two');
    expect(Number(await client.call('WAIT', '1', '10000'))).toBe(1);
    const after = await sentinel.failover({ kill: true });
    expect(after.port).not.toBe(before.port);
    expect(await waitFor(async () => client.get('harness:sentinel'), 60_000, 'a read on the new primary')).toBe('two');
    await client.set('harness:sentinel', 'three');
    expect(await redisCli(after.port, 'GET', 'harness:sentinel')).toBe('three');
  });
});
