import type { FeedAttempt, FeedDelivery, FeedMessage, FeedStatus, OrgId } from '@relay/core';
import type pg from 'pg';

// Rows as pg returns them: the feed's wire shapes with timestamps still Dates.
type AttemptRow = Omit<FeedAttempt, 'finished_at'> & { finished_at: Date };
type StatusRow = FeedStatus & { updated_at: Date };
type DeliveryRow = FeedDelivery & { updated_at: Date };

const SINCE = "($2::timestamptz AT TIME ZONE 'UTC')";

// Rebuilds the live feed from the database for a client resuming with Last-Event-ID: events
// created, attempts finished, events whose status moved and destination deliveries made or changed since
// a moment. Deletions cannot be replayed (the rows are gone). Each statement uses an (organization_id,
// <time>) index. A destination's attempts are not `attempt` messages (the live feed tells them as
// `delivery.status`), so they are left out here too.
export function createFeedReplayRepository(pool: pg.Pool) {
  return {
    async since(orgId: OrgId, since: Date, limit: number): Promise<{ messages: FeedMessage[]; truncated: boolean }> {
      const params = [orgId, since.toISOString(), limit + 1];
      const [created, attempts, statuses, deliveries] = await Promise.all([
        pool.query<{ id: string; source: string; created_at: Date }>(
          `SELECT id, source, created_at FROM events
           WHERE organization_id = $1 AND created_at >= ${SINCE} ORDER BY created_at LIMIT $3`,
          params,
        ),
        pool.query<AttemptRow>(
          `SELECT event_id, attempt_number, kind, hook_id, target_url, response_status, error, duration_ms, finished_at
           FROM delivery_attempts WHERE organization_id = $1 AND finished_at >= ${SINCE} AND kind <> 'destination'
           ORDER BY finished_at LIMIT $3`,
          params,
        ),
        pool.query<StatusRow>(
          `SELECT id, status, failure_reason, acknowledged_at IS NOT NULL AS acknowledged, updated_at
           FROM events WHERE organization_id = $1 AND updated_at >= ${SINCE} AND updated_at > created_at
           ORDER BY updated_at LIMIT $3`,
          params,
        ),
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
        ...statuses.rows.map(({ updated_at, ...data }): FeedMessage => ({
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
