import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';

export interface OrganizationRecord {
  id: OrgId;
  slug: string;
  name: string;
}

export function createOrganizationRepository(prisma: DbClient) {
  return {
    async findById(orgId: OrgId): Promise<OrganizationRecord | null> {
      const row = await prisma.organization.findUnique({
        where: { id: orgId },
        select: { id: true, slug: true, name: true },
      });
      return row ? { ...row, id: row.id as OrgId } : null;
    },

    async create(data: { slug: string; name: string }): Promise<OrganizationRecord> {
      const row = await prisma.organization.create({ data, select: { id: true, slug: true, name: true } });
      return { ...row, id: row.id as OrgId };
    },

    /** Ingest routing by `<slug>.<canonical host>`: the organization and whether it may ingest. */
    async findBySlugForIngest(slug: string): Promise<{ id: OrgId; subscriptionStatus: string } | null> {
      const row = await prisma.organization.findUnique({
        where: { slug },
        select: { id: true, subscriptionStatus: true },
      });
      return row ? { id: row.id as OrgId, subscriptionStatus: row.subscriptionStatus } : null;
    },

    async subscriptionStatus(orgId: OrgId): Promise<string | null> {
      return (
        (await prisma.organization.findUnique({ where: { id: orgId }, select: { subscriptionStatus: true } }))
          ?.subscriptionStatus ?? null
      );
    },

    async defaultTarget(orgId: OrgId): Promise<string | null> {
      return (
        (await prisma.organization.findUnique({ where: { id: orgId }, select: { defaultTargetUrl: true } }))
          ?.defaultTargetUrl ?? null
      );
    },

    /** Sets (or with null clears) the organization's own default target. */
    async setDefaultTarget(orgId: OrgId, url: string | null): Promise<void> {
      await prisma.organization.update({ where: { id: orgId }, data: { defaultTargetUrl: url } });
    },
  };
}

export type OrganizationRepository = ReturnType<typeof createOrganizationRepository>;
