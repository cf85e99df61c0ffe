import { startTargetServer, type TargetServer } from '@relay/test-support';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

let pipeline: Pipeline;
let target: TargetServer;
let admin: string;

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline();
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});
beforeEach(() => target.replyWith(200));

const send = (body: unknown, authorization = admin) =>
  pipeline.http
    .post('/api/send')
    .set('authorization', authorization)
    .send(body as object);

describe('POST /api/send', () => {
  it('manual mode: stores, delivers the JSON body to the given target and lists the event', async () => {
    const res = await send({
      source: 'manual-src',
      target_url: `${target.url}/manual`,
      body: { hello: 'world', n: 1 },
    }).expect(202);
    expect(res.body).toEqual({
      id: expect.any(String),
      status: 'queued',
      source: 'manual-src',
      target_url: `${target.url}/manual`,
      provider_id: null,
    });
    await pipeline.waitForStatus(res.body.id, 'delivered');
    const received = target.requests.find((r) => r.url === '/manual');
    expect(JSON.parse(received!.body.toString())).toEqual({ hello: 'world', n: 1 });
    expect(received!.headers['webhook-id']).toBe(res.body.id);
    const list = await pipeline.http.get('/events?source=manual-src').set('authorization', admin).expect(200);
    expect(list.body.events.map((e: { id: string }) => e.id)).toEqual([res.body.id]);
    const audit = await pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'event.sent', resourceId: res.body.id },
    });
    expect(audit?.metadata).toMatchObject({ mode: 'manual', source: 'manual-src' });
  });

  it('rule mode: uses the rule source and target and records the rule', async () => {
    const rule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'prov-src', target_url: `${target.url}/rule` })
        .expect(201)
    ).body;
    const res = await send({ provider_id: rule.id, body: [1, 2, 3] }).expect(202);
    expect(res.body).toMatchObject({
      status: 'queued',
      source: 'prov-src',
      target_url: `${target.url}/rule`,
      provider_id: rule.id,
    });
    const event = await pipeline.waitForStatus(res.body.id, 'delivered');
    expect(event.ruleId).toBe(rule.id);
    expect(target.requests.find((r) => r.url === '/rule')!.body.toString()).toBe('[1,2,3]');
  });

  it('an empty target_url uses the org default, then DEFAULT_TARGET_URL; without either it is a 422', async () => {
    expect((await send({ source: 'no-default', target_url: '', body: {} }).expect(422)).body.code).toBe(
      'no_default_target',
    );
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', admin)
      .send({ target_url: `${target.url}/org-default` })
      .expect(200);
    const res = await send({ source: 'to-default', target_url: '', body: { d: 1 } }).expect(202);
    expect(res.body.target_url).toBe(`${target.url}/org-default`);
    await pipeline.waitForStatus(res.body.id, 'delivered');
    expect(target.requests.some((r) => r.url === '/org-default')).toBe(true);
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', admin)
      .send({ target_url: null })
      .expect(200);
  });

  it('refuses bad targets with the reason, and stores nothing', async () => {
    const before = await pipeline.store.prisma.event.count();
    for (const [url, reason] of [
      ['ftp://example.com/x', 'scheme'],
      ['https://user:secret@example.com/x', 'credentials'],
      ['not a url', 'url'],
    ]) {
      const res = await send({ source: 's', target_url: url, body: {} }).expect(422);
      expect(res.body).toMatchObject({ code: 'target_url_rejected' });
      expect(String(res.body.reason)).toContain(reason);
    }
    expect(await pipeline.store.prisma.event.count()).toBe(before);
  });

  it('refuses unknown, other-organization and inactive rules', async () => {
    expect((await send({ provider_id: '00000000-0000-7000-8000-000000000001', body: {} }).expect(404)).body.code).toBe(
      'not_found',
    );
    const other = await createOrganization(pipeline, 'send-other');
    const otherAdmin = (await userCredential(pipeline, 'admin', other)).authorization;
    const foreign = (
      await pipeline.http
        .post('/rules')
        .set('authorization', otherAdmin)
        .send({ source: 'theirs', target_url: 'https://example.com/' })
        .expect(201)
    ).body;
    await send({ provider_id: foreign.id, body: {} }).expect(404);
    const inactive = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'sleepy', target_url: 'https://example.com/', active: false })
        .expect(201)
    ).body;
    expect((await send({ provider_id: inactive.id, body: {} }).expect(422)).body.code).toBe('provider_inactive');
  });

  it('refuses malformed requests: both modes, missing body, bad source, no body at all', async () => {
    const rule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'both', target_url: 'https://example.com/' })
        .expect(201)
    ).body;
    for (const body of [
      { provider_id: rule.id, source: 'x', target_url: 'https://example.com/', body: {} },
      { source: 'x', target_url: 'https://example.com/' },
      { provider_id: rule.id },
      { source: '../etc', target_url: 'https://example.com/', body: {} },
      {},
    ]) {
      expect({ body, code: (await send(body).expect(400)).body.code }).toEqual({ body, code: 'validation_failed' });
    }
    // Both modes at once names each field of both modes, not one nameless "Invalid input".
    const both = await send({ provider_id: rule.id, source: 'x', target_url: '', body: {} }).expect(400);
    const errors = (both.body as { errors: { field: string; message: string }[] }).errors;
    expect(errors.map((e) => e.field)).toEqual(['provider_id', 'source', 'target_url']);
    expect(errors[0]!.message).toBe(
      'cannot be combined with source, target_url: give either provider_id, or source and target_url',
    );
  });

  it('is refused to viewers and to keys without webhooks:send', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    await send({ source: 'v', target_url: 'https://example.com/', body: {} }, viewer).expect(403);
    await send(
      { source: 'v', target_url: 'https://example.com/', body: {} },
      await apiKeyCredential(pipeline, ['events:read', 'rules:write']),
    ).expect(403);
    await send(
      { source: 'v', target_url: `${target.url}/key`, body: {} },
      await apiKeyCredential(pipeline, ['webhooks:send']),
    ).expect(202);
  });
});

describe('POST /api/send with the network policy on', () => {
  let strict: Pipeline;
  beforeAll(async () => {
    strict = await startPipeline({ api: { TARGET_ALLOW_PRIVATE: 'false' }, worker: false });
  });
  afterAll(() => strict.close());

  it('refuses private and loopback targets with the reason', async () => {
    const auth = (await userCredential(strict, 'admin')).authorization;
    for (const url of ['http://127.0.0.1:8080/x', 'http://10.1.2.3/', 'http://[::1]/']) {
      const res = await strict.http
        .post('/api/send')
        .set('authorization', auth)
        .send({ source: 's', target_url: url, body: {} })
        .expect(422);
      expect(res.body).toMatchObject({ code: 'target_url_rejected' });
      expect(String(res.body.reason)).toContain('blocked_address');
    }
    expect(await strict.store.prisma.event.count()).toBe(0);
  });
});
