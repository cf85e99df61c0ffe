import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

export interface HookRecord {
  id: string;
  ruleId: string;
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
  targetUrl: true,
  trigger: true,
  active: true,
  description: true,
  createdAt: true,
  updatedAt: true,
} as const;

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

    create: (
      orgId: OrgId,
      ruleId: string,
      data: { targetUrl: string; trigger: HookTrigger; active?: boolean; description?: string | null },
    ): Promise<HookRecord> => prisma.hook.create({ data: { ...data, organizationId: orgId, ruleId }, select: SELECT }),

    async update(
      orgId: OrgId,
      ruleId: string,
      id: string,
      data: { targetUrl?: string; active?: boolean; description?: string | null },
    ): Promise<HookRecord | null> {
      const { count } = await prisma.hook.updateMany({ where: { id, organizationId: orgId, ruleId }, data });
      return count === 0 ? null : prisma.hook.findFirst({ where: { id, organizationId: orgId }, select: SELECT });
    },

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
