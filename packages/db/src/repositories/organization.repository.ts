import type { OrgId } from '@relay/core';
import type { Prisma } from '../database';

export interface OrganizationRecord {
  id: OrgId;
  slug: string;
  name: string;
}

export function createOrganizationRepository(prisma: Prisma) {
  return {
    async findById(orgId: OrgId): Promise<OrganizationRecord | null> {
      const row = await prisma.organization.findUnique({ where: { id: orgId }, select: { id: true, slug: true, name: true } });
      return row ? { ...row, id: row.id as OrgId } : null;
    },

    async create(data: { slug: string; name: string }): Promise<OrganizationRecord> {
      const row = await prisma.organization.create({ data, select: { id: true, slug: true, name: true } });
      return { ...row, id: row.id as OrgId };
    },
  };
}

export type OrganizationRepository = ReturnType<typeof createOrganizationRepository>;
