import { DEFAULT_ORGANIZATION_ID, type RedisTarget } from '@relay/core';
import {
  createFeedPublisher,
  createFeedSubscriber,
  feedChannel,
  createNodeRedisClient,
  createRedisConnection,
  createRuleChangePublisher,
  subscribeRuleChanges,
  type NodeRedisClient,
  type RedisConnection,
} from '@relay/queue';
import { startRedisCluster, uniqueQueuePrefix, waitFor, type RedisCluster } from '@relay/test-support';
import { RedisStore } from 'connect-redis';
import { Redis } from 'ioredis';
import type { SessionData } from 'express-session';
import { pino } from 'pino';
import { createLoginLimiter } from './auth/login-limiter';
import { createIdempotencyStore } from './http/idempotency-store';
import { createIngestGate } from './modules/limits/ingest-gate';
import { createQuota } from './modules/limits/quota';
import { createIngestRateLimit } from './modules/limits/rate-limits';
import { useServiceDatabase } from './modules/service-test-kit';

// Issue 33: the api's Redis uses on a real Redis Cluster (3 primaries + 3 replicas), through the clients the relay
// makes from REDIS_CLUSTER_NODES. A script whose keys hash to different slots answers CROSSSLOT; the limiters
// would then fail open (quota, rate limits) or closed (logins), so each test checks the behaviour, not just "no error".

jest.setTimeout(120_000);

const store = useServiceDatabase();
const logger = pino({ level: 'silent' });
let cluster: RedisCluster;
let target: RedisTarget;
const ioredis: RedisConnection[] = [];
const nodeRedis: NodeRedisClient[] = [];

// A producer connection fails fast until it is ready (as in the relay, whose connections are up long before use).
const connect = async (role: 'producer' | 'worker' | 'subscriber') => {
  const redis = createRedisConnection(target, role);
  ioredis.push(redis);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
};
const connectNodeRedis = async () => {
  const client = createNodeRedisClient(target, { commandTimeoutMs: 5_000 });
  nodeRedis.push(client);
  await client.connect(() => {});
  return client;
};

beforeAll(async () => {
  cluster = await startRedisCluster();
  target = { kind: 'cluster', nodes: cluster.nodes.slice(0, 1) };
});

afterAll(async () => {
  for (const client of nodeRedis) await client.close();
  for (const redis of ioredis) redis.disconnect();
  await cluster?.close();
});

it('counts the monthly quota and the ingest rate limit (ADMIT: the count and its `exceeded` marker, one slot)', async () => {
  const redis = await connect('producer');
  const prefix = uniqueQueuePrefix();
  const repositories = store.repositories();
  const gate = createIngestGate({
    limitsOf: async () => ({
      ingestRateLimit: 10,
      apiRateLimit: null,
      monthlyEventLimit: 2,
      currentPeriodEnd: null,
    }),
    defaultRateLimit: 0,
    rateLimit: createIngestRateLimit({ redis, prefix, windowSeconds: 60, logger }),
    quota: createQuota({ redis, prefix, organizations: repositories.organizations, audit: repositories.audit, logger }),
  });
  const first = await gate(DEFAULT_ORGANIZATION_ID);
  expect(first.headers.RateLimit).toMatch(/; r=9; /);
  await gate(DEFAULT_ORGANIZATION_ID);
  // Redis errors let a webhook pass uncounted: only a working script refuses the third.
  await expect(gate(DEFAULT_ORGANIZATION_ID)).rejects.toMatchObject({ code: 'quota_exceeded' });
});

it('limits login attempts and refunds a verified one (three keys in one script)', async () => {
  const client = await connectNodeRedis();
  const limiter = createLoginLimiter({
    client,
    prefix: uniqueQueuePrefix(),
    maxPerUser: 2,
    maxPerAccount: 100,
    maxPerIp: 100,
    windowSeconds: 60,
  });
  expect(await limiter.attempt('password', 'dana', '10.0.0.1')).toEqual({ ok: true });
  await limiter.succeeded('password', 'dana', '10.0.0.1');
  expect(await limiter.attempt('password', 'dana', '10.0.0.1')).toEqual({ ok: true });
  expect(await limiter.attempt('password', 'dana', '10.0.0.1')).toEqual({ ok: true });
  expect(await limiter.attempt('password', 'dana', '10.0.0.1')).toMatchObject({ ok: false });
});

it('claims, completes and replays an Idempotency-Key', async () => {
  const client = await connectNodeRedis();
  const errors: unknown[] = [];
  const idempotency = createIdempotencyStore({
    client,
    prefix: uniqueQueuePrefix(),
    ttlSeconds: 60,
    runningSeconds: 60,
    onError: (err) => errors.push(err),
  });
  const claim = await idempotency.claim('org:key-1', 'fp');
  expect(claim.kind).toBe('claimed');
  expect(await idempotency.claim('org:key-1', 'fp')).toEqual({ kind: 'running', fingerprint: 'fp' });
  if (claim.kind === 'claimed') await idempotency.complete('org:key-1', 'fp', claim.token, { status: 201, body: 1 });
  expect(await idempotency.claim('org:key-1', 'fp')).toEqual({
    kind: 'done',
    fingerprint: 'fp',
    outcome: { status: 201, body: 1 },
  });
  expect(errors).toEqual([]);
});

