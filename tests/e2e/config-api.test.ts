import { startTargetServer, type TargetServer } from '@relay/test-support';
import { apiKeyCredential, startPipeline, userCredential, type Pipeline } from './harness';

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());

describe('POST /config/default-target', () => {
  let pipeline: Pipeline;
  let admin: string;
  beforeAll(async () => {
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: `${target.url}/install` } });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());
  const ingestTo = async () => {
    const id = (
      await pipeline.http.post('/unrouted').set('content-type', 'application/json').send('{"x":1}').expect(202)
    ).body.id as string;
    return (await pipeline.waitForStatus(id, 'delivered')).targetUrl;
  };

  it('takes precedence over DEFAULT_TARGET_URL for new events and can be cleared again', async () => {
    expect(await ingestTo()).toBe(`${target.url}/install`);
    const set = await pipeline.http
      .post('/config/default-target')
      .set('authorization', admin)
      .send({ target_url: `${target.url}/org` })
      .expect(200);
    expect(set.body).toEqual({
      target_url: `${target.url}/org`,
      effective_target_url: `${target.url}/org`,
      effective_from: 'organization',
    });
    expect(await ingestTo()).toBe(`${target.url}/org`);
    expect(target.requests.some((r) => r.url === '/org')).toBe(true);
    const cleared = await pipeline.http
      .post('/config/default-target')
      .set('authorization', admin)
      .send({ target_url: null })
      .expect(200);
    expect(cleared.body).toEqual({
      target_url: null,
      effective_target_url: `${target.url}/install`,
      effective_from: 'install',
    });
    expect(await ingestTo()).toBe(`${target.url}/install`);
    const audits = await pipeline.store.prisma.auditEntry.findMany({
      where: { action: 'config.default_target_updated' },
      orderBy: { createdAt: 'asc' },
    });
    expect(audits.map((a) => a.metadata)).toEqual([
      { from: null, to: `${target.url}/org`, mechanism: 'token' },
      { from: `${target.url}/org`, to: null, mechanism: 'token' },
    ]);
  });

  it('checks the target and the body', async () => {
    for (const [url, reason] of [
      ['ftp://example.com/', 'scheme'],
      ['https://a:b@example.com/', 'credentials'],
    ]) {
      const res = await pipeline.http
        .post('/config/default-target')
        .set('authorization', admin)
        .send({ target_url: url })
        .expect(422);
      expect(res.body).toMatchObject({ code: 'target_url_rejected' });
      expect(String(res.body.reason)).toContain(reason);
    }
    for (const body of [
      {},
      { target_url: '' },
      { target_url: 5 },
      { target_url: 'https://example.com/', extra: true },
    ]) {
      expect(
        (await pipeline.http.post('/config/default-target').set('authorization', admin).send(body).expect(400)).body
          .code,
      ).toBe('validation_failed');
    }
    expect(await pipeline.store.prisma.organization.findFirst({ select: { defaultTargetUrl: true } })).toEqual({
      defaultTargetUrl: null,
    });
  });

  it('is for admins and keys with rules:write only', async () => {
    const body = { target_url: 'https://example.com/' };
    await pipeline.http.post('/config/default-target').send(body).expect(401);
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', (await userCredential(pipeline, 'viewer')).authorization)
      .send(body)
      .expect(403);
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', await apiKeyCredential(pipeline, ['webhooks:send', 'events:read']))
      .send(body)
      .expect(403);
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', await apiKeyCredential(pipeline, ['rules:write']))
      .send({ target_url: null })
      .expect(200);
  });
});

describe('GET /config/endpoint and /config/oauth', () => {
  let plain: Pipeline;
  let oidc: Pipeline;
  beforeAll(async () => {
    plain = await startPipeline({ api: { PUBLIC_BASE_URL: 'https://relay.example.com/' }, worker: false });
    oidc = await startPipeline({
      api: { OIDC_ISSUER_URL: 'https://id.example.com/realms/x', OIDC_CLIENT_ID: 'relay' },
      worker: false,
    });
  });
  afterAll(async () => {
    await plain.close();
    await oidc.close();
  });

  it('gives the public ingest URLs from PUBLIC_BASE_URL without credentials', async () => {
    const res = await plain.http.get('/config/endpoint').expect(200);
    expect(res.body).toEqual({
      base_url: 'https://relay.example.com',
      ingest_url: 'https://relay.example.com/',
      source_url_template: 'https://relay.example.com/{source}',
      reserved_sources: expect.arrayContaining(['api', 'events', 'config', 'health']),
      organization: { id: '00000000-0000-7000-8000-000000000001', slug: expect.any(String) },
      ingest_urls: ['https://relay.example.com/'],
    });
  });

  it('says whether identity-provider login is configured', async () => {
    expect((await plain.http.get('/config/oauth').expect(200)).body).toEqual({
      enabled: false,
      provider: null,
      issuer: null,
      login_url: null,
      button_label: null,
      // A single-organization install names its organization on the sign-in page.
      organization_name: 'Default organization',
    });
    expect((await oidc.http.get('/config/oauth').expect(200)).body).toEqual({
      enabled: true,
      provider: 'oidc',
      issuer: 'https://id.example.com/realms/x',
      login_url: '/api/auth/idp',
      button_label: 'Sign in with your identity provider',
      organization_name: 'Default organization',
    });
    // Without a provider the login itself says so.
    expect((await plain.http.get('/api/auth/idp').expect(404)).body).toMatchObject({ code: 'idp_not_configured' });
  });
});
