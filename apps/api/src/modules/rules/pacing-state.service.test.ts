import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import {
  createDeliveryQueue,
  createFeedPublisher,
  createPacingLimiter,
  createRedisConnection,
  createRuleChangePublisher,
  destinationPacingKey,
  rulePacingKey,
} from '@relay/queue';
import { testPrincipal, TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { createDestinationService } from '../destinations/destination.service';
import { createPacingStateReader } from './pacing-state';
import { createRuleService } from './rule.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

// One rule's and one destination's read show their pacing state, read from the workers' limiter in the real Redis
// (here driven by a limiter of the test's own, as a worker would). The API reaches Redis through a local TCP proxy
// that a test can freeze (Redis stops answering) or close (Redis gone): the read then answers without the state.

const admin = testPrincipal();
const store = useServiceDatabase();
const runner = useTransformRunner({ timeoutMs: 300 });
const prefix = uniqueQueuePrefix();
const connections: Redis[] = [];
const connection = () => {
  const redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  connections.push(redis);
  return redis;
};
const worker = createPacingLimiter({ redis: connection(), prefix });

/** A TCP proxy to the test Redis: `freeze` holds every byte sent to Redis from then on (it never answers). */
async function redisProxy() {
  const upstream = new URL(TEST_REDIS_URL);
  const sockets: Socket[] = [];
  let frozen = false;
  const server: Server = createServer((client) => {
    const redis = connectTcp(Number(upstream.port || 6379), upstream.hostname);
    sockets.push(client, redis);
    client.on('data', (chunk: Buffer) => void (frozen ? undefined : redis.write(chunk)));
    redis.on('data', (chunk: Buffer) => void client.write(chunk));
    client.on('error', () => redis.destroy());
    redis.on('error', () => client.destroy());
    client.on('close', () => redis.destroy());
    redis.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => void (frozen = true),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let proxy: Awaited<ReturnType<typeof redisProxy>>;
let apiRedis: Redis;
const warnings: { msg: string; key?: string }[] = [];
const logger = pino(
  { level: 'warn' },
  { write: (line: string) => void warnings.push(JSON.parse(line) as { msg: string; key?: string }) },
);

beforeAll(async () => {
  proxy = await redisProxy();
  // As the api process has it: its producer connection (fails fast while disconnected), timed out by the reader.
  apiRedis = createRedisConnection(proxy.url, 'producer');
  await new Promise<void>((resolve) => apiRedis.once('ready', () => resolve()));
});
afterAll(async () => {
  await queue.close();
  apiRedis.disconnect();
  for (const redis of connections) redis.disconnect();
  await proxy.close();
});

const pacingState = () =>
  createPacingStateReader({ limiter: createPacingLimiter({ redis: apiRedis, prefix }), timeoutMs: 300, logger });
const rules = () =>
  createRuleService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    secretKeys: undefined,
    transforms: runner,
    pacingState: pacingState(),
  });
const queue = createDeliveryQueue({ connection: connection(), prefix });
const destinations = () => {
  const redis = connection();
  return createDestinationService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    secretKeys: undefined,
    queue,
    ruleChanges: createRuleChangePublisher({ redis, prefix }),
    feed: createFeedPublisher({ redis, prefix }),
    transforms: runner,
    pacingState: pacingState(),
    logger,
  });
};
const input = (source: string) => ({ source, target_url: 'https://example.com/in', active: true });
const rate = { limit: 4, period: 'second' as const, burst: 1 };

describe('the pacing state of one rule or destination', () => {
  it("shows a paced rule's rate in force, its waiting deliveries and a hold; lists leave it out", async () => {
    const rule = await rules().create(admin, { ...input('paced'), rate_limit: rate });
    const key = rulePacingKey(rule.id);
    expect((await rules().get(admin, rule.id)).pacing_state).toEqual({
      effective_limit: 4,
      period: 'second',
      in_flight: 0,
      waiting: 0,
      held_until: null,
    });
    const pacing = { rateLimit: rate };
    expect(await worker.acquire(key, pacing, 'job-1')).toMatchObject({ granted: true });
    expect(await worker.acquire(key, pacing, 'job-2')).toMatchObject({ granted: false, reason: 'rate' });
    expect(await worker.slowDown(key, pacing)).toBe(2);
    const held = await worker.hold(key, Date.now() + 30_000);
    expect((await rules().get(admin, rule.id)).pacing_state).toEqual({
      effective_limit: 2,
      period: 'second',
      in_flight: 0,
      waiting: 1,
      held_until: new Date(Math.floor(held!.heldUntilMs)).toISOString(),
    });
    expect((await rules().list(admin)).find((r) => r.id === rule.id)).not.toHaveProperty('pacing_state');
  });

  it('is null for a rule without pacing, until a Retry-After hold runs (holds apply to every rule)', async () => {
    const rule = await rules().create(admin, input('plain'));
    expect((await rules().get(admin, rule.id)).pacing_state).toBeNull();
    await worker.hold(rulePacingKey(rule.id), Date.now() + 30_000);
    expect((await rules().get(admin, rule.id)).pacing_state).toMatchObject({
      effective_limit: null,
      period: null,
      in_flight: 0,
      held_until: expect.any(String),
    });
  });

  it("shows a destination's deliveries in flight under max_concurrency and those waiting", async () => {
    const rule = await rules().create(admin, input('fan-out'));
    const destination = await destinations().create(admin, rule.id, {
      name: 'narrow',
      target_url: 'https://example.com/narrow',
      active: true,
      max_concurrency: 1,
    });
    const key = destinationPacingKey(destination.id);
    expect(await worker.acquire(key, { maxConcurrency: 1 }, 'job-a')).toMatchObject({ granted: true });
    expect(await worker.acquire(key, { maxConcurrency: 1 }, 'job-b')).toMatchObject({ reason: 'concurrency' });
    expect((await destinations().get(admin, rule.id, destination.id)).pacing_state).toEqual({
      effective_limit: null,
      period: null,
      in_flight: 1,
      waiting: 1,
      held_until: null,
    });
    const listed = await destinations().list(admin, rule.id);
    expect(listed[0]).not.toHaveProperty('pacing_state');
  });

  it('answers the rule without the state, and logs, when Redis stops answering or is gone', async () => {
    const rule = await rules().create(admin, { ...input('outage'), rate_limit: rate });
    expect((await rules().get(admin, rule.id)).pacing_state).not.toBeNull();
    proxy.freeze();
    const frozen = await rules().get(admin, rule.id);
    expect(frozen).toMatchObject({ id: rule.id, rate_limit: rate, pacing_state: null });
    expect(warnings.at(-1)).toMatchObject({ key: rulePacingKey(rule.id), msg: expect.stringContaining('no answer') });
    await proxy.close();
    await new Promise<void>((resolve) => (apiRedis.status === 'ready' ? apiRedis.once('close', resolve) : resolve()));
    const gone = await rules().get(admin, rule.id);
    expect(gone).toMatchObject({ id: rule.id, pacing_state: null });
    expect(warnings).toHaveLength(2);
  });
});
