import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { createProviderService } from './provider.service';
import { testPrincipal, unauditable, useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal();
// The audit insert fails on this actor id, after the provider write in the same transaction.
const broken: Principal = unauditable(admin);

const store = useServiceDatabase();
const service = () =>
  createProviderService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
  });
const input = (source: string) => ({ source, target_url: 'https://example.com/in', active: true });

describe('provider service', () => {
  it('creates a provider, shows no secret, and audits rule.created', async () => {
    const created = await service().create(admin, { ...input('created'), signing_secret: 'a-signing-secret-1234' });
    expect(created).toMatchObject({
      source: 'created',
      target_url: 'https://example.com/in',
      has_signing_secret: true,
    });
    expect(created).not.toHaveProperty('signing_secret');
    expect(await store.auditOf(created.id)).toEqual([
      expect.objectContaining({
        action: 'rule.created',
        resourceType: 'rule',
        actorUserId: admin.userId,
        organizationId: DEFAULT_ORGANIZATION_ID,
        metadata: { source: 'created', target_url: 'https://example.com/in', active: true, mechanism: 'session' },
      }),
    ]);
  });

  it('writes neither the provider nor an entry when the audit entry cannot be written', async () => {
    await expect(service().create(broken, input('atomic'))).rejects.toThrow();
    expect(await store.db.prisma.provider.findFirst({ where: { source: 'atomic' } })).toBeNull();
  });

  it('refuses a second active provider for a source and a refused target, auditing nothing', async () => {
    await service().create(admin, input('twice'));
    const before = await store.db.prisma.auditEntry.count();
    await expect(service().create(admin, input('twice'))).rejects.toMatchObject({ code: 'active_provider_exists' });
    await expect(
      service().create(admin, { ...input('private'), target_url: 'http://127.0.0.1/x' }),
    ).rejects.toMatchObject({ code: 'target_url_rejected' });
    expect(await store.db.prisma.provider.count({ where: { source: { in: ['twice', 'private'] } } })).toBe(1);
    expect(await store.db.prisma.auditEntry.count()).toBe(before);
  });

  it('updates with the changed field names (never the secret) and rolls back with its entry', async () => {
    const created = await service().create(admin, input('changing'));
    await expect(service().update(broken, created.id, { active: false })).rejects.toThrow();
    expect(await service().get(admin, created.id)).toMatchObject({ active: true });
    const updated = await service().update(admin, created.id, { active: false, signing_secret: 'another-secret-1234' });
    expect(updated).toMatchObject({ active: false, has_signing_secret: true });
    const entries = await store.auditOf(created.id);
    expect(entries.map((e) => e.action)).toEqual(['rule.created', 'rule.updated']);
    expect(entries[1]!.metadata).toEqual({ changed: ['active', 'signing_secret'], mechanism: 'session' });
  });

  it('refuses an update to an unknown provider or into a conflict', async () => {
    const unknown = '00000000-0000-7000-8000-00000000dead';
    await expect(service().update(admin, unknown, { active: true })).rejects.toMatchObject({ code: 'not_found' });
    await service().create(admin, input('taken'));
    const other = await service().create(admin, { ...input('other'), active: false });
    await expect(service().update(admin, other.id, { source: 'taken', active: true })).rejects.toMatchObject({
      code: 'active_provider_exists',
    });
    expect((await store.auditOf(other.id)).map((e) => e.action)).toEqual(['rule.created']);
  });

  it('deletes with rule.deleted, keeps it when the entry fails, and answers not_found after', async () => {
    const created = await service().create(admin, input('gone'));
    await expect(service().delete(broken, created.id)).rejects.toThrow();
    expect(await service().get(admin, created.id)).toMatchObject({ source: 'gone' });
    await service().delete(admin, created.id);
    const entries = await store.auditOf(created.id);
    expect(entries.map((e) => e.action)).toEqual(['rule.created', 'rule.deleted']);
    expect(entries[1]!.metadata).toEqual({ source: 'gone', mechanism: 'session' });
    await expect(service().delete(admin, created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().get(admin, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it("lists only the caller's organization's providers", async () => {
    const org = await store.db.prisma.organization.create({ data: { slug: 'elsewhere', name: 'Elsewhere' } });
    const outsider = { ...admin, orgId: org.id } as Principal;
    expect(await service().list(outsider)).toEqual([]);
    expect((await service().list(admin)).length).toBeGreaterThan(0);
  });
});
