import { toStorableText, type OrgId } from '@relay/core';
import type { DbClient } from '../client';
import type { NewAttempt } from './event.repository';

/** A hook's attempt: a delivery attempt's fields, tied to the event and the hook. */
export type NewHookAttempt = Omit<NewAttempt, 'kind'> & { eventId: string; hookId: string };

export function createAttemptRepository(prisma: DbClient) {
  return {
    listForEvent(orgId: OrgId, eventId: string) {
      return prisma.deliveryAttempt.findMany({
        where: { eventId, organizationId: orgId },
        orderBy: [{ startedAt: 'asc' }, { attemptNumber: 'asc' }],
      });
    },

    /** A hook's attempt: stored with the event's history, never touching the event itself. */
    async recordHook(orgId: OrgId, attempt: NewHookAttempt): Promise<void> {
      // The hook target's text may hold bytes Postgres text cannot (NUL): stored as U+FFFD.
      const text = { responseBody: toStorableText(attempt.responseBody), error: toStorableText(attempt.error) };
      await prisma.deliveryAttempt.create({ data: { ...attempt, ...text, organizationId: orgId, kind: 'hook' } });
    },
  };
}

export type AttemptRepository = ReturnType<typeof createAttemptRepository>;
