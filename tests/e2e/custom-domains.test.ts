import { startDnsServer, type DnsServer } from '@relay/test-support';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

const CANONICAL = 'ingest.relay.test';
let dns: DnsServer;
let pipeline: Pipeline;
let admin: string;

beforeAll(async () => {
  dns = await startDnsServer();
  pipeline = await startPipeline({
    api: { INGEST_CANONICAL_HOST: CANONICAL, DNS_SERVERS: dns.address, INGEST_HOST_CACHE_MS: '0' },
    worker: false,
  });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await dns.close();
});

const create = (domain: string, authorization = admin) =>
  pipeline.http.post('/api/domains').set('authorization', authorization).send({ domain });
const verify = (id: string) => pipeline.http.post(`/api/domains/${id}/verify`).set('authorization', admin);
const ingestAt = (host: string) =>
  pipeline.http.post('/hook').set('host', host).set('content-type', 'application/json').send('{"via":"domain"}');

describe('custom ingest domains', () => {
  it('normalises the name and returns the token and the exact records to add', async () => {
    const res = await create('  Hooks.Example.COM. ').expect(201);
    expect(res.body).toMatchObject({
      domain: 'hooks.example.com',
      status: 'pending',
      verification_token: expect.stringMatching(/^relay-verify-[0-9a-f]{32}$/),
      records: [
        { type: 'CNAME', name: 'hooks.example.com', value: CANONICAL },
        { type: 'TXT', name: '_relay-verification.hooks.example.com', value: res.body.verification_token },
      ],
    });
    expect((await create('bücher.example').expect(201)).body.domain).toBe('xn--bcher-kva.example');
    expect(await pipeline.store.prisma.auditEntry.count({ where: { action: 'domain.created' } })).toBe(2);
  });

  it('refuses IP literals, bad names, the canonical host, and a domain another organization has', async () => {
    for (const domain of [
      '192.168.1.10',
      '[::1]',
      'localhost',
      'bad_label.example',
      '-x.example',
      CANONICAL,
      `acme.${CANONICAL}`,
      'http://x.example/',
    ]) {
      const res = await create(domain).expect(400);
      expect({ domain, code: res.body.code, field: res.body.errors[0].field }).toEqual({
        domain,
        code: 'validation_failed',
        field: 'domain',
      });
    }
    const other = await createOrganization(pipeline, 'domains-other');
    const otherAdmin = (await userCredential(pipeline, 'admin', other)).authorization;
    expect((await create('HOOKS.example.com', otherAdmin).expect(409)).body.code).toBe('domain_taken');
  });

  it('activates only when both records are valid, saying which one is missing or wrong', async () => {
    const domain = (await create('shop.example.net').expect(201)).body;
    const txtName = `_relay-verification.${domain.domain}`;
    const attempt = async () => (await verify(domain.id)).body;

    // Nothing in DNS yet.
    let res = await attempt();
    expect(res).toMatchObject({
      code: 'domain_verification_failed',
      checks: { cname: { ok: false, problem: 'missing' }, txt: { ok: false, problem: 'missing' } },
      domain: { status: 'pending' },
    });
    // CNAME only.
    dns.set(domain.domain, { cname: CANONICAL });
    res = await attempt();
    expect(res.checks).toMatchObject({ cname: { ok: true }, txt: { ok: false, problem: 'missing' } });
    // TXT only.
    dns.set(domain.domain, undefined);
    dns.set(txtName, { txt: [domain.verification_token] });
    res = await attempt();
    expect(res.checks).toMatchObject({ cname: { ok: false, problem: 'missing' }, txt: { ok: true } });
    // CNAME elsewhere and a wrong token.
    dns.set(domain.domain, { cname: 'other.example.org' });
    dns.set(txtName, { txt: ['relay-verify-not-this-one'] });
    res = await attempt();
    expect(res.checks).toMatchObject({
      cname: { ok: false, problem: 'wrong', found: ['other.example.org'] },
      txt: { ok: false, problem: 'wrong', found: ['relay-verify-not-this-one'] },
    });
    expect(res.detail).toContain('expected ingest.relay.test');
    await ingestAt(domain.domain).expect(404);
    expect((await pipeline.store.prisma.customDomain.findUniqueOrThrow({ where: { id: domain.id } })).status).toBe(
      'pending',
    );
    // Both valid (the CNAME with a trailing dot and other case, the token among other TXT values).
    dns.set(domain.domain, { cname: 'Ingest.Relay.Test.' });
    dns.set(txtName, { txt: ['v=spf1 -all', domain.verification_token] });
    const ok = await verify(domain.id).expect(200);
    expect(ok.body).toMatchObject({
      status: 'active',
      verified_at: expect.any(String),
      checks: { cname: { ok: true }, txt: { ok: true } },
    });
    const actions = (await pipeline.store.prisma.auditEntry.findMany({ where: { resourceId: domain.id } })).map(
      (e) => e.action,
    );
    expect(actions.filter((a) => a === 'domain.verification_failed')).toHaveLength(4);
    expect(actions).toContain('domain.verified');
  });

  it('takes webhooks on an active domain only: pending, unknown and deleted domains store nothing', async () => {
    const pending = (await create('pending.example.org').expect(201)).body;
    const before = await pipeline.store.prisma.event.count();
    expect((await ingestAt('pending.example.org').expect(404)).body.code).toBe('ingest_host_unknown');
    expect((await ingestAt('never-added.example.org').expect(404)).body.code).toBe('ingest_host_unknown');
    expect(await pipeline.store.prisma.event.count()).toBe(before);

    dns.set(pending.domain, { cname: CANONICAL });
    dns.set(`_relay-verification.${pending.domain}`, { txt: [pending.verification_token] });
    await verify(pending.id).expect(200);
    const id = (await ingestAt('PENDING.example.org:443').expect(202)).body.id;
    expect((await pipeline.eventById(id))?.organizationId).toBe('00000000-0000-7000-8000-000000000001');

    expect(
      (await pipeline.http.get('/config/endpoint').set('authorization', admin).expect(200)).body.ingest_urls,
    ).toContain('http://pending.example.org/');
    await pipeline.http.delete(`/api/domains/${pending.id}`).set('authorization', admin).expect(204);
    await ingestAt('pending.example.org').expect(404);
    expect(
      await pipeline.store.prisma.auditEntry.count({ where: { action: 'domain.deleted', resourceId: pending.id } }),
    ).toBe(1);
  });

  it("lists the organization's domains; other organizations and weaker credentials get nothing", async () => {
    const list = await pipeline.http.get('/api/domains').set('authorization', admin).expect(200);
    expect(list.body.domains.map((d: { domain: string }) => d.domain)).toEqual([
      'hooks.example.com',
      'shop.example.net',
      'xn--bcher-kva.example',
    ]);
    await pipeline.http
      .get('/api/domains')
      .set('authorization', (await userCredential(pipeline, 'viewer')).authorization)
      .expect(403);
    await pipeline.http
      .post('/api/domains')
      .set('authorization', await apiKeyCredential(pipeline, ['rules:write', 'webhooks:send']))
      .send({ domain: 'x.example' })
      .expect(403);
    const other = await createOrganization(pipeline, 'domains-third');
    const otherAdmin = (await userCredential(pipeline, 'admin', other)).authorization;
    expect((await pipeline.http.get('/api/domains').set('authorization', otherAdmin).expect(200)).body.domains).toEqual(
      [],
    );
    const theirs = list.body.domains[0].id;
    await pipeline.http.post(`/api/domains/${theirs}/verify`).set('authorization', otherAdmin).expect(404);
    await pipeline.http.delete(`/api/domains/${theirs}`).set('authorization', otherAdmin).expect(404);
    expect(await pipeline.store.prisma.customDomain.count({ where: { id: theirs } })).toBe(1);
  });
});
