import type { OrgId } from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';

export interface ProviderRecord {
  id: string;
  organizationId: OrgId;
  source: string;
  targetUrl: string;
  active: boolean;
  description: string | null;
  signingSecret: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProvider {
  source: string;
  targetUrl: string;
  active?: boolean;
  description?: string | null;
  signingSecret?: string | null;
}

export type ProviderChanges = Partial<NewProvider>;

export interface SourceKey {
  orgId: OrgId;
  source: string;
}

/** A write that would leave two active providers for one source. */
export type ProviderWrite =
  | { ok: true; provider: ProviderRecord }
  | { ok: false; conflict: 'active_provider_exists' }
  | { ok: false; conflict: 'not_found' };

type Tx = TransactionClient;

const toRecord = (row: Omit<ProviderRecord, 'organizationId'> & { organizationId: string }) => ({
  ...row,
  organizationId: row.organizationId as OrgId,
});

// At most one active provider per (organization, source). Prisma's schema cannot declare the
// partial unique index that would say so, so writes that may activate a provider serialize on a
// transaction-scoped advisory lock for that pair, then check.
async function activeConflict(tx: Tx, orgId: OrgId, source: string, exceptId: string | null): Promise<boolean> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`provider:${orgId}:${source}`}))`;
  const other = await tx.provider.findFirst({
    where: { organizationId: orgId, source, active: true, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  return other !== null;
}

export function createProviderRepository(prisma: DbClient) {
  return {
    async create(orgId: OrgId, data: NewProvider): Promise<ProviderWrite> {
      return atomically(prisma, async (tx) => {
        if ((data.active ?? true) && (await activeConflict(tx, orgId, data.source, null)))
          return { ok: false, conflict: 'active_provider_exists' } as const;
        return {
          ok: true,
          provider: toRecord(await tx.provider.create({ data: { ...data, organizationId: orgId } })),
        } as const;
      });
    },

    async update(orgId: OrgId, id: string, changes: ProviderChanges): Promise<ProviderWrite> {
      return atomically(prisma, async (tx) => {
        const current = await tx.provider.findFirst({ where: { id, organizationId: orgId } });
        if (!current) return { ok: false, conflict: 'not_found' } as const;
        const source = changes.source ?? current.source;
        const active = changes.active ?? current.active;
        if (active && (await activeConflict(tx, orgId, source, id)))
          return { ok: false, conflict: 'active_provider_exists' } as const;
        return { ok: true, provider: toRecord(await tx.provider.update({ where: { id }, data: changes })) } as const;
      });
    },

    async delete(orgId: OrgId, id: string): Promise<ProviderRecord | null> {
      const found = await prisma.provider.findFirst({ where: { id, organizationId: orgId } });
      if (!found) return null;
      await prisma.provider.deleteMany({ where: { id, organizationId: orgId } });
      return toRecord(found);
    },

    async list(orgId: OrgId): Promise<ProviderRecord[]> {
      return (
        await prisma.provider.findMany({
          where: { organizationId: orgId },
          orderBy: [{ source: 'asc' }, { createdAt: 'asc' }],
        })
      ).map(toRecord);
    },

    async findById(orgId: OrgId, id: string): Promise<ProviderRecord | null> {
      const row = await prisma.provider.findFirst({ where: { id, organizationId: orgId } });
      return row ? toRecord(row) : null;
    },
  };
}

export type ProviderRepository = ReturnType<typeof createProviderRepository>;
