import { ownRedis, startTargetServer, waitFor, type OwnRedis, type TargetServer } from '@relay/test-support';
import { Redis } from 'ioredis';
import { FAST_HASH_ENV, seedUser, startPipeline, userCredential, type Pipeline } from './harness';

// Issue 33, item 4: REDIS_QUEUE_URL, REDIS_CACHE_URL and REDIS_FEED_URL put each role on a Redis of its own. The
// whole relay runs with three servers (queue, cache, feed); each key must land on its role's server and no other.

jest.setTimeout(120_000);

let queueRedis: OwnRedis;
let cacheRedis: OwnRedis;
let feedRedis: OwnRedis;
let target: TargetServer;
let pipeline: Pipeline;
const clients: Redis[] = [];

const client = (server: OwnRedis) => {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  return redis;
};
const keysOn = (server: OwnRedis) => client(server).keys('*');

beforeAll(async () => {
  [queueRedis, cacheRedis, feedRedis] = await Promise.all([ownRedis(), ownRedis(), ownRedis()]);
  await Promise.all([queueRedis.start(), cacheRedis.start(), feedRedis.start()]);
  target = await startTargetServer();
  const roles = { REDIS_QUEUE_URL: queueRedis.url, REDIS_CACHE_URL: cacheRedis.url, REDIS_FEED_URL: feedRedis.url };
  pipeline = await startPipeline({
    // The main REDIS_URL points nowhere: every role has its own, so nothing may need it.
    redisUrl: 'redis://127.0.0.1:1',
    api: { ...roles, ...FAST_HASH_ENV, SESSION_SECRET: 'roles-secret', INGEST_RATE_LIMIT: '1000' },
    worker: roles,
  });
  await seedUser(pipeline, { username: 'dana', role: 'admin', password: 'dana-password-1' });
});

afterAll(async () => {
  await pipeline?.close();
  for (const redis of clients) redis.disconnect();
  await target?.close();
  await Promise.all([queueRedis?.stop(), cacheRedis?.stop(), feedRedis?.stop()]);
});

it('keeps queues, cache and live feed each on their own Redis', async () => {
  // The feed's Redis hears the worker's and the api's live messages.
  const listener = client(feedRedis);
  const heard: string[] = [];
  listener.on('pmessage', (_pattern, channel: string) => heard.push(channel));
  await listener.psubscribe(`${pipeline.prefix}:feed:*`);

  // A session and a login attempt: the cache's Redis.
  await pipeline.http.post('/api/auth/login').send({ username: 'dana', password: 'wrong-password-1' }).expect(401);
  await pipeline.http.post('/api/auth/login').send({ username: 'dana', password: 'dana-password-1' }).expect(200);

  // A webhook through a rule: counted by the ingest rate limit (cache), queued and delivered (queue).
  const admin = (await userCredential(pipeline, 'admin')).authorization;
  await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'roles', target_url: `${target.url}/roles` })
    .expect(201);
  const accepted = await pipeline.http
    .post('/roles')
    .set('content-type', 'application/json')
    .send(JSON.stringify({ hello: 'roles' }))
    .expect(202);
  await pipeline.waitForStatus(accepted.body.id as string, 'delivered', 30_000);
  await waitFor(async () => heard.length > 0, 10_000, 'a live feed message on the feed Redis');

  const queueKeys = await keysOn(queueRedis);
  const cacheKeys = await keysOn(cacheRedis);
  const feedKeys = await keysOn(feedRedis);
  // BullMQ keeps a `meta` key per queue: the queues are on the queue's Redis only.
  const isQueueKey = (key: string) => key.endsWith(':meta');
  expect(queueKeys.some(isQueueKey)).toBe(true);
  expect(cacheKeys.filter(isQueueKey)).toEqual([]);
  // Sessions, the login limiter and the rate limit are on the cache's Redis only.
  const isCacheKey = (key: string) => /:sess:|:login\}|:ratelimit:/.test(key);
  expect(cacheKeys.filter((key) => key.includes(':sess:'))).not.toEqual([]);
  expect(cacheKeys.filter((key) => key.includes(':login}'))).not.toEqual([]);
  expect(cacheKeys.filter((key) => key.includes(':ratelimit:'))).not.toEqual([]);
  expect(queueKeys.filter(isCacheKey)).toEqual([]);
  // Pub/sub leaves no keys: the feed's Redis holds nothing.
  expect(feedKeys).toEqual([]);
});
