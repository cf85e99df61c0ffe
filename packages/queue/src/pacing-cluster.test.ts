import type { RedisTarget } from '@relay/core';
import { startRedisCluster, uniqueQueuePrefix, waitFor, type RedisCluster } from '@relay/test-support';
import { createPacingLimiter } from './pacing-limiter';
import { createRedisConnection, type RedisConnection } from './redis-connection';

// Issue 33: pacing on a real Redis Cluster through REDIS_CLUSTER_NODES's client. Its scripts take up to three keys
// (state, leases, waiters), all under the pacing key's hash tag; a hold published from a script reaches every
// worker's subscriber, whatever node it is connected to.

jest.setTimeout(120_000);

let cluster: RedisCluster;
let target: RedisTarget;
const connections: RedisConnection[] = [];

const connect = async (role: 'producer' | 'subscriber') => {
  const redis = createRedisConnection(target, role);
  connections.push(redis);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
};
const limiter = async (prefix: string) => {
  const created = createPacingLimiter({
    redis: await connect('producer'),
    subscriber: await connect('subscriber'),
    prefix,
  });
  await created.start();
  return created;
};

beforeAll(async () => {
  cluster = await startRedisCluster();
  target = { kind: 'cluster', nodes: cluster.nodes };
});

afterAll(async () => {
  for (const redis of connections) redis.disconnect();
  await cluster?.close();
});

it('bounds concurrency, shares holds between workers and reads the state, without CROSSSLOT', async () => {
  const prefix = uniqueQueuePrefix();
  const [first, second] = [await limiter(prefix), await limiter(prefix)];
  const pacing = { maxConcurrency: 1 };
  const granted = await first.acquire('rule:a', pacing, 'job-1');
  expect(granted.granted).toBe(true);
  expect((await second.acquire('rule:a', pacing, 'job-2')).granted).toBe(false);
  if (granted.granted) await first.release(granted.lease);
  expect((await second.acquire('rule:a', pacing, 'job-2')).granted).toBe(true);
  expect(await first.state('rule:a', pacing)).toMatchObject({ inFlight: 1 });

  // A Retry-After hold set by one worker is heard by the other (pub/sub from the script, across nodes).
  const held = await first.hold('rule:b', Date.now() + 60_000);
  expect(held).not.toBeNull();
  await waitFor(async () => !(await second.acquire('rule:b', null, 'job-3')).granted, 10_000, 'the hold heard');
});
