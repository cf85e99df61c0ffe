import type { OrgId } from '@relay/core';
import type { Prisma } from '../database';

export function createAttemptRepository(prisma: Prisma) {
  return {
    listForEvent(orgId: OrgId, eventId: string) {
      return prisma.deliveryAttempt.findMany({
        where: { eventId, organizationId: orgId },
        orderBy: [{ startedAt: 'asc' }, { attemptNumber: 'asc' }],
      });
    },
  };
}

export type AttemptRepository = ReturnType<typeof createAttemptRepository>;
