import {
  OPT_IN_HEADERS,
  firstFreeName,
  type DedupOption,
  type DeliveryPolicyOption,
  type OptInHeader,
  type OrderingOption,
  type OrgId,
  type OutboundHeaders,
  type RateLimitOption,
  type RuleHealthState,
  type UnhealthyReason,
  type VerificationOption,
} from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';
import { DbNull } from '../generated/prisma/internal/prismaNamespace';

export interface RuleRecord {
  id: string;
  organizationId: OrgId;
  /** Unique in the organization. */
  name: string;
  source: string;
  targetUrl: string;
  active: boolean;
  description: string | null;
  /** Sealed (see secret-box in core); the service seals and the worker opens. */
  signingSecret: string | null;
  /** Keyed hash of the signing secret (core secret-hash.ts): apply compares through it. Null: none kept. */
  signingSecretHash: string | null;
  /** The secret being rotated out, sealed; it still signs until previousSecretExpiresAt. */
  previousSigningSecret: string | null;
  previousSecretExpiresAt: Date | null;
  outboundHeaders: OutboundHeaders;
  /** Rule options (issue 18): null = off; the JSON is written only through the validated API schemas. */
  dedup: DedupOption | null;
  verification: VerificationOption | null;
  /** Sealed; the previous one is accepted too until previousVerificationExpiresAt. */
  verificationSecret: string | null;
  verificationSecretHash: string | null;
  previousVerificationSecret: string | null;
  previousVerificationExpiresAt: Date | null;
  duplicateCount: number;
  signatureFailureCount: number;
  lastSignatureFailureAt: Date | null;
  health: RuleHealthState;
  unhealthyReason: UnhealthyReason | null;
  unhealthySince: Date | null;
  failingSince: Date | null;
  unhealthyAfterSeconds: number | null;
  ordering: OrderingOption | null;
  deliveryPolicy: DeliveryPolicyOption | null;
  /** Routing filter (docs/routing.md), as saved through the API's checked schema; null: every webhook goes. */
  filter: Record<string, unknown> | null;
  /** The primary's transform (docs/transformations.md): JavaScript, compiled at save; null: none. */
  transform: string | null;
  /** Whether the transform's returned path and query are appended to the target URL. */
  forwardPathQuery: boolean;
  /** Pacing (docs/rules.md "Pacing"); null: off. */
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewRule {
  /** Unique in the organization; when left out, the source (suffixed -2, -3, ... when taken). */
  name?: string;
  source: string;
  targetUrl: string;
  active?: boolean;
  description?: string | null;
  signingSecret?: string | null;
  signingSecretHash?: string | null;
  previousSigningSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
  outboundHeaders?: OutboundHeaders;
  dedup?: DedupOption | null;
  verification?: VerificationOption | null;
  verificationSecret?: string | null;
  verificationSecretHash?: string | null;
  previousVerificationSecret?: string | null;
  previousVerificationExpiresAt?: Date | null;
  unhealthyAfterSeconds?: number | null;
  ordering?: OrderingOption | null;
  deliveryPolicy?: DeliveryPolicyOption | null;
  filter?: Record<string, unknown> | null;
  transform?: string | null;
  forwardPathQuery?: boolean;
  rateLimit?: RateLimitOption | null;
  maxConcurrency?: number | null;
}

export type RuleChanges = Partial<NewRule>;

export interface SourceKey {
  orgId: OrgId;
  source: string;
}

/** A write refused: two active rules for one source, a name taken, or no such rule. */
export type RuleWrite =
  | { ok: true; rule: RuleRecord }
  | { ok: false; conflict: 'active_provider_exists' }
  | { ok: false; conflict: 'rule_name_taken' }
  | { ok: false; conflict: 'not_found' };

type Tx = TransactionClient;

type JsonOptions =
  'outboundHeaders' | 'dedup' | 'verification' | 'ordering' | 'deliveryPolicy' | 'filter' | 'rateLimit';
type Row = Omit<
  RuleRecord,
  'organizationId' | JsonOptions | 'duplicateCount' | 'signatureFailureCount' | 'unhealthyReason'
> & {
  organizationId: string;
  outboundHeaders: unknown;
  dedup: unknown;
  verification: unknown;
  ordering: unknown;
  deliveryPolicy: unknown;
  filter: unknown;
  rateLimit: unknown;
  duplicateCount: bigint;
  signatureFailureCount: bigint;
  unhealthyReason: string | null;
};

// The column is JSON: only the known opt-in names are read back, whatever a row holds.
export function outboundOf(value: unknown): OutboundHeaders {
  const v = (value ?? {}) as { forward?: unknown; set?: unknown; remove?: unknown };
  const out: OutboundHeaders = {};
  if (Array.isArray(v.forward))
    out.forward = v.forward.filter((h): h is OptInHeader => (OPT_IN_HEADERS as readonly unknown[]).includes(h));
  if (v.set && typeof v.set === 'object' && !Array.isArray(v.set)) {
    out.set = Object.fromEntries(Object.entries(v.set).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
  if (Array.isArray(v.remove)) out.remove = v.remove.filter((h): h is string => typeof h === 'string');
  return out;
}

// The option columns are written only from the API's validated schemas, so they are read as such.
const optionOf = <T>(value: unknown): T | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;

export const toRuleRecord = (row: Row): RuleRecord => ({
  ...row,
  organizationId: row.organizationId as OrgId,
  outboundHeaders: outboundOf(row.outboundHeaders),
  dedup: optionOf<DedupOption>(row.dedup),
  verification: optionOf<VerificationOption>(row.verification),
  ordering: optionOf<OrderingOption>(row.ordering),
  deliveryPolicy: optionOf<DeliveryPolicyOption>(row.deliveryPolicy),
  filter: optionOf<Record<string, unknown>>(row.filter),
  rateLimit: optionOf<RateLimitOption>(row.rateLimit),
  duplicateCount: Number(row.duplicateCount),
  signatureFailureCount: Number(row.signatureFailureCount),
  unhealthyReason: row.unhealthyReason as UnhealthyReason | null,
});
const toRecord = toRuleRecord;

// JSON options: null clears the column (Prisma's DbNull), an object is written as given.
const jsonOf = (value: object | null | undefined) =>
  value === undefined ? undefined : value === null ? DbNull : { ...value };

function toData<T extends RuleChanges>({
  outboundHeaders,
  dedup,
  verification,
  ordering,
  deliveryPolicy,
  filter,
  rateLimit,
  ...rest
}: T) {
  const json = { dedup, verification, ordering, deliveryPolicy, filter, rateLimit };
  return {
    ...rest,
    ...(outboundHeaders !== undefined ? { outboundHeaders: { ...outboundHeaders } } : {}),
    ...Object.fromEntries(
      Object.entries(json)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, jsonOf(v)]),
    ),
  };
}

// At most one active rule per (organization, source). Prisma's schema cannot declare the
// partial unique index that would say so, so writes that may activate a rule serialize on a
// transaction-scoped advisory lock for that pair, then check.
async function activeConflict(tx: Tx, orgId: OrgId, source: string, exceptId: string | null): Promise<boolean> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`rule:${orgId}:${source}`}))`;
  const other = await tx.rule.findFirst({
    where: { organizationId: orgId, source, active: true, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  return other !== null;
}

// Names are unique per organization (a unique index says so); writes that name a rule serialize on the
// organization's lock, so a default name is picked from what is really taken and a clash is an answer, not a 500.
async function namesTaken(tx: Tx, orgId: OrgId, exceptId: string | null): Promise<Set<string>> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`rule-name:${orgId}`}))`;
  const rows = await tx.rule.findMany({
    where: { organizationId: orgId, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { name: true },
  });
  return new Set(rows.map((r) => r.name));
}