it('stores, reads, touches and destroys a session through connect-redis', async () => {
  const client = await connectNodeRedis();
  const sessions = new RedisStore({ client, prefix: `${uniqueQueuePrefix()}:sess:`, ttl: 60 });
  const data = { cookie: { originalMaxAge: 60_000 }, userId: 'usr_1' } as unknown as SessionData;
  await sessions.set('sid-1', data);
  expect(await sessions.get('sid-1')).toMatchObject({ userId: 'usr_1' });
  await sessions.touch('sid-1', data);
  await sessions.destroy('sid-1');
  expect(await sessions.get('sid-1')).toBeNull();
});

it('carries the live feed and rule changes over cluster pub/sub', async () => {
  const prefix = uniqueQueuePrefix();
  const subscriber = createFeedSubscriber({ redis: await connect('subscriber'), prefix });
  const heard: unknown[] = [];
  await subscriber.subscribe(DEFAULT_ORGANIZATION_ID, (message) => heard.push(message));
  const changes: unknown[] = [];
  await subscribeRuleChanges({ redis: await connect('worker'), prefix, onChange: (change) => changes.push(change) });
  // Published through another node's connection: classic pub/sub is cluster-wide.
  const publisher = await connect('producer');
  const message = { type: 'event.updated', event: { id: 'evt_1' } } as never;
  await createFeedPublisher({ redis: publisher, prefix }).publish(DEFAULT_ORGANIZATION_ID, [message]);
  await createRuleChangePublisher({ redis: publisher, prefix }).publish({
    orgId: DEFAULT_ORGANIZATION_ID,
    ruleId: 'r',
  });
  await waitFor(async () => heard.length === 1 && changes.length === 1, 10_000, 'feed and rule change heard');
  expect(heard).toEqual([message]);
  await subscriber.close();
});

// A channel's slot owner: CLUSTER SLOTS lists each range with its primary first.
const slotOwner = async (redis: RedisConnection, channel: string) => {
  const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', channel));
  const ranges = (await redis.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
  const range = ranges.find(([from, to]) => slot >= from && slot <= to)!;
  return { host: range[2][0], port: range[2][1] };
};

it("publishes the live feed on its channel's shard, heard in publish order across publishers", async () => {
  const prefix = uniqueQueuePrefix();
  const message = (n: number) => ({ type: 'event.status', data: { id: `evt_${n}` } }) as never;
  const subscriber = createFeedSubscriber({ redis: await connect('subscriber'), prefix });
  const heard: unknown[] = [];
  await subscriber.subscribe(DEFAULT_ORGANIZATION_ID, (m) => heard.push(m));
  // A sharded subscriber on the slot's primary hears it: classic PUBLISH reaches SUBSCRIBE clients only.
  const producers = [await connect('producer'), await connect('producer')];
  const channel = feedChannel(prefix, DEFAULT_ORGANIZATION_ID);
  const owner = new Redis(await slotOwner(producers[0]!, channel));
  const onShard: string[] = [];
  owner.on('smessage', (_channel: string, raw: string) => onShard.push(raw));
  await owner.ssubscribe(channel);
  // Two processes' publishers, each publish awaited before the next (the api's `queued` before the enqueue whose
  // delivery the worker then reports): the subscriber hears them in that order.
  const publishers = producers.map((redis) => createFeedPublisher({ redis, prefix }));
  for (let n = 0; n < 60; n++) await publishers[n % 2]!.publish(DEFAULT_ORGANIZATION_ID, [message(n)]);
  await waitFor(async () => heard.length === 60 && onShard.length === 60, 10_000, 'every message heard');
  expect(heard).toEqual(Array.from({ length: 60 }, (_, n) => message(n)));
  expect(JSON.parse(onShard[0]!)).toEqual([message(0)]);
  owner.disconnect();
  await subscriber.close();
});

// Last: it kills a primary of the shared cluster.
it("keeps the live feed's sharded subscriber when its channel's primary fails over", async () => {
  const prefix = uniqueQueuePrefix();
  const subscriber = createFeedSubscriber({ redis: await connect('subscriber'), prefix });
  const heard: unknown[] = [];
  await subscriber.subscribe(DEFAULT_ORGANIZATION_ID, (m) => heard.push(m));
  const producer = await connect('producer');
  const publisher = createFeedPublisher({ redis: producer, prefix });
  const before = { type: 'event.status', data: { id: 'evt_before' } } as never;
  await publisher.publish(DEFAULT_ORGANIZATION_ID, [before]);
  await waitFor(async () => heard.length === 1, 10_000, 'heard before the failover');

  const owner = await slotOwner(producer, feedChannel(prefix, DEFAULT_ORGANIZATION_ID));
  await cluster.kill(owner.port);
  await waitFor(
    async () => !(await cluster.primaries()).some((node) => node.port === owner.port),
    60_000,
    'a replica promoted',
  );
  // Best effort, as on one Redis: what is published while the subscriber moves may be lost, so publish until heard.
  const after = { type: 'event.status', data: { id: 'evt_after' } } as never;
  await waitFor(
    async () => {
      await publisher.publish(DEFAULT_ORGANIZATION_ID, [after]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return heard.length > 1;
    },
    60_000,
    'heard on the promoted primary',
  );
  expect(heard.slice(1).every((m) => JSON.stringify(m) === JSON.stringify(after))).toBe(true);
  await subscriber.close();
});
