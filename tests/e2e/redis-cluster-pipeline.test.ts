import { startRedisCluster, startTargetServer, type RedisCluster, type TargetServer } from '@relay/test-support';
import supertest from 'supertest';
import { FAST_HASH_ENV, seedUser, startPipeline, userCredential, type Pipeline } from './harness';

// Issue 33: the whole relay (api and worker runtimes) on a real Redis Cluster through REDIS_CLUSTER_NODES alone:
// a webhook is ingested, queued, delivered and streamed, a user logs in. Three queue shards, each under its own hash
// tag: every connection the runtimes make is a cluster client, and every Redis use works on it.

jest.setTimeout(180_000);

let cluster: RedisCluster;
let target: TargetServer;
let pipeline: Pipeline;

beforeAll(async () => {
  cluster = await startRedisCluster();
  target = await startTargetServer();
  const env = {
    REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','),
    QUEUE_PREFIX: `relay-cluster-${process.pid}`,
    REDIS_QUEUE_SHARDS: '3',
  };
  pipeline = await startPipeline({
    // REDIS_URL points nowhere: REDIS_CLUSTER_NODES wins.
    redisUrl: 'redis://127.0.0.1:1',
    api: { ...env, ...FAST_HASH_ENV, SESSION_SECRET: 'cluster-secret', INGEST_RATE_LIMIT: '1000' },
    worker: env,
  });
  await seedUser(pipeline, { username: 'dana', role: 'admin', password: 'dana-password-1' });
});

afterAll(async () => {
  await pipeline?.close();
  await target?.close();
  await cluster?.close();
});

it('ingests, delivers and logs in with every Redis role on the cluster', async () => {
  const agent = supertest.agent(pipeline.api.app);
  await agent.post('/api/auth/login').send({ username: 'dana', password: 'dana-password-1' }).expect(200);
  expect((await agent.get('/api/auth/me').expect(200)).body.mechanism).toBe('session');
  const admin = (await userCredential(pipeline, 'admin')).authorization;
  await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'cluster', target_url: `${target.url}/cluster` })
    .expect(201);
  const accepted = await pipeline.http
    .post('/cluster')
    .set('content-type', 'application/json')
    .send(JSON.stringify({ hello: 'cluster' }))
    .expect(202);
  await pipeline.waitForStatus(accepted.body.id as string, 'delivered', 60_000);
  expect((await pipeline.http.get('/ready').expect(200)).body.checks).toMatchObject({ redis: 'ok' });
});
