import type { OrgId } from '@relay/core';
import type { Prisma } from '../database';

export interface NewHookAttempt {
  eventId: string;
  hookId: string;
  attemptNumber: number;
  targetUrl: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

export function createAttemptRepository(prisma: Prisma) {
  return {
    listForEvent(orgId: OrgId, eventId: string) {
      return prisma.deliveryAttempt.findMany({
        where: { eventId, organizationId: orgId },
        orderBy: [{ startedAt: 'asc' }, { attemptNumber: 'asc' }],
      });
    },

    /** A hook's attempt: stored with the event's history, never touching the event itself. */
    async recordHook(orgId: OrgId, attempt: NewHookAttempt): Promise<void> {
      await prisma.deliveryAttempt.create({ data: { ...attempt, organizationId: orgId, kind: 'hook' } });
    },
  };
}

export type AttemptRepository = ReturnType<typeof createAttemptRepository>;
