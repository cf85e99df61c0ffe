import type { EventStatus, OrgId } from '@relay/core';
import type pg from 'pg';
import type { EventRepository, NewEvent } from './event.repository';
import { rollback, withTransaction } from '../transaction';

/** A webhook's deduplication key under one rule, and the moment (injected clock) it arrived. */
export interface DedupClaim {
  orgId: OrgId;
  ruleId: string;
  key: string;
  now: Date;
  /** How long the key is remembered from `now` (the rule's window_seconds). */
  windowSeconds: number;
}

export type DedupResult =
  /** The key was new (or its window had passed, or its event is gone): the event was stored with it. */
  | { outcome: 'stored'; ruleId: string | null }
  /** The key was seen within the window: nothing was stored; the original event and its status. */
  | { outcome: 'duplicate'; eventId: string; status: EventStatus }
  /** The rule was deleted since ingest looked it up: nothing was stored; store the webhook without a key. */
  | { outcome: 'no_rule' };

// Takes the key, or takes it over when its window has passed. The primary key (organization, rule,
// key) makes concurrent duplicates safe: a second claim waits for the first transaction and then sees
// its row, so exactly one of them stores an event. A claim that changes nothing still locks the row
// until its transaction ends. (Whether the original event still exists is asked by the next
// statement, not here: a subquery in this WHERE would read the snapshot from before the first
// transaction committed, and find no event.)
const CLAIM_KEY = `
INSERT INTO event_dedup (organization_id, provider_id, dedup_key, event_id, expires_at)
VALUES ($1, $2, $3, $4, $5::timestamptz AT TIME ZONE 'UTC')
ON CONFLICT (organization_id, provider_id, dedup_key) DO UPDATE
  SET event_id = EXCLUDED.event_id, expires_at = EXCLUDED.expires_at
  WHERE event_dedup.expires_at <= ($6::timestamptz AT TIME ZONE 'UTC')
RETURNING event_id`;

// The original event and its status (none: it was deleted), read while the claim holds the key's row.
const ORIGINAL = `
SELECT e.id, e.status FROM event_dedup d
LEFT JOIN events e ON e.id = d.event_id AND e.organization_id = d.organization_id
WHERE d.organization_id = $1 AND d.provider_id = $2 AND d.dedup_key = $3`;

// A key whose event was deleted is taken over as if its window had passed.
const TAKE_OVER = `
UPDATE event_dedup SET event_id = $4, expires_at = $5::timestamptz AT TIME ZONE 'UTC'
WHERE organization_id = $1 AND provider_id = $2 AND dedup_key = $3`;

// Counted after the key's transaction, on its own: a rule deletion locks the rule before its keys
// (cascade), so counting inside the transaction, key first, could deadlock with it.
const COUNT_DUPLICATE = `UPDATE providers SET duplicate_count = duplicate_count + 1
WHERE organization_id = $1 AND id = $2`;

const FOREIGN_KEY_VIOLATION = '23503';
// A key row that vanished between the claim and the read (it cannot while locked; a safety net) is
// claimed again.
const CLAIM_TRIES = 3;

// Idempotent ingest (rule option `dedup`): one short transaction per webhook with a key, not group
// committed. The event is inserted by the event repository's own statement, so whatever the group-
// committed path writes with an event is written here too.
export function createEventDedupRepository(pool: pg.Pool, events: Pick<EventRepository, 'insertMany'>) {
  async function attempt(claim: DedupClaim, event: NewEvent): Promise<DedupResult | undefined> {
    const expiresAt = new Date(claim.now.getTime() + claim.windowSeconds * 1_000);
    const keyOf = [claim.orgId, claim.ruleId, claim.key];
    try {
      return await withTransaction<DedupResult | undefined>(pool, async (client) => {
        const claimed = await client.query(CLAIM_KEY, [
          ...keyOf,
          event.id,
          expiresAt.toISOString(),
          claim.now.toISOString(),
        ]);
        if (claimed.rowCount !== 1) {
          const { rows } = await client.query<{ id: string | null; status: EventStatus | null }>(ORIGINAL, keyOf);
          const original = rows[0];
          if (original === undefined) return rollback(undefined);
          if (original.id !== null && original.status !== null) {
            return { outcome: 'duplicate', eventId: original.id, status: original.status };
          }
          await client.query(TAKE_OVER, [...keyOf, event.id, expiresAt.toISOString()]);
        }
        const rules = await events.insertMany([event], client);
        // The rule the insert chose for the event (its delivery job's queue shard).
        return { outcome: 'stored', ruleId: rules.get(event.id) ?? null };
      });
    } catch (err) {
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return { outcome: 'no_rule' };
      throw err;
    }
  }

  return {
    /**
     * Stores `event` unless its key was seen within the window; a duplicate stores nothing and is
     * counted on the rule (providers.duplicate_count).
     */
    async storeOnce(claim: DedupClaim, event: NewEvent): Promise<DedupResult> {
      for (let i = 0; i < CLAIM_TRIES; i++) {
        const result = await attempt(claim, event);
        if (result === undefined) continue;
        if (result.outcome === 'duplicate') await pool.query(COUNT_DUPLICATE, [claim.orgId, claim.ruleId]);
        return result;
      }
      throw new Error('deduplication: the key row kept disappearing while it was claimed');
    },
  };
}

export type EventDedupRepository = ReturnType<typeof createEventDedupRepository>;
