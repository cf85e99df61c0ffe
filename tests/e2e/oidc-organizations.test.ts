import supertest from 'supertest';
import { createOrganization, seedUser, startApiReplica, userCredential } from './harness';
import { me, startOrganizationsWorld, toCallback, type OrganizationsWorld } from './oidc-organizations-fixture';
import { CookieJar } from './oidc-test-provider';

// Per-organization identity providers: the configuration API (secret write-only and sealed), the organization
// chosen by host or `?organization=`, and two organizations with two providers that stay apart.
let world: OrganizationsWorld;
const PATH = '/api/organization/identity-provider';

const providerBody = (issuer: string, clientId: string, secret?: string) => ({
  issuer_url: issuer,
  client_id: clientId,
  ...(secret ? { client_secret: secret } : {}),
  provisioning: 'domains',
  allowed_domains: ['example.com', '@Beta.Example'],
  role_mapping: { claim: 'groups', admin: ['relay-admins'] },
  button_label: `Sign in with ${clientId}`,
});

const put = (authorization: string, body: object) =>
  world.pipeline.http.put(PATH).set('authorization', authorization).send(body);

beforeAll(async () => {
  world = await startOrganizationsWorld();
});

afterAll(async () => {
  await world?.close();
});

describe('the organization identity-provider API', () => {
  it('answers 404 before a provider is set, and only admins may set one', async () => {
    const res = await world.pipeline.http.get(PATH).set('authorization', world.admin.alpha).expect(404);
    expect(res.body).toMatchObject({ code: 'idp_not_configured' });
    const viewer = await userCredential(world.pipeline, 'viewer', world.alpha);
    await put(viewer.authorization, providerBody(world.providerA.issuer, 'alpha', 'x')).expect(403);
  });

  it('refuses a plain-http issuer off loopback, and `domains` provisioning without domains', async () => {
    const http = await put(world.admin.alpha, providerBody('http://id.example.com', 'alpha')).expect(400);
    expect(http.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'issuer_url' })],
    });
    const noDomains = { ...providerBody(world.providerA.issuer, 'alpha'), allowed_domains: [] };
    expect((await put(world.admin.alpha, noDomains).expect(400)).body.code).toBe('validation_failed');
    expect(await world.pipeline.store.prisma.organizationIdentityProvider.count()).toBe(0);
  });

  it('stores the client secret sealed, never shows it, and keeps it when a PUT leaves it out', async () => {
    const saved = await put(world.admin.alpha, providerBody(world.providerA.issuer, 'alpha', 'alpha-client-secret'));
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      source: 'organization',
      issuer_url: world.providerA.issuer,
      has_client_secret: true,
      allowed_domains: ['example.com', 'beta.example'],
      role_mapping: { claim: 'groups', admin: ['relay-admins'] },
    });
    const read = await world.pipeline.http.get(PATH).set('authorization', world.admin.alpha).expect(200);
    expect(read.body).toEqual(saved.body);
    const prisma = world.pipeline.store.prisma;
    const row = await prisma.organizationIdentityProvider.findUniqueOrThrow({ where: { organizationId: world.alpha } });
    expect(row.clientSecretSealed).toMatch(/^enc:v1:/);
    const audit = await prisma.auditEntry.findMany({ where: { action: 'identity_provider.updated' } });
    expect(audit).toEqual([expect.objectContaining({ organizationId: world.alpha })]);
    for (const text of [
      JSON.stringify(saved.body),
      JSON.stringify(read.body),
      JSON.stringify(audit),
      JSON.stringify(row),
    ]) {
      expect(text).not.toContain('alpha-client-secret');
    }
    // Left out: the stored secret stays (the admin need not know it to change the label).
    const again = await put(world.admin.alpha, providerBody(world.providerA.issuer, 'alpha')).expect(200);
    expect(again.body.has_client_secret).toBe(true);
    const after = await prisma.organizationIdentityProvider.findUniqueOrThrow({
      where: { organizationId: world.alpha },
    });
    expect(after.clientSecretSealed).toBe(row.clientSecretSealed);
    await put(world.admin.beta, providerBody(world.providerB.issuer, 'beta', 'beta-client-secret')).expect(200);
  });

  it('refuses a secret without SECRET_ENCRYPTION_KEYS', async () => {
    const api = startApiReplica(world.pipeline, { SECRET_ENCRYPTION_KEYS: '' });
    try {
      const res = await supertest(api.app)
        .put(PATH)
        .set('authorization', world.admin.beta)
        .send(providerBody(world.providerB.issuer, 'beta', 'another-secret'))
        .expect(422);
      expect(res.body.code).toBe('secrets_not_configured');
    } finally {
      await api.close();
    }
  });

  it('deletes a provider, audited, and answers 404 after', async () => {
    const gamma = await createOrganization(world.pipeline, 'gamma');
    const admin = (await userCredential(world.pipeline, 'admin', gamma)).authorization;
    await put(admin, providerBody(world.providerA.issuer, 'gamma')).expect(200);
    await world.pipeline.http.delete(PATH).set('authorization', admin).expect(204);
    await world.pipeline.http.get(PATH).set('authorization', admin).expect(404);
    expect((await world.pipeline.http.delete(PATH).set('authorization', admin).expect(404)).body.code).toBe(
      'not_found',
    );
    const deleted = await world.pipeline.store.prisma.auditEntry.count({
      where: { action: 'identity_provider.deleted', organizationId: gamma },
    });
    expect(deleted).toBe(1);
  });
});

