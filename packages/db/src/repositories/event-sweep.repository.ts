import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';
import { NOT_BLOCKED } from './event-ordering.sql';

export interface QueuedEventRef {
  id: string;
  organizationId: OrgId;
  /** The event's rule (null: the default target): it picks the event's queue shard. */
  ruleId: string | null;
  nextAttemptAt: Date | null;
}

interface RefRow {
  id: string;
  organization_id: string;
  rule_id: string | null;
  next_attempt_at: Date | null;
}

// Queued events the sweeper may give a job: not those waiting behind an older event of their ordering
// key (rule option `ordering`). Such an event has no job on purpose (it is enqueued when its key's head
// finishes), so re-enqueuing it would only run a job that waits again. $1 is the page size, $2 the id
// to page after (or null), $3 (findOverdue) the time before which a next attempt is overdue.
const queuedPage = (extra: string) => `
SELECT e.id, e.organization_id, e.provider_id AS rule_id, e.next_attempt_at FROM events e
WHERE e.status = 'queued' ${extra} AND ($2::uuid IS NULL OR e.id > $2::uuid) AND ${NOT_BLOCKED('e')}
ORDER BY e.id LIMIT $1`;
const FIND_OVERDUE = queuedPage(`AND e.next_attempt_at < ($3::timestamptz AT TIME ZONE 'UTC')`);
const FIND_QUEUED_PAGE = queuedPage('');

// Queued events minus the waiting ones, counted from event_ordering (small: unfinished ordered events
// only), so the plain count stays the cheap one it was.
const COUNT_QUEUED = `
SELECT (SELECT count(*) FROM events WHERE status = 'queued')
  - (SELECT count(*) FROM event_ordering o JOIN events e ON e.id = o.event_id AND e.status = 'queued'
     WHERE NOT ${NOT_BLOCKED('e')}) AS n`;

// The sweeper is the one reader that works across organizations: it only sees ids and times,
// never payloads, and hands each id back to the queue with its organization.
export function createEventSweepRepository(prisma: DbClient) {
  const toRef = (row: RefRow): QueuedEventRef => ({
    id: row.id,
    organizationId: row.organization_id as OrgId,
    ruleId: row.rule_id,
    nextAttemptAt: row.next_attempt_at,
  });
  return {
    /** Queued events that should have been attempted before `dueBefore`, oldest first. */
    async findOverdue(dueBefore: Date, limit: number, afterId?: string): Promise<QueuedEventRef[]> {
      const rows = await prisma.$queryRawUnsafe<RefRow[]>(
        FIND_OVERDUE,
        limit,
        afterId ?? null,
        dueBefore.toISOString(),
      );
      return rows.map(toRef);
    },

    /** How many events wait for delivery (but not behind an older event of their key), across organizations. */
    async countQueued(): Promise<number> {
      const rows = await prisma.$queryRawUnsafe<{ n: bigint }[]>(COUNT_QUEUED);
      return Number(rows[0]?.n ?? 0);
    },

    /** Every queued event (but those waiting for their key), paged by id: used after Redis lost its data. */
    async findQueuedPage(limit: number, afterId?: string): Promise<QueuedEventRef[]> {
      const rows = await prisma.$queryRawUnsafe<RefRow[]>(FIND_QUEUED_PAGE, limit, afterId ?? null);
      return rows.map(toRef);
    },
  };
}

export type EventSweepRepository = ReturnType<typeof createEventSweepRepository>;
