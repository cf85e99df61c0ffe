import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import path from 'node:path';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { freePort, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import supertest from 'supertest';
import { createHealthServer } from '../../apps/delivery-worker/src/health-server';
import { FAST_HASH_ENV, seedUser, startApiReplica, startPipeline, userCredential, type Pipeline } from './harness';
import { parseExposition, valueOf, type Exposition } from './metrics-text';
import { listen, openStream } from './sse-client';

const TOKEN = 'metrics-token-for-the-scraper-0123456789';
let pipeline: Pipeline;
let ok: TargetServer;
let down: TargetServer;
let gone: TargetServer;
let hooks: TargetServer;
let healthServer: Server;

beforeAll(async () => {
  [ok, down, gone, hooks] = await Promise.all([
    startTargetServer(),
    startTargetServer(),
    startTargetServer(),
    startTargetServer(),
  ]);
  down.replyWith(500);
  gone.replyWith(404);
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${ok.url}/ok`, ALLOW_PUBLIC_TARGET_OVERRIDE: 'true', ...FAST_HASH_ENV },
    worker: { DELIVERY_MAX_ATTEMPTS: '3' },
  });
  const worker = pipeline.worker!;
  healthServer = createHealthServer(worker.health, { registry: worker.metrics.registry, token: undefined });
});
afterAll(async () => {
  healthServer.close();
  await pipeline.close();
  await Promise.all([ok, down, gone, hooks].map((target) => target.close()));
});

const scrapeApi = async (): Promise<Exposition> => {
  const res = await pipeline.http.get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
};
const scrapeWorker = async (): Promise<Exposition> =>
  parseExposition((await supertest(healthServer).get('/metrics').expect(200)).text);

const ingest = (path: string, body: string, headers: Record<string, string> = {}) =>
  pipeline.http
    .post(path)
    .set({ 'content-type': 'application/json', ...headers })
    .send(body);

describe('metrics after a known sequence of ingests and deliveries', () => {
  it('counts ingest outcomes, delivery outcomes by status class, hooks, latencies and queues', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'hooked', target_url: `${ok.url}/hooked` })
      .expect(201);
    await pipeline.http
      .post(`/rules/${rule.body.id as string}/hooks`)
      .set('authorization', admin)
      .send({ target_url: `${hooks.url}/success`, trigger: 'provider_succeeded' })
      .expect(201);

    const accepted: string[] = [];
    for (let i = 0; i < 3; i++) accepted.push((await ingest('/github', `{"n":${i}}`).expect(202)).body.id);
    const failing = (await ingest('/stripe', '{}', { 'x-target-url': `${down.url}/down` }).expect(202)).body.id;
    const rejected = (await ingest('/stripe', '{}', { 'x-target-url': `${gone.url}/gone` }).expect(202)).body.id;
    const hooked = (await ingest('/hooked', '{}').expect(202)).body.id;
    // Refused for known reasons: two bodies that are not JSON, one of another media type, one reserved path.
    expect((await ingest('/github', 'not json').expect(400)).body.code).toBe('invalid_json');
    expect((await ingest('/github', '{"a":').expect(400)).body.code).toBe('invalid_json');
    const text = await pipeline.http.post('/github').set('content-type', 'text/plain').send('hello').expect(415);
    expect(text.body.code).toBe('unsupported_media_type');
    // /metrics belongs to the relay: a POST there is no webhook.
    expect((await ingest('/metrics', '{}').expect(404)).body.code).toBe('not_found');

    await Promise.all([...accepted, hooked].map((id) => pipeline.waitForStatus(id, 'delivered')));
    await Promise.all([failing, rejected].map((id) => pipeline.waitForStatus(id, 'failed')));

    const api = await scrapeApi();
    expect(valueOf(api, 'relay_ingest_requests_total', { outcome: 'accepted' })).toBe(6);
    expect(valueOf(api, 'relay_ingest_requests_total', { outcome: 'refused', reason: 'invalid_json' })).toBe(2);
    expect(valueOf(api, 'relay_ingest_requests_total', { outcome: 'refused', reason: 'unsupported_media_type' })).toBe(
      1,
    );
    expect(valueOf(api, 'relay_ingest_requests_total', { outcome: 'refused', reason: 'not_found' })).toBe(1);
    expect(valueOf(api, 'relay_ingest_requests_total', { outcome: 'refused' })).toBe(4);
    expect(valueOf(api, 'relay_ingest_duration_seconds_count', { outcome: 'accepted' })).toBe(6);
    expect(valueOf(api, 'relay_ingest_duration_seconds_count', { outcome: 'refused' })).toBe(4);
    expect(valueOf(api, 'relay_ingest_duration_seconds_bucket', { outcome: 'accepted', le: '+Inf' })).toBe(6);
    // Every stored webhook went through one group-commit batch or another.
    expect(valueOf(api, 'relay_ingest_batch_size_sum')).toBe(6);
    expect(valueOf(api, 'relay_ingest_batch_size_count')).toBeGreaterThanOrEqual(1);
    expect(valueOf(api, 'relay_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(api, 'relay_sse_subscribers')).toBe(0);
    expect(valueOf(api, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    // The hook's job ends after its attempt is stored; the count follows.
    const worker = await waitFor(async () => {
      const scraped = await scrapeWorker();
      return valueOf(scraped, 'relay_hook_runs_total', { outcome: 'delivered' }) === 1 ? scraped : undefined;
    });
    const deliveries = (outcome: string, statusClass: string) =>
      valueOf(worker, 'relay_deliveries_total', { outcome, status_class: statusClass });
    expect(deliveries('delivered', '2xx')).toBe(4);
    expect(deliveries('retry', '5xx')).toBe(2);
    expect(deliveries('failed', '5xx')).toBe(1);
    expect(deliveries('failed', '4xx')).toBe(1);
    expect(valueOf(worker, 'relay_deliveries_total')).toBe(8);
    // None of these rules has destinations: every outcome is the primary target's.
    expect(valueOf(worker, 'relay_deliveries_total', { delivery: 'primary' })).toBe(8);
    expect(valueOf(worker, 'relay_deliveries_total', { delivery: 'destination' })).toBeUndefined();
    expect(valueOf(worker, 'relay_attempt_duration_seconds_count', { delivery: 'destination' })).toBe(0);
    expect(valueOf(worker, 'relay_attempt_duration_seconds_count')).toBe(8);
    expect(valueOf(worker, 'relay_delivery_latency_seconds_count')).toBe(4);
    expect(valueOf(worker, 'relay_delivery_latency_seconds_sum')).toBeGreaterThan(0);
    expect(valueOf(worker, 'relay_hook_runs_total', { outcome: 'failed' })).toBe(0);
    for (const queue of ['deliveries', 'hooks']) {
      expect(valueOf(worker, 'relay_queue_jobs', { queue, state: 'waiting' })).toBe(0);
      expect(valueOf(worker, 'relay_queue_oldest_waiting_seconds', { queue })).toBe(0);
    }
    expect(valueOf(worker, 'relay_sweeper_reenqueued_total', { reason: 'overdue' })).toBeDefined();
    expect(valueOf(worker, 'relay_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(worker, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    // Bounded labels: never an event id or a URL.
    for (const sample of [...api.samples, ...worker.samples]) {
      for (const value of Object.values(sample.labels)) {
        expect(value).not.toMatch(/^[0-9a-f]{8}-|https?:/);
      }
    }
  });

  it('counts only POSTs as ingest requests: unknown GETs are 404s, not refused webhooks', async () => {
    const total = async () => valueOf(await scrapeApi(), 'relay_ingest_requests_total') ?? 0;
    const before = await total();
    for (const path of ['/robots.txt', '/nosuch']) await pipeline.http.get(path).expect(404);
    // The favicon is the dashboard's now (a redirect to its SVG), never a webhook.
    await pipeline.http.get('/favicon.ico').expect(301);
    expect(await total()).toBe(before);
    await ingest('/github', '{"counted":true}').expect(202);
    expect(await total()).toBe(before + 1);
  });

  it('counts failed logins: a wrong password, then attempts over the limit', async () => {
    await seedUser(pipeline, { username: 'mallory', role: 'viewer', password: 'mallory-password-1' });
    const before = await scrapeApi();
    const failures = (scraped: Exposition, reason: string) =>
      valueOf(scraped, 'relay_login_failures_total', { kind: 'password', reason }) ?? 0;
    const login = () => pipeline.http.post('/api/auth/login').send({ username: 'mallory', password: 'wrong' });
    await login().expect(401);
    let after = await scrapeApi();
    expect(failures(after, 'wrong_secret') - failures(before, 'wrong_secret')).toBe(1);
    expect(failures(after, 'limited') - failures(before, 'limited')).toBe(0);
    // LOGIN_MAX_FAILURES_PER_USER is 5: the sixth attempt is refused before the password is checked.
    for (let i = 0; i < 4; i++) await login().expect(401);
    await login().expect(429);
    after = await scrapeApi();
    expect(failures(after, 'wrong_secret') - failures(before, 'wrong_secret')).toBe(5);
    expect(failures(after, 'limited') - failures(before, 'limited')).toBe(1);
  });

  it('counts open live streams', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const server = await listen(pipeline.api.app);
    const client = await openStream(`${server.url}/events/stream`, { authorization: viewer });
    try {
      expect(client.status).toBe(200);
      expect(valueOf(await scrapeApi(), 'relay_sse_subscribers')).toBe(1);
    } finally {
      client.close();
      await server.close();
    }
    await waitFor(async () => (valueOf(await scrapeApi(), 'relay_sse_subscribers') === 0 ? true : undefined));
  });

  it('adds the organization label only when METRICS_ORGANIZATION_LABELS is true', async () => {
    const replica = startApiReplica(pipeline, { METRICS_ORGANIZATION_LABELS: 'true' });
    try {
      const http = supertest(replica.app);
      await http.post('/github').set('content-type', 'application/json').send('{}').expect(202);
      await http.post('/github').set('content-type', 'application/json').send('nope').expect(400);
      const scraped = parseExposition((await http.get('/metrics').expect(200)).text);
      const organization = DEFAULT_ORGANIZATION_ID;
      expect(valueOf(scraped, 'relay_ingest_requests_total', { outcome: 'accepted', organization })).toBe(1);
      expect(
        valueOf(scraped, 'relay_ingest_requests_total', { outcome: 'refused', reason: 'invalid_json', organization }),
      ).toBe(1);
    } finally {
      await replica.close();
    }
    const plain = await scrapeApi();
    expect(plain.samples.some((sample) => 'organization' in sample.labels)).toBe(false);
  });
});

describe('METRICS_TOKEN', () => {
  const expectRefused = (res: supertest.Response) => {
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(res.text).not.toContain('relay_');
  };

  it('api: refuses a scrape without the token or with a wrong one, serves it with the right one', async () => {
    const replica = startApiReplica(pipeline, { METRICS_TOKEN: TOKEN });
    try {
      const http = supertest(replica.app);
      expectRefused(await http.get('/metrics'));
      expectRefused(await http.get('/metrics').set('authorization', `Bearer ${TOKEN}x`));
      expectRefused(await http.get('/metrics').set('authorization', 'Bearer short'));
      expectRefused(await http.get('/metrics').set('authorization', `Basic ${TOKEN}`));
      const served = await http.get('/metrics').set('authorization', `Bearer ${TOKEN}`).expect(200);
      expect(served.text).toContain('# TYPE relay_ingest_requests_total counter');
    } finally {
      await replica.close();
    }
  });

  it('worker: the health port refuses and serves alike, and /health stays open', async () => {
    const worker = pipeline.worker!;
    const server = createHealthServer(worker.health, { registry: worker.metrics.registry, token: TOKEN });
    try {
      const http = supertest(server);
      expectRefused(await http.get('/metrics'));
      expectRefused(await http.get('/metrics').set('authorization', `Bearer ${TOKEN.slice(1)}`));
      const served = await http.get('/metrics').set('authorization', `Bearer ${TOKEN}`).expect(200);
      expect(served.text).toContain('# TYPE relay_deliveries_total counter');
      await http.get('/health').expect(200);
    } finally {
      server.close();
    }
  });
});

describe('the worker process', () => {
  it('serves /metrics on WORKER_HEALTH_PORT behind METRICS_TOKEN', async () => {
    const port = await freePort();
    const main = path.resolve(__dirname, '../../apps/delivery-worker/src/main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, ...pipeline.baseEnv, WORKER_HEALTH_PORT: String(port), METRICS_TOKEN: TOKEN },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}/metrics`;
      const refused = await waitFor(() => fetch(url).catch(() => undefined), 20_000, 'the worker to listen');
      expect(refused.status).toBe(401);
      const served = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(served.status).toBe(200);
      const scraped = parseExposition(await served.text());
      expect(valueOf(scraped, 'relay_queue_jobs', { queue: 'deliveries', state: 'waiting' })).toBeDefined();
      expect(valueOf(scraped, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