describe('logins per organization', () => {
  it('reports each organization on /config/oauth, by ?organization= or by host', async () => {
    const byQuery = await world.pipeline.http.get('/config/oauth?organization=alpha').expect(200);
    expect(byQuery.body).toEqual({
      enabled: true,
      provider: 'oidc',
      issuer: world.providerA.issuer,
      login_url: '/api/auth/idp?organization=alpha',
      button_label: 'Sign in with alpha',
      // `?organization=` is no way to learn a tenant's name: the shared host names nobody.
      organization_name: null,
    });
    const byHost = await world.pipeline.http.get('/config/oauth').set('host', 'beta.relay.test').expect(200);
    expect(byHost.body).toMatchObject({ enabled: true, issuer: world.providerB.issuer, organization_name: 'beta' });
    expect((await world.pipeline.http.get('/config/oauth').expect(200)).body).toMatchObject({ enabled: false });
    expect(JSON.stringify([byQuery.body, byHost.body])).not.toContain('secret');
  });

  it("starts on the organization's host with the callback on that host", async () => {
    const start = await world.pipeline.http.get('/api/auth/idp').set('host', 'beta.relay.test').expect(302);
    const authorize = new URL(start.headers.location!);
    expect(authorize.origin).toBe(world.providerB.issuer);
    expect(authorize.searchParams.get('client_id')).toBe('beta');
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://beta.relay.test/api/auth/callback/idp');
    // An organization's own host never starts another organization's login; unknown slugs look unconfigured.
    for (const [host, query] of [
      ['alpha.relay.test', '?organization=beta'],
      ['127.0.0.1', '?organization=nobody'],
    ] as const) {
      const res = await world.pipeline.http.get(`/api/auth/idp${query}`).set('host', host).expect(404);
      expect(res.body.code).toBe('idp_not_configured');
    }
  });

  it('signs each provider’s people in to their own organization only', async () => {
    const prisma = world.pipeline.store.prisma;
    const sessions: Record<string, string> = {};
    for (const org of ['alpha', 'beta'] as const) {
      const jar = new CookieJar();
      const callback = await toCallback(jar, `${world.relay.url}/api/auth/idp?organization=${org}`, 'alice');
      expect((await jar.get(callback.href)).status).toBe(302);
      const who = await me(world, jar);
      expect(who).toMatchObject({ mechanism: 'session', login_method: 'idp' });
      sessions[org] = (await prisma.user.findUniqueOrThrow({ where: { id: who.user!.id } })).organizationId;
    }
    expect(sessions).toEqual({ alpha: world.alpha, beta: world.beta });
  });

  it("never lets a user of alpha's provider into beta, even when beta trusts the same issuer", async () => {
    const prisma = world.pipeline.store.prisma;
    await put(world.admin.beta, providerBody(world.providerA.issuer, 'beta-on-a', 'beta-on-a-secret')).expect(200);
    try {
      const jar = new CookieJar();
      const callback = await toCallback(jar, `${world.relay.url}/api/auth/idp?organization=beta`, 'alice');
      const res = await jar.get(callback.href);
      // To the sign-in page, which says why (the reason of `idp_login_failed`).
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/app/login?error=wrong_organization');
      expect(await me(world, jar)).toMatchObject({ mechanism: 'none', user: null });
      const refused = await prisma.auditEntry.count({
        where: {
          organizationId: world.beta,
          action: 'auth.login_failed',
          metadata: { path: ['reason'], equals: 'wrong_organization' },
        },
      });
      expect(refused).toBe(1);
    } finally {
      await put(world.admin.beta, providerBody(world.providerB.issuer, 'beta', 'beta-client-secret')).expect(200);
    }
  });

  it('keeps the role of a mapped user read-only in the users API', async () => {
    const prisma = world.pipeline.store.prisma;
    const alice = await prisma.user.findFirstOrThrow({ where: { organizationId: world.alpha, username: 'alice' } });
    expect(alice.roleManagedByIdp).toBe(true);
    const res = await world.pipeline.http
      .patch(`/api/users/${alice.id}/role`)
      .set('authorization', world.admin.alpha)
      .send({ role: 'admin' })
      .expect(409);
    expect(res.body.code).toBe('role_managed_by_idp');
    expect((await prisma.user.findUniqueOrThrow({ where: { id: alice.id } })).role).toBe('viewer');
    const paula = await seedUser(
      world.pipeline,
      { username: 'paula-r', role: 'viewer', password: 'pw-pw-pw-pw-1' },
      world.alpha,
    );
    await world.pipeline.http
      .patch(`/api/users/${paula.id}/role`)
      .set('authorization', world.admin.alpha)
      .send({ role: 'admin' })
      .expect(200);
  });
});