const SECRET_COLUMNS = [
  'signingSecret',
  'previousSigningSecret',
  'verificationSecret',
  'previousVerificationSecret',
] as const;
type SecretColumn = (typeof SECRET_COLUMNS)[number];

export function createRuleRepository(prisma: DbClient) {
  return {
    async create(orgId: OrgId, data: NewRule): Promise<RuleWrite> {
      return atomically(prisma, async (tx) => {
        if ((data.active ?? true) && (await activeConflict(tx, orgId, data.source, null)))
          return { ok: false, conflict: 'active_provider_exists' } as const;
        const taken = await namesTaken(tx, orgId, null);
        if (data.name !== undefined && taken.has(data.name)) return { ok: false, conflict: 'rule_name_taken' } as const;
        const name = data.name ?? firstFreeName(data.source, taken);
        return {
          ok: true,
          rule: toRecord(await tx.rule.create({ data: { ...toData(data), name, organizationId: orgId } })),
        } as const;
      });
    },

    async update(orgId: OrgId, id: string, changes: RuleChanges): Promise<RuleWrite> {
      return atomically(prisma, async (tx) => {
        const current = await tx.rule.findFirst({ where: { id, organizationId: orgId } });
        if (!current) return { ok: false, conflict: 'not_found' } as const;
        const source = changes.source ?? current.source;
        const active = changes.active ?? current.active;
        if (active && (await activeConflict(tx, orgId, source, id)))
          return { ok: false, conflict: 'active_provider_exists' } as const;
        if (changes.name !== undefined && (await namesTaken(tx, orgId, id)).has(changes.name))
          return { ok: false, conflict: 'rule_name_taken' } as const;
        return {
          ok: true,
          rule: toRecord(await tx.rule.update({ where: { id }, data: toData(changes) })),
        } as const;
      });
    },

    async delete(orgId: OrgId, id: string): Promise<RuleRecord | null> {
      const found = await prisma.rule.findFirst({ where: { id, organizationId: orgId } });
      if (!found) return null;
      await prisma.rule.deleteMany({ where: { id, organizationId: orgId } });
      return toRecord(found);
    },

    async list(orgId: OrgId): Promise<RuleRecord[]> {
      return (
        await prisma.rule.findMany({
          where: { organizationId: orgId },
          orderBy: [{ source: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
        })
      ).map(toRecord);
    },

    /** The rule that owns a source (the target selection's choice: the oldest active one). */
    async findActiveBySource(orgId: OrgId, source: string): Promise<RuleRecord | null> {
      const row = await prisma.rule.findFirst({
        where: { organizationId: orgId, source, active: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return row ? toRecord(row) : null;
    },

    async findById(orgId: OrgId, id: string): Promise<RuleRecord | null> {
      const row = await prisma.rule.findFirst({ where: { id, organizationId: orgId } });
      return row ? toRecord(row) : null;
    },

    /** A webhook refused by the rule's signature verification: counted with one UPDATE, shown on the rule. */
    async recordSignatureFailure(orgId: OrgId, id: string, at: Date): Promise<void> {
      await prisma.rule.updateMany({
        where: { id, organizationId: orgId },
        data: { signatureFailureCount: { increment: 1 }, lastSignatureFailureAt: at },
      });
    },

    /**
     * Re-writes every stored secret for which `reseal` returns a new value (all organizations): used
     * at start to encrypt rows from before encryption and re-seal rows under a retired key. Each row
     * is compared-and-set, so two api processes starting together cannot overwrite a newer secret.
     */
    async resealSecrets(reseal: (stored: string) => string | undefined): Promise<number> {
      // The signing secrets and the verification secrets (inbound signatures) alike.
      const columns = SECRET_COLUMNS;
      const rows = await prisma.rule.findMany({
        where: { OR: columns.map((c) => ({ [c]: { not: null } })) },
        select: { id: true, ...Object.fromEntries(columns.map((c) => [c, true])) },
      });
      let changed = 0;
      for (const row of rows as unknown as ({ id: string } & Record<SecretColumn, string | null>)[]) {
        const next = (stored: string | null) => (stored === null ? stored : (reseal(stored) ?? stored));
        const data = Object.fromEntries(columns.map((c) => [c, next(row[c])])) as Record<SecretColumn, string | null>;
        if (columns.every((c) => data[c] === row[c])) continue;
        const { count } = await prisma.rule.updateMany({
          where: { id: row.id, ...Object.fromEntries(columns.map((c) => [c, row[c]])) },
          data,
        });
        changed += count;
      }
      return changed;
    },
  };
}

export type RuleRepository = ReturnType<typeof createRuleRepository>;
