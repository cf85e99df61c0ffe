import { startTargetServer, type TargetServer } from '@relay/test-support';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime } from '../../apps/api/src/runtime';
import { startPipeline, type Pipeline } from './harness';

describe('ingest with ALLOW_PUBLIC_TARGET_OVERRIDE=true', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({
      api: {
        ALLOW_PUBLIC_TARGET_OVERRIDE: 'true',
        TARGET_ALLOW_PRIVATE: 'false',
        TARGET_ALLOWLIST: '127.0.0.1',
        DEFAULT_TARGET_URL: 'https://default.example/hook',
      },
      worker: false,
    });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('makes an allowed X-Target-Url the event target', async () => {
    const res = await pipeline.http
      .post('/a')
      .set('content-type', 'application/json')
      .set('x-target-url', `${target.url}/override`)
      .send('{}')
      .expect(202);
    expect((await pipeline.eventById(res.body.id))?.targetUrl).toBe(`${target.url}/override`);
  });

  it.each([
    ['http://10.0.0.5/hook', 'blocked_address'],
    ['http://169.254.169.254/latest/meta-data', 'blocked_address'],
    ['http://[::1]:8080/', 'blocked_address'],
    ['ftp://example.com/x', 'unsupported_scheme'],
    ['https://user:pass@example.com/', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
  ])('refuses %s with 422 (%s) and stores nothing', async (url, reason) => {
    const before = await pipeline.store.prisma.event.count();
    const res = await pipeline.http
      .post('/a')
      .set('content-type', 'application/json')
      .set('x-target-url', url)
      .send('{}')
      .expect(422);
    expect(res.body).toMatchObject({ code: 'target_url_rejected', reason });
    expect(await pipeline.store.prisma.event.count()).toBe(before);
  });
});

describe('ingest while Postgres is unreachable', () => {
  it('answers 503 database_unavailable, never a 2xx', async () => {
    const runtime = createApiRuntime(
      parseApiConfig({
        DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none',
        LOG_LEVEL: 'silent',
        QUEUE_PREFIX: 'unused',
      }),
      pino({ level: 'silent' }),
    );
    try {
      const res = await supertest(runtime.app).post('/github').set('content-type', 'application/json').send('{}');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('database_unavailable');
      const ready = await supertest(runtime.app).get('/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toMatch(/^unavailable/);
    } finally {
      await runtime.close();
    }
  });
});

describe('health and readiness', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(() => pipeline.close());

  it('reports liveness and readiness, and turns unready when shutting down', async () => {
    await pipeline.http.get('/health').expect(200, { status: 'ok' });
    const ready = await pipeline.http.get('/ready').expect(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'ok' });
    pipeline.api.beginShutdown();
    const draining = await pipeline.http.get('/ready').expect(503);
    expect(draining.body.code).toBe('service_unavailable');
  });
});
