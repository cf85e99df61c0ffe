import type { FeedAttempt, FeedDelivery, FeedMessage, FeedStatus, OrgId } from '@relay/core';
import type pg from 'pg';

// Rows as pg returns them: the feed's wire shapes with timestamps still Dates.
type AttemptRow = Omit<FeedAttempt, 'finished_at'> & { finished_at: Date };
type StatusRow = FeedStatus & { updated_at: Date };
type DeliveryRow = FeedDelivery & { updated_at: Date };

const SINCE = "($2::timestamptz AT TIME ZONE 'UTC')";

// The attempts the feed tells (a destination's are told as `delivery.status`), the first $3 since the moment over
// delivery_attempts' (organization_id, finished_at) index: the `attempt` messages, and where the delivered events'
// status changes are found.
const ATTEMPTS_SINCE = `FROM delivery_attempts a
  WHERE a.organization_id = $1 AND a.finished_at >= ${SINCE} AND a.kind <> 'destination'
  ORDER BY a.finished_at LIMIT $3`;

// `events` has no index on updated_at (an outcome's update changes no indexed column, migration
// 20261207100000_hot_outcomes), so the events whose status moved since the moment come from two places, each read
// then joined to events by primary key alone: a lookup per row (the LIMIT keeps the subquery of its own, so it is
// never planned as a join reading every partition of events, and the conditions stay outside it).
// Those still not delivered: event_open's (organization_id, updated_at) index; events adds the failure reason.
export const OPEN_CHANGED = `
SELECT o.id, o.status, e.failure_reason, o.acknowledged_at IS NOT NULL AS acknowledged, o.updated_at
FROM (
  SELECT id, status, acknowledged_at, updated_at FROM event_open
  WHERE organization_id = $1 AND updated_at >= ${SINCE} AND updated_at > created_at ORDER BY updated_at LIMIT $3
) o
CROSS JOIN LATERAL (SELECT e.failure_reason FROM events e WHERE e.id = o.id LIMIT 1) e
ORDER BY o.updated_at`;

// Those delivered: an event turns delivered only by an outcome with its attempt, stored in the same statement
// (relay_record_outcomes; a destination's deliveries never change their event's status, and the outcomes without an
// attempt are `failed` and `ignored`), so they are among the events of ATTEMPTS_SINCE, one message each. The
// delivering attempt ends before its outcome is recorded (updated_at), so every delivered change earlier than the
// last of those attempts is found: when $3 of them cut the attempts short, their messages fill the replay up to that
// point. The limit: a delivery recorded long after its attempt ended (Postgres down meanwhile) is replayed by its
// attempt's time, as that attempt's message already is (and not at all if the attempt ended before the moment).
export const DELIVERED_CHANGED = `
SELECT e.id, e.status, e.failure_reason, e.acknowledged_at IS NOT NULL AS acknowledged, e.updated_at
FROM (SELECT DISTINCT event_id FROM (SELECT a.event_id ${ATTEMPTS_SINCE}) shown) a
CROSS JOIN LATERAL (
  SELECT e.id, e.organization_id, e.status, e.failure_reason, e.acknowledged_at, e.created_at, e.updated_at
  FROM events e WHERE e.id = a.event_id LIMIT 1
) e
WHERE e.organization_id = $1 AND e.status = 'delivered' AND e.updated_at >= ${SINCE} AND e.updated_at > e.created_at
ORDER BY e.updated_at`;

// Rebuilds the live feed from the database for a client resuming with Last-Event-ID: events
// created, attempts finished, events whose status moved and destination deliveries made or changed since
// a moment. Deletions cannot be replayed (the rows are gone). Each statement walks an (organization_id, <time>)
// index: events' (organization_id, created_at), delivery_attempts' (organization_id, finished_at), event_open's
// (organization_id, updated_at) and deliveries' (organization_id, updated_at). A destination's attempts are not
// `attempt` messages (the live feed tells them as `delivery.status`), so they are left out here too.
export function createFeedReplayRepository(pool: pg.Pool) {
  return {
    async since(orgId: OrgId, since: Date, limit: number): Promise<{ messages: FeedMessage[]; truncated: boolean }> {
      const params = [orgId, since.toISOString(), limit + 1];
      const [created, attempts, open, delivered, deliveries] = await Promise.all([
        pool.query<{ id: string; source: string; created_at: Date }>(
          `SELECT id, source, created_at FROM events
           WHERE organization_id = $1 AND created_at >= ${SINCE} ORDER BY created_at LIMIT $3`,
          params,
        ),
        pool.query<AttemptRow>(
          `SELECT event_id, attempt_number, kind, hook_id, target_url, response_status, error, duration_ms, finished_at
           ${ATTEMPTS_SINCE}`,
          params,
        ),
        pool.query<StatusRow>(OPEN_CHANGED, params),
        pool.query<StatusRow>(DELIVERED_CHANGED, params),
        pool.query<DeliveryRow>(
          `SELECT event_id, id AS delivery_id, destination_id, status::text AS status, attempt_count, updated_at
           FROM deliveries WHERE organization_id = $1 AND updated_at >= ${SINCE} ORDER BY updated_at LIMIT $3`,
          params,
        ),
      ]);
      const messages: FeedMessage[] = [
        ...created.rows.map((r): FeedMessage => ({
          type: 'event.created',
          at: r.created_at.getTime(),
          data: { id: r.id, source: r.source, status: 'queued', created_at: r.created_at.toISOString() },
        })),
        ...attempts.rows.map((r): FeedMessage => ({
          type: 'attempt',
          at: r.finished_at.getTime(),
          data: { ...r, finished_at: r.finished_at.toISOString() },
        })),
        ...[...open.rows, ...delivered.rows].map(({ updated_at, ...data }): FeedMessage => ({
          type: 'event.status',
          at: updated_at.getTime(),
          data,
        })),
        ...deliveries.rows.map(({ updated_at, ...data }): FeedMessage => ({
          type: 'delivery.status',
          at: updated_at.getTime(),
          data,
        })),
      ].sort((a, b) => a.at - b.at);
      const truncated = messages.length > limit;
      return { messages: messages.slice(0, limit), truncated };
    },
  };
}

export type FeedReplayRepository = ReturnType<typeof createFeedReplayRepository>;
