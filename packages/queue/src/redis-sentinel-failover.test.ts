import type { OrgId, RedisTarget } from '@relay/core';
import { redisCli, startRedisSentinel, uniqueQueuePrefix, waitFor, type RedisSentinel } from '@relay/test-support';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createFeedPublisher, createFeedSubscriber } from './event-feed';
import { createNodeRedisClient, type NodeRedisClient } from './node-redis-connection';
import { createRedisConnection, type RedisConnection } from './redis-connection';

// Issue 33, item 3: on REDIS_SENTINELS the relay's clients follow a failover without a restart. SENTINEL FAILOVER
// leaves the old primary running (it is demoted about 10 s later): a client that stayed on it would see its writes
// refused (READONLY) or, before the demotion, lost. The clients must move to the new primary and keep working.

jest.setTimeout(180_000);

let sentinel: RedisSentinel;
let target: RedisTarget;
const ioredis: RedisConnection[] = [];
const closers: Array<() => Promise<unknown>> = [];
let nodeRedis: NodeRedisClient;

const connect = async (role: 'producer' | 'worker' | 'subscriber') => {
  const redis = createRedisConnection(target, role);
  ioredis.push(redis);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
};

/** What the server on `port` holds under `key`, asked directly (not through the sentinels). */
const readOn = async (port: number, key: string) => {
  const direct = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await direct.connect();
    return await direct.get(key);
  } finally {
    direct.disconnect();
  }
};

// Commands in flight at the switch may fail once (a producer fails fast); the caller's retry is the relay's own
// (ingest answers 202 and the sweeper re-enqueues, a login answers 503 and the user tries again).
const eventually = <T>(what: string, run: () => Promise<T>) =>
  waitFor(async () => run().catch(() => undefined), 60_000, what);

beforeAll(async () => {
  sentinel = await startRedisSentinel();
  target = { kind: 'sentinel', sentinels: sentinel.sentinels, name: sentinel.name };
  nodeRedis = createNodeRedisClient(target, { commandTimeoutMs: 2_000 });
  await nodeRedis.connect(() => {});
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await nodeRedis?.close();
  for (const redis of ioredis) redis.disconnect();
  await sentinel?.close();
});

it('keeps queueing, processing, publishing and running scripts on the new primary after a failover', async () => {
  const prefix = uniqueQueuePrefix();
  const producer = await connect('producer');
  const queue = new Queue('sentinel-check', { connection: producer, prefix });
  const processed: string[] = [];
  const worker = new Worker(
    'sentinel-check',
    async (job) => {
      processed.push(job.data.id as string);
    },
    { connection: await connect('worker'), prefix },
  );
  closers.push(
    () => queue.close(),
    () => worker.close(),
  );
  const org = 'org_sentinel' as OrgId;
  const heard: unknown[] = [];
  const subscriber = createFeedSubscriber({ redis: await connect('subscriber'), prefix });
  await subscriber.subscribe(org, (message) => heard.push(message));
  closers.push(() => subscriber.close());
  const feed = createFeedPublisher({ redis: producer, prefix });

  await queue.add('check', { id: 'before' });
  await waitFor(async () => processed.includes('before'), 30_000, 'the job before the failover');
  const before = await sentinel.primary();

  const after = await sentinel.failover();
  expect(after.port).not.toBe(before.port);

  // ioredis (BullMQ's producer and worker): a job added after the switch is stored on the new primary and processed.
  await eventually('a job added after the failover', () => queue.add('check', { id: 'after' }));
  await waitFor(async () => processed.includes('after'), 60_000, 'the job after the failover processed');
  await eventually('a write on the new primary', async () => {
    await producer.set(`${prefix}:probe`, 'ioredis');
    return (await readOn(after.port, `${prefix}:probe`)) === 'ioredis';
  });

  // The live feed's subscriber resubscribed on the new primary: a message published there reaches it.
  await eventually('the feed heard after the failover', async () => {
    await feed.publish(org, [{ type: 'probe' } as never]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return heard.length > 0;
  });

  // node-redis (sessions, login limits, idempotency): a script's write lands on the new primary.
  await eventually('a node-redis script on the new primary', async () => {
    await nodeRedis.eval("return redis.call('SET', KEYS[1], ARGV[1])", {
      keys: [`${prefix}:node`],
      arguments: ['node-redis'],
    });
    return (await readOn(after.port, `${prefix}:node`)) === 'node-redis';
  });
  expect(await nodeRedis.get(`${prefix}:node`)).toBe('node-redis');
});

it('moves to the new primary when the sentinels announce it, before the old one is demoted', async () => {
  // Writes sent to the old primary between the promotion and its demotion (up to 10 s later) are discarded by the
  // demotion: the client must leave it at the announcement (+switch-master), not when the demotion drops it.
  const producer = await connect('producer');
  const portOf = async () => Number(/^tcp_port:(\d+)/m.exec(await producer.info('server'))?.[1]);
  const before = await sentinel.primary();
  expect(await portOf()).toBe(before.port);
  await redisCli(sentinel.sentinels[0]!.port, 'SENTINEL', 'FAILOVER', sentinel.name);
  const announced = await waitFor(
    async () => {
      const [, port] = (
        await redisCli(sentinel.sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinel.name)
      )
        .split('\n')
        .map((line) => line.trim());
      return Number(port) !== before.port ? Number(port) : undefined;
    },
    60_000,
    'the sentinels to announce a new primary',
  );
  await eventually('the producer on the new primary', async () => (await portOf()) === announced);
  // The old primary still takes writes at this point: a client that had stayed would have lost them.
  expect((await redisCli(before.port, 'ROLE')).split('\n')[0]).toBe('master');
  await sentinel.primary();
});
