import type { EventStatus, OrgId } from '@relay/core';
import type pg from 'pg';
import { BLOCKED_KEYS, IS_BLOCKED, RELEASE_ORDERING } from './event-ordering.sql';
import { withTransaction } from '../transaction';

/** The next event of a released ordering key: it may now be attempted, so it is enqueued. */
export interface OrderingHead {
  id: string;
  organizationId: OrgId;
  /** What picks its queue shard: an event head's rule, a delivery head's destination (a key never spans either). */
  shardKey: string;
  /** A delivery head's event (deliveries are partitioned by it); absent for an event head. */
  eventId?: string;
}

/** A key whose head has failed at least once: the head and what waits behind it. */
export interface BlockedKey {
  key: string;
  eventId: string;
  status: EventStatus;
  attempts: number;
  /** When the head's first failed attempt (of its current run) finished. */
  blockedSince: Date;
  waiting: number;
}

// Runs `record` (the statement recording a batch of outcomes) and releases the ordering rows of the
// finished ordered events in one transaction, so a finished event never keeps its key blocked and a
// released key is never left without its rows. Used only for batches with finished ordered events.
export async function recordAndRelease(
  pool: pg.Pool,
  record: { text: string; values: unknown[] },
  released: readonly { id: string; orgId: OrgId }[],
): Promise<OrderingHead[]> {
  return withTransaction(pool, async (client) => {
    await client.query(record.text, record.values);
    const { rows } = await client.query<{ id: string; organization_id: string; provider_id: string }>(
      RELEASE_ORDERING,
      [released.map((r) => r.id), released.map((r) => r.orgId)],
    );
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id as OrgId, shardKey: row.provider_id }));
  });
}

// The reads of ordered delivery: the worker's check before an attempt, and the API's blocked keys.
export function createEventOrderingRepository(pool: pg.Pool) {
  return {
    /** Whether the event must wait: an older event of its ordering key is still queued or paused. */
    async isBlocked(orgId: OrgId, eventId: string): Promise<boolean> {
      const { rows } = await pool.query<{ blocked: boolean }>(IS_BLOCKED, [orgId, eventId]);
      return rows[0]?.blocked ?? false;
    },

    /** The rule's keys whose head has failed at least once, oldest block first. */
    async blockedKeys(orgId: OrgId, ruleId: string, limit: number): Promise<BlockedKey[]> {
      const { rows } = await pool.query<{
        key: string;
        event_id: string;
        status: EventStatus;
        attempt_count: number;
        blocked_since: Date;
        waiting: number;
      }>(BLOCKED_KEYS, [orgId, ruleId, limit]);
      return rows.map((row) => ({
        key: row.key,
        eventId: row.event_id,
        status: row.status,
        attempts: row.attempt_count,
        blockedSince: row.blocked_since,
        waiting: row.waiting,
      }));
    },
  };
}

export type EventOrderingRepository = ReturnType<typeof createEventOrderingRepository>;
