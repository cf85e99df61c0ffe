import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';

export interface QueuedEventRef {
  id: string;
  organizationId: OrgId;
  nextAttemptAt: Date | null;
}

// The sweeper is the one reader that works across organizations: it only sees ids and times,
// never payloads, and hands each id back to the queue with its organization.
export function createEventSweepRepository(prisma: DbClient) {
  const select = { id: true, organizationId: true, nextAttemptAt: true } as const;
  const toRef = (row: { id: string; organizationId: string; nextAttemptAt: Date | null }): QueuedEventRef => ({
    ...row,
    organizationId: row.organizationId as OrgId,
  });
  return {
    /** Queued events that should have been attempted before `dueBefore`, oldest first. */
    async findOverdue(dueBefore: Date, limit: number, afterId?: string): Promise<QueuedEventRef[]> {
      const rows = await prisma.event.findMany({
        where: { status: 'queued', nextAttemptAt: { lt: dueBefore }, ...(afterId ? { id: { gt: afterId } } : {}) },
        orderBy: { id: 'asc' },
        take: limit,
        select,
      });
      return rows.map(toRef);
    },

    /** How many events wait for delivery, across organizations. */
    async countQueued(): Promise<number> {
      return prisma.event.count({ where: { status: 'queued' } });
    },

    /** Every queued event, paged by id: used after the queue's Redis lost its data. */
    async findQueuedPage(limit: number, afterId?: string): Promise<QueuedEventRef[]> {
      const rows = await prisma.event.findMany({
        where: { status: 'queued', ...(afterId ? { id: { gt: afterId } } : {}) },
        orderBy: { id: 'asc' },
        take: limit,
        select,
      });
      return rows.map(toRef);
    },
  };
}

export type EventSweepRepository = ReturnType<typeof createEventSweepRepository>;
