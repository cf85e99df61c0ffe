import type { OrgId } from '@relay/core';
import type { Prisma } from '../database';

export interface ProviderRecord {
  id: string;
  organizationId: OrgId;
  source: string;
  targetUrl: string;
  active: boolean;
  signingSecret: string | null;
}

export interface NewProvider {
  source: string;
  targetUrl: string;
  active?: boolean;
  description?: string | null;
  signingSecret?: string | null;
}

export interface SourceKey {
  orgId: OrgId;
  source: string;
}

export function createProviderRepository(prisma: Prisma) {
  const toRecord = (row: ProviderRecord | (Omit<ProviderRecord, 'organizationId'> & { organizationId: string })) =>
    ({ ...row, organizationId: row.organizationId as OrgId }) as ProviderRecord;
  return {
    async create(orgId: OrgId, data: NewProvider): Promise<ProviderRecord> {
      return toRecord(await prisma.provider.create({ data: { ...data, organizationId: orgId } }));
    },

    async findById(orgId: OrgId, id: string): Promise<ProviderRecord | null> {
      const row = await prisma.provider.findFirst({ where: { id, organizationId: orgId } });
      return row ? toRecord(row) : null;
    },
  };
}

export type ProviderRepository = ReturnType<typeof createProviderRepository>;
