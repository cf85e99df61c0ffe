import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Every entry point that stores or uses a target URL applies one policy at save time: ports outside
// TARGET_ALLOWED_PORTS and names that can only be internal are refused before anything is stored.
const REFUSED: Array<[string, string]> = [
  ['https://example.com:0/', 'blocked_port'],
  ['https://example.com:22/', 'blocked_port'],
  ['http://example.com:25/x', 'blocked_port'],
  ['http://localhost:8080/', 'blocked_host'],
  ['http://api.localhost:8080/', 'blocked_host'],
  ['http://receiver:8080/', 'blocked_host'],
  ['http://printer.local/', 'blocked_host'],
  ['http://vault.corp.internal/', 'blocked_host'],
  ['http://nas.home.arpa/', 'blocked_host'],
];

describe('target policy at save time (TARGET_ALLOW_PRIVATE=false)', () => {
  let pipeline: Pipeline;
  let admin: string;
  let ruleId: string;
  let hookId: string;
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { TARGET_ALLOW_PRIVATE: 'false', ALLOW_PUBLIC_TARGET_OVERRIDE: 'true', TARGET_ALLOWLIST: 'hooks.internal' },
      worker: false,
    });
    admin = (await userCredential(pipeline, 'admin')).authorization;
    ruleId = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'saved', target_url: 'https://example.com/in' })
        .expect(201)
    ).body.id;
    hookId = (
      await pipeline.http
        .post(`/rules/${ruleId}/hooks`)
        .set('authorization', admin)
        .send({ target_url: 'https://example.com/hook', trigger: 'provider_failed' })
        .expect(201)
    ).body.id;
  });
  afterAll(() => pipeline.close());

  const entryPoints = (url: string) => [
    pipeline.http.post('/rules').set('authorization', admin).send({ source: 'refused', target_url: url }),
    pipeline.http.patch(`/rules/${ruleId}`).set('authorization', admin).send({ target_url: url }),
    pipeline.http
      .post(`/rules/${ruleId}/hooks`)
      .set('authorization', admin)
      .send({ target_url: url, trigger: 'provider_succeeded' }),
    pipeline.http.patch(`/rules/${ruleId}/hooks/${hookId}`).set('authorization', admin).send({ target_url: url }),
    pipeline.http.post('/api/send').set('authorization', admin).send({ source: 's', target_url: url, body: {} }),
    pipeline.http.post('/config/default-target').set('authorization', admin).send({ target_url: url }),
    pipeline.http.post('/ingest-src').set('content-type', 'application/json').set('x-target-url', url).send('{}'),
  ];

  it.each(REFUSED)('refuses %s at every entry point with 422 (%s) and stores nothing', async (url, reason) => {
    const before = await Promise.all([
      pipeline.store.prisma.event.count(),
      pipeline.store.prisma.rule.findMany({ orderBy: { id: 'asc' } }),
      pipeline.store.prisma.hook.findMany({ orderBy: { id: 'asc' } }),
    ]);
    for (const request of entryPoints(url)) {
      const res = await request;
      expect([res.status, res.body.code, res.body.reason]).toEqual([422, 'target_url_rejected', reason]);
    }
    expect(
      await Promise.all([
        pipeline.store.prisma.event.count(),
        pipeline.store.prisma.rule.findMany({ orderBy: { id: 'asc' } }),
        pipeline.store.prisma.hook.findMany({ orderBy: { id: 'asc' } }),
      ]),
    ).toEqual(before);
  });

  it('accepts the web ports, unprivileged ports and an allowlisted internal name', async () => {
    for (const url of ['https://example.com/', 'http://example.com:8080/x', 'http://hooks.internal/in']) {
      await pipeline.http.patch(`/rules/${ruleId}`).set('authorization', admin).send({ target_url: url }).expect(200);
    }
  });
});

describe('TARGET_ALLOWED_PORTS', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  beforeAll(async () => {
    target = await startTargetServer();
    // The api lets the target's port through; the worker's policy is stricter (as after a tightening),
    // so the delivery-time check is what refuses it.
    pipeline = await startPipeline({
      api: { TARGET_ALLOWED_PORTS: `443,${target.port}` },
      worker: { TARGET_ALLOWED_PORTS: '443' },
    });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('refuses other ports at save time, even with TARGET_ALLOW_PRIVATE', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const res = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'ports', target_url: 'http://example.com:8080/' })
      .expect(422);
    expect(res.body).toMatchObject({ code: 'target_url_rejected', reason: 'blocked_port' });
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'ports', target_url: 'https://example.com/' })
      .expect(201);
  });

  it('applies the same policy at delivery: blocked, without connecting', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const sent = await pipeline.http
      .post('/api/send')
      .set('authorization', admin)
      .send({ source: 'late', target_url: `${target.url}/late`, body: {} })
      .expect(202);
    const event = await pipeline.waitForStatus(sent.body.id, 'failed');
    expect(event).toMatchObject({ failureReason: 'target_blocked' });
    expect((await pipeline.attemptsOf(sent.body.id))[0]!.error).toMatch(/port/i);
    expect(target.requests).toHaveLength(0);
  });
});
