import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';

export interface DomainRecord {
  id: string;
  domain: string;
  status: 'pending' | 'active';
  verificationToken: string;
  createdAt: Date;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  lastCheckError: string | null;
}

const fields = {
  id: true,
  domain: true,
  status: true,
  verificationToken: true,
  createdAt: true,
  verifiedAt: true,
  lastCheckedAt: true,
  lastCheckError: true,
} as const;

export function createDomainRepository(prisma: DbClient) {
  return {
    list(orgId: OrgId): Promise<DomainRecord[]> {
      return prisma.customDomain.findMany({
        where: { organizationId: orgId },
        select: fields,
        orderBy: { domain: 'asc' },
      });
    },

    findById(orgId: OrgId, id: string): Promise<DomainRecord | null> {
      return prisma.customDomain.findFirst({ where: { id, organizationId: orgId }, select: fields });
    },

    /** 'taken' when any organization already has the domain (a domain belongs to one organization). */
    async create(orgId: OrgId, domain: string, verificationToken: string): Promise<DomainRecord | 'taken'> {
      try {
        return await prisma.customDomain.create({
          data: { organizationId: orgId, domain, verificationToken },
          select: fields,
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'P2002') return 'taken';
        throw err;
      }
    },

    async delete(orgId: OrgId, id: string): Promise<boolean> {
      return (await prisma.customDomain.deleteMany({ where: { id, organizationId: orgId } })).count > 0;
    },

    /** Stores a verification's result: active on success, otherwise still pending with the reason. */
    async recordCheck(orgId: OrgId, id: string, error: string | null, at: Date): Promise<DomainRecord | null> {
      const data =
        error === null
          ? { status: 'active' as const, verifiedAt: at, lastCheckedAt: at, lastCheckError: null }
          : { lastCheckedAt: at, lastCheckError: error };
      const { count } = await prisma.customDomain.updateMany({ where: { id, organizationId: orgId }, data });
      return count > 0 ? prisma.customDomain.findFirst({ where: { id, organizationId: orgId }, select: fields }) : null;
    },

    /** Ingest routing: which organization an active domain belongs to (across organizations, by design). */
    async organizationOfActive(domain: string): Promise<OrgId | null> {
      const row = await prisma.customDomain.findFirst({
        where: { domain, status: 'active' },
        select: { organizationId: true },
      });
      return (row?.organizationId as OrgId | undefined) ?? null;
    },
  };
}

export type DomainRepository = ReturnType<typeof createDomainRepository>;
