import { asOrgId, DEFAULT_SENSITIVE_HEADERS, type OrgId } from '@relay/core';
import { createOrganizationRepository, type OperatorRecord, type Repositories } from '@relay/db';
import { useServiceDatabase } from '../service-test-kit';
import { createOffboardingService } from './organization-offboarding.service';

const operator: OperatorRecord = {
  id: '00000000-0000-7000-8000-0000000000b1',
  username: 'root',
  createdAt: new Date(),
};
const store = useServiceDatabase();

async function organizationWithEvents(slug: string, count: number, createdAt: Date): Promise<OrgId> {
  const org = await createOrganizationRepository(store.db.prisma).create({ slug, name: slug });
  await store.db.pool.query(
    `INSERT INTO events (id, organization_id, source, body, headers, created_at)
     SELECT relay_uuid7(), $1, 's', convert_to('{}', 'UTF8'), '{}'::jsonb, $2::timestamptz AT TIME ZONE 'UTC'
     FROM generate_series(1, $3::int)`,
    [org.id, createdAt, count],
  );
  return asOrgId(org.id);
}

async function collect(lines: AsyncIterable<string>): Promise<{ id: string }[]> {
  const out: { id: string }[] = [];
  for await (const line of lines) out.push(JSON.parse(line) as { id: string });
  return out;
}

describe('organization offboarding service', () => {
  it('exports events that share a created_at across page boundaries once each, in id order', async () => {
    const orgId = await organizationWithEvents('ties', 7, new Date('2026-05-01T00:00:00Z'));
    const service = createOffboardingService({
      sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
      repositories: store.repositories(),
      reads: store.reads(),
      exportPageSize: 2,
    });
    const lines = await collect(await service.exportEvents(operator, orgId));
    const { rows } = await store.db.pool.query<{ id: string }>(
      `SELECT id FROM events WHERE organization_id = $1 ORDER BY id`,
      [orgId],
    );
    expect(lines.map((l) => l.id)).toEqual(rows.map((r) => r.id));
  });

  it('finishes a deletion cut short when it is called again', async () => {
    const orgId = await organizationWithEvents('cut-short', 5, new Date());
    const repositories = store.repositories();
    // The process dies after the events went, before the last transaction.
    const crashing: Repositories = {
      ...repositories,
      offboarding: {
        ...repositories.offboarding,
        finishDeletion: () => Promise.reject(new Error('killed')),
      },
    };
    await expect(
      createOffboardingService({
        sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
        repositories: crashing,
        reads: store.reads(),
        deleteBatchSize: 2,
      }).deleteOrganization(operator, orgId),
    ).rejects.toThrow('killed');
    const org = await store.db.prisma.organization.findUnique({ where: { id: orgId } });
    expect(org?.subscriptionStatus).toBe('canceled');
    expect(await store.db.prisma.event.count({ where: { organizationId: orgId } })).toBe(0);

    await createOffboardingService({
      sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
      repositories,
      reads: store.reads(),
    }).deleteOrganization(operator, orgId);
    expect(await store.db.prisma.organization.count({ where: { id: orgId } })).toBe(0);
    expect((await store.auditOf(orgId)).map((e) => e.action)).toEqual([
      'organization.deletion_started',
      'organization.deletion_started',
      'organization.deleted',
    ]);
  });

  it('keeps the organization when its audit entry cannot be written (one transaction)', async () => {
    const orgId = await organizationWithEvents('atomic', 1, new Date());
    const service = createOffboardingService({
      sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
      repositories: store.repositories(),
      reads: store.reads(),
    });
    // actor_user_id is a uuid column: this operator's entry fails, and the start with it.
    await expect(service.deleteOrganization({ ...operator, id: 'not-a-uuid' }, orgId)).rejects.toThrow();
    const org = await store.db.prisma.organization.findUnique({ where: { id: orgId } });
    expect(org?.subscriptionStatus).toBe('active');
    expect(await store.db.prisma.event.count({ where: { organizationId: orgId } })).toBe(1);
  });
});
