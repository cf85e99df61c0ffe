import { OPT_IN_HEADERS, type OptInHeader, type OrgId, type OutboundHeaders } from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';

export interface ProviderRecord {
  id: string;
  organizationId: OrgId;
  source: string;
  targetUrl: string;
  active: boolean;
  description: string | null;
  /** Sealed (see secret-box in core); the service seals and the worker opens. */
  signingSecret: string | null;
  /** The secret being rotated out, sealed; it still signs until previousSecretExpiresAt. */
  previousSigningSecret: string | null;
  previousSecretExpiresAt: Date | null;
  outboundHeaders: OutboundHeaders;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProvider {
  source: string;
  targetUrl: string;
  active?: boolean;
  description?: string | null;
  signingSecret?: string | null;
  previousSigningSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
  outboundHeaders?: OutboundHeaders;
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

type Row = Omit<ProviderRecord, 'organizationId' | 'outboundHeaders'> & {
  organizationId: string;
  outboundHeaders: unknown;
};

// The column is JSON: only the known opt-in names are read back, whatever a row holds.
function outboundOf(value: unknown): OutboundHeaders {
  const forward = (value as { forward?: unknown } | null)?.forward;
  if (!Array.isArray(forward)) return {};
  return { forward: forward.filter((h): h is OptInHeader => (OPT_IN_HEADERS as readonly unknown[]).includes(h)) };
}

const toRecord = (row: Row): ProviderRecord => ({
  ...row,
  organizationId: row.organizationId as OrgId,
  outboundHeaders: outboundOf(row.outboundHeaders),
});

function toData<T extends ProviderChanges>({ outboundHeaders, ...rest }: T) {
  return { ...rest, ...(outboundHeaders !== undefined ? { outboundHeaders: { ...outboundHeaders } } : {}) };
}

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
          provider: toRecord(await tx.provider.create({ data: { ...toData(data), organizationId: orgId } })),
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
        return {
          ok: true,
          provider: toRecord(await tx.provider.update({ where: { id }, data: toData(changes) })),
        } as const;
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

    /**
     * Re-writes every stored secret for which `reseal` returns a new value (all organizations): used
     * at start to encrypt rows from before encryption and re-seal rows under a retired key. Each row
     * is compared-and-set, so two api processes starting together cannot overwrite a newer secret.
     */
    async resealSecrets(reseal: (stored: string) => string | undefined): Promise<number> {
      const rows = await prisma.provider.findMany({
        where: { OR: [{ signingSecret: { not: null } }, { previousSigningSecret: { not: null } }] },
        select: { id: true, signingSecret: true, previousSigningSecret: true },
      });
      let changed = 0;
      for (const row of rows) {
        const next = (stored: string | null) => (stored === null ? stored : (reseal(stored) ?? stored));
        const [signingSecret, previousSigningSecret] = [next(row.signingSecret), next(row.previousSigningSecret)];
        if (signingSecret === row.signingSecret && previousSigningSecret === row.previousSigningSecret) continue;
        const { count } = await prisma.provider.updateMany({
          where: { id: row.id, signingSecret: row.signingSecret, previousSigningSecret: row.previousSigningSecret },
          data: { signingSecret, previousSigningSecret },
        });
        changed += count;
      }
      return changed;
    },
  };
}

export type ProviderRepository = ReturnType<typeof createProviderRepository>;
