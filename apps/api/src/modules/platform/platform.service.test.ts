import { type OperatorRecord } from '@relay/db';
import { createPasswordHasher } from '../../auth/passwords';
import { createPlatformService } from './platform.service';
import { useServiceDatabase } from '../service-test-kit';

const operator: OperatorRecord = {
  id: '00000000-0000-7000-8000-0000000000b1',
  username: 'root',
  createdAt: new Date(),
};
const newOrganization = (slug: string, overrides: Record<string, string> = {}) => ({
  name: `Org ${slug}`,
  slug,
  username: `${slug}-admin`,
  password: 'Correct-Horse-9',
  email: `admin@${slug}.example`,
  subscriber_name: 'Subscriber',
  billing_contact_name: 'Bea Bills',
  billing_contact_email: `billing@${slug}.example`,
  ...overrides,
});

const store = useServiceDatabase();
const service = () =>
  createPlatformService({
    repositories: store.repositories(),
    passwords: createPasswordHasher({ memoryKib: 1024, timeCost: 1 }),
    hosts: { canonicalHost: 'relay.example.com', publicBaseUrl: 'https://relay.example.com' },
  });

describe('platform service', () => {
  it('creates an organization, its admin, and a platform and an organization audit entry', async () => {
    const created = await service().create(operator, newOrganization('acme'));
    expect(created).toMatchObject({
      organization: { slug: 'acme', subscription: { status: 'active' } },
      admin: { username: 'acme-admin' },
      ingest_urls: ['https://acme.relay.example.com/'],
    });
    const [platformEntry] = await store.auditOf(created.organization.id);
    expect(platformEntry).toMatchObject({
      organizationId: null,
      action: 'organization.created',
      resourceType: 'organization',
      actorUserId: operator.id,
      actorEmail: 'root@operator.invalid',
      metadata: { operator: 'root', slug: 'acme', admin_username: 'acme-admin' },
    });
    const [userEntry] = await store.auditOf(created.admin.id);
    expect(userEntry).toMatchObject({
      organizationId: created.organization.id,
      action: 'user.created',
      resourceType: 'user',
      metadata: { operator: 'root', username: 'acme-admin', role: 'admin' },
    });
  });

  it('writes neither the organization nor an entry when an audit entry cannot be written', async () => {
    const broken = { ...operator, id: 'not-a-uuid' };
    await expect(service().create(broken, newOrganization('atomic'))).rejects.toThrow();
    expect(await store.db.prisma.organization.findUnique({ where: { slug: 'atomic' } })).toBeNull();
    expect(await store.db.prisma.user.findFirst({ where: { username: 'atomic-admin' } })).toBeNull();
  });

  it('refuses a taken slug or username and a password containing the username, auditing nothing', async () => {
    const before = await store.db.prisma.auditEntry.count();
    await expect(service().create(operator, newOrganization('acme', { username: 'x-admin' }))).rejects.toMatchObject({
      code: 'slug_taken',
    });
    await expect(
      service().create(operator, newOrganization('acme2', { username: 'acme-admin' })),
    ).rejects.toMatchObject({ code: 'username_taken' });
    await expect(
      service().create(operator, newOrganization('weak', { password: 'my-weak-admin-pw' })),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await store.db.prisma.auditEntry.count()).toBe(before);
  });

  it('changes the subscription with an audit entry of before and after, atomically', async () => {
    const { organization } = await service().create(operator, newOrganization('subs'));
    const patch = { status: 'suspended' as const, monthly_event_limit: 10 };
    await expect(
      service().updateSubscription({ ...operator, id: 'not-a-uuid' }, organization.id, patch),
    ).rejects.toThrow();
    expect((await service().get(organization.id)).subscription.status).toBe('active');
    const updated = await service().updateSubscription(operator, organization.id, patch);
    expect(updated.subscription).toMatchObject({ status: 'suspended', monthly_event_limit: 10 });
    const entries = (await store.auditOf(organization.id)).filter((e) => e.action === 'subscription.updated');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: null,
      metadata: {
        operator: 'root',
        from: { status: 'active', monthly_event_limit: null },
        to: { status: 'suspended', monthly_event_limit: 10 },
      },
    });
    const unknown = '00000000-0000-7000-8000-0000000000ff';
    await expect(service().updateSubscription(operator, unknown, patch)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().get(unknown)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists, shows and pages the platform audit log', async () => {
    expect(await service().list({ search: 'acm', page: 1, per_page: 10 })).toMatchObject({
      total: 1,
      pages: 1,
      organizations: [{ slug: 'acme' }],
    });
    const page = await service().auditPage({ page: 1, per_page: 2 });
    expect(page).toMatchObject({ page: 1, per_page: 2, entries: [{ action: 'subscription.updated' }, {}] });
    expect(page.entries[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+$/);
    expect((await service().overview()).organizations).toBeGreaterThanOrEqual(3);
  });

  it('filters the platform audit log by action, actor, resource and time, as the organization log', async () => {
    const other: OperatorRecord = { ...operator, id: '00000000-0000-7000-8000-0000000000b2', username: 'ops2' };
    const { organization: one } = await service().create(operator, newOrganization('filter-one'));
    const { organization: two } = await service().create(other, newOrganization('filter-two'));
    await service().updateSubscription(other, two.id, { plan: 'gold' });
    const all = { page: 1, per_page: 100 };
    const actionsOf = async (query: Record<string, string>) =>
      (await service().auditPage({ ...all, ...query })).entries.map((e) => `${e.action} ${e.resource_id}`);

    // Resource: one organization's platform entries only (its admin's user.created is the organization's own).
    expect(await actionsOf({ resource_id: two.id })).toEqual([
      `subscription.updated ${two.id}`,
      `organization.created ${two.id}`,
    ]);
    expect(await actionsOf({ resource_id: one.id, resource_type: 'organization' })).toEqual([
      `organization.created ${one.id}`,
    ]);
    expect(await actionsOf({ resource_id: one.id, resource_type: 'user' })).toEqual([]);
    // Actor, by id or e-mail; several actions separated by commas.
    expect(await actionsOf({ actor_user_id: other.id })).toHaveLength(2);
    expect(await actionsOf({ actor_email: 'ops2@operator.invalid', action: 'organization.created' })).toEqual([
      `organization.created ${two.id}`,
    ]);
    const both = await service().auditPage({ ...all, action: 'organization.created,subscription.updated' });
    expect(both.entries.every((e) => ['organization.created', 'subscription.updated'].includes(e.action))).toBe(true);
    expect(both.total).toBe(both.entries.length);
    // Time: `from` inclusive, `to` exclusive.
    const [newest] = (await service().auditPage({ ...all, resource_id: two.id })).entries;
    const at = `${newest!.created_at}Z`;
    expect(await actionsOf({ resource_id: two.id, from: at })).toEqual([`subscription.updated ${two.id}`]);
    expect(await actionsOf({ resource_id: two.id, to: at })).toEqual([`organization.created ${two.id}`]);
  });

  it("shows the rate limits in effect: the organization's own, else the install's, 0 being none", async () => {
    const rated = createPlatformService({
      repositories: store.repositories(),
      passwords: createPasswordHasher({ memoryKib: 1024, timeCost: 1 }),
      hosts: { canonicalHost: 'relay.example.com', publicBaseUrl: 'https://relay.example.com' },
      rateLimits: { ingest: 0, api: 600, windowSeconds: 30, retentionDays: 30 },
    });
    const { organization } = await rated.create(operator, newOrganization('rated'));
    expect((await rated.get(organization.id)).rate_limits_in_effect).toEqual({
      window_seconds: 30,
      ingest_rate_limit: null,
      api_rate_limit: 600,
    });
    await rated.updateSubscription(operator, organization.id, { ingest_rate_limit: 50, api_rate_limit: 20 });
    const detail = await rated.get(organization.id);
    expect(detail.rate_limits_in_effect).toEqual({ window_seconds: 30, ingest_rate_limit: 50, api_rate_limit: 20 });
    // Retention: the install's RETENTION_DAYS until the organization has its own; none anywhere is "kept forever".
    expect(detail.retention_days_in_effect).toBe(30);
    expect((await service().get(organization.id)).retention_days_in_effect).toBeNull();
    await rated.updateSubscription(operator, organization.id, { retention_days: 7 });
    expect((await rated.get(organization.id)).retention_days_in_effect).toBe(7);
    expect((await service().get(organization.id)).retention_days_in_effect).toBe(7);
    expect(detail.usage).toMatchObject({ events_this_period: 0, monthly_event_limit: null });
  });
});
