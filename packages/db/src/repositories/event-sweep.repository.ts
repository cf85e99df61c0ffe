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
// They read event_open (the events not delivered, 20261207000000_event_open), which has every column asked for:
// the queued rows by its (status, next_attempt_at) index or its primary key, since events has no index on status
// or next_attempt_at any more (20261207100000_hot_outcomes dropped events_status_next_attempt_at_idx). NOT_BLOCKED
// needs only the row's id, and reads the events of its key's older rows by primary key.
const queuedPage = (extra: string) => `
SELECT q.id, q.organization_id, q.provider_id AS rule_id, q.next_attempt_at FROM event_open q
WHERE q.status = 'queued' ${extra} AND ($2::uuid IS NULL OR q.id > $2::uuid) AND ${NOT_BLOCKED('q')}
ORDER BY q.id LIMIT $1`;
const FIND_OVERDUE = queuedPage(`AND q.next_attempt_at < ($3::timestamptz AT TIME ZONE 'UTC')`);
const FIND_QUEUED_PAGE = queuedPage('');

// Queued events minus the waiting ones, counted from event_ordering (small: unfinished ordered events
// only), so the plain count stays the cheap one it was: event_open's queued rows, on its (status, next_attempt_at)
// index.
const COUNT_QUEUED = `
SELECT (SELECT count(*) FROM event_open WHERE status = 'queued')
  - (SELECT count(*) FROM event_ordering o JOIN events e ON e.id = o.event_id AND e.status = 'queued'
     WHERE NOT ${NOT_BLOCKED('e')}) AS n`;

/** The sweeper's statements, for the tests of their plans. */
export const SWEEP_STATEMENTS = { FIND_OVERDUE, FIND_QUEUED_PAGE, COUNT_QUEUED } as const;

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
