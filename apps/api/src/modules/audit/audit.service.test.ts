import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { insertAuditEntry, SYSTEM_ACTOR } from '@relay/db';
import { testPrincipal } from '@relay/test-support';
import { createAuditService } from './audit.service';
import { useServiceDatabase } from '../service-test-kit';

const viewer = testPrincipal({
  mechanism: 'token',
  role: 'viewer',
  userId: '00000000-0000-7000-8000-0000000000b1',
  username: 'bob',
  email: 'bob@example.com',
});

const store = useServiceDatabase();
const service = () => createAuditService({ repositories: store.repositories() });

beforeAll(async () => {
  const audit = store.repositories().audit;
  for (let i = 0; i < 5; i++) {
    await audit.record(DEFAULT_ORGANIZATION_ID, {
      actorUserId: viewer.userId,
      actorEmail: viewer.email,
      action: 'rule.created',
      resourceType: 'rule',
      resourceId: `r${i}`,
      metadata: { n: i },
    });
  }
  // Platform-level entries are no organization's.
  await audit.record(null, {
    actorUserId: null,
    actorEmail: null,
    action: 'auth.login_failed',
    resourceType: 'user',
    resourceId: null,
  });
});

describe('audit service', () => {
  it("pages the organization's entries newest first, in the spec's envelope", async () => {
    const first = await service().page(viewer, { page: 1, per_page: 2 });
    expect(first).toMatchObject({ total: 5, page: 1, per_page: 2, pages: 3 });
    expect(first.entries.map((e) => e.resource_id)).toEqual(['r4', 'r3']);
    expect(first.entries[0]).toEqual({
      id: expect.any(String),
      actor_user_id: viewer.userId,
      actor_email: viewer.email,
      action: 'rule.created',
      resource_type: 'rule',
      resource_id: 'r4',
      metadata: { n: 4 },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
    });
    const last = await service().page(viewer, { page: 3, per_page: 2 });
    expect(last.entries.map((e) => e.resource_id)).toEqual(['r0']);
  });

  it("gives every entry the spec's types: the system actor, the key's creator, and an id of its own", async () => {
    const repos = store.repositories();
    const platformEntry = await store.db.prisma.auditEntry.findFirstOrThrow({ where: { organizationId: null } });
    // No actor and no resource: the system actor, and the entry names itself.
    expect(platformEntry).toMatchObject({
      actorUserId: SYSTEM_ACTOR.id,
      actorEmail: SYSTEM_ACTOR.email,
      resourceId: platformEntry.id,
    });
    const creator = await repos.users.create(DEFAULT_ORGANIZATION_ID, {
      username: 'key-maker',
      email: 'maker@example.com',
      role: 'admin',
      passwordHash: 'x',
    });
    const key = await repos.credentials.createApiKey(DEFAULT_ORGANIZATION_ID, {
      name: 'k',
      prefix: 'auditprefix1',
      secretHash: 'x',
      scopes: ['rules:write'],
      createdById: creator.id,
      expiresAt: null,
    });
    const byKey = (resourceId: string) => ({
      actorUserId: null,
      actorEmail: null,
      action: 'rule.updated',
      resourceType: 'rule',
      resourceId,
      metadata: { api_key_id: key.id },
    });
    // Both ways an entry is written: Prisma, and raw SQL inside an event action's transaction.
    await repos.audit.record(DEFAULT_ORGANIZATION_ID, byKey('00000000-0000-7000-8000-00000000c001'));
    const client = await store.db.pool.connect();
    try {
      await insertAuditEntry(client, DEFAULT_ORGANIZATION_ID, byKey('00000000-0000-7000-8000-00000000c002'));
    } finally {
      client.release();
    }
    const entries = await store.db.prisma.auditEntry.findMany({ where: { action: 'rule.updated' } });
    expect(entries.map((e) => [e.actorUserId, e.actorEmail])).toEqual([
      [creator.id, 'maker@example.com'],
      [creator.id, 'maker@example.com'],
    ]);
  });

  describe('filters', () => {
    const org = '00000000-0000-7000-8000-00000000f0a1';
    const ids = ['00000000-0000-7000-8000-00000000f001', '00000000-0000-7000-8000-00000000f002'] as const;
    const otherActor = '00000000-0000-7000-8000-00000000f0b2';
    const filterer = testPrincipal({ mechanism: 'token', role: 'viewer', orgId: org as typeof viewer.orgId });
    const query = (q: Record<string, string>) => service().page(filterer, { page: 1, per_page: 50, ...q });
    const resources = (q: Record<string, string>) => query(q).then((p) => p.entries.map((e) => e.resource_id));

    beforeAll(async () => {
      await store.db.prisma.organization.create({ data: { id: org, slug: 'audit-filters', name: 'Audit filters' } });
      const at = (iso: string) => new Date(iso);
      const rows = [
        {
          action: 'rule.created',
          actor: viewer.userId!,
          email: 'bob@example.com',
          type: 'rule',
          id: ids[0],
          at: '2026-01-01T00:00:00Z',
        },
        {
          action: 'rule.deleted',
          actor: viewer.userId!,
          email: 'bob@example.com',
          type: 'rule',
          id: ids[0],
          at: '2026-01-02T00:00:00Z',
        },
        {
          action: 'api_key.created',
          actor: otherActor,
          email: 'eve@example.com',
          type: 'api_key',
          id: ids[1],
          at: '2026-01-03T00:00:00Z',
        },
      ];
      for (const r of rows) {
        await store.db.prisma.auditEntry.create({
          data: {
            organizationId: org,
            actorUserId: r.actor,
            actorEmail: r.email,
            action: r.action,
            resourceType: r.type,
            resourceId: r.id,
            createdAt: at(r.at),
          },
        });
      }
    });

    it('narrow by action (one, or several separated by commas), actor and resource, with the total', async () => {
      expect(await query({ action: 'rule.created' })).toMatchObject({ total: 1, pages: 1 });
      expect(await query({ action: 'rule.created,api_key.created' })).toMatchObject({ total: 2 });
      expect((await query({ actor_user_id: otherActor })).entries.map((e) => e.action)).toEqual(['api_key.created']);
      expect((await query({ actor_email: 'bob@example.com' })).total).toBe(2);
      expect((await query({ resource_type: 'api_key' })).total).toBe(1);
      expect(await resources({ resource_id: ids[0] })).toEqual([ids[0], ids[0]]);
      // Every filter given must hold.
      expect((await query({ actor_email: 'bob@example.com', action: 'api_key.created' })).total).toBe(0);
    });

    it('narrow by time: from inclusive, to exclusive', async () => {
      const q = { from: '2026-01-02T00:00:00Z', to: '2026-01-03T00:00:00Z' };
      expect((await query(q)).entries.map((e) => e.action)).toEqual(['rule.deleted']);
      expect((await query({ from: '2026-01-02T00:00:00Z' })).total).toBe(2);
      expect((await query({ to: '2026-01-02T00:00:00Z' })).total).toBe(1);
    });

    it("never reach another organization's entries", async () => {
      expect((await service().page(viewer, { page: 1, per_page: 50, resource_id: ids[0] })).total).toBe(0);
      expect((await query({ action: 'rule.created' })).entries.map((e) => e.resource_id)).toEqual([ids[0]]);
    });
  });
});
