import { AppError, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import { parseApiConfig } from '../../config';
import { identityProvidersFromSettings } from '../idp/identity-provider';
import { createSettingsService, type SettingsServiceDeps } from './settings.service';
import { useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal();

const store = useServiceDatabase();
const service = (overrides: Partial<SettingsServiceDeps> = {}) =>
  createSettingsService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    installDefaultTarget: 'https://install.example.com/',
    publicBaseUrl: 'https://relay.example.com/',
    identityProviderFor: async () => null,
    hosts: { canonicalHost: undefined, publicBaseUrl: 'https://relay.example.com/' },
    // Hosts are resolved elsewhere (tested with the platform); here every Host is unknown.
    organizationOf: async () => {
      throw new AppError('not_found');
    },
    reservedSegments: new Set(['api', 'events']),
    ...overrides,
  });
const ownTarget = async () =>
  (await store.db.prisma.organization.findUnique({ where: { id: DEFAULT_ORGANIZATION_ID } }))?.defaultTargetUrl;
const auditEntries = () =>
  store.db.prisma.auditEntry.findMany({
    where: { action: 'config.default_target_updated' },
    orderBy: { createdAt: 'asc' },
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
    const broken = unauditable(admin);
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

  it("answers the caller's ingest URLs, and none that would refuse webhooks for an unknown Host", async () => {
    expect(await service().endpoint(DEFAULT_ORGANIZATION_ID, 'ignored')).toMatchObject({
      base_url: 'https://relay.example.com',
      ingest_url: 'https://relay.example.com/',
      source_url_template: 'https://relay.example.com/{source}',
      organization: { id: DEFAULT_ORGANIZATION_ID },
      ingest_urls: ['https://relay.example.com/'],
    });
    // Before, the base URL was advertised here, though its host may refuse webhooks (ingest_host_unknown).
    expect(await service().endpoint(undefined, 'unknown.example.org')).toEqual({
      base_url: 'https://relay.example.com',
      ingest_url: null,
      source_url_template: null,
      reserved_sources: ['api', 'events'],
      organization: null,
      ingest_urls: [],
    });
    const resolved = service({ organizationOf: async () => DEFAULT_ORGANIZATION_ID });
    expect(await resolved.endpoint(undefined, 'relay.example.com')).toMatchObject({
      organization: { slug: 'default' },
    });
  });

  it('advertises no URL for an organization whose subscription refuses webhooks', async () => {
    await store.db.prisma.organization.update({
      where: { id: DEFAULT_ORGANIZATION_ID },
      data: { subscriptionStatus: 'suspended' },
    });
    try {
      expect(await service().endpoint(DEFAULT_ORGANIZATION_ID, 'ignored')).toMatchObject({
        organization: { id: DEFAULT_ORGANIZATION_ID },
        ingest_url: null,
        source_url_template: null,
        ingest_urls: [],
      });
    } finally {
      await store.db.prisma.organization.update({
        where: { id: DEFAULT_ORGANIZATION_ID },
        data: { subscriptionStatus: 'active' },
      });
    }
  });

  it('says whether identity-provider login is configured, with the button label and no secret', async () => {
    expect(await service().oauth(DEFAULT_ORGANIZATION_ID)).toEqual({
      enabled: false,
      provider: null,
      issuer: null,
      login_url: null,
      button_label: null,
      organization_name: null,
    });
    const config = parseApiConfig({
      OIDC_ISSUER_URL: 'https://idp.example.com',
      OIDC_CLIENT_ID: 'relay',
      OIDC_CLIENT_SECRET: 'never-shown',
      OIDC_BUTTON_LABEL: 'Sign in with Example',
    });
    const configured = service({ identityProviderFor: identityProvidersFromSettings(config) });
    const answer = await configured.oauth(DEFAULT_ORGANIZATION_ID);
    expect(answer).toEqual({
      enabled: true,
      provider: 'oidc',
      issuer: 'https://idp.example.com',
      login_url: '/api/auth/idp',
      button_label: 'Sign in with Example',
      organization_name: null,
    });
    expect(JSON.stringify(answer)).not.toContain('never-shown');
  });

  it('names on the sign-in page only an organization the Host or a single-organization install already gives away', async () => {
    const named = (host: string, resolve: Record<string, string>) =>
      service({
        organizationOf: async (h) => {
          if (!(h in resolve)) throw new AppError('ingest_host_unknown');
          return resolve[h] as typeof DEFAULT_ORGANIZATION_ID;
        },
      }).organizationToName(host);
    const defaultName = (await store.repositories().organizations.findById(DEFAULT_ORGANIZATION_ID))!.name;
    // A single-organization install: its one organization is named on any host it answers.
    expect(await named('relay.example.com', { 'relay.example.com': DEFAULT_ORGANIZATION_ID })).toBe(
      DEFAULT_ORGANIZATION_ID,
    );
    expect((await service().oauth(null, DEFAULT_ORGANIZATION_ID)).organization_name).toBe(defaultName);
    const acme = await store.repositories().organizations.create({ slug: 'acme', name: 'Acme Corp' });
    // Several tenants: the shared host names nobody, an organization's own host (or custom domain) names it.
    const hosts = { 'relay.example.com': DEFAULT_ORGANIZATION_ID, 'acme.relay.example.com': acme.id };
    expect(await named('relay.example.com', hosts)).toBeNull();
    expect(await named('acme.relay.example.com', hosts)).toBe(acme.id);
    expect(await named('unknown.example.com', hosts)).toBeNull();
    expect((await service().oauth(null, acme.id)).organization_name).toBe('Acme Corp');
  });
});
