import { AppError, DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { createDatabase, createRepositories, type Database } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import { createSettingsService, type SettingsServiceDeps } from './settings.service';

const admin: Principal = {
  kind: 'user',
  mechanism: 'session',
  orgId: DEFAULT_ORGANIZATION_ID,
  role: 'admin',
  scopes: 'all',
  userId: '00000000-0000-7000-8000-0000000000a1',
  username: 'ada',
  email: 'ada@example.com',
  credentialId: null,
};

let testDb: TestDatabase;
let db: Database;
const service = (overrides: Partial<SettingsServiceDeps> = {}) =>
  createSettingsService({
    repositories: createRepositories(db, { defaultTargetUrl: undefined }),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    installDefaultTarget: 'https://install.example.com/',
    publicBaseUrl: 'https://relay.example.com/',
    oidc: { issuer: undefined, clientId: undefined },
    hosts: { canonicalHost: undefined, publicBaseUrl: 'https://relay.example.com/' },
    // Hosts are resolved elsewhere (tested with the platform); here every Host is unknown.
    organizationOf: async () => {
      throw new AppError('not_found');
    },
    ...overrides,
  });
const ownTarget = async () =>
  (await db.prisma.organization.findUnique({ where: { id: DEFAULT_ORGANIZATION_ID } }))?.defaultTargetUrl;
const auditEntries = () =>
  db.prisma.auditEntry.findMany({ where: { action: 'config.default_target_updated' }, orderBy: { createdAt: 'asc' } });

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 2 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

describe('settings service', () => {
  it('sets and clears the default target, auditing from and to', async () => {
    expect(await service().setDefaultTarget(admin, 'https://own.example.com/in')).toEqual({
      target_url: 'https://own.example.com/in',
      effective_target_url: 'https://own.example.com/in',
      effective_from: 'organization',
    });
    expect(await service().setDefaultTarget(admin, null)).toEqual({
      target_url: null,
      effective_target_url: 'https://install.example.com/',
      effective_from: 'install',
    });
    const entries = await auditEntries();
    expect(entries.map((e) => e.metadata)).toEqual([
      { from: null, to: 'https://own.example.com/in', mechanism: 'session' },
      { from: 'https://own.example.com/in', to: null, mechanism: 'session' },
    ]);
    expect(entries[0]).toMatchObject({ resourceType: 'organization', resourceId: DEFAULT_ORGANIZATION_ID });
  });

  it('keeps the previous target when the audit entry cannot be written', async () => {
    await service().setDefaultTarget(admin, 'https://kept.example.com/');
    const broken = { ...admin, userId: 'not-a-uuid' };
    await expect(service().setDefaultTarget(broken, 'https://lost.example.com/')).rejects.toThrow();
    expect(await ownTarget()).toBe('https://kept.example.com/');
  });

  it('refuses a target the policy rejects and changes nothing', async () => {
    const before = await auditEntries();
    await expect(service().setDefaultTarget(admin, 'http://192.168.1.1/')).rejects.toMatchObject({
      code: 'target_url_rejected',
    });
    expect(await ownTarget()).toBe('https://kept.example.com/');
    expect(await auditEntries()).toHaveLength(before.length);
  });

  it("answers the caller's ingest URLs, and only the base URL for an unknown Host", async () => {
    expect(await service().endpoint(DEFAULT_ORGANIZATION_ID, 'ignored')).toMatchObject({
      base_url: 'https://relay.example.com',
      ingest_url: 'https://relay.example.com/',
      source_url_template: 'https://relay.example.com/{source}',
      organization: { id: DEFAULT_ORGANIZATION_ID },
      ingest_urls: ['https://relay.example.com/'],
    });
    expect(await service().endpoint(undefined, 'unknown.example.org')).toEqual({
      base_url: 'https://relay.example.com',
      ingest_url: 'https://relay.example.com/',
      source_url_template: 'https://relay.example.com/{source}',
      organization: null,
      ingest_urls: [],
    });
    const resolved = service({ organizationOf: async () => DEFAULT_ORGANIZATION_ID });
    expect(await resolved.endpoint(undefined, 'relay.example.com')).toMatchObject({
      organization: { slug: 'default' },
    });
  });

  it('says whether identity-provider login is configured', () => {
    expect(service().oauth()).toEqual({ enabled: false, provider: null, issuer: null, login_url: null });
    const oidc = { issuer: 'https://idp.example.com', clientId: 'relay' };
    expect(service({ oidc }).oauth()).toEqual({
      enabled: true,
      provider: 'oidc',
      issuer: 'https://idp.example.com',
      login_url: '/api/auth/idp',
    });
  });
});
