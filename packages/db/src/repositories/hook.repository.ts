import { firstFreeName, type OrgId } from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

export interface HookRecord {
  id: string;
  ruleId: string;
  /** Unique in the rule. */
  name: string;
  targetUrl: string;
  trigger: HookTrigger;
  active: boolean;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const SELECT = {
  id: true,
  ruleId: true,
  name: true,
  targetUrl: true,
  trigger: true,
  active: true,
  description: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** A hook written, or refused because another hook of the rule has its name. */
export type HookWrite = { ok: true; hook: HookRecord } | { ok: false; conflict: 'hook_name_taken' };

export interface NewHook {
  /** Unique in the rule; when left out, the trigger (suffixed -2, -3, ... when taken). */
  name?: string;
  targetUrl: string;
  trigger: HookTrigger;
  active?: boolean;
  description?: string | null;
}

// Writes that name a hook serialize on the rule's lock, so the default name is picked from what is really taken.
async function namesTaken(tx: TransactionClient, ruleId: string, exceptId: string | null): Promise<Set<string>> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`hook-name:${ruleId}`}))`;
  const rows = await tx.hook.findMany({
    where: { ruleId, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { name: true },
  });
  return new Set(rows.map((r) => r.name));
}

// Hooks of one rule. Every statement names the organization as well as the rule, so a
// rule id from another organization finds nothing.
export function createHookRepository(prisma: DbClient) {
  return {
    list: (orgId: OrgId, ruleId: string): Promise<HookRecord[]> =>
      prisma.hook.findMany({
        where: { organizationId: orgId, ruleId },
        orderBy: { createdAt: 'asc' },
        select: SELECT,
      }),

    create: (orgId: OrgId, ruleId: string, data: NewHook): Promise<HookWrite> =>
      atomically(prisma, async (tx) => {
        const taken = await namesTaken(tx, ruleId, null);
        if (data.name !== undefined && taken.has(data.name)) return { ok: false, conflict: 'hook_name_taken' } as const;
        const name = data.name ?? firstFreeName(data.trigger, taken);
        const hook = await tx.hook.create({ data: { ...data, name, organizationId: orgId, ruleId }, select: SELECT });
        return { ok: true, hook } as const;
      }),

    /** Null when the rule has no such hook. */
    update: (
      orgId: OrgId,
      ruleId: string,
      id: string,
      data: { name?: string; targetUrl?: string; active?: boolean; description?: string | null },
    ): Promise<HookWrite | null> =>
      atomically(prisma, async (tx) => {
        if (data.name !== undefined && (await namesTaken(tx, ruleId, id)).has(data.name))
          return { ok: false, conflict: 'hook_name_taken' } as const;
        const { count } = await tx.hook.updateMany({ where: { id, organizationId: orgId, ruleId }, data });
        if (count === 0) return null;
        const hook = await tx.hook.findFirstOrThrow({ where: { id, organizationId: orgId }, select: SELECT });
        return { ok: true, hook } as const;
      }),

    async delete(orgId: OrgId, ruleId: string, id: string): Promise<boolean> {
      return (await prisma.hook.deleteMany({ where: { id, organizationId: orgId, ruleId } })).count > 0;
    },

    /** The active hooks a delivery outcome fires. */
    active: (orgId: OrgId, ruleId: string, trigger: HookTrigger): Promise<Pick<HookRecord, 'id' | 'targetUrl'>[]> =>
      prisma.hook.findMany({
        where: { organizationId: orgId, ruleId, trigger, active: true },
        select: { id: true, targetUrl: true },
      }),

    findById: (orgId: OrgId, id: string): Promise<HookRecord | null> =>
      prisma.hook.findFirst({ where: { id, organizationId: orgId }, select: SELECT }),
  };
}

export type HookRepository = ReturnType<typeof createHookRepository>;
